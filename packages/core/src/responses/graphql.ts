import type { FieldNode, SelectionSetNode } from "graphql";
import { graphql } from "../graphql-lib.ts";
import { getOwn } from "@sluice/schema";
import type { Binding } from "../tool-ir.ts";
import type { Pagination, ResponseHandler } from "../call/types.ts";
import { dropEmpty, pipe } from "./helpers.ts";
import { collapseHandles, neverThrows, omitKeysDeep } from "./shape.ts";
import { isRecord } from "./json.ts";

/** A root field that pages Relay-style, as a tool's operation document selects it. */
export interface RelayConnection {
  /** The key of the root field in `data` (its alias, if it has one). */
  field: string;
  /** Where the items are: `nodes`, or `edges` (each `{ node, cursor }`) when nodes are not selected. */
  list: "nodes" | "edges";
  /** The tool argument passed as the field's `after`. */
  afterArg: string;
}

function fieldsOf(selectionSet: SelectionSetNode | undefined): FieldNode[] {
  return (selectionSet?.selections ?? []).filter((s): s is FieldNode => s.kind === graphql().Kind.FIELD);
}

function selects(selectionSet: SelectionSetNode | undefined, name: string): FieldNode | undefined {
  return fieldsOf(selectionSet).find((f) => f.name.value === name && f.alias === undefined);
}

/**
 * The Relay connection a GraphQL tool's root field returns, read from its operation
 * document: the field's selection has `pageInfo { hasNextPage endCursor }` and `nodes`
 * or `edges`, and its `after` argument is a variable of the operation (so the tool has
 * an argument to carry the cursor back). Undefined for anything else, including
 * documents that do not parse.
 */
export function relayConnection(binding: Binding): RelayConnection | undefined {
  if (binding.kind !== "graphql" || !binding.document.includes("pageInfo")) return undefined;
  let root: FieldNode | undefined;
  try {
    const document = graphql().parse(binding.document, { noLocation: true });
    const operation = document.definitions.find((d) => d.kind === graphql().Kind.OPERATION_DEFINITION);
    if (operation === undefined || operation.kind !== graphql().Kind.OPERATION_DEFINITION) return undefined;
    root = fieldsOf(operation.selectionSet)[0];
  } catch {
    return undefined;
  }
  if (root === undefined) return undefined;
  const pageInfo = selects(root.selectionSet, "pageInfo");
  if (pageInfo === undefined || !selects(pageInfo.selectionSet, "hasNextPage") || !selects(pageInfo.selectionSet, "endCursor")) return undefined;
  const after = root.arguments?.find((a) => a.name.value === "after");
  if (after === undefined || after.value.kind !== graphql().Kind.VARIABLE) return undefined;
  const afterArg = after.value.name.value;
  if (!Object.prototype.hasOwnProperty.call(binding.variables, afterArg)) return undefined;
  const list = selects(root.selectionSet, "nodes") ? "nodes" : selects(root.selectionSet, "edges") ? "edges" : undefined;
  if (list === undefined) return undefined;
  return { field: root.alias?.value ?? root.name.value, list, afterArg };
}

/** The cursor pagination of a tool whose root field is a Relay connection, or undefined. */
export function relayPagination(binding: Binding): Pagination | undefined {
  const connection = relayConnection(binding);
  if (connection === undefined) return undefined;
  const base = `data.${connection.field}`;
  return {
    style: "cursor",
    arg: connection.afterArg,
    cursor: `${base}.pageInfo.endCursor`,
    hasMore: `${base}.pageInfo.hasNextPage`,
    items: `${base}.${connection.list}`,
  };
}

export interface GraphQLFieldHandlerOptions {
  /** Members to remove at every depth (noise a pack knows of, e.g. sort keys). */
  omit?: (key: string, value: unknown) => boolean;
  /**
   * Applied, after pruning, to each item of a connection answer (`nodes`, or each edge's
   * `node`): a list is where the bytes go, and an item there is a summary to pick from.
   */
  item?: ResponseHandler;
  /** Applied, after pruning, to an answer that is a single object, not a connection. */
  single?: ResponseHandler;
}

function withMember(value: Record<string, unknown>, key: string, member: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value)) Object.defineProperty(out, name, { value: name === key ? member : value[name], enumerable: true, writable: true, configurable: true });
  return out;
}

/** A pruned answer with `item` applied to its connection's items, or `single` to it when it is one object. */
function shapeAnswer(value: unknown, options: GraphQLFieldHandlerOptions, info: Parameters<ResponseHandler>[1]): unknown {
  if (!isRecord(value)) return value;
  const { item, single } = options;
  const nodes = getOwn(value, "nodes");
  const edges = getOwn(value, "edges");
  const isConnection = Array.isArray(nodes) || Array.isArray(edges) || isRecord(getOwn(value, "pageInfo"));
  if (!isConnection) return single === undefined ? value : single(value, info);
  if (item === undefined) return value;
  let out = value;
  if (Array.isArray(nodes)) out = withMember(out, "nodes", nodes.map((node) => item(node, info)));
  if (Array.isArray(edges)) {
    out = withMember(out, "edges", edges.map((edge) => (isRecord(edge) && isRecord(getOwn(edge, "node")) ? withMember(edge, "node", item(getOwn(edge, "node"), info)) : edge)));
  }
  return out;
}

/**
 * The handler for a GraphQL tool calling root field `field`: the answer becomes the
 * field's value (`data.issues` rather than `{ data: { issues } }`), nulls and empty
 * values go, related objects selected only by `id` become their id, and a connection's
 * `pageInfo` keeps `hasNextPage` (also when false) and `endCursor`. An answer without
 * `data.<field>` is pruned as it is. Never throws.
 */
export function graphqlFieldHandler(field: string, options: GraphQLFieldHandlerOptions = {}): ResponseHandler {
  const omit = options.omit;
  const prune = pipe(
    ...(omit === undefined ? [] : [omitKeysDeep((key, value) => key !== "id" && key !== "pageInfo" && omit(key, value))]),
    dropEmpty({ keep: ["pageInfo.hasNextPage", "pageInfo.endCursor"] }),
    collapseHandles(),
  );
  return neverThrows((body, info) => {
    const data = typeof body === "object" && body !== null && !Array.isArray(body) ? getOwn(body, "data") : undefined;
    const value = typeof data === "object" && data !== null && !Array.isArray(data) && Object.prototype.hasOwnProperty.call(data, field) ? getOwn(data, field) : body;
    // A connection's pageInfo sits one level down; keep its flags by pruning it from there.
    const pruned = prune(value, info) ?? null;
    return options.item === undefined && options.single === undefined ? pruned : shapeAnswer(pruned, options, info);
  });
}
