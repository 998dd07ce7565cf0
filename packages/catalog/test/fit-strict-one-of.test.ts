/**
 * OpenAI strict mode refuses oneOf (the Agents SDK: "unsupported keyword oneOf"): the
 * openai-strict profile lists it, and fit writes it as anyOf, labelled lossless only where no
 * value can match two branches (then anyOf accepts exactly what oneOf did), lossy otherwise.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { Tool } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { check, fit, profile } from "@sluice/catalog";

// Ajv, the reference validator nobody here wrote, judges whether oneOf and anyOf agree.
const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
const ajv = new Ajv2020({ strict: false });

function toolWith(value: JsonSchemaObject, defs?: Record<string, JsonSchemaObject>): Tool<object> {
  return Tool.create({
    name: "t",
    description: "d",
    inputSchema: { type: "object", properties: { value }, required: ["value"], additionalProperties: false, ...(defs ? { $defs: defs } : {}) },
    binding: { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} },
  });
}

const SAMPLES: unknown[] = ["a", "", 1, 1.5, 0, -3, true, null, [], [1], {}, { kind: "a" }, { kind: "b" }, { kind: "a", n: 1 }, { kind: "c" }];

const cases: Array<[string, { value: JsonSchemaObject; defs?: Record<string, JsonSchemaObject>; want: "lossless" | "lossy" }]> = [
  ["string or integer (github-rest's title)", { value: { oneOf: [{ type: "string" }, { type: "integer" }] }, want: "lossless" }],
  ["string, array or object", { value: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }, { type: "object", properties: {} }] }, want: "lossless" }],
  ["branches behind refs", { value: { oneOf: [{ $ref: "#/$defs/S" }, { $ref: "#/$defs/B" }] }, defs: { S: { type: "string" }, B: { type: "boolean" } }, want: "lossless" }],
  ["objects told apart by a required const member", { value: { oneOf: [{ type: "object", properties: { kind: { const: "a" } }, required: ["kind"] }, { type: "object", properties: { kind: { enum: ["b", "c"] } }, required: ["kind"] }] }, want: "lossless" }],
  ["integer and number overlap (1 is both)", { value: { oneOf: [{ type: "integer" }, { type: "number" }] }, want: "lossy" }],
  ["two string branches", { value: { oneOf: [{ type: "string", maxLength: 3 }, { type: "string", minLength: 2 }] }, want: "lossy" }],
  ["a branch that says no type", { value: { oneOf: [{ type: "string" }, { minimum: 3 }] }, want: "lossy" }],
  ["objects whose discriminator is optional", { value: { oneOf: [{ type: "object", properties: { kind: { const: "a" } } }, { type: "object", properties: { kind: { const: "b" } } }] }, want: "lossy" }],
  ["objects whose discriminator values meet", { value: { oneOf: [{ type: "object", properties: { kind: { enum: ["a", "b"] } }, required: ["kind"] }, { type: "object", properties: { kind: { const: "b" } }, required: ["kind"] }] }, want: "lossy" }],
];

describe("openai-strict and oneOf", () => {
  it("check names oneOf as unsupported in strict mode", () => {
    const findings = check([toolWith({ oneOf: [{ type: "string" }, { type: "integer" }] })], profile("openai-strict"));
    expect(findings.some((finding) => finding.message.includes("oneOf"))).toBe(true);
  });

  it.each(cases)("%s: written as anyOf, labelled as measured", (_name, { value, defs, want }) => {
    const tool = toolWith(value, defs);
    const result = fit([tool], profile("openai-strict"), { allowLossy: true });
    const change = result.changes.find((c) => c.action === "convert-keyword" && c.message.startsWith("oneOf written as anyOf"));
    expect(change?.kind).toBe(want);
    expect(JSON.stringify(result.tools[0]!.inputSchema)).not.toContain("oneOf");
    if (want === "lossless") {
      // The promise of the label, held by Ajv: the two schemas agree on every sample.
      const before = ajv.compile({ ...tool.inputSchema });
      const after = ajv.compile({ ...tool.inputSchema, properties: { value: { ...value, anyOf: value.oneOf, oneOf: undefined } } });
      for (const sample of SAMPLES) expect(after({ value: sample }), JSON.stringify(sample)).toBe(before({ value: sample }));
    }
  });
});
