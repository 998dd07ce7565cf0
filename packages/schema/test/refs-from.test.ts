/**
 * `refsFrom` walks without pointers for speed; it must find the same refs, in the same
 * order, as the pointer-carrying `walkSchema`, and still name where a refused ref sits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectRefs, refsFrom, refTarget, type JsonSchemaObject } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

/** The definition refsFrom keeps: every ref walkSchema meets, first occurrence first. */
function reference(body: JsonSchemaObject, skipDefs: boolean): string[] {
  const refs = collectRefs(body, skipDefs ? { skipKeywords: new Set(["$defs"]) } : {});
  return [...new Set(refs.map(({ ref, pointer }) => refTarget(ref, pointer)))];
}

const name = fc.constantFrom("A", "B", "C~1", "D/E", "__proto__", "items");
const leaf: fc.Arbitrary<JsonSchemaObject> = fc.oneof(
  name.map((n) => ({ $ref: `#/$defs/${n.replace(/~/g, "~0").replace(/\//g, "~1")}` })),
  fc.constant({ $ref: "#" }),
  fc.constant({ $ref: "#/properties/x" }),
  fc.constant({ type: "string" }),
);
const schema: fc.Arbitrary<JsonSchemaObject> = fc.letrec<{ node: JsonSchemaObject }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.dictionary(name, tie("node"), { maxKeys: 3 }).map((properties) => ({ type: "object", properties })),
    fc.array(tie("node"), { maxLength: 3 }).map((anyOf) => ({ anyOf })),
    tie("node").map((items) => ({ type: "array", items })),
    // `items` as a list (draft 4 tuples) and as one schema, both walked.
    fc.array(tie("node"), { maxLength: 2 }).map((items) => ({ items })),
    fc.dictionary(name, tie("node"), { maxKeys: 2 }).map(($defs) => ({ $defs, allOf: [{ $ref: "#/$defs/A" }] })),
  ),
})).node;

describe("refsFrom", () => {
  it("finds what walkSchema finds, in the same order (seeded property)", () => {
    fc.assert(
      fc.property(schema, fc.boolean(), (body, skipDefs) => {
        expect(refsFrom(body, "", skipDefs)).toEqual(reference(body, skipDefs));
      }),
      { seed: 1130, numRuns: 500 },
    );
  });

  it("visits a shared or looping node once", () => {
    const shared: JsonSchemaObject = { $ref: "#/$defs/A" };
    const loop: JsonSchemaObject = { type: "object", properties: { a: shared, b: shared } };
    (loop.properties as Record<string, JsonSchemaObject>)["self"] = loop;
    expect(refsFrom(loop, "", false)).toEqual(["A"]);
  });

  it("a ref to another document is EXTERNAL_REF with the pointer where it sits", () => {
    const body: JsonSchemaObject = { type: "object", properties: { ok: { $ref: "#/$defs/A" }, far: { items: { $ref: "https://example.com/s.json" } } } };
    const error = sluiceErrorOf(() => refsFrom(body, "/$defs/T", false));
    expect(error.code).toBe("EXTERNAL_REF");
    expect(error.pointer).toBe("/$defs/T/properties/far/items");
  });
});
