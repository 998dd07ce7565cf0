import { describe, expect, it } from "vitest";
import { resolvedDepth, type JsonSchemaObject } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

describe("resolvedDepth (root = level 1; refs replaced by their targets)", () => {
  it.each<[string, { given: JsonSchemaObject; want: number }]>([
    ["empty schema", { given: {}, want: 1 }],
    ["flat object: root + property", { given: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } }, want: 2 }],
    ["nested object", { given: { properties: { a: { properties: { b: { type: "string" } } } } }, want: 3 }],
    ["array of objects", { given: { properties: { list: { type: "array", items: { properties: { id: {} } } } } }, want: 4 }],
    ["union branches are levels", { given: { anyOf: [{ type: "null" }, { properties: { a: {} } }] }, want: 3 }],
    ["the longest branch wins", { given: { properties: { short: {}, long: { items: { items: { items: {} } } } } }, want: 5 }],
    ["a ref to a scalar def counts as one level", { given: { properties: { a: ref("S") }, $defs: { S: { type: "string" } } }, want: 2 }],
    [
      "a ref chain adds the target's depth at the ref",
      { given: { properties: { a: ref("A") }, $defs: { A: { properties: { b: ref("B") } }, B: { properties: { c: { type: "string" } } } } }, want: 4 },
    ],
    [
      "a ref with siblings: the deeper of the node's own children and the target",
      { given: { properties: { a: { ...ref("S"), properties: { x: { properties: { y: {} } } } } }, $defs: { S: {} } }, want: 4 },
    ],
    ["a def used at two depths counts at the deeper", { given: { properties: { a: ref("D"), b: { items: ref("D") } }, $defs: { D: { properties: { x: {} } } } }, want: 4 }],
    ["unreferenced defs do not count", { given: { type: "string", $defs: { Deep: { properties: { a: { properties: { b: {} } } } } } }, want: 1 }],
    ["an unreachable cycle does not count", { given: { properties: { a: {} }, $defs: { X: ref("Y"), Y: { items: ref("X") } } }, want: 2 }],
    ["refs in instance data do not count", { given: { properties: { a: { default: ref("Loop") } }, $defs: { Loop: { items: ref("Loop") } } }, want: 2 }],
    [
      "an aliased (shared) node counts at its deepest place",
      (() => {
        const shared = { properties: { x: {} } };
        return { given: { properties: { a: shared, b: { properties: { c: shared } } } }, want: 4 };
      })(),
    ],
    ["reachable self-loop", { given: { properties: { a: ref("Node") }, $defs: { Node: { properties: { next: ref("Node") } } } }, want: Infinity }],
    ["reachable 2-cycle", { given: { properties: { a: ref("A") }, $defs: { A: { items: ref("B") }, B: { anyOf: [ref("A")] } } }, want: Infinity }],
    ["a cycle reached through an acyclic def", { given: { properties: { a: ref("Wrap") }, $defs: { Wrap: { items: ref("Loop") }, Loop: { not: ref("Loop") } } }, want: Infinity }],
    ["a def referring back to the root", { given: { properties: { a: ref("Up") }, $defs: { Up: { properties: { root: { $ref: "#" } } } } }, want: Infinity }],
  ])("%s", (_name, { given, want }) => {
    expect(resolvedDepth(given)).toBe(want);
  });

  it("a dangling ref is UNRESOLVED_REF", () => {
    expect(sluiceErrorOf(() => resolvedDepth({ properties: { a: ref("Missing") } })).code).toBe("UNRESOLVED_REF");
  });
});
