import type { JsonSchemaObject } from "./json-schema.ts";
import { hasOwn } from "./own-properties.ts";
import { defsOf, refGraph, refTarget, ROOT } from "./ref-graph.ts";
import { stronglyConnectedComponents } from "./strongly-connected-components.ts";
import { walkSchema } from "./walk-schema.ts";

const SKIP_DEFS: ReadonlySet<string> = new Set(["$defs"]);

/**
 * How deep the schema nests once every `$ref` is replaced by its target: the number of
 * schema levels on the longest path, the root being level 1. A reachable cycle makes it
 * unbounded (Infinity), which is what a provider's depth limit sees when it inlines refs.
 */
export function resolvedDepth(root: JsonSchemaObject): number {
  const graph = refGraph(root);
  const defs = defsOf(root);
  const depthOf = new Map<string, number>();
  // Reverse topological order: a component's targets are measured before it.
  for (const component of stronglyConnectedComponents(graph)) {
    const first = component[0]!;
    const cyclic = component.length > 1 || (graph.get(first) ?? []).includes(first);
    for (const name of component) {
      if (cyclic) depthOf.set(name, Infinity);
      else depthOf.set(name, bodyDepth(name === ROOT ? root : defs[name]!, name === ROOT, depthOf));
    }
  }
  return depthOf.get(ROOT)!;
}

function bodyDepth(body: JsonSchemaObject, isRoot: boolean, depthOf: ReadonlyMap<string, number>): number {
  const order: Array<{ node: JsonSchemaObject; parent: JsonSchemaObject | undefined }> = [];
  walkSchema(body, ({ node, parent }) => void order.push({ node, parent }), isRoot ? { skipKeywords: SKIP_DEFS } : {});
  const depth = new Map<JsonSchemaObject, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const { node, parent } = order[i]!;
    let own = depth.get(node) ?? 1;
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") {
      own = Math.max(own, depthOf.get(refTarget(node.$ref)) ?? 1);
    }
    depth.set(node, own);
    if (parent) depth.set(parent, Math.max(depth.get(parent) ?? 1, own + 1));
  }
  return depth.get(body) ?? 1;
}
