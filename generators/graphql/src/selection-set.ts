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
import { looksSecret, squashName } from "@sluice/emit";

/**
 * Bounded selection sets for generated operations
 * (https://spec.graphql.org/October2021/#sec-Selection-Sets). The aim is a useful answer that
 * stays small: scalars, ids of related entities, never nested lists of related entities.
 * Scalars named like secrets (`apiKey`, `token`, `clientSecret`, or of a secret-named scalar
 * type) are left out: a default selection would hand another key to the model. Each one left
 * out is recorded (`SelectionStyle.secrets`, dotted paths below the root field) so that
 * `returns` can still ask for it by name.
 */

/** How much the generator may put into a selection; `simple` is the fallback when validation fails. */
export interface SelectionStyle {
  /** Include `... on Member { id }` fragments for union members. */
  unionFragments: boolean;
  /** Where the secret-looking scalars left out are recorded (`nodes.apiKey`), when given. */
  secrets?: Set<string>;
}

/** A scalar type whose name says it holds a secret (`SecureValue`, `Password`, `ApiKey`). */
export function isSecretScalarName(name: string): boolean {
  const squashed = squashName(name);
  return looksSecret(name) || /secret|password|passphrase|secure|credential|privatekey|apikey/.test(squashed);
}

/** A leaf field a default selection leaves out: named like a secret, or of a secret-named scalar type. */
export function isSecretOutput(field: GraphQLField<unknown, unknown>): boolean {
  const named = getNamedType(field.type);
  // A Boolean or an enum says whether or which, never the secret itself (`isSecret`, `tokenType`).
  return isLeafType(named) && named.name !== "Boolean" && !isEnumLike(named) && (looksSecret(field.name) || isSecretScalarName(named.name));
}

function isEnumLike(type: GraphQLNamedType): boolean {
  return "getValues" in type;
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
    if (isObjectType(type) && !hasId(type)) return payloadSelection(type, style, "");
    return entitySelection(type, 3, style, "");
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
  const parts = scalarFields(type, style, "");
  const inner = isLeafType(connection.nodes) ? "" : ` { ${childSelection(connection.nodes, 2, style, connection.via === "nodes" ? "nodes" : "edges.node")} }`;
  parts.push(connection.via === "nodes" ? `nodes${inner}` : `edges { node${inner} }`);
  parts.push(`pageInfo { ${pageInfoSelection(type.getFields().pageInfo!)} }`);
  return parts.join(" ");
}

function pageInfoSelection(field: GraphQLField<unknown, unknown>): string {
  const pageInfo = getNamedType(field.type);
  if (!isObjectType(pageInfo)) return "__typename";
  const fields = pageInfo.getFields();
  const wanted = ["hasNextPage", "endCursor"].filter((name) => fields[name] !== undefined);
  return wanted.length > 0 ? wanted.join(" ") : selectionOrTypename(scalarFields(pageInfo, { unionFragments: false }, "pageInfo"));
}

/** Mutation payloads (`IssuePayload { success lastSyncId issue }`): scalars plus each child's entity selection. */
function payloadSelection(type: GraphQLObjectType, style: SelectionStyle, at: string): string {
  const parts: string[] = [];
  for (const field of selectableFields(type)) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      if (keepLeaf(field, style, at)) parts.push(field.name);
    } else if (connectionShape(named) === undefined) parts.push(`${field.name} { ${childSelection(named, 2, style, join(at, field.name))} }`);
  }
  return selectionOrTypename(parts);
}

/** An entity: its scalars, `{ id }` of related entities, value objects one level deeper within budget. */
function entitySelection(type: Composite, budget: number, style: SelectionStyle, at: string): string {
  const parts: string[] = isInterfaceType(type) ? ["__typename"] : [];
  for (const field of selectableFields(type)) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      if (keepLeaf(field, style, at)) parts.push(field.name);
      continue;
    }
    if (budget < 2 || connectionShape(named) !== undefined || !isCompositeType(named)) continue;
    if ((isObjectType(named) || isInterfaceType(named)) && hasId(named)) parts.push(`${field.name} { id }`);
    else parts.push(`${field.name} { ${childSelection(named, budget - 1, style, join(at, field.name))} }`);
  }
  return selectionOrTypename(parts);
}

function childSelection(type: GraphQLNamedType, budget: number, style: SelectionStyle, at: string): string {
  if (isUnionType(type)) return unionSelection(type, style);
  if (isObjectType(type) || isInterfaceType(type)) return entitySelection(type, budget, style, at);
  return "__typename";
}

/** Whether a leaf field goes into a default selection; a secret-looking one is recorded instead. */
function keepLeaf(field: GraphQLField<unknown, unknown>, style: SelectionStyle, at: string): boolean {
  if (!isSecretOutput(field)) return true;
  style.secrets?.add(join(at, field.name));
  return false;
}

function join(at: string, name: string): string {
  return at === "" ? name : `${at}.${name}`;
}

function unionSelection(type: GraphQLUnionType, style: SelectionStyle): string {
  const parts = ["__typename"];
  if (style.unionFragments) {
    for (const member of type.getTypes()) if (hasId(member)) parts.push(`... on ${member.name} { id }`);
  }
  return parts.join(" ");
}

function scalarFields(type: Composite, style: SelectionStyle, at: string): string[] {
  return selectableFields(type)
    .filter((field) => isLeafType(getNamedType(field.type)) && keepLeaf(field, style, at))
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
