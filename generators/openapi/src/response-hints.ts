import { isPaginationKey, type HttpBinding, type Pagination, type ResponseHints, type ToolIR } from "@sluice/core";
import { escapePointerSegment, getOwn, SluiceError, unescapePointerSegment } from "@sluice/schema";
import { RefResolver, responseSchemaHints, type Located } from "@sluice/schema-convert";
import { serverUrl, swagger2ServerUrl } from "./server-object.ts";

/**
 * Response hints for the default response handler, read from an operation's successful
 * Response Object (its JSON schema and headers): which members are links the handler may
 * treat as hypermedia, which are ids, which are pagination fields, and whether the answer
 * is an envelope around one member. Only what differs from the handler's defaults is
 * returned, so the hints a generated runtime carries per tool stay small (often `{}`).
 * https://spec.openapis.org/oas/v3.1.0#response-object
 * https://swagger.io/specification/v2/#response-object
 */

/**
 * Where an operation is: a JSON pointer to the Operation Object (`/paths/~1tasks/get`), its
 * method and the path as written under `paths`, or the IR tool generated from it.
 */
export type OperationLocation = string | { method: string; path: string } | Pick<ToolIR, "binding">;

export interface OpenAPIResponseHintOptions {
  /** The tool's pagination, when known: its fields are pagination fields, and `link` style names the marker parameter. */
  pagination?: Pagination;
}

/** The pack-level hint: URL prefixes of the API (the document's server URL), shared by every tool. */
export function openapiPackResponseHints(document: unknown): ResponseHints {
  const swagger = typeof getOwn(document, "swagger") === "string";
  const url = swagger ? swagger2ServerUrl(document) : serverUrl(getOwn(document, "servers"));
  return url !== undefined && /^https?:\/\/[^/{]+/.test(url) && !url.includes("{") ? { api: [url.replace(/\/+$/, "")] } : {};
}

/**
 * The hints of one operation. Never throws on a document it cannot read (an external
 * `$ref`, a missing response): the answer is then `{}`, the handler's defaults.
 */
export function openapiResponseHints(document: unknown, operation: OperationLocation, options: OpenAPIResponseHintOptions = {}): ResponseHints {
  const where = typeof operation === "string" ? pointerLocation(operation) : "binding" in operation ? httpLocation(operation.binding) : operation;
  const hints: ResponseHints = {};
  const resolver = resolverOf(document);
  const swagger = typeof getOwn(document, "swagger") === "string";
  let response: Located | undefined;
  try {
    response = where === undefined ? undefined : successResponse(resolver, where);
  } catch (error) {
    if (!(error instanceof SluiceError)) throw error;
  }
  const schema = response === undefined ? undefined : responseSchema(resolver, response, swagger);
  if (schema !== undefined) Object.assign(hints, responseSchemaHints(resolver, schema));
  const page = paginationPaths(options.pagination).filter((path) => !isPaginationKey(path.split(".").pop()!));
  if (page.length > 0) hints.page = page;
  // The field the next call's marker is read from (Stripe-style `starting_after`) is an id that must stay.
  const idField = options.pagination?.style === "lastItemId" ? options.pagination.idField : undefined;
  if (idField !== undefined && idField !== "id" && !(hints.ids ?? []).includes(idField)) hints.ids = [...(hints.ids ?? []), idField].sort();
  const link = linkParam(options.pagination, response, typeof operation !== "string" && "binding" in operation ? operation.binding : undefined);
  if (link !== undefined) hints.link = link;
  return hints;
}

/**
 * One resolver per document, kept for every operation of it: the schema walk's memo
 * (@sluice/schema-convert, response-schema-hints.ts) lives as long as its resolver, and
 * the operations of one document share most of their response schemas.
 */
const resolvers = new WeakMap<object, RefResolver>();

function resolverOf(document: unknown): RefResolver {
  if (typeof document !== "object" || document === null) return new RefResolver(document);
  let resolver = resolvers.get(document);
  if (resolver === undefined) resolvers.set(document, (resolver = new RefResolver(document)));
  return resolver;
}

function pointerLocation(pointer: string): { method: string; path: string } | undefined {
  const segments = pointer.split("/").map(unescapePointerSegment);
  return segments.length === 4 && segments[0] === "" && segments[1] === "paths" ? { path: segments[2]!, method: segments[3]! } : undefined;
}

function httpLocation(binding: ToolIR["binding"]): { method: string; path: string } | undefined {
  return binding.kind === "http" ? { method: binding.method, path: binding.path } : undefined;
}

/** The first 2xx Response Object (200 first, then in code order; `2XX` last). */
function successResponse(resolver: RefResolver, where: { method: string; path: string }): Located | undefined {
  const paths = getOwn(resolver.main.root, "paths");
  const rawItem = getOwn(paths, where.path);
  if (rawItem === undefined) return undefined;
  const item = resolver.deref(rawItem, resolver.main, `/paths/${escapePointerSegment(where.path)}`);
  const method = where.method.toLowerCase();
  const operation = getOwn(item.value, method);
  const responses = getOwn(operation, "responses");
  if (typeof responses !== "object" || responses === null) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => (a === "200" ? -1 : b === "200" ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const code = codes[0];
  if (code === undefined) return undefined;
  const pointer = `${item.pointer}/${method}/responses/${code}`;
  return resolver.deref(getOwn(responses, code), item.document, pointer);
}

/** The JSON schema of a response: `content` (a JSON media type) in 3.x, `schema` in 2.0. */
function responseSchema(resolver: RefResolver, response: Located, swagger: boolean): Located | undefined {
  if (swagger) {
    const schema = getOwn(response.value, "schema");
    return schema === undefined ? undefined : { value: schema, document: response.document, pointer: `${response.pointer}/schema` };
  }
  const content = getOwn(response.value, "content");
  if (typeof content !== "object" || content === null) return undefined;
  const types = Object.keys(content);
  const json = types.find((t) => /^application\/json\b/i.test(t)) ?? types.find((t) => /[/+]json\b/i.test(t));
  if (json === undefined) return undefined;
  const schema = getOwn(getOwn(content, json), "schema");
  return schema === undefined ? undefined : { value: schema, document: response.document, pointer: `${response.pointer}/content/${escapePointerSegment(json)}/schema` };
}

function paginationPaths(pagination: Pagination | undefined): string[] {
  if (pagination === undefined) return [];
  const paths: string[] = [];
  if (pagination.style === "cursor") paths.push(pagination.cursor);
  if (pagination.style === "nextUrl") paths.push(pagination.next);
  if (pagination.style === "offset") for (const path of [pagination.total, pagination.isLast]) if (path !== undefined) paths.push(path);
  if ("hasMore" in pagination && typeof pagination.hasMore === "string") paths.push(pagination.hasMore);
  return paths;
}

/**
 * The query parameter a `Link`-paginated answer's next URL carries: the declared
 * pagination's, or, when the response declares a `Link` header and the operation takes a
 * `page` argument, `page` (GitHub's convention).
 */
function linkParam(pagination: Pagination | undefined, response: Located | undefined, binding: ToolIR["binding"] | undefined): string | undefined {
  if (pagination !== undefined) return pagination.style === "link" ? (pagination.param ?? pagination.arg) : undefined;
  if (response === undefined || binding === undefined || binding.kind !== "http") return undefined;
  const headers = getOwn(response.value, "headers");
  const declares = typeof headers === "object" && headers !== null && Object.keys(headers).some((name) => name.toLowerCase() === "link");
  if (!declares) return undefined;
  const page = (binding as HttpBinding).parameters.find((p) => p.in === "query" && p.name === "page" && p.arg === "page");
  return page === undefined ? undefined : page.name;
}
