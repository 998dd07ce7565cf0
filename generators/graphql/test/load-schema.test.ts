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
