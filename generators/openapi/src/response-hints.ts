import { isPaginationKey, type HttpBinding, type Pagination, type ResponseHints, type ToolIR } from "@sluice/core";
import { escapePointerSegment, getOwn, SluiceError, unescapePointerSegment } from "@sluice/schema";
import { RefResolver, type Located } from "./reference-object.ts";
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

/** Schema nodes read per response, across `$ref` hops and compositions: a bound on work, not on depth. */
const SCHEMA_NODE_BUDGET = 4_000;
/** Member names longer than this are not taken for ids by their description. */
const ID_NAME_MAX = 24;
const LINK_FORMATS = new Set(["uri", "url", "uri-reference", "iri", "iri-reference", "uri-template"]);
/** How a spec describes a member that is an id without naming it so (Asana's `gid`, Twilio's `sid`). */
const ID_DESCRIPTION = /\b(unique identifier|globally unique|uniquely identif|unique (string|id)\b)/i;
/**
 * Links for people (images in sizes, thumbnails, permalinks, downloads, web pages): the
 * handler never takes them for API hypermedia, so naming them would only cost bytes.
 */
const PEOPLE_LINK_NAME = /(image|thumb|icon|avatar|logo|photo|picture|permalink|download|html|web|homepage|blog|callback|receipt|checkout|redirect|^\d+x\d+$)/i;
/** Envelopes the handler unwraps without a hint. */
const DEFAULT_ENVELOPES = new Set(["data", "result"]);

function isDefaultLinkName(name: string): boolean {
  return /(_url|Url|_uri|Uri)$/.test(name) || name === "url" || name === "self" || name === "uri" || name === "href";
}

function isDefaultIdName(name: string): boolean {
  return name === "id" || /(_id|Id)$/.test(name);
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
  const memo = memoOf(document);
  const resolver = memo.resolver;
  const swagger = typeof getOwn(document, "swagger") === "string";
  let response: Located | undefined;
  try {
    response = where === undefined ? undefined : successResponse(resolver, where);
  } catch (error) {
    if (!(error instanceof SluiceError)) throw error;
  }
  const schema = response === undefined ? undefined : responseSchema(resolver, response, swagger);
  if (schema !== undefined) {
    const names = memberNames(memo, schema);
    if (names.links.size > 0) hints.links = [...names.links].sort();
    if (names.ids.size > 0) hints.ids = [...names.ids].sort();
    const envelope = envelopeOf(resolver, schema);
    if (envelope !== undefined) hints.envelope = envelope;
  }
  const page = paginationPaths(options.pagination).filter((path) => !isPaginationKey(path.split(".").pop()!));
  if (page.length > 0) hints.page = page;
  // The field the next call's marker is read from (Stripe-style `starting_after`) is an id that must stay.
  const idField = options.pagination?.style === "lastItemId" ? options.pagination.idField : undefined;
  if (idField !== undefined && idField !== "id" && !(hints.ids ?? []).includes(idField)) hints.ids = [...(hints.ids ?? []), idField].sort();
  const link = linkParam(options.pagination, response, typeof operation !== "string" && "binding" in operation ? operation.binding : undefined);
  if (link !== undefined) hints.link = link;
  return hints;
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

function deref(resolver: RefResolver, located: Located): Located | undefined {
  try {
    return resolver.deref(located.value, located.document, located.pointer);
  } catch (error) {
    if (error instanceof SluiceError) return undefined;
    throw error;
  }
}

/**
 * What one response schema node says: the link and id members it declares, and the nodes
 * below it in walk order, as place numbers (`UNREADABLE` for one that leads nowhere
 * readable: it still costs the walk a step).
 */
interface NodeFacts {
  links: readonly string[];
  ids: readonly string[];
  children: readonly number[];
}

/** A child whose `$ref`s lead nowhere, or to a value that is no schema object. */
const UNREADABLE = -1;

/**
 * What a document's schema nodes say, kept for every operation of the same document: a
 * generator asks for the hints of each operation in turn, and their responses share most
 * of their schemas (Stripe's 417 operations reach the same few hundred components). Keys
 * are a document and a JSON pointer into it, which name one value for good: the
 * generator never edits a document it reads. A place is known by a number, so a walk
 * marks what it visited in one array instead of building a set of its own.
 */
interface DocumentMemo {
  resolver: RefResolver;
  /** Place number by `document#pointer`. */
  numbers: Map<string, number>;
  /**
   * Place number by the place a `$ref` led to, as the resolver hands it out (one object
   * per ref it resolved): the same shared component is reached from thousands of
   * members, and this spares building and hashing its key each time.
   */
  reachedNumbers: WeakMap<Located, number>;
  /** By place number. */
  places: Located[];
  /** By place number, computed when a walk first visits the place (a slot per place from the start: the array stays packed). */
  facts: (NodeFacts | undefined)[];
  /** By place number: the walk that last visited it. A typed array (grown by doubling): a walk marks places in no particular order, which would leave a plain array holey. */
  visitedBy: Int32Array;
  walksDone: number;
  /**
   * The names a walk from a place found. The walk is a function of the place it starts
   * from, so operations answering with the same schema (Stripe: 417 operations, 9 in 10
   * answering with a shared component or list of one) share one walk.
   */
  walks: Map<number, MemberNames>;
}

interface MemberNames {
  links: ReadonlySet<string>;
  ids: ReadonlySet<string>;
}

const memos = new WeakMap<object, DocumentMemo>();

function memoOf(document: unknown): DocumentMemo {
  const fresh = (): DocumentMemo => ({ resolver: new RefResolver(document), numbers: new Map(), reachedNumbers: new WeakMap(), places: [], facts: [], visitedBy: new Int32Array(1024), walksDone: 0, walks: new Map() });
  if (typeof document !== "object" || document === null) return fresh();
  let memo = memos.get(document);
  if (memo === undefined) memos.set(document, (memo = fresh()));
  return memo;
}

/** The place a site leads to once its `$ref`s are followed, or undefined when it leads nowhere readable. */
function target(memo: DocumentMemo, site: Located): number | undefined {
  const reached = deref(memo.resolver, site);
  if (reached === undefined) return undefined;
  // Through a `$ref`, `reached` is the resolver's own record of the target; else a fresh copy of `site`, not worth remembering.
  const viaRef = typeof getOwn(site.value, "$ref") === "string";
  if (viaRef) {
    const known = memo.reachedNumbers.get(reached);
    if (known !== undefined) return known;
  }
  const key = `${reached.document.id}#${reached.pointer}`;
  let number = memo.numbers.get(key);
  if (number === undefined) {
    number = memo.places.length;
    memo.numbers.set(key, number);
    memo.places.push(reached);
    memo.facts.push(undefined);
    if (number >= memo.visitedBy.length) {
      const grown = new Int32Array(memo.visitedBy.length * 2);
      grown.set(memo.visitedBy);
      memo.visitedBy = grown;
    }
  }
  if (viaRef) memo.reachedNumbers.set(reached, number);
  return number;
}

/** A place number when the site leads to a schema object, else `UNREADABLE`. */
function walkable(memo: DocumentMemo, site: Located): number {
  const number = target(memo, site);
  if (number === undefined) return UNREADABLE;
  const value = memo.places[number]!.value;
  return typeof value === "object" && value !== null ? number : UNREADABLE;
}

/**
 * Member names anywhere in the response schema that are links or ids the defaults would
 * not recognise by name. The walk (its order, its budget) is per operation; what each
 * node contributes is computed once per document.
 */
function memberNames(memo: DocumentMemo, root: Located): MemberNames {
  // The walk's first step is this place; from there on nothing depends on `root` itself.
  const first = walkable(memo, root);
  const known = first === UNREADABLE ? undefined : memo.walks.get(first);
  if (known !== undefined) return known;
  const links = new Set<string>();
  const ids = new Set<string>();
  const walk = (memo.walksDone += 1);
  const stack: number[] = [first];
  let budget = SCHEMA_NODE_BUDGET;
  while (stack.length > 0 && budget-- > 0) {
    const node = stack.pop()!;
    // Read afresh: computing a node's facts may number new places and grow the array.
    if (node === UNREADABLE || memo.visitedBy[node] === walk) continue;
    memo.visitedBy[node] = walk;
    let facts = memo.facts[node];
    if (facts === undefined) memo.facts[node] = facts = nodeFacts(memo, memo.places[node]!);
    // Most nodes name no link and no id: test before looping (this loop runs 380,000 times for Stripe).
    if (facts.links.length > 0) for (const name of facts.links) links.add(name);
    if (facts.ids.length > 0) for (const name of facts.ids) ids.add(name);
    const children = facts.children;
    for (let i = 0; i < children.length; i += 1) stack.push(children[i]!);
  }
  const found = { links, ids };
  if (first !== UNREADABLE) memo.walks.set(first, found);
  return found;
}

/** The keywords below a node a walk follows besides `properties`, in the order it pushes them. */
const SINGLE_CHILDREN = ["items", "additionalProperties", "not"] as const;
const LIST_CHILDREN = ["allOf", "anyOf", "oneOf"] as const;

/** The links or ids of a node that has none (nearly every node): one array for all. */
const NONE: readonly string[] = [];

function nodeFacts(memo: DocumentMemo, node: Located): NodeFacts {
  let links: string[] | undefined;
  let ids: string[] | undefined;
  const children: number[] = [];
  const properties = getOwn(node.value, "properties");
  if (typeof properties === "object" && properties !== null) {
    // Indexed loops and no closure per node: this runs once per place (4,000-odd for
    // Stripe), nearly all of it before V8 optimises it, where each for-of, forEach and
    // closure is an object of its own.
    const names = Object.keys(properties);
    for (let n = 0; n < names.length; n += 1) {
      const name = names[n]!;
      const property = getOwn(properties, name);
      // Member names seldom hold `~` or `/`: no escaping to do, and two regex replaces spared per member.
      const segment = name.includes("~") || name.includes("/") ? escapePointerSegment(name) : name;
      const site: Located = { value: property, document: node.document, pointer: `${node.pointer}/properties/${segment}` };
      const number = target(memo, site);
      const found = number === undefined ? undefined : memo.places[number]!.value;
      const format = getOwn(found, "format");
      const type = getOwn(found, "type");
      if (typeof format === "string" && LINK_FORMATS.has(format.toLowerCase()) && !isDefaultLinkName(name) && !isPaginationKey(name) && !PEOPLE_LINK_NAME.test(name)) (links ??= []).push(name);
      // An id by its format, or a short scalar its description calls unique; the cheap tests first, the name tests and the description's last.
      const scalar = type === "string" || type === "integer" || type === "number";
      if ((format === "uuid" || (scalar && name.length <= ID_NAME_MAX)) && !isDefaultIdName(name) && !isPaginationKey(name)) {
        if (format === "uuid") (ids ??= []).push(name);
        else {
          const description = getOwn(found, "description") ?? getOwn(property, "description");
          if (typeof description === "string" && ID_DESCRIPTION.test(description)) (ids ??= []).push(name);
        }
      }
      if (typeof property === "object" && property !== null) children.push(number === undefined || typeof found !== "object" || found === null ? UNREADABLE : number);
    }
  }
  for (let k = 0; k < SINGLE_CHILDREN.length; k += 1) {
    const keyword = SINGLE_CHILDREN[k]!;
    const value = getOwn(node.value, keyword);
    if (typeof value === "object" && value !== null) children.push(walkable(memo, { value, document: node.document, pointer: `${node.pointer}/${keyword}` }));
  }
  for (let k = 0; k < LIST_CHILDREN.length; k += 1) {
    const keyword = LIST_CHILDREN[k]!;
    const list = getOwn(node.value, keyword);
    if (!Array.isArray(list)) continue;
    for (let index = 0; index < list.length; index += 1) {
      const value: unknown = list[index];
      if (typeof value === "object" && value !== null) children.push(walkable(memo, { value, document: node.document, pointer: `${node.pointer}/${keyword}/${index}` }));
    }
  }
  return { links: links ?? NONE, ids: ids ?? NONE, children };
}

/** The member of a root object schema that is the whole answer: the only property, holding an object or a list. */
function envelopeOf(resolver: RefResolver, root: Located): string | undefined {
  const node = deref(resolver, root);
  const properties = getOwn(node?.value, "properties");
  if (node === undefined || typeof properties !== "object" || properties === null) return undefined;
  if (getOwn(node.value, "allOf") !== undefined || getOwn(node.value, "anyOf") !== undefined || getOwn(node.value, "oneOf") !== undefined) return undefined;
  const additional = getOwn(node.value, "additionalProperties");
  if (additional !== undefined && additional !== false) return undefined;
  const names = Object.keys(properties);
  if (names.length !== 1 || DEFAULT_ENVELOPES.has(names[0]!) || isPaginationKey(names[0]!)) return undefined;
  const inner = deref(resolver, { value: getOwn(properties, names[0]!), document: node.document, pointer: `${node.pointer}/properties/${escapePointerSegment(names[0]!)}` });
  const type = getOwn(inner?.value, "type");
  const shaped = type === "object" || type === "array" || getOwn(inner?.value, "properties") !== undefined || getOwn(inner?.value, "items") !== undefined;
  return shaped ? names[0] : undefined;
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
