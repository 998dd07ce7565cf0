/**
 * Keywords that constrain a value survive conversion (issue 22): the draft-4 ones of
 * OpenAPI 3.0 / Swagger 2.0 become their 2020-12 forms, 2020-12 ones are kept, and one
 * sluice cannot check exactly refuses the operation with KEYWORD_UNSUPPORTED instead of
 * being dropped (dropping any of them accepts what the spec forbids). The suite-wide
 * check is test/json-schema-suite.test.ts.
 */
import { describe, expect, it } from "vitest";
import { definePack, isSluiceError, Tool, type JsonSchemaObject } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "../src/index.ts";
import { build, oas30, onlyTool, swagger2 } from "./build.ts";

/** The argument schema a 3.0 (or 2.0) query parameter with this schema becomes. */
function convert30(schema: unknown): JsonSchemaObject {
  return onlyTool(build(oas30({ "/x": { get: { parameters: [{ name: "v", in: "query", schema }] } } }))).parameters.properties.v!;
}

const oas31 = (schema: unknown) => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: { "/x": { post: { operationId: "x", requestBody: { content: { "application/json": { schema: { type: "object", properties: { v: schema } } } } }, responses: { "200": { description: "ok" } } } } },
});

describe("constraining keywords are converted, never dropped", () => {
  it.each<[string, { given: unknown; want: unknown }]>([
    [
      "draft-4 dependencies split into dependentRequired and dependentSchemas",
      {
        given: { type: "object", dependencies: { card: ["billing"], bank: { required: ["iban"] } } },
        want: { type: "object", dependentRequired: { card: ["billing"] }, dependentSchemas: { bank: { required: ["iban"] } } },
      },
    ],
    ["additionalItems beside a tuple becomes items after prefixItems", { given: { type: "array", items: [{ type: "integer" }], additionalItems: false }, want: { type: "array", prefixItems: [{ type: "integer" }], items: false } }],
    ["additionalItems beside a single items schema has no effect", { given: { type: "array", items: { type: "integer" }, additionalItems: false }, want: { type: "array", items: { type: "integer" } } }],
    ["additionalItems as a schema", { given: { items: [{}], additionalItems: { type: "string" } }, want: { prefixItems: [{}], items: { type: "string" } } }],
    ["dependentRequired is kept", { given: { type: "object", dependentRequired: { a: ["b"] } }, want: { type: "object", dependentRequired: { a: ["b"] } } }],
    ["enum: [] matches nothing (a parameter's false schema is written as not: {})", { given: { type: "string", enum: [] }, want: { not: {} } }],
    ["nullable enum: [] matches null alone", { given: { type: "string", enum: [], nullable: true }, want: { enum: [null] } }],
  ])("%s", (_, { given, want }) => {
    expect(convert30(given)).toEqual(want);
  });

  // A member object, not the body itself: keywords of a flattened body (its members become
  // arguments) are operation-object.ts's to carry (issue 22, "flattening loses schema parts").
  const member = (schema: unknown) => ({ type: "object", properties: { o: schema } });

  it("a dependency on a read-only member is dropped with it, as in required", () => {
    const pack = build(oas30({ "/x": { post: { requestBody: { content: { "application/json": { schema: member({ type: "object", properties: { a: { type: "string" }, id: { type: "string", readOnly: true } }, dependencies: { a: ["id", "b"] } }) } } } } } }));
    expect(onlyTool(pack).parameters.properties.o).toEqual({ type: "object", properties: { a: { type: "string" } }, dependentRequired: { a: ["b"] } });
  });

  it("a property named __proto__ in dependencies stays an own key", () => {
    const v = convert30({ type: "object", dependencies: JSON.parse('{"__proto__": ["b"]}') });
    expect(Object.keys(v.dependentRequired as object)).toEqual(["__proto__"]);
  });

  it("Swagger 2.0 body schemas get the same conversion", () => {
    const pack = build(swagger2({ "/x": { post: { parameters: [{ name: "body", in: "body", schema: member({ type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, dependencies: { a: ["b"] } }) }] } } }));
    const tool = definePack(pack).tools[0]!;
    expect(tool.check({ o: { a: "x" } }).map((issue) => issue.code)).toEqual(["dependentRequired"]);
    expect(tool.check({ o: { a: "x", b: "y" } })).toEqual([]);
  });

  it("$dynamicRef skips the operation with KEYWORD_UNSUPPORTED, naming operation and pointer; others are still generated", () => {
    const doc = oas31({ $dynamicRef: "#node" });
    (doc.paths as Record<string, unknown>)["/y"] = { get: { operationId: "y", responses: { "200": { description: "ok" } } } };
    const ir = buildOpenAPIPackIR(doc, { name: "t", file: "t.json", sha256: "0".repeat(64) });
    expect(ir.tools.map((t) => t.name)).toEqual(["y"]);
    expect(ir.skipped).toEqual([{ operation: "POST /x", code: "KEYWORD_UNSUPPORTED", pointer: "/paths/~1x/post/requestBody/content/application~1json/schema/properties/v/$dynamicRef", reason: expect.stringMatching(/^KEYWORD_UNSUPPORTED: POST \/x \/paths\/~1x\/post\/requestBody\/content\/application~1json\/schema\/properties\/v\/\$dynamicRef: /) }]);
  });

  it("with the unsupportedKeywords guard off, $dynamicRef is dropped and the tool accepts anything there", async () => {
    const ir = await withoutGuard("unsupportedKeywords", () => buildOpenAPIPackIR(oas31({ type: "array", items: { $dynamicRef: "#node" } }), { name: "t", file: "t.json", sha256: "0".repeat(64) }));
    expect(ir.tools[0]!.parameters.properties.v).toEqual({ type: "array", items: {} });
  });

  it("a contains behind a $ref still feeds unevaluatedItems: the operation and a hand-built tool are refused; with the guard off Ajv accepts an invalid array", async () => {
    const components = { schemas: { A: { type: "array", allOf: [{ $ref: "#/components/schemas/C" }], unevaluatedItems: false }, C: { contains: { type: "string" } } } };
    const doc = { ...oas31({ $ref: "#/components/schemas/A" }), components };
    const ir = buildOpenAPIPackIR(doc, { name: "t", file: "t.json", sha256: "0".repeat(64) });
    expect(ir.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^KEYWORD_UNSUPPORTED: POST \/x: unevaluatedItems at \/\$defs\/A\/unevaluatedItems .*"contains" at \/allOf\/0\/\$ref/)]);

    const inputSchema = { type: "object", properties: { v: { $ref: "#/$defs/A" } }, $defs: { A: { type: "array", allOf: [{ $ref: "#/$defs/C" }], unevaluatedItems: false }, C: { contains: { type: "string" } } } };
    const tool = () => Tool.create({ name: "t", description: "t", inputSchema, binding: { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } });
    // [1, 2, "foo"]: contains evaluates "foo" only, so 1 and 2 are unevaluated and the array is invalid.
    let code: string | undefined;
    try {
      tool().check({ v: [1, 2, "foo"] });
    } catch (error) {
      if (isSluiceError(error)) code = error.code;
    }
    expect(code).toBe("KEYWORD_UNSUPPORTED");
    expect(await withoutGuard("unsupportedKeywords", () => tool().check({ v: [1, 2, "foo"] }))).toEqual([]);
  });
});

describe("the search for keywords the runtime refuses starts with the first conversion that writes unevaluatedItems", () => {
  // Operations in path order: the ones before /m hold nothing to refuse; /m writes the
  // shared definition, and /n, built later, reaches it already converted; /z holds its own.
  const query = (schema: unknown) => ({ get: { parameters: [{ name: "v", in: "query", schema }], responses: { "200": { description: "ok" } } } });
  const doc = oas30(
    {
      "/a": query({ type: "array", items: { type: "string" } }),
      "/b": query({ $ref: "#/components/schemas/Plain" }),
      "/m": query({ $ref: "#/components/schemas/Counted" }),
      "/n": query({ type: "object", properties: { list: { $ref: "#/components/schemas/Counted" } } }),
      "/p": query({ $ref: "#/components/schemas/Plain" }),
      "/z": query({ type: "array", allOf: [{ contains: { type: "integer" } }], unevaluatedItems: false }),
    },
    { components: { schemas: { Plain: { type: "array", items: { type: "integer" } }, Counted: { type: "array", contains: { type: "string" }, unevaluatedItems: false } } } },
  );

  it("refuses every operation reaching one, wherever it comes in the document, and generates the rest", () => {
    const ir = build(doc);
    expect(ir.tools.map((t) => t.name).sort()).toEqual(["get_a", "get_b", "get_p"]);
    expect(ir.skipped.map((s) => [s.operation, s.code, s.pointer])).toEqual([
      ["GET /m", "KEYWORD_UNSUPPORTED", "/$defs/Counted/unevaluatedItems"],
      ["GET /n", "KEYWORD_UNSUPPORTED", "/$defs/Counted/unevaluatedItems"],
      ["GET /z", "KEYWORD_UNSUPPORTED", "/properties/v/unevaluatedItems"],
    ]);
  });

  it("with the guard off, all are generated (so the refusals above are the search's)", async () => {
    const ir = await withoutGuard("unsupportedKeywords", () => build(doc));
    expect(ir.skipped).toEqual([]);
    expect(ir.tools).toHaveLength(6);
  });
});
