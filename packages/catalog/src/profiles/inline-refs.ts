import { canonicalJson, defsOf, hasOwn, isSchemaObject, parseLocalRef, SluiceError, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS, SINGLE_SUBSCHEMA_KEYWORDS } from "@sluice/schema";
import type { JsonSchemaObject } from "@sluice/schema";

/** Keywords that only annotate: a ref's siblings made only of these merge into the inlined copy. */
const ANNOTATIONS: ReadonlySet<string> = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"]);

export type InlineResult = { ok: true; schema: JsonSchemaObject; bytes: number } | { ok: false; estimatedBytes: number };

/**
 * Replaces every `$ref` of an acyclic schema by its target. The expanded size is
 * computed first, per definition and without building anything (each body is read
 * once), and inlining happens only when it stays within `maxBytes`: a schema whose
 * expansion is exponential is refused before it costs any memory. Inlined copies of a
 * definition share one object, so memory follows the definitions, not the expansion.
 */
export function inlineRefs(schema: JsonSchemaObject, maxBytes: number): InlineResult {
  const defs = defsOf(schema);
  const { $defs: _defs, ...root } = schema;
  const sizes = new Map<string, number>();
  const sizing = new Set<string>();
  const sizeOfDef = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    if (sizing.has(name)) throw new SluiceError("RECURSIVE_SCHEMA", `${name} is part of a cycle; cycles are unrolled or refused before refs are inlined.`, { pointer: "/$defs/" + name });
    sizing.add(name);
    const size = expandedSize(defs[name]!, sizeOfDef);
    sizing.delete(name);
    sizes.set(name, size);
    return size;
  };
  const estimatedBytes = expandedSize(root, sizeOfDef);
  if (estimatedBytes > maxBytes) return { ok: false, estimatedBytes };

  const inlined = new Map<string, JsonSchemaObject>();
  const inlineDef = (name: string): JsonSchemaObject => {
    let done = inlined.get(name);
    if (done === undefined) {
      done = expand(defs[name]!, inlineDef);
      inlined.set(name, done);
    }
    return done;
  };
  const result = expand(root, inlineDef);
  return { ok: true, schema: result, bytes: canonicalJson(result).length };
}

function targetName(ref: string): string {
  const segments = parseLocalRef(ref);
  if (segments === undefined || segments[0] !== "$defs" || segments.length !== 2) {
    throw new SluiceError("INVALID_OPTION", `Only refs to whole definitions (#/$defs/Name) can be inlined; got "${ref}".`);
  }
  return segments[1]!;
}

/** Canonical length of a body with each ref replaced by its target's expanded length (an estimate within a few bytes per ref). */
function expandedSize(body: JsonSchemaObject, sizeOfDef: (name: string) => number): number {
  let total = canonicalJson(body).length;
  const stack: JsonSchemaObject[] = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") total += sizeOfDef(targetName(node.$ref)) - node.$ref.length - 9;
    forEachSubschema(node, (child) => stack.push(child));
  }
  return total;
}

function forEachSubschema(node: JsonSchemaObject, visit: (child: JsonSchemaObject) => void): void {
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (key === "$defs") continue;
    if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isSchemaObject(value)) {
      for (const name of Object.keys(value)) if (isSchemaObject(value[name])) visit(value[name] as JsonSchemaObject);
    } else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      for (const item of value) if (isSchemaObject(item)) visit(item);
    } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(key) && isSchemaObject(value)) visit(value);
  }
}

/** A copy of `node` with refs replaced; subschema positions only, instance data copied as is. */
function expand(node: JsonSchemaObject, inlineDef: (name: string) => JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  for (const key of Object.keys(node)) {
    if (key === "$ref" || key === "$defs") continue;
    const value = node[key];
    if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isSchemaObject(value)) {
      const map: JsonSchemaObject = {};
      for (const name of Object.keys(value)) {
        const child = value[name];
        map[name] = isSchemaObject(child) ? expand(child, inlineDef) : child;
      }
      out[key] = map;
    } else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item) => (isSchemaObject(item) ? expand(item, inlineDef) : item));
    } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(key) && isSchemaObject(value)) {
      out[key] = expand(value, inlineDef);
    } else out[key] = value;
  }
  if (!(hasOwn(node, "$ref") && typeof node.$ref === "string")) return out;
  const target = inlineDef(targetName(node.$ref));
  const siblings = Object.keys(out);
  if (siblings.length === 0) return target;
  // Annotations next to a ref describe this use of the type: they win over the type's own.
  if (siblings.every((key) => ANNOTATIONS.has(key))) return { ...target, ...out };
  return { ...out, allOf: [target, ...(Array.isArray(out.allOf) ? (out.allOf as JsonSchemaObject[]) : [])] };
}
