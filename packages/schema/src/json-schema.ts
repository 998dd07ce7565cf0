/** A JSON value as found in a schema document (after JSON.parse or YAML load). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A JSON Schema 2020-12 node. Kept deliberately loose: real specs carry vendor
 * extensions and keywords from older drafts, and the engine must pass them through.
 */
export interface JsonSchemaObject {
  [keyword: string]: unknown;
}

export type JsonSchema = boolean | JsonSchemaObject;

export function isSchemaObject(value: unknown): value is JsonSchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
