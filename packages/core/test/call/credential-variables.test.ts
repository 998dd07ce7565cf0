/**
 * The fill of GraphQL credential variables and members (call/credential-variables.ts): the
 * credential lands where the binding says, in every value of a member's type (lists and
 * recursive inputs included), in a copy of the arguments, and replaces what was there.
 */
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import type { GraphQLBinding, JsonSchemaObject } from "@sluice/core";
import { withCredentialVariables } from "../../src/call/credential-variables.ts";

const inputSchema: JsonSchemaObject = {
  type: "object",
  properties: { filter: { $ref: "#/$defs/OrderFilter" }, owners: { type: "array", items: { $ref: "#/$defs/Owner_2" } } },
  $defs: {
    OrderFilter: { type: "object", properties: { and: { type: "array", items: { $ref: "#/$defs/OrderFilter" } }, owner: { $ref: "#/$defs/Owner_2" } } },
    // A split copy (a projection went through it): found by its origin's name.
    Owner_2: { type: "object", properties: { email: { type: "string" } } },
  },
};
const tool = { name: "orders", inputSchema, definitionOrigins: new Map([["Owner_2", "OwnerInput"]]) };
const binding: GraphQLBinding = {
  kind: "graphql",
  operationType: "query",
  field: "orders",
  document: "query Orders($session: String!, $filter: OrderFilter, $owners: [OwnerInput!]) { orders(session: $session, filter: $filter, owners: $owners) { id } }",
  variables: { session: "String!", filter: "OrderFilter", owners: "[OwnerInput!]" },
  credentialVariables: { session: "s" },
  credentialMembers: { "OwnerInput.token": { scheme: "s", required: true } },
};

describe("withCredentialVariables", () => {
  it("fills the variable and every value of the member's type, at any depth, in a copy", async () => {
    const variables = { filter: { and: [{ owner: { email: "a" } }, { and: [{ owner: {} }] }] }, owners: [{ email: "b" }, { email: "c", token: "model" }] };
    const before = JSON.stringify(variables);
    const filled = await withCredentialVariables(tool, binding, variables, { s: { token: "T" } });
    expect(filled).toEqual({
      filter: { and: [{ owner: { email: "a", token: "T" } }, { and: [{ owner: { token: "T" } }] }] },
      owners: [{ email: "b", token: "T" }, { email: "c", token: "T" }],
      session: "T",
    });
    expect(JSON.stringify(variables)).toBe(before);
  });

  it("asks a credential function once per scheme, as a bearer scheme", async () => {
    const asked: string[] = [];
    await withCredentialVariables(tool, binding, { owners: [{}, {}] }, (scheme, name) => {
      asked.push(`${name}:${scheme.scheme}:${scheme.type}`);
      return { token: "T" };
    });
    expect(asked).toEqual(["orders:s:bearer"]);
  });

  it("a required variable or member without a credential is AUTH_MISSING naming the scheme", async () => {
    await expect(withCredentialVariables(tool, binding, {}, {})).rejects.toMatchObject({ code: "AUTH_MISSING", schemes: ["s"] });
    const optional: GraphQLBinding = { ...binding, variables: { ...binding.variables, session: "String" } };
    expect(await withCredentialVariables(tool, optional, { filter: {} }, undefined)).toEqual({ filter: {} });
    await expect(withCredentialVariables(tool, optional, { owners: [{}] }, undefined)).rejects.toMatchObject({ code: "AUTH_MISSING", message: expect.stringMatching(/OwnerInput\.token/) });
  });

  it("replaces a value already there; without the guard a value already there stays (the naive fill)", async () => {
    const optional: GraphQLBinding = { ...binding, variables: { ...binding.variables, session: "String" }, credentialMembers: { "OwnerInput.token": { scheme: "s", required: false } } };
    const given = { session: "model", owners: [{ token: "model" }] };
    expect(await withCredentialVariables(tool, optional, given, { s: { token: "T" } })).toEqual({ session: "T", owners: [{ token: "T" }] });
    expect(await withCredentialVariables(tool, optional, given, {})).toEqual({ owners: [{}] });
    expect(await withoutGuard("credentialVariables", () => withCredentialVariables(tool, optional, given, { s: { token: "T" } }))).toEqual(given);
  });
});
