/**
 * Deterministic mocks for a whole GraphQL schema, in the shape @graphql-tools/mock wants:
 * one object of field functions per type. Field names pick realistic values (a `title`
 * reads like a title), every list has `listLength` items, and Relay connections page:
 * the first page says `hasNextPage: true` with a non-empty `endCursor`, and passing that
 * cursor back as `after` gives the next page (the third page is the last).
 */
import { graphql, graphqlMock, type GraphQLJs, type GraphQLMock } from "./graphql-runtime.ts";
import { hexText, isoDate, isoDateTime, opaqueToken, paragraphText, Rng, sentenceText, textFor, urlText, uuidText } from "./text.ts";

const { getNamedType, getNullableType, isEnumType, isListType, isObjectType, isScalarType, isAbstractType } = graphql;

type FieldMock = (args?: Record<string, unknown>) => unknown;
type TypeMocks = Record<string, FieldMock>;

/** Pages after which a connection reports `hasNextPage: false`. */
const LAST_PAGE = 3;

export interface MockState {
  mocks: GraphQLMock.IMocks;
  /** Must be set to the store built from `mocks` before the first query runs. */
  bindStore(store: GraphQLMock.IMockStore): void;
}

/** Value for a custom scalar, chosen from its name (DateTime, JSON, URI, GitObjectID...). */
function customScalar(name: string, rng: Rng, n: number, seed: number, field = "resource"): unknown {
  if (/Date.*Time|Timestamp/i.test(name)) return isoDateTime(n);
  if (/Date/i.test(name)) return isoDate(n);
  if (/^JSON/i.test(name)) return { source: "api", priority: rng.pick(["low", "medium", "high"]), note: sentenceText(rng), attempts: rng.int(1, 5) };
  if (/UR[IL]$/i.test(name)) return urlText(rng, n, field.replace(/_?ur[il]$/i, "") || "resource");
  if (/UUID/i.test(name)) return uuidText(seed, n);
  if (/BigInt|Long/i.test(name)) return String(9_000_000_000 + n * 7919);
  if (/Duration/i.test(name)) return `P${1 + (n % 6)}D`;
  if (/HTML/i.test(name)) return `<p>${paragraphText(rng)}</p>`;
  if (/Base64/i.test(name)) return Buffer.from(sentenceText(rng)).toString("base64");
  if (/ObjectID|Sha|Oid/i.test(name)) return hexText(seed, n, 40);
  if (/Refname/i.test(name)) return rng.pick(["refs/heads/main", "refs/heads/release-2024-01", "refs/tags/v1.4.0"]);
  if (/SSHRemote/i.test(name)) return `git@github.com:octo-org/service-${n}.git`;
  if (/Certificate/i.test(name)) return `-----BEGIN CERTIFICATE-----\n${Buffer.from(hexText(seed, n, 96)).toString("base64")}\n-----END CERTIFICATE-----`;
  // Linear models notification kinds as scalars named like IssueMentionNotificationType.
  const kind = /^(.+?)(NotificationType|Type)$/.exec(name);
  if (kind) return kind[1]!.charAt(0).toLowerCase() + kind[1]!.slice(1);
  return `${name.charAt(0).toLowerCase()}${name.slice(1)}-${n}`;
}

function intFor(field: string, rng: Rng, n: number): number {
  const f = field.toLowerCase();
  if (/count$|total/.test(f)) return rng.int(3, 60);
  if (/number$|^number|identifier/.test(f)) return 100 + n;
  if (/priority/.test(f)) return rng.int(0, 4);
  if (/estimate|points|size/.test(f)) return rng.pick([1, 2, 3, 5, 8]);
  if (/(seconds|duration|ms)$/.test(f)) return rng.int(30, 3600);
  return rng.int(1, 1000);
}

function floatFor(field: string, rng: Rng, n: number): number {
  const f = field.toLowerCase();
  if (/priority/.test(f)) return rng.int(0, 4);
  if (/estimate|points/.test(f)) return rng.pick([1, 2, 3, 5, 8]);
  if (/syncid|version/.test(f)) return 1_000_000 + n * 17;
  if (/progress|ratio|percent|rate$/.test(f)) return Math.round(rng.next() * 100) / 100;
  return Math.round(rng.next() * 100_000) / 100;
}

/** Types a mocked abstract value prefers to be, before falling back to the first possible one. */
const FAMILIAR_TYPES = ["User", "Issue", "PullRequest", "Repository", "Organization", "Team", "Project", "Comment"];

function representative(names: readonly string[]): string | undefined {
  return FAMILIAR_TYPES.find((t) => names.includes(t)) ?? names[0];
}

function booleanFor(field: string, rng: Rng): boolean {
  const f = field.toLowerCase();
  if (/^(success|ok|viewercan|viewerhas)/.test(f) || f === "success") return true;
  if (/(archived|deleted|trashed|locked|disabled|draft|isspam|blocked)$/.test(f)) return false;
  return rng.chance(0.5);
}

/** A connection type's parts: the node type, the edge type, and whether it has `nodes` and `totalCount` fields. */
interface ConnectionParts {
  node?: string;
  edge?: string;
  nodes: boolean;
  total: boolean;
}

/** A type whose values page Relay-style: it has `pageInfo` and `nodes` and/or `edges`. */
function connectionParts(type: GraphQLJs.GraphQLObjectType): ConnectionParts | undefined {
  const fields = type.getFields();
  if (!fields["pageInfo"] || !(fields["nodes"] || fields["edges"])) return undefined;
  const out: ConnectionParts = { nodes: fields["nodes"] !== undefined, total: fields["totalCount"] !== undefined && getNamedType(fields["totalCount"].type).name === "Int" };
  if (fields["nodes"]) out.node = getNamedType(fields["nodes"].type).name;
  if (fields["edges"]) {
    const edge = getNamedType(fields["edges"].type);
    out.edge = edge.name;
    if (out.node === undefined && isObjectType(edge)) {
      const nodeField = edge.getFields()["node"];
      if (nodeField) out.node = getNamedType(nodeField.type).name;
    }
  }
  return out;
}

/**
 * Builds the per-type mocks. State (counters, the PRNG, cursors handed out) lives in the
 * closure, so one call serves one server: two servers built alike answer alike.
 */
export function buildMocks(schema: GraphQLJs.GraphQLSchema, options: { listLength: number; seed: number }): MockState {
  const { listLength, seed } = options;
  const rng = new Rng(seed);
  let serial = 0;
  const next = () => ++serial;
  const idCounters = new Map<string, number>();
  const cursorPages = new Map<string, number>();
  let store: GraphQLMock.IMockStore | undefined;

  const concreteType = (name: string): string => {
    const type = schema.getType(name);
    if (type && isAbstractType(type)) return representative(schema.getPossibleTypes(type).map((t) => t.name)) ?? name;
    return name;
  };

  const scalarFor = (scalar: string, field: string, owner: string): unknown => {
    switch (scalar) {
      case "String":
        return textFor(field, rng, next(), seed, owner);
      case "ID":
        return `id-${next()}`;
      case "Int":
        return intFor(field, rng, next());
      case "Float":
        return floatFor(field, rng, next());
      case "Boolean":
        return booleanFor(field, rng);
      default:
        return customScalar(scalar, rng, next(), seed, field);
    }
  };

  const connectionValue = (parts: ConnectionParts, args: Record<string, unknown> = {}) => {
    const after = typeof args["after"] === "string" ? args["after"] : undefined;
    const page = after === undefined ? 1 : (cursorPages.get(after) ?? 1) + 1;
    const asked = typeof args["first"] === "number" ? args["first"] : typeof args["last"] === "number" ? args["last"] : listLength;
    const count = Math.max(0, Math.min(listLength, asked));
    const cursors = Array.from({ length: Math.max(count, 1) }, () => opaqueToken(seed, next()));
    for (const cursor of cursors) cursorPages.set(cursor, page);
    const value: Record<string, unknown> = {
      pageInfo: { hasNextPage: page < LAST_PAGE, hasPreviousPage: page > 1, startCursor: cursors[0], endCursor: cursors[cursors.length - 1] },
    };
    if (parts.total) value["totalCount"] = listLength * LAST_PAGE;
    if (parts.node !== undefined && store !== undefined) {
      const nodeType = concreteType(parts.node);
      const nodes = Array.from({ length: count }, () => store!.get(nodeType));
      // Only where the type has the field: an edges-only connection (Saleor's) answers edges alone.
      if (parts.nodes) value["nodes"] = nodes;
      if (parts.edge !== undefined) value["edges"] = nodes.map((node, i) => ({ node, cursor: cursors[i] }));
    }
    return value;
  };

  const mocks: Record<string, unknown> = {
    String: () => sentenceText(rng),
    ID: () => `id-${next()}`,
    Int: () => rng.int(1, 1000),
    Float: () => Math.round(rng.next() * 100_000) / 100,
    Boolean: () => true,
  };

  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    if (isScalarType(type) && !["String", "ID", "Int", "Float", "Boolean"].includes(type.name)) {
      mocks[type.name] = () => customScalar(type.name, rng, next(), seed);
      continue;
    }
    if (isAbstractType(type)) {
      // Abstract values need a concrete type; prefer a familiar one over alphabetical order.
      const name = representative(schema.getPossibleTypes(type).map((t) => t.name));
      if (name !== undefined) mocks[type.name] = { __typename: () => name };
      continue;
    }
    if (!isObjectType(type)) continue;
    const fieldMocks: TypeMocks = {};
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      const nullable = getNullableType(field.type);
      if (field.name === "id" && isScalarType(named)) {
        const typeName = type.name;
        fieldMocks["id"] = () => {
          const n = (idCounters.get(typeName) ?? 0) + 1;
          idCounters.set(typeName, n);
          return named.name === "Int" || named.name === "Float" ? n : `id-${typeName}-${n}`;
        };
        continue;
      }
      if (isObjectType(named) && !isListType(nullable)) {
        const parts = connectionParts(named);
        if (parts) fieldMocks[field.name] = (args) => connectionValue(parts, args);
        continue;
      }
      if (isListType(nullable)) {
        const leaf = isScalarType(named) ? () => scalarFor(named.name, field.name, type.name) : undefined;
        // Nested lists ([[X]]) keep the library's default inner length.
        fieldMocks[field.name] = () => new graphqlMock.MockList(listLength, leaf);
        continue;
      }
      if (isScalarType(named)) {
        const scalar = named.name;
        const name = field.name;
        const owner = type.name;
        fieldMocks[name] = () => scalarFor(scalar, name, owner);
        continue;
      }
      if (isEnumType(named)) continue; // the store's deterministic mode takes the first value
    }
    mocks[type.name] = fieldMocks;
  }

  return {
    mocks: mocks as GraphQLMock.IMocks,
    bindStore(s) {
      store = s;
    },
  };
}
