import { isSchemaObject, type JsonSchemaObject } from "./json-schema.ts";
import { hasOwn } from "./own-properties.ts";
import { escapePointerSegment } from "./json-pointer.ts";
import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "./subschema-keywords.ts";

/** One subschema position directly below a schema node. */
export interface SubschemaEdge {
  /** The keyword holding the subschema (`properties`, `items`, `anyOf`, ...). */
  keyword: string;
  /** Property name for map keywords, index for list keywords, undefined for single ones. */
  key: string | number | undefined;
  child: JsonSchemaObject;
}

/**
 * The subschemas directly below `node`, in document order. Boolean subschemas are
 * skipped: they hold no keywords and no references.
 */
export function subschemasOf(node: JsonSchemaObject): SubschemaEdge[] {
  const edges: SubschemaEdge[] = [];
  for (const keyword of Object.keys(node)) {
    const value = node[keyword];
    if (SUBSCHEMA_MAP_KEYWORDS.has(keyword)) {
      if (!isSchemaObject(value)) continue;
      for (const key of Object.keys(value)) {
        const child = value[key];
        if (isSchemaObject(child)) edges.push({ keyword, key, child });
      }
    } else if (SUBSCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
      value.forEach((child, index) => {
        if (isSchemaObject(child)) edges.push({ keyword, key: index, child });
      });
    } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(keyword) && isSchemaObject(value)) {
      edges.push({ keyword, key: undefined, child: value });
    }
  }
  return edges;
}

export interface SchemaVisit {
  node: JsonSchemaObject;
  /** JSON pointer of `node` relative to where the walk started. */
  pointer: string;
  /** Nesting level: the start node is 0. */
  depth: number;
  parent: JsonSchemaObject | undefined;
  keyword: string | undefined;
  key: string | number | undefined;
}

export interface WalkOptions {
  /** Keywords not to descend into at any level (e.g. `$defs` when walking a tool's root). */
  skipKeywords?: ReadonlySet<string>;
}

/**
 * Visits every schema object below `root` (pre-order, document order), descending only
 * where a keyword holds a subschema. Iterative, so a 20,000-level nesting does not
 * overflow the stack; a node object seen twice (YAML aliases can share or loop nodes)
 * is visited once. Return `false` from `visit` to skip a node's children.
 */
export function walkSchema(root: JsonSchemaObject, visit: (v: SchemaVisit) => boolean | void, options: WalkOptions = {}): void {
  const seen = new Set<JsonSchemaObject>();
  const stack: SchemaVisit[] = [{ node: root, pointer: "", depth: 0, parent: undefined, keyword: undefined, key: undefined }];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (seen.has(current.node)) continue;
    seen.add(current.node);
    if (visit(current) === false) continue;
    const edges = subschemasOf(current.node);
    for (let i = edges.length - 1; i >= 0; i--) {
      const edge = edges[i]!;
      if (options.skipKeywords?.has(edge.keyword)) continue;
      const suffix = edge.key === undefined ? "/" + edge.keyword : "/" + edge.keyword + "/" + escapePointerSegment(edge.key);
      stack.push({
        node: edge.child,
        pointer: current.pointer + suffix,
        depth: current.depth + 1,
        parent: current.node,
        keyword: edge.keyword,
        key: edge.key,
      });
    }
  }
}

/** Every `$ref` string found in schema positions below `root`, with its pointer. */
export function collectRefs(root: JsonSchemaObject, options: WalkOptions = {}): Array<{ ref: string; pointer: string }> {
  const refs: Array<{ ref: string; pointer: string }> = [];
  walkSchema(
    root,
    ({ node, pointer }) => {
      if (hasOwn(node, "$ref") && typeof node.$ref === "string") refs.push({ ref: node.$ref, pointer });
    },
    options,
  );
  return refs;
}
