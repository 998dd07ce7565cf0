/**
 * The generator's side of `credentialArguments` and `withhold` for GraphQL packs: what each
 * selector form names, what the tool IR and the operation document become, and the coded
 * errors for selectors that name nothing. Calls against a server: test/graphql-credential-arguments.test.ts.
 */
import { describe, expect, it } from "vitest";
import { definePack, egressMap, formatEgressMap, type GraphQLBinding, type ToolIR } from "@sluice/core";
import { buildGraphQLPackIR, graphqlRuntimeFacts, loadGraphQLSchema, type BuildGraphQLOptions } from "../src/index.ts";

const SDL = `
schema { query: QueryRoot mutation: Mutation }
type QueryRoot {
  session(sessionToken: String!, locale: String): Session
  orders(sessionToken: String!, filter: OrderFilter, first: Int): [Order!]!
  ping(note: String): String
}
type Mutation {
  login(input: LoginInput!): Session
  orderCreate(sessionToken: String!, order: OrderInput!, note: String): Order
}
type Session { id: ID! }
type Order { id: ID! }
input LoginInput { email: String! password: String! device: DeviceInput }
input DeviceInput { name: String apiKey: String! }
input OrderFilter { status: String and: [OrderFilter!] owner: OwnerInput }
input OwnerInput { sessionToken: String email: String }
input OrderInput { lines: [String!]! owner: OwnerInput }
`;

const schema = loadGraphQLSchema(SDL);
const build = (options: BuildGraphQLOptions) => buildGraphQLPackIR(schema, { name: "acme", file: "acme.graphql", sha256: "0".repeat(64) }, options);
const toolOf = (tools: readonly ToolIR[], name: string) => tools.find((t) => t.name === name)!;
const bindingOf = (tools: readonly ToolIR[], name: string) => toolOf(tools, name).binding as GraphQLBinding;

describe("credentialArguments", () => {
  const ir = build({ credentialArguments: { sessionToken: "session", "OwnerInput.sessionToken": "session", "DeviceInput.apiKey": "device" } });

  it("an argument name: withheld in every tool, still declared and passed by the document", () => {
    for (const name of ["session", "orders", "order_create"]) {
      const tool = toolOf(ir.tools, name);
      expect(Object.keys(tool.parameters.properties)).not.toContain("sessionToken");
      expect(tool.parameters.required).not.toContain("sessionToken");
      expect(tool.withheld).toContainEqual({ path: "sessionToken", reason: "credential" });
      expect(bindingOf(ir.tools, name).credentialVariables).toEqual({ sessionToken: "session" });
      expect(bindingOf(ir.tools, name).variables["sessionToken"]).toBe("String!");
    }
    expect(bindingOf(ir.tools, "session").document).toBe("query Session($sessionToken: String!, $locale: String) {\n  session(sessionToken: $sessionToken, locale: $locale) {\n    id\n  }\n}");
  });

  it("a type member: withheld wherever the type is reached (through a cycle, in every tool), filled there", () => {
    expect(ir.withheldMembers).toEqual({
      DeviceInput: [{ path: "DeviceInput.apiKey", reason: "credential" }],
      OwnerInput: [{ path: "OwnerInput.sessionToken", reason: "credential" }],
    });
    expect(Object.keys(ir.defs["OwnerInput"]!.properties as object)).toEqual(["email"]);
    // DeviceInput requires apiKey; withheld as a credential, the schema no longer asks the model for it.
    expect(ir.defs["DeviceInput"]).toEqual({ type: "object", properties: { name: { type: "string" } } });
    expect(bindingOf(ir.tools, "orders").credentialMembers).toEqual({ "OwnerInput.sessionToken": { scheme: "session", required: false } });
    expect(bindingOf(ir.tools, "order_create").credentialMembers).toEqual({ "OwnerInput.sessionToken": { scheme: "session", required: false } });
    expect(bindingOf(ir.tools, "login").credentialMembers).toEqual({ "DeviceInput.apiKey": { scheme: "device", required: true } });
    expect(bindingOf(ir.tools, "ping").credentialMembers).toBeUndefined();
    const tools = definePack({ name: "acme", defs: ir.defs, withheldMembers: ir.withheldMembers ?? {}, tools: ir.tools }).tools;
    const map = formatEgressMap(egressMap(tools.filter((t) => t.name === "orders")));
    expect(map.split("\n").filter((line) => line.startsWith("  -"))).toEqual(["  - OwnerInput.sessionToken: credential", "  - sessionToken: credential"]);
  });

  it("runtime facts: one variable per scheme of its own, outside the header authentication", () => {
    const facts = graphqlRuntimeFacts(ir);
    expect(facts.credentials).toEqual([
      { scheme: "token", type: "bearer", env: "ACME_TOKEN" },
      { scheme: "device", type: "bearer", env: "ACME_DEVICE", argumentOnly: true },
      { scheme: "session", type: "bearer", env: "ACME_SESSION", argumentOnly: true },
    ]);
    expect(facts.credentialArguments).toEqual({ "DeviceInput.apiKey": "device", "OwnerInput.sessionToken": "session", sessionToken: "session" });
    // The pack's own token as the scheme: no new variable.
    expect(graphqlRuntimeFacts(build({ credentialArguments: { sessionToken: "token" } })).credentials).toEqual([{ scheme: "token", type: "bearer", env: "ACME_TOKEN" }]);
  });

  it("one operation's argument, by Query./Mutation. or the schema's root type name; it wins over a bare name", () => {
    const one = build({ credentialArguments: { "Query.orders.sessionToken": "session" } });
    expect(bindingOf(one.tools, "orders").credentialVariables).toEqual({ sessionToken: "session" });
    expect(bindingOf(one.tools, "session").credentialVariables).toBeUndefined();
    expect(Object.keys(toolOf(one.tools, "session").parameters.properties)).toContain("sessionToken");
    const aliased = build({ credentialArguments: { "QueryRoot.orders.sessionToken": "session" } });
    expect(JSON.stringify(aliased.tools)).toBe(JSON.stringify(one.tools));
    const both = build({ credentialArguments: { sessionToken: "session", "Mutation.orderCreate.sessionToken": "token" } });
    expect(bindingOf(both.tools, "order_create").credentialVariables).toEqual({ sessionToken: "token" });
    expect(bindingOf(both.tools, "session").credentialVariables).toEqual({ sessionToken: "session" });
  });
});

describe("withhold", () => {
  it("drops an optional argument and its variable like a projection, and members by type", () => {
    const ir = build({ withhold: { note: "internal", "OrderFilter.and": "projection", "Query.session.locale": "deprecated" } });
    expect(bindingOf(ir.tools, "order_create").document).toMatch(/^mutation OrderCreate\(\$sessionToken: String!, \$order: OrderInput!\) \{\n {2}orderCreate\(sessionToken: \$sessionToken, order: \$order\) \{/);
    expect(bindingOf(ir.tools, "order_create").variables).toEqual({ sessionToken: "String!", order: "OrderInput!" });
    expect(toolOf(ir.tools, "order_create").withheld).toEqual([{ path: "note", reason: "internal" }]);
    expect(toolOf(ir.tools, "session").withheld).toEqual([{ path: "locale", reason: "deprecated" }]);
    expect(bindingOf(ir.tools, "ping").document).toBe("query Ping {\n  ping\n}");
    expect(ir.withheldMembers).toEqual({ OrderFilter: [{ path: "OrderFilter.and", reason: "projection" }] });
    expect(Object.keys(ir.defs["OrderFilter"]!.properties as object)).toEqual(["status", "owner"]);
  });

  it("without options the IR is what it always was", () => {
    expect(JSON.stringify(build({ credentialArguments: {}, withhold: {} }))).toBe(JSON.stringify(build({})));
  });
});

describe("selectors that name nothing, and contradictions", () => {
  it.each([
    ["a misspelt argument", { credentialArguments: { sesionToken: "s" } }, "UNKNOWN_SELECTOR", ["sessionToken"]],
    ["a member named as an argument", { withhold: { apiKey: "internal" } }, "UNKNOWN_SELECTOR", ["DeviceInput.apiKey"]],
    ["an argument path", { credentialArguments: { "filter.owner.sessionToken": "s" } }, "UNKNOWN_SELECTOR", ["OwnerInput.sessionToken"]],
    ["an argument path of one operation", { credentialArguments: { "Mutation.orderCreate.order.owner.sessionToken": "s" } }, "UNKNOWN_SELECTOR", ["OwnerInput.sessionToken"]],
    ["a misspelt member", { withhold: { "OrderFilter.stats": "internal" } }, "UNKNOWN_SELECTOR", ["OrderFilter.status"]],
    ["a type path two members deep", { withhold: { "OrderFilter.owner.email": "internal" } }, "UNKNOWN_SELECTOR", ["OwnerInput.email"]],
    ["a misspelt root field", { credentialArguments: { "Query.order.sessionToken": "s" } }, "UNKNOWN_SELECTOR", ["Query.orders.sessionToken"]],
    ["a root field without its argument", { credentialArguments: { "Mutation.login": "s" } }, "UNKNOWN_SELECTOR", ["Mutation.login.input"]],
    ["an argument the field lacks", { credentialArguments: { "Query.ping.sessionToken": "s" } }, "UNKNOWN_SELECTOR", []],
    ["an output type", { withhold: { "Session.id": "internal" } }, "UNKNOWN_SELECTOR", []],
    ["an empty segment", { withhold: { "OrderFilter.": "internal" } }, "UNKNOWN_SELECTOR", []],
    ["a required argument withheld", { withhold: { sessionToken: "internal" } }, "CONFIG_INVALID", undefined],
    ["a required member withheld", { withhold: { "LoginInput.password": "internal" } }, "CONFIG_INVALID", undefined],
    ["both options on one argument", { credentialArguments: { "Query.orders.sessionToken": "s" }, withhold: { sessionToken: "internal" } }, "CONFIG_INVALID", undefined],
    ["both options on one member", { credentialArguments: { "OwnerInput.email": "s" }, withhold: { "OwnerInput.email": "internal" } }, "CONFIG_INVALID", undefined],
    ["a scheme that is no name", { credentialArguments: { sessionToken: "" } }, "CONFIG_INVALID", undefined],
    ["an input object as a credential", { credentialArguments: { input: "s" } }, "CONFIG_INVALID", undefined],
    ["a list as a credential", { credentialArguments: { "OrderInput.lines": "s" } }, "CONFIG_INVALID", undefined],
  ] as const)("%s", (_name, options, code, candidates) => {
    let error: unknown;
    try {
      build(options as BuildGraphQLOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code });
    if (candidates !== undefined) expect((error as { candidates: readonly string[] }).candidates).toEqual(candidates);
  });
});
