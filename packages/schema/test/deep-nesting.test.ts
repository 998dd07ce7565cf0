import { describe, expect, it } from "vitest";
import { canonicalJson, cloneJson, collectGarbage, refGraph, resolvedDepth, walkSchema, type JsonSchemaObject } from "../src/index.ts";
import { nestedProperties } from "./nested-properties.ts";

const LEVELS = 20_000;

describe(`${LEVELS.toLocaleString("en")}-level nesting does not overflow the stack`, () => {
  const root = nestedProperties(LEVELS) as JsonSchemaObject;

  it("walkSchema visits every level, deepest at depth LEVELS", () => {
    let count = 0;
    let deepest = 0;
    let deepestPointer = "";
    walkSchema(root, ({ depth, pointer }) => {
      count++;
      if (depth > deepest) [deepest, deepestPointer] = [depth, pointer];
    });
    expect(count).toBe(LEVELS + 1);
    expect(deepest).toBe(LEVELS);
    expect(deepestPointer).toBe("/properties/a".repeat(LEVELS));
  });

  it("canonicalJson writes it exactly", () => {
    expect(canonicalJson(root)).toBe('{"properties":{"a":'.repeat(LEVELS) + "{}" + "}}".repeat(LEVELS));
  });

  it("cloneJson copies every level", () => {
    const copy = cloneJson(root);
    // Plain comparisons: handing a 20,000-level object to expect() would overflow its printer.
    let levels = 0;
    let shared = 0;
    let source: unknown = root;
    let target: unknown = copy;
    for (;;) {
      if (target === source) shared++;
      const next = (target as { properties?: { a: unknown } }).properties;
      if (next === undefined) break;
      levels++;
      source = (source as { properties: { a: unknown } }).properties.a;
      target = next.a;
    }
    expect(levels).toBe(LEVELS);
    expect(shared).toBe(0);
    expect(Object.keys(target as object)).toEqual([]);
  });

  it("resolvedDepth counts the root and every nested property: LEVELS + 1", () => {
    expect(resolvedDepth(root)).toBe(LEVELS + 1);
  });

  it("resolvedDepth follows a ref into a deep def: the ref node becomes the def's levels", () => {
    const deep = { properties: { r: { $ref: "#/$defs/Deep" } }, $defs: { Deep: nestedProperties(LEVELS) } };
    expect(resolvedDepth(deep)).toBe(LEVELS + 2);
    expect(refGraph(deep).get("#")).toEqual(["Deep"]);
    const kept = collectGarbage(deep).$defs as Record<string, unknown>;
    expect(Object.keys(kept)).toEqual(["Deep"]);
    expect(kept.Deep === deep.$defs.Deep).toBe(true);
  });
});
