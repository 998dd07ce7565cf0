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
  const skip = options.skipKeywords;
  const stack: SchemaVisit[] = [{ node: root, pointer: "", depth: 0, parent: undefined, keyword: undefined, key: undefined }];
  // The children of one node, in document order, before they are pushed last-first. The
  // visits are made directly, not from `subschemasOf`'s edges, and with indexed loops: a
  // build runs this mostly unoptimised, where each edge and each for-of iterator is an
  // object of its own.
  const children: SchemaVisit[] = [];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const node = current.node;
    if (seen.has(node)) continue;
    seen.add(node);
    if (visit(current) === false) continue;
    const depth = current.depth + 1;
    const keywords = Object.keys(node);
    for (let k = 0; k < keywords.length; k++) {
      const keyword = keywords[k]!;
      const value = node[keyword];
      if (SUBSCHEMA_MAP_KEYWORDS.has(keyword)) {
        if (!isSchemaObject(value) || skip?.has(keyword) === true) continue;
        const keys = Object.keys(value);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const child = value[key];
          if (isSchemaObject(child)) children.push({ node: child, pointer: current.pointer + "/" + keyword + "/" + escapePointerSegment(key), depth, parent: node, keyword, key });
        }
      } else if (SUBSCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
        if (skip?.has(keyword) === true) continue;
        for (let i = 0; i < value.length; i++) {
          const child: unknown = value[i];
          if (isSchemaObject(child)) children.push({ node: child, pointer: current.pointer + "/" + keyword + "/" + i, depth, parent: node, keyword, key: i });
        }
      } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(keyword) && isSchemaObject(value)) {
        if (skip?.has(keyword) === true) continue;
        children.push({ node: value, pointer: current.pointer + "/" + keyword, depth, parent: node, keyword, key: undefined });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    children.length = 0;
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
