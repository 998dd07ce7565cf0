import { describe, expect, it } from "vitest";
import type { GeminiSchema as Schema } from "../src/adapters/index.ts";
import { Tool } from "@sluice/core";
import type { JsonSchemaObject } from "@sluice/schema";
import { tools as linear } from "@sluice/pack-linear";
import { tools as slack } from "@sluice/pack-slack";
import { tools as stripe } from "@sluice/pack-stripe";
import { tools as notion } from "@sluice/pack-notion";
import { toGemini } from "../src/adapters/index.ts";
import { cyclicTool, fixtureTools, sluiceErrorOf } from "./adapters-fixtures.ts";

const binding = fixtureTools()[0]!.binding;
const toolOf = (inputSchema: JsonSchemaObject, name = "t"): Tool => Tool.create({ name, description: "d", inputSchema, binding });
const parametersOf = (inputSchema: JsonSchemaObject, maxNodes?: number): Schema =>
  toGemini([toolOf(inputSchema)], maxNodes === undefined ? { form: "parameters" } : { form: "parameters", maxNodes })[0]!.parameters!;

/** Every keyword the OpenAPI subset lacks, or that Gemini rejects, found anywhere in `value`. */
function unsupported(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => unsupported(item, `${at}/${i}`));
  if (typeof value !== "object" || value === null) return [];
  const found: string[] = [];
  const node = value as Record<string, unknown>;
  for (const key of ["$ref", "$defs", "$schema", "additionalProperties", "const", "oneOf", "allOf"]) {
    if (Object.hasOwn(node, key)) found.push(`${at}/${key}`);
  }
  if (Object.hasOwn(node, "type") && typeof node.type !== "string") found.push(`${at}/type`);
  for (const [key, child] of Object.entries(node)) {
    // property maps hold names, not keywords: descend into the schemas under them
    if (key === "properties" && typeof child === "object" && child !== null) {
      for (const [name, sub] of Object.entries(child)) found.push(...unsupported(sub, `${at}/properties/${name}`));
    } else if (key === "items" || key === "anyOf") {
      found.push(...unsupported(child, `${at}/${key}`));
    }
  }
  return found;
}

describe("toGemini, parameters form", () => {
  // `want` is written as the JSON Gemini receives (the SDK's Type enum values are these strings).
  it.each<[string, { given: JsonSchemaObject; want: object }]>([
    ["type names become the SDK's uppercase Type values", {
      given: { type: "object", properties: { s: { type: "string" }, n: { type: "number" }, i: { type: "integer" }, b: { type: "boolean" }, a: { type: "array", items: { type: "string" } } } },
      want: { type: "OBJECT", properties: { s: { type: "STRING" }, n: { type: "NUMBER" }, i: { type: "INTEGER" }, b: { type: "BOOLEAN" }, a: { type: "ARRAY", items: { type: "STRING" } } } },
    }],
    ["a type array with null becomes type + nullable", {
      given: { type: "object", properties: { x: { type: ["string", "null"], maxLength: 5 } } },
      want: { type: "OBJECT", properties: { x: { type: "STRING", nullable: true, maxLength: "5" } } },
    }],
    ["several non-null types become anyOf", {
      given: { type: "object", properties: { x: { type: ["string", "integer"] } } },
      want: { type: "OBJECT", properties: { x: { anyOf: [{ type: "STRING" }, { type: "INTEGER" }] } } },
    }],
    ["const becomes a one-value enum", {
      given: { type: "object", properties: { kind: { const: "page" } } },
      want: { type: "OBJECT", properties: { kind: { type: "STRING", enum: ["page"] } } },
    }],
    ["a null enum value becomes nullable", {
      given: { type: "object", properties: { r: { type: ["string", "null"], enum: [null, "won't fix", "used in tests"] } } },
      want: { type: "OBJECT", properties: { r: { type: "STRING", nullable: true, enum: ["won't fix", "used in tests"] } } },
    }],
    ["non-string enum values move into the description (Gemini enums are strings)", {
      given: { type: "object", properties: { p: { type: "integer", description: "Priority.", enum: [0, 1, 2] } } },
      want: { type: "OBJECT", properties: { p: { type: "INTEGER", description: "Priority. Allowed values: 0, 1, 2." } } },
    }],
    ["anyOf with a null branch collapses into the other branch, nullable", {
      given: { type: "object", properties: { x: { description: "X.", anyOf: [{ type: "integer" }, { type: "null" }] } } },
      want: { type: "OBJECT", properties: { x: { type: "INTEGER", description: "X.", nullable: true } } },
    }],
    ["oneOf becomes anyOf", {
      given: { type: "object", properties: { x: { oneOf: [{ type: "integer" }, { type: "string", format: "date" }] } } },
      want: { type: "OBJECT", properties: { x: { anyOf: [{ type: "INTEGER" }, { type: "STRING", format: "date" }] } } },
    }],
    ["allOf branches merge: properties and required united", {
      given: { type: "object", properties: { x: { allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "string" } }, required: ["b"] }] } } },
      want: { type: "OBJECT", properties: { x: { type: "OBJECT", properties: { a: { type: "STRING" }, b: { type: "STRING" } }, required: ["a", "b"] } } },
    }],
    ["$ref is inlined; a description beside it wins over the target's", {
      given: { type: "object", properties: { f: { $ref: "#/$defs/F", description: "Here." }, g: { $ref: "#/$defs/F" } }, $defs: { F: { type: "object", description: "F.", properties: { n: { type: "integer", minimum: 1 } }, additionalProperties: false } } },
      want: { type: "OBJECT", properties: { f: { type: "OBJECT", description: "Here.", properties: { n: { type: "INTEGER", minimum: 1 } } }, g: { type: "OBJECT", description: "F.", properties: { n: { type: "INTEGER", minimum: 1 } } } } },
    }],
    ["unsupported keywords are dropped; an array without items gets none", {
      given: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", additionalProperties: false, properties: { tags: { type: "array", uniqueItems: true, minItems: 1 }, meta: { type: "object", additionalProperties: { type: "string" } } } },
      want: { type: "OBJECT", properties: { tags: { type: "ARRAY", minItems: "1" }, meta: { type: "OBJECT" } } },
    }],
    ["a property that must be absent (false) is not offered, nor required", {
      given: { type: "object", properties: { a: { type: "string" }, b: false }, required: ["a", "b"] },
      want: { type: "OBJECT", properties: { a: { type: "STRING" } }, required: ["a"] },
    }],
    ["examples[0] becomes example; default is kept", {
      given: { type: "object", properties: { n: { type: "integer", default: 100, examples: [25, 50] } } },
      want: { type: "OBJECT", properties: { n: { type: "INTEGER", default: 100, example: 25 } } },
    }],
  ])("%s", (_name, { given, want }) => {
    const out = parametersOf(given);
    expect(out).toEqual(want);
    expect(JSON.stringify(out)).toBe(JSON.stringify(want)); // key order too
  });

  it("leaves no $ref, $defs, additionalProperties, const or type array anywhere, for every acyclic tool of four packs", () => {
    let converted = 0;
    for (const pack of [linear, slack, stripe, notion]) {
      for (const tool of pack) {
        let declarations;
        try {
          declarations = toGemini([tool], { form: "parameters" });
        } catch (error) {
          // only a recursive schema may be refused; fit() handles those
          expect(sluiceErrorOf(() => { throw error; }).code).toBe("RECURSIVE_SCHEMA");
          continue;
        }
        expect(unsupported(declarations[0]!.parameters), tool.name).toEqual([]);
        converted++;
      }
    }
    expect(converted).toBeGreaterThan(1000);
  });

  it("refuses a recursive tool, naming the cycle and where it closes", () => {
    const error = sluiceErrorOf(() => toGemini([cyclicTool()], { form: "parameters" }));
    expect(error.code).toBe("RECURSIVE_SCHEMA");
    expect(error.message).toMatch(/is recursive \((\w+ -> )+\w+\)/);
    expect(error.message).toMatch(/fit/);
    expect(error.pointer).toMatch(/^\/\$defs\//);
  });

  it("refuses a self-reference through a sibling keyword too", () => {
    const error = sluiceErrorOf(() => parametersOf({ type: "object", properties: { n: { $ref: "#/$defs/Node" } }, $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node", description: "d" } } } } }));
    expect(error.code).toBe("RECURSIVE_SCHEMA");
    expect(error.message).toContain("(Node -> Node)");
    expect(error.pointer).toBe("/$defs/Node/properties/next");
  });

  it("bounds inlining of shared (acyclic) types: a doubling ladder stops at maxNodes", () => {
    const $defs: Record<string, JsonSchemaObject> = { T0: { type: "string" } };
    for (let i = 1; i <= 40; i++) $defs[`T${i}`] = { type: "object", properties: { a: { $ref: `#/$defs/T${i - 1}` }, b: { $ref: `#/$defs/T${i - 1}` } } };
    // 2^40 nodes if expanded: refusing at all shows the bound held.
    const error = sluiceErrorOf(() => parametersOf({ type: "object", properties: { x: { $ref: "#/$defs/T40" } }, $defs }, 5_000));
    expect(error.code).toBe("INLINE_BUDGET_EXCEEDED");
    expect(error.message).toMatch(/5000 schema nodes/);
  });

  it("refuses nesting past its depth bound instead of overflowing the stack", () => {
    let deep: JsonSchemaObject = { type: "string" };
    for (let i = 0; i < 5_000; i++) deep = { type: "object", properties: { x: deep } };
    const error = sluiceErrorOf(() => parametersOf(deep));
    expect(error.code).toBe("INLINE_BUDGET_EXCEEDED");
    expect(error.pointer).toMatch(/^(\/properties\/x){257}$/);
  });

  it("refuses an external ref instead of fetching it", () => {
    expect(sluiceErrorOf(() => parametersOf({ type: "object", properties: { x: { $ref: "https://example.com/x.json" } } })).code).toBe("EXTERNAL_REF");
  });

  it("needs a form, and refuses a bad maxNodes", () => {
    // @ts-expect-error form is required
    expect(sluiceErrorOf(() => toGemini(fixtureTools(), {})).code).toBe("INVALID_OPTION");
    expect(sluiceErrorOf(() => toGemini(fixtureTools(), { form: "parameters", maxNodes: 0 })).code).toBe("INVALID_OPTION");
  });
});

describe("toGemini, parametersJsonSchema form", () => {
  it("passes the JSON Schema as is, recursive tools included", () => {
    const tool = cyclicTool();
    const [declaration] = toGemini([tool], { form: "parametersJsonSchema" });
    expect(declaration).toEqual({ name: tool.name, description: tool.description, parametersJsonSchema: tool.inputSchema });
    expect(declaration!.parameters).toBeUndefined();
  });
});
