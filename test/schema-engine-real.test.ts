import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { buildGraphQLPackIR, loadGraphQLSchema } from "../generators/graphql/src/index.ts";
import { definePack } from "../packages/core/src/index.ts";
import {
  canonicalJson,
  cloneJson,
  collectGarbage,
  cyclicComponents,
  refGraph,
  resolvedDepth,
  stronglyConnectedComponents,
  type JsonSchemaObject,
} from "../packages/schema/src/index.ts";

// The schema engine on a real, recursive tool schema. Lives here rather than in
// packages/schema because the schema package must not depend on the generators.
// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);

describe("schema engine on Linear's issues_list input schema", () => {
  let schema: JsonSchemaObject;

  beforeAll(() => {
    const bytes = readFileSync(new URL("linear/schema.graphql", specsDir));
    const ir = buildGraphQLPackIR(loadGraphQLSchema(bytes, { fileName: "schema.graphql" }), { name: "linear", file: "schema.graphql", sha256: "test" });
    schema = definePack(ir).tool("issues_list").inputSchema;
  });

  it("has a cyclic component of at least 40 defs containing IssueFilter, listed after what it reaches", () => {
    const graph = refGraph(schema);
    const withIssueFilter = cyclicComponents(graph).find((component) => component.includes("IssueFilter"));
    expect(withIssueFilter).toBeDefined();
    expect(withIssueFilter!.length).toBeGreaterThanOrEqual(40);
    expect(withIssueFilter).toEqual(expect.arrayContaining(["IssueFilter", "NullableIssueFilter"]));

    // Reverse topological order holds on the real graph too.
    const components = stronglyConnectedComponents(graph);
    const indexOf = new Map(components.flatMap((members, index) => members.map((m) => [m, index] as const)));
    for (const [from, targets] of graph) for (const to of targets) expect(indexOf.get(to)!).toBeLessThanOrEqual(indexOf.get(from)!);
  });

  it("has unbounded resolved depth", () => {
    expect(resolvedDepth(schema)).toBe(Infinity);
  });

  it("serializes canonically: stable across calls and unchanged by cloneJson", () => {
    const first = canonicalJson(schema);
    expect(canonicalJson(schema)).toBe(first);
    const clone = cloneJson(schema);
    expect(clone).not.toBe(schema);
    expect(canonicalJson(clone)).toBe(first);
    expect(canonicalJson(JSON.parse(first))).toBe(first);
  });

  it("is already minimal: collectGarbage keeps every def", () => {
    const collected = collectGarbage(schema);
    expect(Object.keys(collected.$defs as object)).toEqual(Object.keys(schema.$defs as object));
    expect(canonicalJson(collected)).toBe(canonicalJson(schema));
  });
});
