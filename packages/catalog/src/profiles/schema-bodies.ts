import { cyclicComponents, defsOf, escapePointerSegment, isSchemaObject, reachable, refGraph, resolvedDepth, ROOT, walkSchema } from "@sluice/schema";
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
 * Infinity when a cycle is reachable. Measured iteratively, each definition once.
 */
export function objectNesting(schema: JsonSchemaObject): number {
  return resolvedDepth(schema, { countsLevel: isObjectNode });
}

export function isObjectNode(node: JsonSchemaObject): boolean {
  return node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || isSchemaObject(node.properties);
}
