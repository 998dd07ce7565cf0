/**
 * Secrets in a GraphQL schema, wherever they sit: input members at any depth and inputs of a
 * secret-named custom scalar are reported (`Type.member`, what `withhold` takes), and a default
 * selection never fetches a secret-looking output field, which `returns` can still ask for.
 * A schema written for these shapes, not copied from any API.
 */
import { describe, expect, it } from "vitest";
import { buildSchema, parse, validate } from "graphql";
import { definePack, type GraphQLBinding } from "@sluice/core";
import { buildGraphQLPackIR, graphqlRuntimeFacts } from "../src/index.ts";

const SDL = `
scalar SecureValue
type Query {
  vault(id: ID!): Vault
  vaults(first: Int, after: String): VaultConnection!
}
type Mutation {
  chargeCard(input: ChargeInput!): ChargePayload
  rotate(vaultId: ID!, pin: SecureValue): Vault
}
input ChargeInput { amount: Int! card: CardDetailsInput! owner: OwnerInput }
input CardDetailsInput { number: String! cvv: String! expiry: String hasSecret: Boolean }
input OwnerInput { email: String! newPassword: String recovery: SecureValue }
type ChargePayload { ok: Boolean! accessToken: String vault: Vault }
type Vault { id: ID! name: String! apiKey: String! isSecret: Boolean! sealedWith: SecureValue }
type VaultConnection { nodes: [Vault!]! pageInfo: PageInfo! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
`;

const schema = buildSchema(SDL);
const ir = buildGraphQLPackIR(schema, { name: "vaulty", file: "v.graphql", sha256: "0".repeat(64) });
const pack = definePack(ir);
const tool = (name: string) => pack.tools.find((t) => t.name === name)!;
const documentOf = (name: string) => (tool(name).binding as GraphQLBinding).document;

describe("secrets in GraphQL inputs", () => {
  it("reports nested members and secret-typed inputs by the selector that withholds them, once per tool", () => {
    const facts = graphqlRuntimeFacts(ir);
    expect(facts.secretLooking).toEqual([
      { tool: "charge_card", argument: "CardDetailsInput.cvv" },
      { tool: "charge_card", argument: "OwnerInput.newPassword" },
      { tool: "charge_card", argument: "OwnerInput.recovery" },
      { tool: "rotate", argument: "pin" },
    ]);
  });

  it("config can withhold each of them", async () => {
    const withheldIR = buildGraphQLPackIR(schema, { name: "vaulty", file: "v.graphql", sha256: "0".repeat(64) }, { withhold: { "OwnerInput.newPassword": "internal", "OwnerInput.recovery": "internal", "Mutation.rotate.pin": "internal" } });
    expect(graphqlRuntimeFacts(withheldIR).secretLooking.map((s) => s.argument)).toEqual(["CardDetailsInput.cvv"]);
    const withheld = definePack(withheldIR);
    const charge = withheld.tools.find((t) => t.name === "charge_card")!;
    const call = { input: { amount: 1, card: { number: "4", cvv: "1" }, owner: { email: "a@b.c", newPassword: "x" } } };
    await expect(charge.request(call, { baseUrl: "http://127.0.0.1:9/graphql", credentials: (() => ({ token: "t" })) as never })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});

describe("secrets in GraphQL outputs", () => {
  it("default selections leave secret-looking scalars out (not a Boolean that only says whether), and stay valid", () => {
    expect(documentOf("vault")).not.toMatch(/apiKey|sealedWith/);
    expect(documentOf("vault")).toMatch(/isSecret/);
    expect(documentOf("charge_card")).not.toMatch(/accessToken|apiKey/);
    for (const t of pack.tools) expect(validate(schema, parse((t.binding as GraphQLBinding).document))).toEqual([]);
    expect((tool("vaults_list").binding as GraphQLBinding).secretOutputs).toEqual(["nodes.apiKey", "nodes.sealedWith"]);
    expect(ir.notices).toEqual([expect.stringMatching(/^SECRET_OUTPUT_LEFT_OUT: \d+ secret-looking response fields \(accessToken, apiKey, sealedWith\).*returns/)]);
  });

  it("returns can name one to fetch it, and keeps the ids of the nodes it narrows", () => {
    const narrowed = tool("vaults_list").derived({ returns: ["nodes.name", "nodes.apiKey"] });
    const document = (narrowed.binding as GraphQLBinding).document;
    expect(document).toMatch(/apiKey/);
    expect(document).not.toMatch(/sealedWith/);
    // `id` was not named, but the next call needs it: it stays, as pageInfo does.
    expect(document).toMatch(/nodes \{\s+id\s+name\s+apiKey/);
    expect(document).toMatch(/pageInfo/);
    expect(validate(schema, parse(document))).toEqual([]);
    expect((narrowed.binding as GraphQLBinding).secretOutputs).toEqual(["nodes.sealedWith"]);
    expect(() => tool("vault").derived({ returns: ["password"] })).toThrow(expect.objectContaining({ code: "UNKNOWN_SELECTOR" }));
  });
});
