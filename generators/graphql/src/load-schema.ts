import { gunzipSync } from "node:zlib";
import {
  buildASTSchema,
  buildClientSchema,
  GraphQLError,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isInputObjectType,
  parse,
  Kind,
  print,
  visit,
  type DocumentNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  validateSchema,
  type GraphQLSchema,
  type GraphQLType,
  type IntrospectionQuery,
} from "graphql";
import { SluiceError, withinLimits } from "@sluice/schema";

/** Decompressed size cap: a gzip bomb must fail, not fill the heap. */
const MAX_GUNZIPPED_BYTES = 256 * 1024 * 1024;
/** Generous: the GitHub SDL is ~400k tokens; the cap only stops pathological input. */
const MAX_TOKENS = 5_000_000;
/** Deepest list/non-null wrapping accepted; real schemas use 2-4. Keeps every later recursion shallow. */
const MAX_TYPE_WRAPPING = 64;

export interface LoadSchemaOptions {
  /** Name used in error messages, e.g. `schema.graphql`. */
  fileName?: string;
}

/**
 * Load a GraphQL schema from SDL, introspection JSON (`{data:{__schema}}` or `{__schema}`),
 * or either gzipped. Never fetches anything. Every failure is a SluiceError `SPEC_INVALID`.
 */
export function loadGraphQLSchema(input: string | Uint8Array, options: LoadSchemaOptions = {}): GraphQLSchema {
  const fileName = options.fileName ?? "schema";
  const text = decodeInput(input, fileName);
  const schema = /^\s*\{/.test(text) ? fromIntrospection(text, fileName) : fromSdl(text, fileName);
  assertShallowTypes(schema, fileName);
  // graphql-js checks non-null input cycles by recursion: a long enough non-null chain overflows.
  const problems = withinLimits(`loading ${fileName}`, () => validateSchema(schema));
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new SluiceError("SPEC_INVALID", `${fileName}: invalid schema: ${problems.map((p) => p.message).join("; ")}`, {
      ...locationOf(first),
      cause: first,
    });
  }
  return schema;
}

function decodeInput(input: string | Uint8Array, fileName: string): string {
  if (typeof input === "string") return input;
  let bytes = input;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: MAX_GUNZIPPED_BYTES });
    } catch (cause) {
      throw new SluiceError("SPEC_INVALID", `${fileName}: cannot gunzip: ${(cause as Error).message}`, { cause });
    }
  }
  return new TextDecoder("utf-8").decode(bytes);
}

function fromSdl(text: string, fileName: string): GraphQLSchema {
  try {
    return buildASTSchema(withoutIdenticalDuplicateFields(parse(text, { maxTokens: MAX_TOKENS })));
  } catch (cause) {
    throw toSpecError(cause, fileName);
  }
}

const FIELD_CONTAINERS = [
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.OBJECT_TYPE_EXTENSION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_EXTENSION,
  Kind.INPUT_OBJECT_TYPE_DEFINITION,
  Kind.INPUT_OBJECT_TYPE_EXTENSION,
] as const;

/**
 * Published SDLs repeat field definitions (GitHub's EnterpriseOwnerInfo does, with a copy-pasted
 * description), which graphql-js rejects. Drop a repeat (keeping the first) only when it is the
 * same definition apart from its description; a conflicting repeat stays, so validation reports it.
 */
function withoutIdenticalDuplicateFields(document: DocumentNode): DocumentNode {
  const dedupe = <F extends FieldDefinitionNode | InputValueDefinitionNode>(fields: readonly F[] | undefined): F[] | undefined => {
    if (fields === undefined) return undefined;
    const seen = new Map<string, string>();
    return fields.filter((field) => {
      const { description: _ignored, ...withoutDescription } = field;
      const printed = print(withoutDescription as F);
      const first = seen.get(field.name.value);
      if (first === undefined) seen.set(field.name.value, printed);
      return first !== printed;
    });
  };
  const visitor = Object.fromEntries(
    FIELD_CONTAINERS.map((kind) => [kind, (node: { fields?: readonly (FieldDefinitionNode | InputValueDefinitionNode)[] }) => {
      const fields = dedupe(node.fields);
      return fields === undefined || fields.length === node.fields?.length ? undefined : { ...node, fields };
    }]),
  );
  return visit(document, visitor);
}

function fromIntrospection(text: string, fileName: string): GraphQLSchema {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new SluiceError("SPEC_INVALID", `${fileName}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
  const root = json as { data?: { __schema?: unknown }; __schema?: unknown } | null;
  const schemaNode = root?.data?.__schema ?? root?.__schema ?? (isBareIntrospection(root) ? root : undefined);
  if (typeof schemaNode !== "object" || schemaNode === null) {
    throw new SluiceError("SPEC_INVALID", `${fileName}: JSON input has no __schema (expected {"data":{"__schema":...}}, {"__schema":...} or the __schema object itself)`);
  }
  try {
    return buildClientSchema({ __schema: normalisedIntrospection(schemaNode, fileName) } as IntrospectionQuery);
  } catch (cause) {
    throw introspectionError(cause, fileName);
  }
}

/** The list members each kind of introspected type carries (https://spec.graphql.org/October2021/#sec-The-__Type-Type). */
const LISTS_BY_KIND: Readonly<Record<string, readonly string[]>> = {
  OBJECT: ["fields", "interfaces"],
  INTERFACE: ["fields", "interfaces", "possibleTypes"],
  UNION: ["possibleTypes"],
  ENUM: ["enumValues"],
  INPUT_OBJECT: ["inputFields"],
};

/**
 * An introspection result with the empty lists some servers and tools leave out (an object's
 * `interfaces`, a field's `args`, a directive's `args`) written back as `[]`: graphql-js
 * requires them present, though an absent list and an empty one say the same. Only absent
 * lists are filled; a wrong value is left for graphql-js to refuse. Copies, never edits the input.
 */
function normalisedIntrospection(node: object, fileName: string): object {
  const schema = { ...(node as Record<string, unknown>) };
  const unreadable = (what: string) => new SluiceError("SPEC_INVALID", `${fileName}: introspection result cannot be read: ${what}; regenerate it with the standard introspection query (graphql-js getIntrospectionQuery) or give the SDL`);
  if (!Array.isArray(schema.types)) throw unreadable("__schema.types is not a list");
  for (const type of schema.types) {
    const { kind, name } = (typeof type === "object" && type !== null ? type : {}) as Record<string, unknown>;
    if (typeof kind !== "string" || typeof name !== "string") throw unreadable("a type without a kind or name");
    for (const list of LISTS_BY_KIND[kind] ?? []) {
      const value = (type as Record<string, unknown>)[list];
      if (value !== undefined && value !== null && !Array.isArray(value)) throw unreadable(`${name}.${list} is not a list`);
    }
  }
  const withArgs = (field: unknown) => (typeof field === "object" && field !== null && !Array.isArray(field) && (field as { args?: unknown }).args === undefined ? { ...field, args: [] } : field);
  if (Array.isArray(schema.types)) {
    schema.types = schema.types.map((type: unknown) => {
      if (typeof type !== "object" || type === null || Array.isArray(type)) return type;
      const out: Record<string, unknown> = { ...(type as Record<string, unknown>) };
      for (const list of LISTS_BY_KIND[String(out.kind)] ?? []) if (out[list] === undefined) out[list] = [];
      if (Array.isArray(out.fields)) out.fields = out.fields.map(withArgs);
      return out;
    });
  }
  if (schema.directives === undefined) schema.directives = [];
  else if (Array.isArray(schema.directives)) {
    schema.directives = schema.directives.map((directive: unknown) => {
      const out = withArgs(directive);
      return typeof out === "object" && out !== null && !Array.isArray(out) && (out as { locations?: unknown }).locations === undefined ? { ...out, locations: [] } : out;
    });
  }
  return schema;
}

/**
 * graphql-js ends its introspection errors with a dump of the node it could not read; the
 * message keeps what is wrong and names the type, field or directive, nothing more.
 */
function introspectionError(cause: unknown, fileName: string): SluiceError {
  if (!(cause instanceof Error) || cause instanceof SluiceError || cause instanceof RangeError) return toSpecError(cause, fileName);
  const [what] = cause.message.split(/:\s*[{[]/, 1);
  const named = /name: "([^"]+)"/.exec(cause.message)?.[1];
  const text = `${fileName}: introspection result cannot be read: ${what!.trim()}${named === undefined || what!.includes(named) ? "" : ` (at ${named})`}; regenerate it with the standard introspection query (graphql-js getIntrospectionQuery) or give the SDL`;
  return new SluiceError("SPEC_INVALID", text, { cause });
}

/**
 * The `__schema` object on its own (`{ queryType, types, directives }`), as some tools save an
 * introspection result: no `data` or `__schema` wrapper around it.
 * https://spec.graphql.org/October2021/#sec-Schema-Introspection
 */
function isBareIntrospection(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { queryType, types } = value as { queryType?: unknown; types?: unknown };
  return typeof queryType === "object" && queryType !== null && Array.isArray(types);
}

function toSpecError(cause: unknown, fileName: string): SluiceError {
  if (cause instanceof SluiceError) return cause;
  if (cause instanceof RangeError) {
    return new SluiceError("SPEC_INVALID", `${fileName}: nesting too deep to load (${cause.message})`, { cause });
  }
  if (cause instanceof GraphQLError) {
    const where = locationOf(cause);
    const prefix = where.line === undefined ? fileName : `${fileName}:${where.line}:${where.column}`;
    return new SluiceError("SPEC_INVALID", `${prefix}: ${cause.message}`, { ...where, cause });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new SluiceError("SPEC_INVALID", `${fileName}: ${message}`, { cause });
}

function locationOf(error: GraphQLError): { line?: number; column?: number } {
  const loc = error.locations?.[0];
  return loc === undefined ? {} : { line: loc.line, column: loc.column };
}

/** Reject absurd list/non-null wrapping up front, so later recursive walks stay shallow. */
function assertShallowTypes(schema: GraphQLSchema, fileName: string): void {
  const check = (type: GraphQLType, where: string): void => {
    let depth = 0;
    let current: GraphQLType = type;
    while (isListType(current) || isNonNullType(current)) {
      current = current.ofType;
      depth += 1;
    }
    if (depth > MAX_TYPE_WRAPPING) {
      throw new SluiceError("SPEC_INVALID", `${fileName}: nesting too deep: type of ${where} wraps ${depth} list/non-null levels (limit ${MAX_TYPE_WRAPPING})`);
    }
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(field.type, `${type.name}.${field.name}`);
        for (const arg of field.args) check(arg.type, `${type.name}.${field.name}(${arg.name})`);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) check(field.type, `${type.name}.${field.name}`);
    }
  }
}
