import { getOwn } from "@sluice/schema";
import type { Located, RefResolver } from "./reference-object.ts";
import type { Dialect } from "./schema-object.ts";

/**
 * Object keywords that say something about the body as a whole, or about members it does not
 * declare: once the members are separate arguments of a closed root, nothing would check them.
 * `additionalProperties: false` and `unevaluatedProperties: false` are what the closed root
 * already says, so those alone keep a body flat.
 */
const WHOLE_BODY_KEYWORDS = [
  "additionalProperties", "unevaluatedProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
  "dependentRequired", "dependentSchemas", "dependencies", "if", "then", "else", "not", "enum", "const",
] as const;
/** Siblings of a 3.1 `$ref` that only annotate, so a flattened body loses nothing by ignoring them. */
const ANNOTATION_SIBLINGS = new Set(["$ref", "description", "summary", "title", "deprecated", "example", "examples", "$comment"]);

/**
 * The first keyword of a body schema (along its chain of references) that flattening its
 * members into arguments would lose, as `keyword at pointer`; undefined when nothing is lost.
 * Such a body stays one `body` argument, converted whole.
 */
export function flatteningLoses(schema: Located, resolver: RefResolver, dialect: Dialect): string | undefined {
  let current = schema;
  const seen = new Set<string>();
  for (;;) {
    const ref = getOwn(current.value, "$ref");
    if (typeof ref !== "string") break;
    if (dialect === "3.1") {
      const sibling = Object.keys(current.value as object).find((key) => !ANNOTATION_SIBLINGS.has(key) && !key.startsWith("x-"));
      if (sibling !== undefined) return `${sibling} beside $ref at ${current.pointer}`;
    }
    const key = `${current.document.id}#${current.pointer}`;
    if (seen.has(key)) return undefined; // a cycle of refs: the converter reports it
    seen.add(key);
    current = resolver.resolve(ref, current.document);
  }
  for (const keyword of WHOLE_BODY_KEYWORDS) {
    const value = getOwn(current.value, keyword);
    if (value === undefined) continue;
    if ((keyword === "additionalProperties" || keyword === "unevaluatedProperties") && value === false) continue;
    return `${keyword} at ${current.pointer}`;
  }
  return undefined;
}
