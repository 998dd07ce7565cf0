import traverse from "json-schema-traverse";

/**
 * Where a keyword holds a subschema, per JSON Schema 2020-12 (Core §10, Validation §6-8).
 * json-schema-traverse's tables cover drafts up to 2019-09; the 2020-12 additions are
 * listed here. Only these positions hold schemas: `enum`, `const`, `default`,
 * `examples` and `x-` extensions hold instance data and are never descended into.
 */
interface TraverseTables {
  keywords: Record<string, true>;
  arrayKeywords: Record<string, true>;
  propsKeywords: Record<string, true>;
}

const tables = traverse as unknown as TraverseTables;

/** Keywords whose value is one subschema. */
export const SINGLE_SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  ...Object.keys(tables.keywords),
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);

/** Keywords whose value is an array of subschemas (`items` only in its pre-2020 tuple form). */
export const SUBSCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  ...Object.keys(tables.arrayKeywords),
  "prefixItems",
]);

/** Keywords whose value maps names (data, never touched) to subschemas. */
export const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  ...Object.keys(tables.propsKeywords),
  "dependentSchemas",
]);

/** Keywords that make a union: the transparent branches of a selector. */
export const UNION_KEYWORDS: readonly string[] = ["anyOf", "oneOf", "allOf"];
