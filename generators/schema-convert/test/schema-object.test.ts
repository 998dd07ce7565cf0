/**
 * The converter against validators nobody here wrote: for each Schema Object shape, the
 * schema as its own dialect reads it and the 2020-12 schema SchemaConverter makes of it
 * must give the same verdict on every instance.
 *
 * - OpenAPI 3.0: the schema converted by @openapi-contrib/openapi-schema-to-json-schema
 *   (`nullable`, the OpenAPI keywords) and judged by Ajv's draft-04 validator (boolean
 *   `exclusiveMinimum` / `exclusiveMaximum`, draft-4 `dependencies`);
 * - Swagger 2.0: the schema as draft 4 (a 2.0 Schema Object is a draft-4 subset), judged by
 *   Ajv's draft-04 validator;
 * - OpenAPI 3.1: the schema as written, judged by Ajv 2020-12;
 * - a JSON Schema bundle (the MCP generator's: draft-07 from zod-to-json-schema, named
 *   schemas in a root `$defs`): the schema as written, judged by Ajv (draft-07).
 *
 * What SchemaConverter makes is judged by Ajv 2020-12 in every case. Each case has instances
 * on both sides of the verdict, so it can fail.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft04 from "ajv-draft-04";
import type { WithheldPath } from "@sluice/core";
import { RefResolver, SchemaConverter, type Dialect } from "../src/index.ts";

type Node = Record<string, unknown>;
const fromOpenAPI30 = (createRequire(import.meta.url)("@openapi-contrib/openapi-schema-to-json-schema") as { fromSchema(schema: unknown, options: Node): Node }).fromSchema;

type Form = Dialect | "bundle";

// One validator per dialect for the file: compiling is the cost, not making the instance.
const draft04 = new AjvDraft04({ strict: false });
const draft07 = new Ajv({ strict: false });
const draft2020 = new Ajv2020({ strict: false });

interface Case {
  form: Form;
  schema: Node;
  /** Named schemas: `components/schemas` (3.x), `definitions` (2.0) or the bundle's `$defs`. */
  named?: Record<string, Node>;
  instances: unknown[];
}

/** The document a form keeps its named schemas in, and the pointer prefix a `$ref` to one is written with. */
function documentOf(form: Form, named: Record<string, Node>): unknown {
  if (form === "2.0") return { swagger: "2.0", info: { title: "t", version: "1" }, paths: {}, definitions: named };
  if (form === "bundle") return { $defs: named };
  return { openapi: form === "3.0" ? "3.0.3" : "3.1.0", info: { title: "t", version: "1" }, paths: {}, components: { schemas: named } };
}

/** SchemaConverter's 2020-12 schema, with every definition it reached under `$defs`. */
function converted(test: Case): Node {
  const resolver = new RefResolver(documentOf(test.form, test.named ?? {}));
  const converter = new SchemaConverter(resolver, test.form === "bundle" ? "3.1" : test.form, test.form === "bundle" ? { namedSchemas: "$defs" } : {});
  const withheld: WithheldPath[] = [];
  const root = converter.convert(test.schema, resolver.main, "v", withheld, "/x");
  expect(withheld).toEqual([]);
  const defs = Object.fromEntries(converter.defs);
  const body = typeof root === "boolean" ? (root ? {} : { not: {} }) : root;
  return Object.keys(defs).length > 0 ? { ...body, $defs: defs } : body;
}

/** The schema as its own dialect reads it, judged by a validator for that dialect. */
function oracle(test: Case): (value: unknown) => boolean {
  const named = test.named ?? {};
  if (test.form === "3.0") {
    const options = { strictMode: false, definitionKeywords: ["x-components"] };
    const definitions = Object.fromEntries(Object.entries(named).map(([name, schema]) => [name, fromOpenAPI30(schema, options)]));
    const schema = retarget(fromOpenAPI30(test.schema, options), "#/components/schemas/", "#/definitions/");
    const { $schema: _schema, ...body } = schema;
    return draft04.compile({ ...body, definitions: Object.fromEntries(Object.entries(definitions).map(([name, def]) => [name, retarget(withoutDraft(def), "#/components/schemas/", "#/definitions/")])) });
  }
  if (test.form === "2.0") return draft04.compile({ ...test.schema, definitions: named });
  if (test.form === "3.1") return draft2020.compile(retarget({ ...test.schema, $defs: named }, "#/components/schemas/", "#/$defs/"));
  return draft07.compile({ ...test.schema, $defs: named });
}

function withoutDraft(schema: Node): Node {
  const { $schema: _schema, ...rest } = schema;
  return rest;
}

/** The same schema with its refs to named schemas written against another place. */
function retarget(schema: Node, from: string, to: string): Node {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === "$ref" && typeof value === "string" && value.startsWith(from) ? to + value.slice(from.length) : value))) as Node;
}

const pet = { type: "object", properties: { name: { type: "string" }, tag: { type: "string", nullable: true } }, required: ["name"] };

const CASES: [string, Case][] = [
  ["3.0 nullable string", { form: "3.0", schema: { type: "string", nullable: true, minLength: 2 }, instances: [null, "ab", "a", 1, true] }],
  ["3.0 nullable enum", { form: "3.0", schema: { type: "string", enum: ["a", "b"], nullable: true }, instances: [null, "a", "c", 2] }],
  ["3.0 exclusiveMinimum: true", { form: "3.0", schema: { type: "number", minimum: 1, exclusiveMinimum: true }, instances: [1, 1.0001, 0.5, 7, "2"] }],
  ["3.0 exclusiveMaximum: true beside exclusiveMinimum: false", { form: "3.0", schema: { type: "integer", minimum: 0, exclusiveMinimum: false, maximum: 10, exclusiveMaximum: true }, instances: [0, 9, 10, -1, 3.5] }],
  ["3.0 nullable object through a component", { form: "3.0", schema: { type: "object", properties: { pet: { $ref: "#/components/schemas/Pet" }, n: { type: "integer", nullable: true, maximum: 3 } } }, named: { Pet: pet }, instances: [{}, { pet: { name: "a", tag: null } }, { pet: { tag: "x" } }, { n: null }, { n: 4 }, { pet: { name: 1 } }] }],
  ["3.0 $ref siblings are ignored", { form: "3.0", schema: { type: "object", properties: { p: { $ref: "#/components/schemas/Pet", maxLength: 1 } } }, named: { Pet: pet }, instances: [{ p: { name: "long name" } }, { p: {} }] }],
  ["2.0 exclusive bounds and multipleOf", { form: "2.0", schema: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true, multipleOf: 0.25 }, instances: [0, 0.25, 0.5, 1, 0.3] }],
  ["2.0 definitions, allOf and a closed object", { form: "2.0", schema: { allOf: [{ $ref: "#/definitions/Base" }, { type: "object", properties: { size: { type: "integer", minimum: 1 } }, required: ["size"] }] }, named: { Base: { type: "object", properties: { id: { type: "string", pattern: "^[a-z]+$" } }, required: ["id"] } }, instances: [{ id: "ab", size: 2 }, { id: "AB", size: 2 }, { id: "ab" }, { id: "ab", size: 0 }] }],
  ["2.0 arrays: items, minItems, uniqueItems", { form: "2.0", schema: { type: "array", items: { type: "string", enum: ["x", "y", "z"] }, minItems: 1, maxItems: 2, uniqueItems: true }, instances: [["x"], ["x", "y"], [], ["x", "x"], ["x", "y", "z"], ["w"]] }],
  ["2.0 draft-4 dependencies", { form: "2.0", schema: { type: "object", properties: { a: {}, b: {}, c: { type: "integer" } }, dependencies: { a: ["b"], c: { required: ["a"] } } }, instances: [{}, { a: 1, b: 2 }, { a: 1 }, { c: 1, a: 1, b: 1 }, { c: 1 }] }],
  ["3.1 type with null, const and $ref siblings", { form: "3.1", schema: { type: "object", properties: { mode: { const: "fast" }, note: { type: ["string", "null"], maxLength: 3 }, pet: { $ref: "#/components/schemas/Pet", required: ["tag"] } } }, named: { Pet: { type: "object", properties: { name: { type: "string" }, tag: { type: "string" } }, required: ["name"] } }, instances: [{ mode: "fast" }, { mode: "slow" }, { note: null }, { note: "long" }, { pet: { name: "a", tag: "b" } }, { pet: { name: "a" } }] }],
  ["3.1 numeric exclusive bounds, prefixItems, contains", { form: "3.1", schema: { type: "array", prefixItems: [{ type: "number", exclusiveMinimum: 0 }, { type: "string" }], items: false, contains: { type: "string" }, minContains: 1 }, instances: [[1, "a"], [0, "a"], [1, 2], [1, "a", "b"], [1]] }],
  ["3.1 dependentRequired, patternProperties, if/then", { form: "3.1", schema: { type: "object", dependentRequired: { card: ["cvc"] }, patternProperties: { "^x-": { type: "integer" } }, if: { properties: { kind: { const: "big" } }, required: ["kind"] }, then: { required: ["size"] } }, instances: [{}, { card: 1, cvc: 2 }, { card: 1 }, { "x-a": 1 }, { "x-a": "1" }, { kind: "big" }, { kind: "big", size: 1 }] }],
  ["bundle: draft-07 tuple items, additionalItems, dependencies, a recursive $defs", { form: "bundle", schema: { type: "object", properties: { point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false }, tree: { $ref: "#/$defs/Node" }, a: {}, b: {} }, dependencies: { a: ["b"] }, additionalProperties: false }, named: { Node: { type: "object", properties: { label: { type: "string" }, child: { $ref: "#/$defs/Node" } }, required: ["label"], additionalProperties: false } }, instances: [{ point: [1, 2] }, { point: [1, 2, 3] }, { point: [1, "2"] }, { tree: { label: "a", child: { label: "b" } } }, { tree: { label: "a", child: {} } }, { a: 1 }, { a: 1, b: 1 }, { other: 1 }] }],
];

describe("SchemaConverter agrees with each dialect's own validator", () => {
  it.each(CASES)("%s", (_name, test) => {
    const want = oracle(test);
    const got = draft2020.compile(converted(test));
    const verdicts = test.instances.map((value) => want(value));
    expect(test.instances.map((value) => got(value))).toEqual(verdicts);
    // Both verdicts occur, so a converter that accepted (or refused) everything would fail here.
    expect(new Set(verdicts)).toEqual(new Set([true, false]));
  });

  it("writes the 2020-12 forms: nullable as a type list, boolean bounds as numbers, tuples as prefixItems", () => {
    expect(converted({ form: "3.0", schema: { type: "string", nullable: true }, instances: [] })).toEqual({ type: ["string", "null"] });
    expect(converted({ form: "3.0", schema: { type: "number", minimum: 1, exclusiveMinimum: true }, instances: [] })).toEqual({ type: "number", exclusiveMinimum: 1 });
    expect(converted({ form: "2.0", schema: { type: "integer", maximum: 5, exclusiveMaximum: true }, instances: [] })).toEqual({ type: "integer", exclusiveMaximum: 5 });
    // 3.1 has no `nullable`: it is left out rather than read as 3.0's.
    expect(converted({ form: "3.1", schema: { type: "string", nullable: true }, instances: [] })).toEqual({ type: "string" });
    expect(converted({ form: "bundle", schema: { type: "array", items: [{ type: "string" }], additionalItems: { type: "integer" } }, instances: [] })).toEqual({ type: "array", prefixItems: [{ type: "string" }], items: { type: "integer" } });
    // A named schema is one `$defs` entry, named after it, in every form.
    for (const form of ["3.0", "3.1", "2.0", "bundle"] as const) {
      const where = form === "2.0" ? "#/definitions/" : form === "bundle" ? "#/$defs/" : "#/components/schemas/";
      expect(converted({ form, schema: { $ref: `${where}Pet` }, named: { Pet: { type: "string" } }, instances: [] })).toEqual({ $ref: "#/$defs/Pet", $defs: { Pet: { type: "string" } } });
    }
  });
});
