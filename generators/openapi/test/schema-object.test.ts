import { describe, expect, it } from "vitest";
import type { JsonSchemaObject } from "@sluice/core";
import { build, oas30, onlyTool, swagger2 } from "./build.ts";

/** The argument schema a 3.0 (or 2.0) query parameter with this schema becomes. */
function convert30(schema: unknown): JsonSchemaObject {
  return onlyTool(build(oas30({ "/x": { get: { parameters: [{ name: "v", in: "query", schema }] } } }))).parameters.properties.v!;
}

describe("Schema Object conversion to 2020-12", () => {
  it.each<[string, { given: unknown; want: unknown }]>([
    ["nullable string", { given: { type: "string", nullable: true }, want: { type: ["string", "null"] } }],
    ["nullable enum gains null", { given: { type: "string", enum: ["a", "b"], nullable: true }, want: { type: ["string", "null"], enum: ["a", "b", null] } }],
    ["nullable without type wraps in anyOf", { given: { oneOf: [{ type: "string" }, { type: "integer" }], nullable: true }, want: { anyOf: [{ oneOf: [{ type: "string" }, { type: "integer" }] }, { type: "null" }] } }],
    ["nullable false changes nothing", { given: { type: "integer", nullable: false }, want: { type: "integer" } }],
    ["exclusiveMaximum true", { given: { type: "number", maximum: 10, exclusiveMaximum: true }, want: { type: "number", exclusiveMaximum: 10 } }],
    ["exclusiveMinimum false", { given: { type: "number", minimum: 0, exclusiveMinimum: false }, want: { type: "number", minimum: 0 } }],
    ["examples, example, x- dropped; format kept", { given: { type: "string", format: "date-time", example: "x", examples: ["y"], "x-stripe": 1 }, want: { type: "string", format: "date-time" } }],
    ["invalid pattern dropped, valid kept", { given: { type: "object", properties: { a: { type: "string", pattern: "(?i)x" }, b: { type: "string", pattern: "^[a-z]+$" } } }, want: { type: "object", properties: { a: { type: "string" }, b: { type: "string", pattern: "^[a-z]+$" } } } }],
    ["writeOnly kept", { given: { type: "string", writeOnly: true }, want: { type: "string", writeOnly: true } }],
    ["non-number minimum dropped", { given: { type: "integer", minimum: "0" }, want: { type: "integer" } }],
  ])("%s", (_, { given, want }) => {
    expect(convert30(given)).toEqual(want);
  });

  it("keeps 3.1 type arrays and numeric exclusive bounds as they are", () => {
    const doc = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/x": { get: { parameters: [{ name: "v", in: "query", schema: { type: ["integer", "null"], exclusiveMinimum: 0 } }] } } } };
    expect(onlyTool(build(doc)).parameters.properties.v).toEqual({ type: ["integer", "null"], exclusiveMinimum: 0 });
  });

  it("turns Swagger 2.0 file parameters into binary strings and string discriminators into objects", () => {
    const doc = swagger2(
      { "/x": { post: { parameters: [{ name: "b", in: "body", schema: { type: "array", items: { $ref: "#/definitions/Pet" } } }] } } },
      { definitions: { Pet: { type: "object", discriminator: "kind", properties: { kind: { type: "string" } } } } },
    );
    const pack = build(doc);
    expect(pack.defs.Pet).toEqual({ type: "object", discriminator: { propertyName: "kind" }, properties: { kind: { type: "string" } } });
    expect(onlyTool(pack).binding.body).toEqual({ mediaType: "application/json", encoding: "json", wholeBodyArg: "body" });
    const formOnly = onlyTool(build(swagger2({ "/x": { post: { parameters: [{ name: "upload", in: "formData", type: "file" }] } } })));
    expect(formOnly.parameters.properties.upload).toEqual({ type: "string", format: "binary" });
    expect(formOnly.binding.body).toEqual({ mediaType: "multipart/form-data", encoding: "multipart", fields: { upload: "upload" } });
  });

  it("keeps component schemas as $defs named after the component, cycles as refs", () => {
    const pack = build(
      oas30(
        { "/x": { post: { requestBody: { content: { "application/json": { schema: { type: "object", properties: { node: { $ref: "#/components/schemas/Node" } } } } } } } } },
        { components: { schemas: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } }, "issuing.card": { type: "string" } } } },
      ),
    );
    expect(pack.defs).toEqual({ Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } });
  });

  it("withholds readOnly properties from requests and records where", () => {
    const pack = build(
      oas30(
        {
          "/customers": {
            post: {
              requestBody: {
                required: true,
                content: { "application/json": { schema: { type: "object", required: ["name"], properties: { id: { type: "string", readOnly: true }, name: { type: "string" }, owner: { $ref: "#/components/schemas/Customer" } } } } },
              },
              // Customer comes back: its `required: [id]` is a response's (docs/openapi-read-only.md rule 5).
              responses: { "201": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Customer" } } } } },
            },
          },
        },
        { components: { schemas: { Customer: { type: "object", required: ["id"], properties: { id: { type: "string", readOnly: true }, email: { type: "string" } } } } } },
      ),
    );
    const tool = onlyTool(pack);
    expect(Object.keys(tool.parameters.properties)).toEqual(["name", "owner"]);
    expect(tool.parameters.required).toEqual(["name"]);
    expect(tool.withheld).toEqual([{ path: "id", reason: "read_only" }]);
    expect(pack.defs.Customer).toEqual({ type: "object", properties: { email: { type: "string" } } });
    expect(pack.withheldMembers).toEqual({ Customer: [{ path: "Customer.id", reason: "read_only" }] });
  });

  it("keeps __proto__ and constructor as ordinary property names", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__"]}');
    const pack = build(oas30({ "/x": { post: { requestBody: { required: true, content: { "application/json": { schema } } } } } }));
    const tool = onlyTool(pack);
    expect(Object.keys(tool.parameters.properties)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(tool.parameters.properties)).toBe(Object.prototype);
    expect(tool.parameters.required).toEqual(["__proto__"]);
    expect(tool.binding.body?.fields).toEqual(JSON.parse('{"__proto__":"__proto__","constructor":"constructor"}'));
  });
});
