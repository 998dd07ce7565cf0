import { describe, expect, it } from "vitest";
import { isSluiceError, type SluiceError } from "@sluice/core";
import { MAX_SCHEMA_DEPTH } from "@sluice/schema-convert";
import { MAX_DOCUMENT_DEPTH } from "../src/load-document.ts";
import { build, oas30, onlyTool } from "./build.ts";

const LEVELS = 20_000;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const post = (schema: unknown, extra: Record<string, unknown> = {}) => ({
  "/things": { post: { operationId: "make", requestBody: { required: true, content: { "application/json": { schema } } }, responses: { "200": { description: "ok" } }, ...extra } },
});

function caught(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

/** S0 -> S1 -> ... -> S(n-1) through `next`, each a component schema. */
function chainSchemas(n: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) schemas[`S${i}`] = { type: "object", properties: i + 1 < n ? { next: ref(`S${i + 1}`), v: { type: "string" } } : { v: { type: "string" } } };
  return schemas;
}

/** `{ type: object, properties: { a: ... } }` nested `levels` deep inline, built without recursion. */
function inlineNesting(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) node = { type: "object", properties: { a: node } };
  return node;
}

describe("hostile OpenAPI documents: referenced schemas are converted from a work list, not by recursion", () => {
  it(`a request body chained through ${LEVELS.toLocaleString("en")} $ref'ed components converts every link`, () => {
    const tool = onlyTool(build(oas30(post(ref("S0")), { components: { schemas: chainSchemas(LEVELS) } })));
    expect(Object.keys(tool.parameters.properties)).toEqual(["next", "v"]);
    expect(tool.parameters.properties.next).toEqual({ $ref: "#/$defs/S1" });
  });

  it("the pack keeps exactly the chain's definitions, each referring to the next", () => {
    const pack = build(oas30(post(ref("S0")), { components: { schemas: chainSchemas(LEVELS) } }));
    // S0 is lifted into the arguments; S1 ... S(n-1) stay definitions.
    expect(Object.keys(pack.defs)).toHaveLength(LEVELS - 1);
    let broken = 0;
    for (let i = 1; i + 1 < LEVELS; i++) if ((pack.defs[`S${i}`]!.properties as { next: { $ref: string } }).next.$ref !== `#/$defs/S${i + 1}`) broken++;
    expect(broken).toBe(0);
  });

  it("the same chain in a 3.1 document, each ref with a sibling description, converts too", () => {
    const schemas = chainSchemas(LEVELS);
    for (let i = 0; i + 1 < LEVELS; i++) {
      (schemas[`S${i}`] as { properties: Record<string, unknown> }).properties.next = { ...ref(`S${i + 1}`), description: `link ${i}` };
    }
    const pack = build({ ...oas30(post({ type: "object", properties: { start: ref("S0") } }), { components: { schemas } }), openapi: "3.1.0" });
    expect(pack.defs.S0!.properties).toEqual({ next: { $ref: "#/$defs/S1", description: "link 0" }, v: { type: "string" } });
    expect(Object.keys(pack.defs)).toHaveLength(LEVELS);
  });

  it(`inline nesting is bounded at ${MAX_DOCUMENT_DEPTH} levels (as loading is): deeper is SPEC_INVALID with the pointer, not a stack overflow`, () => {
    // The converter (@sluice/schema-convert) bounds inline nesting where the loader bounds a document.
    expect(MAX_SCHEMA_DEPTH).toBe(MAX_DOCUMENT_DEPTH);
    expect(() => build(oas30(post(inlineNesting(MAX_DOCUMENT_DEPTH - 8))))).not.toThrow();
    const error = caught(() => build(oas30(post(inlineNesting(LEVELS)))));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.pointer).toMatch(/^\/paths\/~1things\/post\/requestBody\/content\/application~1json\/schema(\/properties\/a)+$/);
  });

  it("an enum of 1,000,000 values keeps every value (no spread into a call)", () => {
    const values = Array.from({ length: 1_000_000 }, (_, i) => `v${i}`);
    const pack = build(oas30(post({ type: "object", properties: { e: ref("Big"), f: { type: "string", enum: values } } }), { components: { schemas: { Big: { type: "string", enum: values, nullable: true } } } }));
    const big = pack.defs.Big!.enum as unknown[];
    expect(big.length).toBe(1_000_001); // nullable adds null
    expect(big[999_999]).toBe("v999999");
    expect((onlyTool(pack).parameters.properties.f!.enum as unknown[]).length).toBe(1_000_000);
  });

  it("circular allOf and mutually recursive unions stay finite references between definitions", () => {
    const pack = build(
      oas30(post({ type: "object", properties: { all: ref("A"), union: ref("C") } }), {
        components: {
          schemas: {
            A: { allOf: [ref("B"), { type: "object", properties: { a: { type: "string" } } }] },
            B: { allOf: [ref("A"), { type: "object", properties: { b: { type: "string" } } }] },
            C: { oneOf: [ref("D"), { type: "object", properties: { c: { type: "string" } } }] },
            D: { anyOf: [ref("C"), { type: "object", properties: { d: { type: "string" } } }] },
          },
        },
      }),
    );
    expect(pack.defs.A!.allOf).toEqual([{ $ref: "#/$defs/B" }, { type: "object", properties: { a: { type: "string" } } }]);
    expect(pack.defs.B!.allOf).toEqual([{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "string" } } }]);
    expect(pack.defs.C!.oneOf).toEqual([{ $ref: "#/$defs/D" }, { type: "object", properties: { c: { type: "string" } } }]);
    expect(pack.defs.D!.anyOf).toEqual([{ $ref: "#/$defs/C" }, { type: "object", properties: { d: { type: "string" } } }]);
  });
});

describe('`$ref: "#"` and refs to non-schemas are coded errors, never a free-form `{}`', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["in a request body property", oas30(post({ type: "object", properties: { self: { $ref: "#" } } })), "/paths/~1things/post/requestBody/content/application~1json/schema/properties/self/$ref"],
    ["as the whole request body schema", oas30(post({ allOf: [{ $ref: "#" }] })), "/paths/~1things/post/requestBody/content/application~1json/schema/allOf/0/$ref"],
    [
      "inside a component schema",
      oas30(post({ type: "object", properties: { node: ref("Node") } }), { components: { schemas: { Node: { type: "object", properties: { self: { $ref: "#" } } } } } }),
      "/components/schemas/Node/properties/self/$ref",
    ],
    [
      "in a parameter schema",
      oas30({ "/things": { get: { parameters: [{ name: "q", in: "query", schema: { $ref: "#" } }], responses: { "200": { description: "ok" } } } } }),
      "/paths/~1things/get/parameters/0/schema/$ref",
    ],
    ["pointing at a string (#/info/title)", oas30(post({ type: "object", properties: { t: { $ref: "#/info/title" } } })), "/paths/~1things/post/requestBody/content/application~1json/schema/properties/t/$ref"],
  ])("%s: SPEC_INVALID with the pointer of the $ref", (_, document, pointer) => {
    const error = caught(() => build(document));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.pointer).toBe(pointer);
  });
});
