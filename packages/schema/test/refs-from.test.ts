/**
 * `refsFrom` walks without pointers for speed; it must find the same refs, in the same
 * order, as the pointer-carrying `walkSchema`, and still name where a refused ref sits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectRefs, parseLocalRef, refsFrom, refTarget, type JsonSchemaObject } from "../src/index.ts";
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

/** What refTarget answered before it remembered: decode, split, take the `$defs` name. */
function uncachedTarget(ref: string): string | undefined {
  const segments = parseLocalRef(ref);
  if (segments === undefined) return undefined;
  return segments[0] === "$defs" && segments.length >= 2 ? segments[1]! : "#";
}

describe("refTarget remembers what it read", () => {
  const anyRef = fc.oneof(
    fc.string({ maxLength: 12 }).map((s) => `#/$defs/${s}`),
    fc.string({ maxLength: 12 }).map((s) => `#/$defs/${encodeURIComponent(s)}/properties/x`),
    fc.string({ maxLength: 12 }).map((s) => `#${s}`),
    fc.string({ maxLength: 12 }),
    fc.constantFrom("#/$defs/__proto__", "#/$defs/constructor", "#/$defs/a%ZZ", "#/$defs/C~1D", "https://example.com/s.json#/$defs/A", "#"),
  );

  it("answers every ref as decoding it afresh would, asked once or many times (seeded property)", () => {
    fc.assert(
      fc.property(fc.array(anyRef, { maxLength: 20 }), (refs) => {
        // Each ref twice, so that the second answer comes from what the first one kept.
        for (const ref of [...refs, ...refs]) {
          const expected = uncachedTarget(ref);
          if (expected === undefined) expect(sluiceErrorOf(() => refTarget(ref)).code).toBe("EXTERNAL_REF");
          else expect(refTarget(ref)).toBe(expected);
        }
      }),
      { seed: 1130, numRuns: 300 },
    );
  });

  it("a refused ref is refused every time, and does not stand in for a later local one", () => {
    for (let i = 0; i < 2; i++) expect(sluiceErrorOf(() => refTarget("https://example.com/s.json#/$defs/A", "/x")).pointer).toBe("/x");
    expect(refTarget("#/$defs/A")).toBe("A");
  });

  it("stays right past the point where it forgets everything (more distinct refs than it keeps)", () => {
    for (let i = 0; i < 70_000; i++) expect(refTarget(`#/$defs/T${i}`)).toBe(`T${i}`);
    expect(refTarget("#/$defs/T0")).toBe("T0");
    expect(refTarget("#/$defs/T69999")).toBe("T69999");
  });

  it("a very long ref is answered as well (it is decoded each time, not kept)", () => {
    const name = "N".repeat(2_000);
    for (let i = 0; i < 2; i++) expect(refTarget(`#/$defs/${name}/properties/x`)).toBe(name);
  });
});
