import type { JsonSchemaObject } from "./json-schema.ts";
import { parseLocalRef } from "./json-pointer.ts";
import { hasOwn } from "./own-properties.ts";
import { SluiceError } from "./sluice-error.ts";

/** The value a local `$ref` points at inside `root`. */
export function resolveRef(root: JsonSchemaObject, ref: string): unknown {
  const segments = parseLocalRef(ref);
  if (segments === undefined) {
    throw new SluiceError("EXTERNAL_REF", `"${ref}" points outside this schema; only local refs are supported and nothing is fetched.`);
  }
  let current: unknown = root;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null || !hasOwn(current, segment)) {
      throw new SluiceError("UNRESOLVED_REF", `"${ref}" does not resolve: no "${segment}" there.`, { pointer: ref.slice(1) });
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
