import { describe, expect, it } from "vitest";
import { canonicalJson, collectGarbage, type JsonSchemaObject } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

describe("collectGarbage", () => {
  it.each<[string, { given: JsonSchemaObject; kept: string[] | undefined }]>([
    [
      "keeps a chain root -> A -> B -> C, drops the rest",
      { given: { properties: { a: ref("A") }, $defs: { A: { items: ref("B") }, B: { anyOf: [ref("C")] }, C: {}, D: {} } }, kept: ["A", "B", "C"] },
    ],
    [
      "keeps a cycle reached from the root",
      { given: { properties: { a: ref("A") }, $defs: { A: { properties: { b: ref("B") } }, B: { properties: { a: ref("A") } } } }, kept: ["A", "B"] },
    ],
    [
      "removes an unreachable cycle and an unreachable self-loop",
      {
        given: { properties: { a: ref("A") }, $defs: { A: {}, X: { items: ref("Y") }, Y: { items: ref("X") }, S: { not: ref("S") } } },
        kept: ["A"],
      },
    ],
    [
      "removes a def reached only from an unreachable def",
      { given: { properties: { a: ref("A") }, $defs: { A: {}, Dead: ref("Leaf"), Leaf: {} } }, kept: ["A"] },
    ],
    [
      "a ref into a def's inside keeps the def",
      { given: { properties: { x: { $ref: "#/$defs/A/properties/x" } }, $defs: { A: { properties: { x: ref("B") } }, B: {}, C: {} } }, kept: ["A", "B"] },
    ],
    [
      "refs in instance data (default, const, enum, examples) keep nothing",
      {
        given: { default: ref("A"), const: ref("A"), enum: [ref("A")], examples: [ref("A")], "x-ref": ref("A"), $defs: { A: {} } },
        kept: undefined,
      },
    ],
    ["removes $defs when nothing is reachable", { given: { type: "object", $defs: { A: {}, B: ref("A") } }, kept: undefined }],
    ["removes an empty $defs", { given: { type: "object", $defs: {} }, kept: undefined }],
    ["leaves a schema without $defs alone", { given: { type: "object", properties: { a: {} } }, kept: undefined }],
  ])("%s", (_name, { given, kept }) => {
    const before = canonicalJson(given);
    const result = collectGarbage(given);
    if (kept === undefined) expect(Object.hasOwn(result, "$defs")).toBe(false);
    else expect(Object.keys(result.$defs as object)).toEqual(kept);
    // Everything but $defs is untouched, and the input is not mutated.
    const { $defs: _a, ...restBefore } = given;
    const { $defs: _b, ...restAfter } = result;
    expect(restAfter).toEqual(restBefore);
    expect(canonicalJson(given)).toBe(before);
  });

  it("keeps def bodies by identity and is idempotent", () => {
    const A = { items: ref("B") };
    const B = { type: "string" };
    const once = collectGarbage({ properties: { a: ref("A") }, $defs: { Z: {}, A, B } });
    expect((once.$defs as Record<string, unknown>).A).toBe(A);
    expect((once.$defs as Record<string, unknown>).B).toBe(B);
    expect(canonicalJson(collectGarbage(once))).toBe(canonicalJson(once));
  });

  it("a dangling ref is UNRESOLVED_REF, not a silent drop", () => {
    expect(sluiceErrorOf(() => collectGarbage({ properties: { a: ref("Missing") }, $defs: { A: {} } })).code).toBe("UNRESOLVED_REF");
  });

  it("a root-relative ref from a kept def does not keep unreachable defs", () => {
    const result = collectGarbage({ properties: { a: ref("A") }, $defs: { A: { properties: { up: { $ref: "#" } } }, B: {} } });
    expect(Object.keys(result.$defs as object)).toEqual(["A"]);
  });
});
