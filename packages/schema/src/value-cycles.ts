import { isSchemaObject, type JsonSchemaObject } from "./json-schema.ts";
import { getOwn, hasOwn } from "./own-properties.ts";
import { defsOf, refTarget, ROOT } from "./ref-graph.ts";
import { cyclicComponents } from "./strongly-connected-components.ts";

/** Keywords that apply another schema to the same value (not to a member or an item). */
const SAME_VALUE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"];

/**
 * Definitions that apply each other to the same value without descending into it:
 * `A: { allOf: [{ $ref: B }] }`, `B: { anyOf: [{ $ref: A }] }`. Checking a value against
 * such a cycle never ends, whatever the value (a cycle through `properties` or `items` is
 * fine: it descends, and the value is finite). Each component is sorted; none when the
 * schema is well-founded.
 */
export function sameValueCycles(root: JsonSchemaObject): string[][] {
  const defs = defsOf(root);
  const graph = new Map<string, string[]>();
  for (const name of Object.keys(defs)) {
    const body = defs[name];
    graph.set(name, isSchemaObject(body) ? sameValueRefs(body) : []);
  }
  return cyclicComponents(graph).map((component) => [...component].sort());
}

/** The defs a schema applies to its own value: its `$ref`, and those of its same-value subschemas. */
function sameValueRefs(body: JsonSchemaObject): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [body];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isSchemaObject(node) || seen.has(node)) continue;
    seen.add(node);
    const ref = getOwn(node, "$ref");
    if (typeof ref === "string") {
      try {
        const target = refTarget(ref);
        if (target !== ROOT) out.add(target);
      } catch {
        // An external ref is refused elsewhere; it cannot form a local cycle.
      }
    }
    for (const keyword of SAME_VALUE) {
      if (!hasOwn(node, keyword)) continue;
      const value = getOwn(node, keyword);
      if (Array.isArray(value)) for (const part of value) stack.push(part);
      else if (keyword === "dependentSchemas" && isSchemaObject(value)) for (const part of Object.values(value)) stack.push(part);
      else stack.push(value);
    }
  }
  return [...out];
}
