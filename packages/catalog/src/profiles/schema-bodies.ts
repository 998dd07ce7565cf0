import { cyclicComponents, defsOf, escapePointerSegment, hasOwn, isSchemaObject, reachable, refGraph, refTarget, ROOT, subschemasOf, walkSchema } from "@sluice/schema";
import type { JsonSchemaObject, SchemaVisit } from "@sluice/schema";

const SKIP_DEFS: ReadonlySet<string> = new Set(["$defs"]);

/**
 * Visits every schema node of a tool's input schema exactly once: the root body (without
 * `$defs`), then each definition body, by name. Pointers are relative to the input
 * schema. Never follows a `$ref`, so a cyclic schema costs one pass over its text.
 */
export function walkBodies(schema: JsonSchemaObject, visit: (v: SchemaVisit) => void): void {
  walkSchema(schema, (v) => void visit(v), { skipKeywords: SKIP_DEFS });
  const defs = defsOf(schema);
  for (const name of Object.keys(defs).sort()) {
    const body = defs[name];
    if (!isSchemaObject(body)) continue;
    const base = "/$defs/" + escapePointerSegment(name);
    walkSchema(body, (v) => void visit({ ...v, pointer: base + v.pointer }));
  }
}

/** Cycles reachable from the root, each as its sorted type names. */
export function reachableCycles(schema: JsonSchemaObject): string[][] {
  const graph = refGraph(schema);
  const live = reachable(graph, ROOT);
  return cyclicComponents(graph)
    .filter((component) => component.some((name) => live.has(name)))
    .map((component) => [...component].sort())
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/**
 * Levels of object nesting once refs are resolved (an object inside an object is 2),
 * Infinity when a cycle goes through an object. Each definition is measured once.
 */
export function objectNesting(schema: JsonSchemaObject): number {
  const defs = defsOf(schema);
  const memo = new Map<string, number>();
  const inProgress = new Set<string>();
  const measure = (node: JsonSchemaObject, isRoot: boolean): number => {
    // Post-order over the body; refs are measured through the memo (a body is small, the
    // recursion depth is the ref chain length, bounded by the number of definitions).
    let deepest = 0;
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") {
      const target = refTarget(node.$ref);
      if (target !== ROOT && hasOwn(defs, target)) deepest = Math.max(deepest, def(target));
      else if (target === ROOT) deepest = Infinity;
    }
    for (const edge of subschemasOf(node)) {
      if (isRoot && edge.keyword === "$defs") continue;
      deepest = Math.max(deepest, measure(edge.child, false));
    }
    return deepest + (isObjectNode(node) ? 1 : 0);
  };
  const def = (name: string): number => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    if (inProgress.has(name)) return Infinity;
    inProgress.add(name);
    const value = measure(defs[name]!, false);
    inProgress.delete(name);
    memo.set(name, value);
    return value;
  };
  return measure(schema, true);
}

export function isObjectNode(node: JsonSchemaObject): boolean {
  return node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || isSchemaObject(node.properties);
}
