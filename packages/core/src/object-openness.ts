import { escapePointerSegment, getOwn, hasOwn, isSchemaObject, type JsonSchemaObject } from "@sluice/schema";
import { patternError, specPattern } from "./spec-pattern.ts";

/**
 * Which keys an object schema lets a model send, in one place, so that screening, the
 * projection and the egress map agree.
 *
 * sluice reads object schemas closed by convention: a schema that has a `properties`
 * keyword admits the keys it declares and nothing else unless it says otherwise. It is
 * open where it says so (`additionalProperties` true or a schema, a matching
 * `patternProperties` pattern) and where it describes no members at all (a free-form
 * object). A property whose schema is `false` forbids its key: that is how a projection
 * withholds a key from a branch that would otherwise admit it.
 *
 * Refs and composites (`allOf`, `anyOf`, `oneOf`) are followed by the callers; each
 * function here looks at one node.
 */

/** Whether `node` declares property `key` (a `false` property forbids the key). */
export function declaresKey(node: JsonSchemaObject, key: string): boolean {
  const properties = getOwn(node, "properties");
  return isSchemaObject(properties) && hasOwn(properties, key) && properties[key] !== false;
}

/** Whether `node` forbids `key` outright (`"key": false`). */
export function forbidsKey(node: JsonSchemaObject, key: string): boolean {
  const properties = getOwn(node, "properties");
  return isSchemaObject(properties) && hasOwn(properties, key) && properties[key] === false;
}

/** Whether `node` names `key` in `required` without declaring it (a constraint on its siblings' members). */
export function requiresUndeclared(node: JsonSchemaObject, key: string): boolean {
  const required = getOwn(node, "required");
  return Array.isArray(required) && required.includes(key) && !declaresKey(node, key);
}

/**
 * A free-form object: it describes no members and constrains none (no `properties`,
 * `patternProperties`, `additionalProperties` or `required`), and can be an object.
 * Composites and refs are not free-form by themselves: their parts decide.
 */
export function isFreeForm(node: JsonSchemaObject): boolean {
  for (const keyword of ["properties", "patternProperties", "additionalProperties", "required", "$ref", "allOf", "anyOf", "oneOf", "const", "enum", "not", "if"]) {
    if (hasOwn(node, keyword)) return false;
  }
  const type = getOwn(node, "type");
  if (type === undefined) return !["items", "prefixItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "multipleOf"].some((k) => hasOwn(node, k));
  return type === "object" || (Array.isArray(type) && type.includes("object"));
}

/** The `additionalProperties` schema when it opens the object (true or a schema), else undefined. */
export function openingSchema(node: JsonSchemaObject): JsonSchemaObject | true | undefined {
  const additional = getOwn(node, "additionalProperties");
  if (additional === true) return true;
  if (isSchemaObject(additional)) return additional;
  return undefined;
}

/** Whether `node` lets `key` through without declaring it: explicitly open, a matching pattern, or free-form. */
export function opensTo(node: JsonSchemaObject, key: string, matches: (pattern: string, key: string) => boolean): boolean {
  if (declaresKey(node, key) || forbidsKey(node, key)) return false;
  if (openingSchema(node) !== undefined || isFreeForm(node)) return true;
  const patterns = getOwn(node, "patternProperties");
  return isSchemaObject(patterns) && Object.keys(patterns).some((pattern) => patterns[pattern] !== false && matches(pattern, key));
}

/** Whether `node` lets any key through that it does not declare (explicitly, by pattern, or free-form). */
export function isOpen(node: JsonSchemaObject): boolean {
  const patterns = getOwn(node, "patternProperties");
  return openingSchema(node) !== undefined || isFreeForm(node) || (isSchemaObject(patterns) && Object.keys(patterns).length > 0);
}

/**
 * `patternProperties` keys are spec-provided regular expressions, run on the linear-time
 * engine (spec-pattern.ts). One that is not valid ECMA-262 matches nothing (validators
 * refuse the schema anyway); one the engine cannot run (lookaround, backreferences) fails
 * closed with PATTERN_UNSUPPORTED rather than being guessed either way.
 */
export function patternMatches(pattern: string, key: string): boolean {
  const compiled = specPattern(pattern);
  if ("test" in compiled) return compiled.test(key);
  if (compiled.code === "PATTERN_INVALID") return false;
  throw patternError(pattern, compiled, `/patternProperties/${escapePointerSegment(pattern)}`);
}
