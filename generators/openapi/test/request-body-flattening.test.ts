/**
 * A request body becomes one argument per member only when that loses nothing: keywords
 * about the object as a whole or about undeclared members (issue 22: "7 of 7 valid calls
 * refused") keep it one `body` argument, converted whole. Each row is the keyword's shape
 * on a 3.1 body: a valid call is accepted and sent as given, an invalid one refused.
 */
import { describe, expect, it } from "vitest";
import { definePack, type PackDefinition, type Tool } from "@sluice/core";
import { build, oas30 } from "./build.ts";

const ctx = { baseUrl: "http://127.0.0.1:9" };

function toolFor(schema: unknown, components: Record<string, unknown> = {}, openapi = "3.1.0"): Tool<object> {
  const document = {
    ...oas30({ "/things": { post: { operationId: "createThing", requestBody: { required: true, content: { "application/json": { schema } } }, responses: { "200": { description: "ok" } } } } }, { components: { schemas: components } }),
    openapi,
  };
  return definePack(build(document) as unknown as PackDefinition).tool("create_thing") as Tool<object>;
}

const props = { name: { type: "string" }, kind: { type: "string" }, size: { type: "integer" } };

/**
 * `invalid: undefined` where the body now keeps the keyword but the check it makes is not
 * sluice's to hold yet: the converter drops `dependentRequired` inside a schema until the
 * keyword arms carry it (issue 22, the suite's part), and screening reads an object with
 * `unevaluatedProperties` as closed. Those rows hold the shape and a valid call.
 */
type Row = [string, { schema: unknown; components?: Record<string, unknown>; valid: unknown; invalid: unknown }];
const rows: Row[] = [
  ["additionalProperties: a schema", { schema: { type: "object", properties: props, additionalProperties: { type: "string" } }, valid: { name: "a", label: "extra" }, invalid: { name: "a", label: 3 } }],
  ["additionalProperties: true", { schema: { type: "object", properties: props, additionalProperties: true }, valid: { name: "a", anything: [1] }, invalid: { name: 1 } }],
  ["patternProperties", { schema: { type: "object", properties: props, patternProperties: { "^x-": { type: "string" } } }, valid: { name: "a", "x-trace": "t" }, invalid: { name: "a", "x-trace": 1 } }],
  ["if / then / else", { schema: { type: "object", properties: props, if: { properties: { kind: { const: "box" } }, required: ["kind"] }, then: { required: ["size"] }, else: { not: { required: ["size"] } } }, valid: { kind: "box", size: 2 }, invalid: { kind: "box" } }],
  ["dependentSchemas", { schema: { type: "object", properties: props, dependentSchemas: { size: { required: ["kind"] } } }, valid: { size: 1, kind: "box" }, invalid: { size: 1 } }],
  ["dependentRequired", { schema: { type: "object", properties: props, dependentRequired: { size: ["kind"] } }, valid: { size: 1, kind: "box" }, invalid: undefined }],
  ["propertyNames", { schema: { type: "object", properties: props, additionalProperties: true, propertyNames: { maxLength: 5 } }, valid: { name: "a", tag: "t" }, invalid: { name: "a", "too-long-key": "t" } }],
  ["minProperties / maxProperties", { schema: { type: "object", properties: props, minProperties: 1, maxProperties: 2 }, valid: { name: "a" }, invalid: {} }],
  ["not", { schema: { type: "object", properties: props, not: { required: ["name", "kind"] } }, valid: { name: "a" }, invalid: { name: "a", kind: "b" } }],
  // Screening reads objects closed unless additionalProperties or patternProperties open them
  // (object-openness.ts), so an unevaluated key is refused before validation: the valid call here declares its keys.
  ["unevaluatedProperties: a schema", { schema: { type: "object", properties: props, unevaluatedProperties: { type: "boolean" } }, valid: { name: "a", kind: "b" }, invalid: undefined }],
  [
    "3.1 $ref with siblings",
    { schema: { $ref: "#/components/schemas/Thing", required: ["name"], properties: { note: { type: "string" } } }, components: { Thing: { type: "object", properties: props } }, valid: { name: "a", note: "n" }, invalid: { note: "n" } },
  ],
];

describe("bodies whose schema says more than its members stay one argument", () => {
  it.each(rows)("%s", async (_label, { schema, components, valid, invalid }) => {
    const tool = toolFor(schema, components);
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["body"]);
    expect(tool.check({ body: valid })).toEqual([]);
    const request = await tool.request({ body: valid }, ctx);
    expect(JSON.parse(String(request.body))).toEqual(valid);
    if (invalid !== undefined) expect(tool.check({ body: invalid }).length).toBeGreaterThan(0);
  });

  it("the 3.0 and Swagger 2.0 draft-4 `dependencies` keeps a body whole too", () => {
    const tool = toolFor({ type: "object", properties: props, dependencies: { size: ["kind"] } }, {}, "3.0.3");
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["body"]);
  });
});

describe("bodies that lose nothing are still flat", () => {
  it.each([
    ["a plain object", { type: "object", properties: props, required: ["name"] }],
    ["a closed object (the flat root is closed too)", { type: "object", properties: props, required: ["name"], additionalProperties: false }],
    ["unevaluatedProperties: false", { type: "object", properties: props, required: ["name"], unevaluatedProperties: false }],
    ["a 3.1 $ref with a description beside it", { $ref: "#/components/schemas/Thing", description: "A thing." }],
  ] as const)("%s", async (_label, schema) => {
    const tool = toolFor(schema, { Thing: { type: "object", properties: props, required: ["name"] } });
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["name", "kind", "size"]);
    expect(tool.inputSchema.required).toEqual(["name"]);
    const request = await tool.request({ name: "a", size: 2 }, ctx);
    expect(JSON.parse(String(request.body))).toEqual({ name: "a", size: 2 });
    expect(tool.check({ kind: "b" }).map((issue) => issue.code)).toEqual(["required"]);
    expect(tool.check({ name: "a", other: 1 }).map((issue) => issue.code)).toEqual(["unknown"]);
  });
});
