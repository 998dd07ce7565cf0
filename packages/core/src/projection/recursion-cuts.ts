import { cyclicComponents, defsOf, hasOwn, isSchemaObject, refGraph, refTarget, ROOT, UNION_KEYWORDS } from "@sluice/schema";
import type { JsonSchemaObject } from "@sluice/schema";
import type { Tool } from "../tool.ts";

/**
 * Type selectors whose removal leaves the tool's schema acyclic: in every recursive
 * type, the properties that lead back into the same cycle (`IssueFilter.and`,
 * `IssueFilter.assignee` when the user filter leads back to issues). Everything that
 * leads out of the cycle (comparators, scalars) is kept. Required properties are never
 * cut; a cycle made only of required properties (none in the specs we ship) survives. Pass them to `derived({ drop })`,
 * which records each one in the egress map.
 */
export function recursionCuts(tool: Tool<object>): string[] {
  const schema = tool.inputSchema;
  const defs = defsOf(schema);
  const cuts: string[] = [];
  for (const component of cyclicComponents(refGraph(schema))) {
    const members = new Set(component);
    for (const name of component) {
      if (name === ROOT) continue;
      const body = defs[name]!;
      const properties = isSchemaObject(body.properties) ? body.properties : {};
      const required = new Set(Array.isArray(body.required) ? body.required : []);
      for (const key of Object.keys(properties).sort()) {
        // A required edge cannot be withheld; a cycle of required edges alone could
        // never be instantiated, so cutting the optional ones suffices in practice.
        if (required.has(key)) continue;
        const child = properties[key];
        if (isSchemaObject(child) && refsWithin(child, defs).some((target) => members.has(target))) cuts.push(`${name}.${key}`);
      }
    }
  }
  return cuts.sort();
}

/** Definitions a property's schema refers to directly, through arrays and unions (not through other definitions). */
function refsWithin(node: JsonSchemaObject, defs: Record<string, JsonSchemaObject>): string[] {
  const found: string[] = [];
  const queue = [node];
  while (queue.length > 0) {
    const current = queue.pop()!;
    if (typeof current.$ref === "string" && hasOwn(current, "$ref")) {
      const target = refTarget(current.$ref);
      if (hasOwn(defs, target)) found.push(target);
    }
    for (const keyword of ["items", "prefixItems", "additionalProperties", ...UNION_KEYWORDS]) {
      const value = current[keyword];
      if (Array.isArray(value)) {
        // One push per branch: spreading a long list into push() overflows the argument limit.
        for (const branch of value) if (isSchemaObject(branch)) queue.push(branch);
      } else if (isSchemaObject(value)) queue.push(value);
    }
  }
  return found;
}
