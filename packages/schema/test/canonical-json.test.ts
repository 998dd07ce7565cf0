import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const printer = fileURLToPath(new URL("./fixtures/print-canonical.ts", import.meta.url));

/** The same entries, inserted in the given order. */
function withKeyOrder(entries: ReadonlyArray<readonly [string, unknown]>, order: readonly number[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const index of order) Object.defineProperty(object, entries[index]![0], { value: entries[index]![1], enumerable: true, writable: true, configurable: true });
  return object;
}

function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

describe("canonicalJson", () => {
  it("output does not depend on insertion order, integer-like keys included", () => {
    const entries = [["10", 1], ["2", 2], ["b", 3], ["a", 4], ["1", { y: 1, x: 2 }]] as const;
    const outputs = new Set(permutations(entries.length).map((order) => canonicalJson(withKeyOrder(entries, order))));
    expect([...outputs]).toEqual(['{"1":{"x":2,"y":1},"10":1,"2":2,"a":4,"b":3}']);
    // What the engine does on its own: integer-like keys first, numerically. Not a stable basis.
    expect(JSON.stringify({ b: 3, a: 4, "10": 1, "2": 2 })).toBe('{"2":2,"10":1,"b":3,"a":4}');
  });

  it.each<[string, { given: unknown; want: string }]>([
    ["UTF-16 code unit order (RFC 8785), not code point order", { given: { "ｚ": 1, "😀": 2, "é": 3, z: 4, Z: 5, "": 6 }, want: '{"":6,"Z":5,"z":4,"é":3,"😀":2,"ｚ":1}' }],
    ["compact, nested", { given: { b: [1, { d: null, c: true }], a: "x" }, want: '{"a":"x","b":[1,{"c":true,"d":null}]}' }],
    ["undefined members omitted, undefined and holes in arrays become null", { given: { a: undefined, b: [undefined, 1, , 2] }, want: '{"b":[null,1,null,2]}' }],
    ["numbers as ECMAScript JSON spells them", { given: [-0, 1e21, 1.5e-7, 0.1, 100, 1e-7], want: "[0,1e+21,1.5e-7,0.1,100,1e-7]" }],
    ["strings escaped as JSON.stringify does", { given: ["\u2028", "\ud800", '"\\', "\n\u0001"], want: JSON.stringify(["\u2028", "\ud800", '"\\', "\n\u0001"]) }],
    ["scalars at the root", { given: "x", want: '"x"' }],
    ["null at the root", { given: null, want: "null" }],
    ["empty containers", { given: { a: {}, b: [] }, want: '{"a":{},"b":[]}' }],
    ["a shared (non-looping) subtree is written at every place", { given: (() => { const s = { k: 1 }; return { a: s, b: [s, s] }; })(), want: '{"a":{"k":1},"b":[{"k":1},{"k":1}]}' }],
  ])("%s", (_name, { given, want }) => {
    expect(canonicalJson(given)).toBe(want);
  });

  it("parses back to an equal value", () => {
    const value = { z: [1, "two", { three: [null, false] }], a: { "10": 1, "9": 2 }, "": -1.25e-300 };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it.each<[string, unknown]>([
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["-Infinity", -Infinity],
    ["NaN nested in an object", { a: { b: NaN } }],
    ["Infinity nested in an array", { a: [1, [Infinity]] }],
    ["a bigint", { a: 1n }],
    ["a function", { a: () => 1 }],
    ["a symbol", [Symbol("s")]],
  ])("refuses %s with SPEC_INVALID", (_name, value) => {
    expect(sluiceErrorOf(() => canonicalJson(value)).code).toBe("SPEC_INVALID");
  });

  it("is byte-identical across processes that insert keys in different orders", () => {
    const run = (seed: number) => execFileSync(process.execPath, ["--import", "tsx", printer, String(seed)], { cwd: repoRoot, encoding: "utf8" });
    const first = run(0);
    const second = run(1);
    expect(first.length).toBeGreaterThan(1000);
    expect(second).toBe(first);
    // And the same bytes as in this process.
    expect(JSON.parse(first)).toBeTypeOf("object");
    expect(canonicalJson(JSON.parse(first))).toBe(first);
  });
});
