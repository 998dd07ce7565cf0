/**
 * How deep a schema may nest inline, and how deep the read-only rule's walks go. The same
 * bound the OpenAPI loader puts on a whole document (load-document.ts: the deepest spec of
 * the corpus nests 30 levels), so only a schema built in memory past it meets this one;
 * generators/openapi/test/hostile-inputs.test.ts holds the two equal.
 */
export const MAX_SCHEMA_DEPTH = 256;
