import { gzipSync } from "node:zlib";
import { buildSchema, getIntrospectionQuery, graphqlSync, printSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { SluiceError } from "@sluice/core";
import { loadGraphQLSchema } from "../src/load-schema.ts";

const SDL = `type Query {\n  hello(name: String!): String\n}\n`;

function introspectionJson(sdl: string): string {
  const result = graphqlSync({ schema: buildSchema(sdl), source: getIntrospectionQuery() });
  return JSON.stringify(result);
}

function specError(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    return error as SluiceError;
  }
  throw new Error("expected a SluiceError");
}

describe("loadGraphQLSchema", () => {
  it.each([
    ["SDL string", SDL],
    ["SDL bytes", Buffer.from(SDL)],
    ["gzipped SDL", gzipSync(SDL)],
    ["introspection {data:{__schema}}", introspectionJson(SDL)],
    ["introspection {__schema}", JSON.stringify((JSON.parse(introspectionJson(SDL)) as { data: unknown }).data)],
    ["gzipped introspection", gzipSync(introspectionJson(SDL))],
  ])("loads %s", (_name, given) => {
    expect(printSchema(loadGraphQLSchema(given))).toBe(printSchema(buildSchema(SDL)));
  });

  it("reports SDL syntax errors as SPEC_INVALID with line and column", () => {
    const error = specError(() => loadGraphQLSchema("type Query {\n  a: String\n  b: (\n}\n", { fileName: "schema.graphql" }));
    expect(error.code).toBe("SPEC_INVALID");
    expect([error.line, error.column]).toEqual([3, 6]);
    expect(error.message.startsWith("schema.graphql:3:6: Syntax Error")).toBe(true);
  });

  it("rejects a 20,000-level nested list type without crashing", () => {
    const deep = `type Query { a: ${"[".repeat(20_000)}String${"]".repeat(20_000)} }`;
    const error = specError(() => loadGraphQLSchema(deep));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.message).toContain("nesting too deep");
  });

  it("rejects moderately deep wrapping that graphql-js itself would accept", () => {
    const deep = `type Query { a: ${"[".repeat(100)}String${"]".repeat(100)} }`;
    expect(specError(() => loadGraphQLSchema(deep)).code).toBe("SPEC_INVALID");
  });

  it.each([
    ["JSON without __schema", '{"data":{}}'],
    ["broken JSON", '{"__schema": '],
    ["corrupt gzip", Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02])],
    ["unknown type", "type Query { a: Missing }"],
    ["no Query type", "type Foo { a: String }"],
    ["conflicting duplicate field", "type Query { a: String\n a: Int }"],
  ])("rejects %s as SPEC_INVALID", (_name, given) => {
    expect(specError(() => loadGraphQLSchema(given)).code).toBe("SPEC_INVALID");
  });

  it("tolerates duplicate field definitions that differ only in description (as in GitHub's SDL)", () => {
    const schema = loadGraphQLSchema('type Query { "one" a: String\n "two" a: String }');
    expect(Object.keys(schema.getQueryType()!.getFields())).toEqual(["a"]);
  });
});

describe("introspection results that leave empty lists out", () => {
  const RICH = `
    interface Node { id: ID! }
    type Query { node(id: ID!): Node  items: [Item!]! ping: String }
    type Item implements Node { id: ID! name: String kind: Kind }
    type Plain { at: String }
    union Found = Item | Plain
    enum Kind { A B }
    input Filter { kind: Kind }
    type Mutation { tag(filter: Filter): Found }
  `;
  /** The standard result with every empty list removed, as some servers and tools save it. */
  function withoutEmptyLists(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(withoutEmptyLists);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(Object.entries(value).filter(([, member]) => !(Array.isArray(member) && member.length === 0)).map(([key, member]) => [key, withoutEmptyLists(member)]));
  }
  const trimmed = withoutEmptyLists(JSON.parse(introspectionJson(RICH))) as { data: { __schema: { types: { name: string; interfaces?: unknown }[] } } };

  it.each([
    ["wrapped {data:{__schema}}", JSON.stringify(trimmed)],
    ["{__schema}", JSON.stringify(trimmed.data)],
    ["bare __schema", JSON.stringify(trimmed.data.__schema)],
  ])("reads %s as the schema it describes", (_name, given) => {
    // The trimming really removed the lists graphql-js needs (Plain has no interfaces, ping no args).
    expect(trimmed.data.__schema.types.find((type) => type.name === "Plain")!.interfaces).toBeUndefined();
    expect(printSchema(loadGraphQLSchema(given))).toBe(printSchema(buildSchema(RICH)));
  });

  it("one it still cannot read is SPEC_INVALID in one line naming the place, with no dump of the node", () => {
    const broken = JSON.parse(introspectionJson(RICH)) as { data: { __schema: { types: Record<string, unknown>[] } } };
    const item = broken.data.__schema.types.find((type) => type.name === "Item")!;
    item.fields = "not a list";
    const error = specError(() => loadGraphQLSchema(JSON.stringify(broken), { fileName: "intro.json" }));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.message).toMatch(/^intro\.json: introspection result cannot be read: /);
    expect(error.message).toMatch(/Item/);
    expect(error.message).not.toMatch(/[{}]/);
    expect(error.message.split("\n")).toHaveLength(1);
  });
});
