import { hasOwn, isSchemaObject, refTarget, ROOT, UNION_KEYWORDS, type JsonSchemaObject } from "@sluice/schema";

const TRANSPARENT = ["items", "prefixItems", ...UNION_KEYWORDS];

/**
 * The schema nodes a selector walk treats as one place: `start`, and what it reaches
 * through local refs into `defs`, array items and union branches (never through
 * `properties`). `onDef` hears every definition entered. Breadth-first and iterative; a
 * node is visited once however many ways lead to it.
 */
export function transparentClosure(defs: Readonly<Record<string, JsonSchemaObject>>, start: readonly JsonSchemaObject[], onDef?: (name: string) => void): JsonSchemaObject[] {
  const seen = new Set<JsonSchemaObject>();
  const queue = [...start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
      const target = refTarget(node.$ref);
      if (target !== ROOT && hasOwn(defs, target)) {
        onDef?.(target);
        queue.push(defs[target]!);
      }
    }
    for (const keyword of TRANSPARENT) {
      if (!hasOwn(node, keyword)) continue;
      const value = node[keyword];
      if (Array.isArray(value)) {
        for (const element of value) if (isSchemaObject(element)) queue.push(element);
      } else if (isSchemaObject(value)) {
        queue.push(value);
      }
    }
  }
  return [...seen];
}
