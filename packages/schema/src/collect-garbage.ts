import type { JsonSchemaObject } from "./json-schema.ts";
import { setOwn } from "./own-properties.ts";
import { defsOf, reachable, refGraph, ROOT } from "./ref-graph.ts";

/**
 * Removes `$defs` entries the root cannot reach (through any chain of refs). Returns a
 * new root object; kept entries keep their order and identity. `$defs` disappears when
 * nothing is left in it.
 */
export function collectGarbage(root: JsonSchemaObject): JsonSchemaObject {
  const live = reachable(refGraph(root), ROOT);
  const defs = defsOf(root);
  const kept: Record<string, JsonSchemaObject> = {};
  for (const name of Object.keys(defs)) if (live.has(name)) setOwn(kept, name, defs[name]!);
  const { $defs: _dropped, ...rest } = root;
  return Object.keys(kept).length > 0 ? { ...rest, $defs: kept } : rest;
}
