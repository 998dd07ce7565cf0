import {
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLUnionType,
} from "graphql";

/**
 * Bounded selection sets for generated operations
 * (https://spec.graphql.org/October2021/#sec-Selection-Sets). The aim is a useful answer that
 * stays small: scalars, ids of related entities, never nested lists of related entities.
 */

/** How much the generator may put into a selection; `simple` is the fallback when validation fails. */
export interface SelectionStyle {
  /** Include `... on Member { id }` fragments for union members. */
  unionFragments: boolean;
}

export const FULL_STYLE: SelectionStyle = { unionFragments: true };
export const SIMPLE_STYLE: SelectionStyle = { unionFragments: false };

type Composite = GraphQLObjectType | GraphQLInterfaceType;

/** Selection lines (without braces) for a root field's return type, or undefined for leaf types. */
export function rootSelection(type: GraphQLNamedType, style: SelectionStyle): string | undefined {
  if (isLeafType(type)) return undefined;
  if (isUnionType(type)) return unionSelection(type, style);
  if (isObjectType(type) || isInterfaceType(type)) {
    const connection = connectionShape(type);
    if (connection !== undefined) return connectionSelection(type, connection, style);
    if (isObjectType(type) && !hasId(type)) return payloadSelection(type, style);
    return entitySelection(type, 3, style);
  }
  return "__typename";
}

/** `X { nodes pageInfo }` (or `edges { node }`): the Relay-style list shape. */
export function connectionShape(type: GraphQLNamedType): { nodes: GraphQLNamedType; via: "nodes" | "edges" } | undefined {
  if (!isObjectType(type) && !isInterfaceType(type)) return undefined;
  const fields = type.getFields();
  if (fields.pageInfo === undefined) return undefined;
  if (fields.nodes !== undefined) return { nodes: getNamedType(fields.nodes.type), via: "nodes" };
  const edges = fields.edges === undefined ? undefined : getNamedType(fields.edges.type);
  if (edges !== undefined && isObjectType(edges)) {
    const node = edges.getFields().node;
    if (node !== undefined) return { nodes: getNamedType(node.type), via: "edges" };
  }
  return undefined;
}

function connectionSelection(type: Composite, connection: { nodes: GraphQLNamedType; via: "nodes" | "edges" }, style: SelectionStyle): string {
  const parts = scalarFields(type);
  const inner = isLeafType(connection.nodes) ? "" : ` { ${childSelection(connection.nodes, 2, style)} }`;
  parts.push(connection.via === "nodes" ? `nodes${inner}` : `edges { node${inner} }`);
  parts.push(`pageInfo { ${pageInfoSelection(type.getFields().pageInfo!)} }`);
  return parts.join(" ");
}

function pageInfoSelection(field: GraphQLField<unknown, unknown>): string {
  const pageInfo = getNamedType(field.type);
  if (!isObjectType(pageInfo)) return "__typename";
  const fields = pageInfo.getFields();
  const wanted = ["hasNextPage", "endCursor"].filter((name) => fields[name] !== undefined);
  return wanted.length > 0 ? wanted.join(" ") : selectionOrTypename(scalarFields(pageInfo));
}

/** Mutation payloads (`IssuePayload { success lastSyncId issue }`): scalars plus each child's entity selection. */
function payloadSelection(type: GraphQLObjectType, style: SelectionStyle): string {
  const parts: string[] = [];
  for (const field of selectableFields(type)) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) parts.push(field.name);
    else if (connectionShape(named) === undefined) parts.push(`${field.name} { ${childSelection(named, 2, style)} }`);
  }
  return selectionOrTypename(parts);
}

/** An entity: its scalars, `{ id }` of related entities, value objects one level deeper within budget. */
function entitySelection(type: Composite, budget: number, style: SelectionStyle): string {
  const parts: string[] = isInterfaceType(type) ? ["__typename"] : [];
  for (const field of selectableFields(type)) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      parts.push(field.name);
      continue;
    }
    if (budget < 2 || connectionShape(named) !== undefined || !isCompositeType(named)) continue;
    if ((isObjectType(named) || isInterfaceType(named)) && hasId(named)) parts.push(`${field.name} { id }`);
    else parts.push(`${field.name} { ${childSelection(named, budget - 1, style)} }`);
  }
  return selectionOrTypename(parts);
}

function childSelection(type: GraphQLNamedType, budget: number, style: SelectionStyle): string {
  if (isUnionType(type)) return unionSelection(type, style);
  if (isObjectType(type) || isInterfaceType(type)) return entitySelection(type, budget, style);
  return "__typename";
}

function unionSelection(type: GraphQLUnionType, style: SelectionStyle): string {
  const parts = ["__typename"];
  if (style.unionFragments) {
    for (const member of type.getTypes()) if (hasId(member)) parts.push(`... on ${member.name} { id }`);
  }
  return parts.join(" ");
}

function scalarFields(type: Composite): string[] {
  return selectableFields(type)
    .filter((field) => isLeafType(getNamedType(field.type)))
    .map((field) => field.name);
}

/** Fields a generated selection may use: no required arguments, not deprecated. */
function selectableFields(type: Composite): GraphQLField<unknown, unknown>[] {
  return Object.values(type.getFields()).filter(
    (field) =>
      field.deprecationReason == null &&
      !field.name.startsWith("__") &&
      field.args.every((arg) => !isNonNullType(arg.type) || arg.defaultValue !== undefined),
  );
}

function hasId(type: Composite): boolean {
  const id = type.getFields().id;
  return id !== undefined && isLeafType(getNamedType(id.type)) && id.args.every((arg) => !isNonNullType(arg.type));
}

function selectionOrTypename(parts: string[]): string {
  return parts.length > 0 ? parts.join(" ") : "__typename";
}
