import { escapePointerSegment, getOwn, isSchemaObject, parseLocalRef, SluiceError, walkSchema, type JsonSchemaObject } from "@sluice/schema";
import { guards } from "./guards.ts";

/**
 * Keywords that constrain a value but that sluice cannot check exactly. Dropping one, or
 * letting the validator check it the way it does, accepts values the schema forbids, so
 * a schema that holds one is refused (KEYWORD_UNSUPPORTED) instead: by the OpenAPI
 * generator (the operation is skipped, naming operation and pointer) and by the call
 * runtime (every call of such a tool fails with the code). Measured against the
 * JSON-Schema-Test-Suite (test/json-schema-suite.test.ts; docs/json-schema.md):
 *
 * - `$dynamicRef` / `$recursiveRef` resolve by the path evaluation took; the validator
 *   (Ajv 8) resolves some as plain refs and follows a `$dynamicRef` to `false` as if it
 *   were `true`, and the Tool model has no base URIs to resolve them against.
 * - `unevaluatedItems` beside a `contains` (2020-12 counts the items `contains` matched as
 *   evaluated; Ajv does not), or beside a single-schema `items` inside a branch that may
 *   fail (`anyOf`, `oneOf`, `not`, `if`/`then`/`else`: Ajv counts that branch's items as
 *   evaluated even when the branch failed). Either way Ajv lets items through that the
 *   schema forbids.
 */
export interface UnsupportedKeyword {
  keyword: string;
  /** JSON pointer of the keyword in the schema that was searched. */
  pointer: string;
  reason: string;
}

// The OpenAPI generator searches its tools only once a conversion wrote a keyword this file
// looks for (`wroteUnevaluatedItems` in generators/schema-convert/src/schema-object.ts; the dynamic
// references are refused while converting). A keyword added here must set that flag too, or
// the generator never searches for it.
const DYNAMIC = ["$dynamicRef", "$recursiveRef"] as const;

/** Applicators that look at the same array as the schema holding them; the conditional ones may fail without failing it. */
const IN_PLACE = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"]);
const CONDITIONAL = new Set(["anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"]);

/**
 * The first keyword of `schema` (in document order) that sluice cannot check exactly, if
 * any. `definition` resolves a `#/$defs/Name` ref (default: the schema's own `$defs`), for
 * a schema searched apart from the definitions it refers to.
 */
export function findUnsupportedKeyword(schema: JsonSchemaObject, definition: (name: string) => unknown = (name) => getOwn(getOwn(schema, "$defs"), name)): UnsupportedKeyword | undefined {
  let found: UnsupportedKeyword | undefined;
  walkSchema(schema, ({ node, pointer }) => {
    if (found !== undefined) return false;
    for (const keyword of DYNAMIC) {
      if (typeof getOwn(node, keyword) === "string") {
        found = { keyword, pointer: `${pointer}/${escapePointerSegment(keyword)}`, reason: "a dynamic reference resolves by the evaluation path, which the validator does not follow exactly; write it as a $ref to the definition it means" };
        return false;
      }
    }
    const unevaluated = getOwn(node, "unevaluatedItems");
    if (unevaluated !== undefined && unevaluated !== true) {
      const feeder = unevaluatedItemsFeeder(schema, definition, node);
      if (feeder !== undefined) {
        found = { keyword: "unevaluatedItems", pointer: `${pointer}/unevaluatedItems`, reason: `it depends on ${feeder}, whose evaluated items the validator does not count as JSON Schema says; list the items with prefixItems/items instead` };
        return false;
      }
    }
    return true;
  });
  return found;
}

/**
 * What an `unevaluatedItems` at `node` depends on that Ajv gets wrong: a `contains`, or
 * `items` in a branch that may fail. Local refs (`#`, `#/$defs/Name`) are
 * followed: they apply to the same array.
 */
function unevaluatedItemsFeeder(root: JsonSchemaObject, definition: (name: string) => unknown, node: JsonSchemaObject): string | undefined {
  const stack: Array<{ schema: JsonSchemaObject; conditional: boolean; where: string }> = [{ schema: node, conditional: false, where: "" }];
  const seen = new Set<JsonSchemaObject>();
  while (stack.length > 0) {
    const { schema, conditional, where } = stack.pop()!;
    if (seen.has(schema)) continue;
    seen.add(schema);
    if (getOwn(schema, "contains") !== undefined) return `"contains"${where === "" ? "" : ` at ${where}`}`;
    if (conditional && isSchemaObject(getOwn(schema, "items"))) return `"items" at ${where}`;
    const ref = getOwn(schema, "$ref");
    const segments = typeof ref === "string" ? parseLocalRef(ref) : undefined;
    if (segments !== undefined) {
      const target = segments.length === 0 ? root : segments.length === 2 && segments[0] === "$defs" ? definition(segments[1]!) : undefined;
      if (isSchemaObject(target)) stack.push({ schema: target, conditional, where: `${where}/$ref` });
    }
    for (const keyword of IN_PLACE) {
      const value = getOwn(schema, keyword);
      const children: Array<[string, unknown]> = Array.isArray(value)
        ? value.map((child, index) => [`${keyword}/${index}`, child])
        : keyword === "dependentSchemas" && isSchemaObject(value)
          ? Object.entries(value).map(([name, child]) => [`${keyword}/${escapePointerSegment(name)}`, child])
          : [[keyword, value]];
      for (const [suffix, child] of children) {
        if (isSchemaObject(child)) stack.push({ schema: child, conditional: conditional || CONDITIONAL.has(keyword), where: `${where}/${suffix}` });
      }
    }
  }
  return undefined;
}

/** Throws KEYWORD_UNSUPPORTED for the first such keyword of `schema` (`what` names the schema: a tool, an operation). */
export function refuseUnsupportedKeywords(schema: JsonSchemaObject, what: string): void {
  if (!guards.unsupportedKeywords) return;
  const found = findUnsupportedKeyword(schema);
  if (found === undefined) return;
  throw new SluiceError("KEYWORD_UNSUPPORTED", `${what}: ${found.keyword} at ${found.pointer || "/"} cannot be checked exactly (${found.reason}); the schema is refused rather than checked loosely.`, { pointer: found.pointer });
}
