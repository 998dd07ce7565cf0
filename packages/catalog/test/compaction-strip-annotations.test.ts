import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stripAnnotations } from "../src/compaction/index.ts";

const fixture = (name: string): string => readFileSync(new URL(`./compaction-fixtures/${name}`, import.meta.url), "utf8");
const annotated = fixture("annotated-catalog.json");
const withRefs = fixture("ref-catalog.json");

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const at = (value: Json, ...path: (string | number)[]): Json | undefined =>
  path.reduce<Json | undefined>((node, key) => (node === undefined || node === null || typeof node !== "object" ? undefined : (node as Record<string, Json>)[key]), value);

describe("stripAnnotations", () => {
  const { text, report } = stripAnnotations(annotated);
  const stripped = JSON.parse(text) as Json;
  const original = JSON.parse(annotated) as Json;
  const schema = ["0", "input_schema"];
  const props = [...schema, "properties"];

  it("adopts a smaller catalog and reports it as lossless", () => {
    expect(report).toMatchObject({ method: "strip-annotations", lossless: true, adopted: true, encoding: "o200k_base" });
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
    expect(report.ratio).toBe(Math.round((report.tokensAfter / report.tokensBefore) * 10_000) / 10_000);
  });

  it.each<[string, { path: (string | number)[]; want: Json | undefined }]>([
    ["root $schema removed", { path: [...schema, "$schema"], want: undefined }],
    ["root title removed", { path: [...schema, "title"], want: undefined }],
    ["$comment removed", { path: [...schema, "$comment"], want: undefined }],
    ["title keyword inside a property removed", { path: [...props, "title", "title"], want: undefined }],
    ["examples keyword removed", { path: [...props, "title", "examples"], want: undefined }],
    ["deprecated inside items removed", { path: [...props, "examples", "items", "deprecated"], want: undefined }],
    ["readOnly keyword removed", { path: [...props, "readOnly", "readOnly"], want: undefined }],
    ["example, writeOnly, markdownDescription removed under function.parameters", { path: ["1", "function", "parameters", "properties", "first"], want: { type: "integer" } }],
    ["title under function.parameters removed", { path: ["1", "function", "parameters", "title"], want: undefined }],
  ])("%s", (_name, { path, want }) => {
    expect(at(stripped, ...path)).toEqual(want);
  });

  it.each<[string, (string | number)[]]>([
    ["a property named title", [...props, "title"]],
    ["a property named examples", [...props, "examples"]],
    ["a property named readOnly", [...props, "readOnly"]],
    ["a property named $schema", [...props, "$schema"]],
    ["const instance data", [...props, "$schema", "const"]],
    ["default instance data", [...props, "meta", "default"]],
    ["enum instance data", [...props, "label", "enum"]],
    ["x- extension", [...props, "meta", "x-vendor"]],
    ["description and default", [...props, "readOnly", "default"]],
    ["required", [...schema, "required"]],
    ["tool description", ["0", "description"]],
    ["cache_control", ["0", "cache_control"]],
  ])("keeps %s", (_name, path) => {
    expect(at(stripped, ...path)).toBeDefined();
    const keptWhole = !path.includes("properties") || path.length > props.length + 1;
    if (keptWhole) expect(at(stripped, ...path)).toEqual(at(original, ...path));
  });

  it("keeps number spelling and string escapes, and member order", () => {
    expect(text).toContain('"minimum":0.0,"maximum":4.50,"default":1.0,"multipleOf":1e0');
    expect(text).toContain('"\\u00e9t\\u00e9"');
    expect(text).toContain('{"title":"kept","examples":[1]}');
    expect(Object.keys(at(stripped, ...props) as object)).toEqual(Object.keys(at(original, ...props) as object));
  });

  it("keeps $id and $schema in a tool whose schema uses $ref, and only there", () => {
    const result = JSON.parse(stripAnnotations(withRefs).text) as Json;
    expect(at(result, 0, "input_schema", "$id")).toBe("https://example.com/s");
    expect(at(result, 0, "input_schema", "$schema")).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(at(result, 0, "input_schema", "$defs", "Node", "$id")).toBe("node");
    expect(at(result, 0, "input_schema", "title")).toBeUndefined();
    expect(at(result, 0, "input_schema", "$defs", "Node", "title")).toBeUndefined();
    expect(at(result, 1, "input_schema")).toEqual({ type: "object", properties: {} });
  });

  it.each<[string, string]>([
    ["$anchor", '{"$anchor":"a"}'],
    ["$dynamicRef", '{"$dynamicRef":"#a"}'],
    ["$dynamicAnchor", '{"$dynamicAnchor":"a"}'],
  ])("treats %s like $ref", (_name, node) => {
    const catalog = `[{"name":"t","description":"d","inputSchema":{"$id":"x","$schema":"y","title":"T","properties":{"a":${node}}}}]`;
    expect(JSON.parse(stripAnnotations(catalog).text)).toEqual([{ name: "t", description: "d", inputSchema: { $id: "x", $schema: "y", properties: { a: JSON.parse(node) } } }]);
  });

  it("finds the tools array under a root `tools` member, and leaves the rest of the root alone", () => {
    const catalog = '{"model":"m","title":"kept","tools":[{"name":"t","description":"d","parameters":{"type":"object","title":"T","properties":{}}}]}';
    expect(stripAnnotations(catalog).text).toBe('{"model":"m","title":"kept","tools":[{"name":"t","description":"d","parameters":{"type":"object","properties":{}}}]}');
  });

  it("keeps integer-like keys in input order (JSON.parse would move them first)", () => {
    const catalog = '[{"name":"t","description":"d","input_schema":{"type":"object","title":"T","properties":{"b":{},"10":{},"a":{},"2":{}}}}]';
    expect(stripAnnotations(catalog).text).toBe('[{"name":"t","description":"d","input_schema":{"type":"object","properties":{"b":{},"10":{},"a":{},"2":{}}}}]');
  });

  it.each<[string, string, string]>([
    ["invalid JSON", '[{"name":"t",]', "parse-error"],
    ["a second value", "[] []", "parse-error"],
    ["a lone string", '"tools"', "not-a-tools-array"],
    ["nothing to strip", '[{"name":"t","description":"d","input_schema":{"type":"object"}}]', "nothing-removed"],
    ["annotations outside any schema", '[{"name":"t","title":"x","examples":[],"input_schema":{"type":"object"}}]', "nothing-removed"],
  ])("returns %s untouched", (_name, input, reason) => {
    const result = stripAnnotations(input);
    expect(result.text).toBe(input);
    expect(result.report).toMatchObject({ adopted: false, reason, tokensAfter: result.report.tokensBefore, ratio: 1 });
  });

  it("is not adopted when the stripped text is not strictly smaller in tokens", () => {
    const sameCount = (): number => 7;
    const result = stripAnnotations(annotated, { tokenCounter: sameCount });
    expect(result.text).toBe(annotated);
    expect(result.report).toMatchObject({ adopted: false, reason: "not-smaller", tokensBefore: 7, tokensAfter: 7 });
    expect(result.report.removed).toBeGreaterThan(0);
  });

  it("memoizes by the input's SHA-256: the same input returns the same frozen result", () => {
    const first = stripAnnotations(annotated);
    const second = stripAnnotations(`${annotated}`);
    expect(second).toBe(first);
    expect(Object.isFrozen(first.report)).toBe(true);
    expect(stripAnnotations(annotated, { encoding: "cl100k_base" })).not.toBe(first);
  });
});
