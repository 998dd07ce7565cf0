import type { JsonSchemaObject } from "./json-schema.ts";
import { hasOwn } from "./own-properties.ts";
import { defsOf, refGraph, refTarget, ROOT } from "./ref-graph.ts";
import { stronglyConnectedComponents } from "./strongly-connected-components.ts";
import { subschemasOf } from "./walk-schema.ts";

const SKIP_DEFS: ReadonlySet<string> = new Set(["$defs"]);

export interface ResolvedDepthOptions {
  /**
   * Which nodes count as a level (default: every schema node). Providers differ: some
   * count schema levels, OpenAI strict mode counts object nesting.
   */
  countsLevel?: (node: JsonSchemaObject) => boolean;
}

/**
 * How deep the schema nests once every `$ref` is replaced by its target: the number of
 * schema levels on the longest path, the root being level 1. A reachable cycle makes it
 * unbounded (Infinity), which is what a provider's depth limit sees when it inlines refs.
 * Iterative: any nesting depth is measured without recursion.
 */
export function resolvedDepth(root: JsonSchemaObject, options: ResolvedDepthOptions = {}): number {
  const counts = options.countsLevel ?? (() => true);
  const graph = refGraph(root);
  const defs = defsOf(root);
  const depthOf = new Map<string, number>();
  // Reverse topological order: a component's targets are measured before it.
  for (const component of stronglyConnectedComponents(graph)) {
    const first = component[0]!;
    const cyclic = component.length > 1 || (graph.get(first) ?? []).includes(first);
    for (const name of component) {
      if (cyclic) depthOf.set(name, Infinity);
      else depthOf.set(name, bodyDepth(name === ROOT ? root : defs[name]!, name === ROOT, depthOf, counts));
    }
  }
  return depthOf.get(ROOT)!;
}

/**
 * Depth of one body, post-order with a memo per node object: a node shared by several
 * parents (YAML aliases) counts at its deepest place, which a pre-order walk that visits
 * each object once would miss. A node that contains its own ancestor is unbounded.
 */
function bodyDepth(
  body: JsonSchemaObject,
  isRoot: boolean,
  depthOf: ReadonlyMap<string, number>,
  counts: (node: JsonSchemaObject) => boolean,
): number {
  const depth = new Map<JsonSchemaObject, number>();
  const onPath = new Set<JsonSchemaObject>();
  const stack: Array<{ node: JsonSchemaObject; children: JsonSchemaObject[] | undefined }> = [{ node: body, children: undefined }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.children === undefined) {
      if (depth.has(frame.node) || onPath.has(frame.node)) {
        stack.pop();
        continue;
      }
      onPath.add(frame.node);
      frame.children = subschemasOf(frame.node)
        .filter((edge) => !(isRoot && SKIP_DEFS.has(edge.keyword)))
        .map((edge) => edge.child);
      for (const child of frame.children) if (!depth.has(child) && !onPath.has(child)) stack.push({ node: child, children: undefined });
      continue;
    }
    const { node } = stack.pop()!;
    const level = counts(node) ? 1 : 0;
    let own = level;
    // A ref node is replaced by its target: the target's depth stands in its place.
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") own = Math.max(own, depthOf.get(refTarget(node.$ref)) ?? level);
    for (const child of frame.children) own = Math.max(own, level + (depth.get(child) ?? Infinity));
    depth.set(node, own);
    onPath.delete(node);
  }
  return depth.get(body)!;
}
