import { describe, expect, it } from "vitest";
import { canonicalJson, cloneJson, resolvedDepth, walkSchema, type JsonSchemaObject } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

/** JS object graphs that contain themselves (what a YAML alias to an ancestor parses into). */
const loops: Array<[string, () => unknown]> = [
  [
    "an object that contains itself",
    () => {
      const node: JsonSchemaObject = { type: "object" };
      node.self = node;
      return node;
    },
  ],
  [
    "a schema whose property points back at the root",
    () => {
      const root: JsonSchemaObject = { type: "object", properties: {} };
      (root.properties as Record<string, unknown>).child = { items: root };
      return root;
    },
  ],
  [
    "an array that contains itself",
    () => {
      const list: unknown[] = [1];
      list.push(list);
      return { enum: list };
    },
  ],
  [
    "a loop far from the root",
    () => {
      const inner: Record<string, unknown> = {};
      let node: Record<string, unknown> = inner;
      for (let i = 0; i < 5_000; i++) node = { properties: { a: node } };
      inner.back = node;
      return node;
    },
  ],
];

describe("a looping object graph is refused, never followed forever", () => {
  it.each(loops)("cloneJson: %s -> SPEC_INVALID", (_name, build) => {
    expect(sluiceErrorOf(() => cloneJson(build())).code).toBe("SPEC_INVALID");
  });

  it.each(loops)("canonicalJson: %s -> SPEC_INVALID", (_name, build) => {
    expect(sluiceErrorOf(() => canonicalJson(build())).code).toBe("SPEC_INVALID");
  });

  it("walkSchema visits each node once and resolvedDepth calls the loop unbounded", () => {
    const root: JsonSchemaObject = { type: "object", properties: {} };
    (root.properties as Record<string, unknown>).child = { items: root };
    let visits = 0;
    walkSchema(root, () => void visits++);
    expect(visits).toBe(2);
    expect(resolvedDepth(root)).toBe(Infinity);
  });

  it("sharing without a loop is not a loop", () => {
    const shared = { type: "string" };
    const value = { a: shared, b: { c: shared }, d: [shared, shared] };
    expect(canonicalJson(cloneJson(value))).toBe(canonicalJson(value));
  });
});
