import type { HttpBinding, Pagination, ToolIR } from "@sluice/core";
import { compareText } from "@sluice/emit";
import { escapePointerSegment, getOwn } from "@sluice/schema";
import type { Located, RefResolver } from "@sluice/schema-convert";

/**
 * Pagination a generated pack declares where the spec shows a known pattern: a page
 * marker argument the operation takes AND a matching field (or `Link` header) in its
 * successful response, as the Response Object's schema or examples show it. A marker
 * argument alone is not enough: nothing is declared that the response does not confirm.
 * https://spec.openapis.org/oas/v3.1.0#response-object
 * https://swagger.io/specification/v2/#response-object
 */

/** What is known of one response member: its JSON type, and for objects their members (one level). */
interface Field {
  type: string | undefined;
  /** The schema's `format` (`uri`, `date-time`), when it gives one. */
  format?: string;
  /** The name of the component schema the member refers to (`SnowflakeType`), when it is a `$ref`. */
  ref?: string;
  members?: Map<string, Field>;
  /** For an array: the members of its items (one level), as far as the schema says. */
  itemMembers?: Map<string, Field>;
  /** Known only from an example answer, not from the schema. */
  example?: true;
}

/** The top-level members of a 2xx JSON answer, and whether it declares a `Link` header. */
export interface ResponseShape {
  members: Map<string, Field>;
  link: boolean;
  /** The answer's schema forbids members it does not declare (`additionalProperties: false`). */
  closed: boolean;
  /** When the answer is a bare JSON array (Discord, SendGrid): the members of its items, one level. */
  list?: Map<string, Field>;
}

/** Cursor fields, in order of preference (the first one present wins). */
const CURSOR_FIELDS = [
  "next_cursor",
  "nextCursor",
  "next_page_token",
  "nextPageToken",
  "next_token",
  "nextToken",
  "next_page",
  "nextPage",
  "next_marker",
  "nextMarker",
  "continuation_token",
  "continuationToken",
  "end_cursor",
  "endCursor",
];
/** Objects a cursor or more-pages flag may sit in (Slack's `response_metadata.next_cursor`, Asana's `next_page.offset`). */
const CURSOR_CONTAINERS = ["response_metadata", "meta", "metadata", "pagination", "paging", "page_info", "pageInfo", "next_page", "nextPage"];
const HAS_MORE_FIELDS = ["has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage"];
const ITEM_FIELDS = ["data", "items", "results", "records", "entries", "values", "elements", "nodes"];
/** Arguments that carry an opaque cursor back. */
const CURSOR_ARGS = ["cursor", "start_cursor", "after", "page_token", "pageToken", "next_token", "nextToken", "continuation_token", "continuationToken", "marker", "offset", "page"];
/** Arguments that carry the page marker of a `Link` header's `rel="next"` URL (GitHub's order). */
const LINK_ARGS = ["cursor", "after", "page", "page_token", "pageToken"];
const PAGE_ARGS = ["page", "page_number", "pageNumber"];
const PAGE_SIZE_ARGS = ["per_page", "page_size", "pageSize", "perPage", "limit", "count", "size"];
/** Arguments that carry an item offset (Jira's `startAt`), in order of preference. */
const OFFSET_ARGS = ["startAt", "offset", "start", "skip", "from", "start_index", "startIndex"];
/** Page size arguments beside an offset (Jira's `maxResults`, OData's `top`). */
const OFFSET_SIZE_ARGS = [...PAGE_SIZE_ARGS, "maxResults", "max_results", "PageSize", "top", "take"];
const TOTAL_FIELDS = ["total", "totalCount", "total_count", "totalResults", "total_results", "totalSize", "total_size"];
const IS_LAST_FIELDS = ["isLast", "is_last", "isLastPage", "is_last_page", "last"];
/** Objects that hold a total, a last-page flag or a next-page URL (SendGrid's `_metadata`, JSON:API's `links`). */
const META_CONTAINERS = [...CURSOR_CONTAINERS, "_metadata", "links", "_links"];
/** Members holding the next page's URL (Twilio's `next_page_uri`); plain `next`/`nextPage` only inside a container or typed as a URL. */
const NEXT_URL_FIELDS = ["next_page_uri", "next_page_url", "nextPageUri", "nextPageUrl", "next_uri", "next_url", "nextUri", "nextUrl", "next_link", "nextLink", "next_href", "nextHref"];
const NEXT_URL_BARE = ["next", "nextPage", "next_page"];
/** Arguments whose value a next-page URL carries in its query, in order of preference (Twilio's `PageToken` before its `Page`). */
const NEXT_URL_ARGS = ["PageToken", "page_token", "pageToken", "cursor", "starting_after", "after", "marker", "startAt", "offset", "start", "page", "Page"];
/** Arguments keyed by an item id, in one direction only (Discord's `after` / `before`). */
const ID_KEY_ARGS = ["after", "before"];
const URL_FORMATS = new Set(["uri", "url", "uri-reference", "iri", "iri-reference"]);

/** At most this many schema nodes are read per response (allOf chains, $ref hops): a bound, not a depth. */
const SCHEMA_NODE_BUDGET = 64;
/** Schema nodes read for the items of one list. */
const ITEM_NODE_BUDGET = 16;

function schemaType(schema: unknown): string | undefined {
  const type = getOwn(schema, "type");
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === "string" && t !== "null");
  if (getOwn(schema, "properties") !== undefined) return "object";
  // A list of `items` without a `type` is ambiguous (Slack writes alternatives of an object that way).
  const items = getOwn(schema, "items");
  if (items !== undefined && !Array.isArray(items)) return "array";
  return undefined;
}

/**
 * Members of an object schema, `$ref`s followed and `allOf` / `anyOf` / `oneOf` branches
 * merged (a member any branch declares counts), `levels` deep (1: top level only).
 */
function schemaMembers(schema: Located, resolver: RefResolver, levels: number, budget: { left: number }): Map<string, Field> {
  // A read that starts at a `$ref` depends only on the place it leads to, the levels and the
  // budget left (the pointer it was reached by names nothing once the ref is followed), so
  // operations answering with the same component (GitHub's repository, Stripe's lists) read
  // it once. Only refs: an inline schema is known by a pointer that is not its own.
  let key: string | undefined;
  let memo: Map<string, { members: Map<string, Field>; spent: number }> | undefined;
  if (typeof getOwn(schema.value, "$ref") === "string" && budget.left > 0) {
    let place: Located | undefined;
    try {
      place = resolver.deref(schema.value, schema.document, schema.pointer);
    } catch {
      place = undefined; // read below, where the failure costs its step
    }
    if (place !== undefined) {
      memo = membersRead.get(resolver);
      if (memo === undefined) membersRead.set(resolver, (memo = new Map()));
      key = `${levels} ${budget.left} ${place.document.id}#${place.pointer}`;
      const known = memo.get(key);
      if (known !== undefined) {
        budget.left -= known.spent;
        return known.members;
      }
    }
  }
  const entry = budget.left;
  const members = readMembers(schema, resolver, levels, budget);
  if (key !== undefined) memo!.set(key, { members, spent: entry - budget.left });
  return members;
}

/** Reads kept per resolver (one document): what `schemaMembers` answered, and the budget it spent. Nobody changes an answer once read. */
const membersRead = new WeakMap<RefResolver, Map<string, { members: Map<string, Field>; spent: number }>>();

function readMembers(schema: Located, resolver: RefResolver, levels: number, budget: { left: number }): Map<string, Field> {
  const members = new Map<string, Field>();
  const queue: Located[] = [schema];
  while (queue.length > 0 && budget.left > 0) {
    budget.left -= 1;
    const next = queue.shift()!;
    let node: Located;
    try {
      node = resolver.deref(next.value, next.document, next.pointer);
    } catch {
      continue;
    }
    // Members of any branch count; so do those of a typeless `items` list (Slack's `objs_response_metadata`).
    const typeless = getOwn(node.value, "type") === undefined;
    for (const keyword of ["allOf", "anyOf", "oneOf", ...(typeless ? ["items"] : [])]) {
      const branches = getOwn(node.value, keyword);
      if (Array.isArray(branches)) for (const branch of branches) queue.push({ value: branch, document: node.document, pointer: node.pointer });
    }
    const properties = getOwn(node.value, "properties");
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) continue;
    for (const name of Object.keys(properties)) {
      if (members.has(name)) continue;
      const raw = (properties as Record<string, unknown>)[name];
      let member: unknown = raw;
      try {
        member = resolver.deref(raw, node.document, node.pointer).value;
      } catch {
        // An unresolvable member is still a member; its type is unknown.
      }
      const field: Field = { type: schemaType(member) };
      const format = getOwn(member, "format");
      if (typeof format === "string") field.format = format;
      const ref = getOwn(raw, "$ref");
      if (typeof ref === "string") field.ref = ref.slice(ref.lastIndexOf("/") + 1);
      if (levels > 1 && field.type === "array") {
        // Its own small budget: reading a list's items must not starve the members read after it.
        const items = getOwn(member, "items");
        if (typeof items === "object" && items !== null && !Array.isArray(items)) field.itemMembers = schemaMembers({ value: items, document: node.document, pointer: node.pointer }, resolver, 1, { left: ITEM_NODE_BUDGET });
      }
      if (levels > 1 && (field.type === "object" || field.type === undefined)) {
        const nested = schemaMembers({ value: member, document: node.document, pointer: node.pointer }, resolver, levels - 1, budget);
        if (nested.size > 0) {
          field.type = "object";
          field.members = nested;
        }
      }
      members.set(name, field);
    }
  }
  return members;
}

function valueType(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Members an example answer shows, one level of nesting. */
function exampleMembers(example: unknown, into: Map<string, Field>): void {
  if (typeof example !== "object" || example === null || Array.isArray(example)) return;
  for (const [name, value] of Object.entries(example)) {
    if (into.has(name)) continue;
    const field: Field = { type: valueType(value), example: true };
    if (field.type === "object") {
      field.members = new Map();
      for (const [inner, innerValue] of Object.entries(value as object)) field.members.set(inner, { type: valueType(innerValue) });
    }
    if (field.type === "array") field.itemMembers = itemMembersOf(value as unknown[]);
    into.set(name, field);
  }
}

/** Members the first item of an example list shows (scalars only: enough to see an `id`). */
function itemMembersOf(list: readonly unknown[]): Map<string, Field> {
  const out = new Map<string, Field>();
  const first = list[0];
  if (typeof first !== "object" || first === null || Array.isArray(first)) return out;
  for (const [name, value] of Object.entries(first)) out.set(name, { type: valueType(value) });
  return out;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]*\+)?json\b|^\*\/\*$/i;

/** The successful answers' shape: 2xx responses in code order (`2XX` and `default` are not consulted). */
export function responseShape(operation: Located, resolver: RefResolver, swagger: boolean): ResponseShape {
  const shape: ResponseShape = { members: new Map(), link: false, closed: false };
  const responses = getOwn(operation.value, "responses");
  if (typeof responses !== "object" || responses === null) return shape;
  const budget = { left: SCHEMA_NODE_BUDGET };
  for (const code of Object.keys(responses).filter((c) => /^2\d\d$/.test(c)).sort()) {
    let response: Located;
    try {
      response = resolver.deref(getOwn(responses, code), operation.document, `${operation.pointer}/responses/${code}`);
    } catch {
      continue;
    }
    const headers = getOwn(response.value, "headers");
    if (typeof headers === "object" && headers !== null && Object.keys(headers).some((name) => name.toLowerCase() === "link")) shape.link = true;
    const bodies: { schema?: unknown; examples: unknown[] }[] = [];
    if (swagger) {
      const examples = getOwn(response.value, "examples");
      bodies.push({
        schema: getOwn(response.value, "schema"),
        examples: typeof examples === "object" && examples !== null ? Object.entries(examples).filter(([media]) => JSON_MEDIA.test(media)).map(([, value]) => value) : [],
      });
    } else {
      const content = getOwn(response.value, "content");
      for (const [media, raw] of Object.entries(typeof content === "object" && content !== null ? content : {})) {
        if (!JSON_MEDIA.test(media)) continue;
        const examples: unknown[] = [getOwn(raw, "example")];
        const named = getOwn(raw, "examples");
        for (const entry of Object.values(typeof named === "object" && named !== null ? named : {})) {
          try {
            examples.push(getOwn(resolver.deref(entry, response.document, response.pointer).value, "value"));
          } catch {
            // An example we cannot read confirms nothing.
          }
        }
        bodies.push({ schema: getOwn(raw, "schema"), examples });
      }
    }
    for (const body of bodies) {
      if (body.schema !== undefined) {
        try {
          const root = resolver.deref(body.schema, response.document, response.pointer);
          if (getOwn(root.value, "additionalProperties") === false) shape.closed = true;
          const items = getOwn(root.value, "items");
          // Only a declared array: a typeless `items` is how Slack writes alternatives of an object.
          const rootType = getOwn(root.value, "type");
          const array = rootType === "array" || (Array.isArray(rootType) && rootType.includes("array"));
          if (array && typeof items === "object" && items !== null && !Array.isArray(items) && shape.list === undefined) {
            shape.list = schemaMembers({ value: items, document: root.document, pointer: root.pointer }, resolver, 1, { left: ITEM_NODE_BUDGET });
          }
        } catch {
          // An unreadable schema closes nothing.
        }
        for (const [name, field] of schemaMembers({ value: body.schema, document: response.document, pointer: response.pointer }, resolver, 2, budget)) {
          if (!shape.members.has(name)) shape.members.set(name, field);
        }
      }
      for (const example of body.examples) {
        if (Array.isArray(example) && shape.list === undefined) shape.list = itemMembersOf(example);
        exampleMembers(example, shape.members);
      }
    }
  }
  return shape;
}

/** The dotted path of the first of `names` the answer has with an acceptable type, top level first. */
function findField(members: ReadonlyMap<string, Field>, names: readonly string[], accepts: (type: string | undefined) => boolean, containers: readonly string[] = CURSOR_CONTAINERS): string | undefined {
  for (const name of names) {
    const field = members.get(name);
    if (field !== undefined && accepts(field.type)) return name;
  }
  for (const container of containers) {
    const inner = members.get(container)?.members;
    if (inner === undefined) continue;
    for (const name of names) {
      const field = inner.get(name);
      if (field !== undefined && accepts(field.type)) return `${container}.${name}`;
    }
  }
  return undefined;
}

const isCursorType = (type: string | undefined): boolean => type === undefined || type === "string" || type === "integer" || type === "number";
const isBoolean = (type: string | undefined): boolean => type === "boolean";
const isArray = (type: string | undefined): boolean => type === "array";
const isCount = (type: string | undefined): boolean => type === "integer" || type === "number";
const isString = (type: string | undefined): boolean => type === "string";

/** The dotted path of the member holding the next page's URL, if the answer has one. */
function nextUrlField(members: ReadonlyMap<string, Field>): string | undefined {
  const named = findField(members, NEXT_URL_FIELDS, isString, META_CONTAINERS);
  if (named !== undefined) return named;
  // A bare `next` is a URL only when a container holds it (SendGrid's `_metadata.next`) or its format says so.
  for (const name of NEXT_URL_BARE) {
    const field = members.get(name);
    if (field !== undefined && field.type === "string" && field.format !== undefined && URL_FORMATS.has(field.format)) return name;
  }
  for (const container of META_CONTAINERS) {
    if (members.get(container)?.members?.get("next")?.type === "string") return `${container}.next`;
  }
  return undefined;
}

/** The list an answer pages through, with its items' members: a member (`values`, `data`), else the bare array (`$`). */
function pagedList(shape: ResponseShape): { items: string; members: ReadonlyMap<string, Field> | undefined } | undefined {
  // Where the schema and an example disagree on the list's name (SendGrid's `result` / `results`), the schema wins.
  const declared = new Map([...shape.members].filter(([, field]) => field.example !== true));
  const named = itemsField(declared.size > 0 ? declared : shape.members);
  if (named !== undefined) return { items: named, members: shape.members.get(named)?.itemMembers };
  return shape.list === undefined ? undefined : { items: "$", members: shape.list };
}

/**
 * Whether an id-keyed argument can carry the items' `id`: no contradicting type or format
 * (a date `before` is no id), and, for an argument of a named id type, no other member of
 * the items has that type (Discord's thread members carry the thread's `id` and the
 * `user_id` that `after` means: the spec does not say which).
 */
function carriesId(argSchema: unknown, id: Field, items: ReadonlyMap<string, Field>): boolean {
  if (id.type !== undefined && id.type !== "string" && id.type !== "integer" && id.type !== "number") return false;
  // The generator keeps component names for `$defs`: an argument of the id's own type (Discord's SnowflakeType) carries it.
  const ref = getOwn(argSchema, "$ref");
  if (typeof ref === "string") {
    const name = ref.slice(ref.lastIndexOf("/") + 1);
    return id.ref === name && [...items.values()].filter((field) => field.ref === name).length === 1;
  }
  const format = getOwn(argSchema, "format");
  if ((typeof format === "string" ? format : undefined) !== id.format) return false;
  const type = schemaType(argSchema);
  if (type === undefined || id.type === undefined) return true;
  return type === id.type || (isCount(type) && isCount(id.type));
}

/** The list an answer carries: a conventional name, else its only array member. */
function itemsField(members: ReadonlyMap<string, Field>): string | undefined {
  const named = findField(members, ITEM_FIELDS, isArray, []);
  if (named !== undefined) return named;
  const arrays = [...members].filter(([, field]) => field.type === "array").map(([name]) => name);
  return arrays.length === 1 ? arrays[0] : undefined;
}

interface Argument {
  name: string;
  /** `query`, `header`, `cookie`, or `body` for a body member. */
  in: string;
  schema: unknown;
}

function visibleArguments(tool: ToolIR & { binding: HttpBinding }): Map<string, Argument> {
  const out = new Map<string, Argument>();
  const visible = tool.parameters.properties;
  for (const parameter of tool.binding.parameters) {
    if (parameter.in === "path" || !Object.prototype.hasOwnProperty.call(visible, parameter.arg)) continue;
    out.set(parameter.arg, { name: parameter.name, in: parameter.in, schema: visible[parameter.arg] });
  }
  for (const [arg, member] of Object.entries(tool.binding.body?.fields ?? {})) {
    if (Object.prototype.hasOwnProperty.call(visible, arg)) out.set(arg, { name: member, in: "body", schema: visible[arg] });
  }
  return out;
}

/** The argument (by its name as the tool shows it) among `names`, in their order, optionally only in the query. */
function argumentNamed(args: ReadonlyMap<string, Argument>, names: readonly string[], where?: string): string | undefined {
  return names.find((name) => args.has(name) && (where === undefined || args.get(name)!.in === where));
}

/**
 * Every argument some pagination style needs (each branch of `paginationFor`, and so every
 * convention, starts from one of these): a tool taking none of them has no pagination,
 * whatever its answer says, and its answer is not read at all.
 */
const MARKER_ARGS: ReadonlySet<string> = new Set(["starting_after", "since", ...CURSOR_ARGS, ...LINK_ARGS, ...OFFSET_ARGS, ...NEXT_URL_ARGS, ...PAGE_ARGS, ...ID_KEY_ARGS]);

/** Whether a tool could be paginated at all: a GET or POST taking a marker argument. */
function mayPaginate(tool: ToolIR & { binding: HttpBinding }, args: ReadonlyMap<string, Argument>): boolean {
  const method = tool.binding.method;
  if (method !== "GET" && method !== "POST") return false;
  for (const name of args.keys()) if (MARKER_ARGS.has(name)) return true;
  return false;
}

/** One tool's pagination from its arguments and its answer's shape, or undefined when the spec does not show one. */
export function paginationFor(tool: ToolIR & { binding: HttpBinding }, shape: ResponseShape): Pagination | undefined {
  return paginationOf(tool, visibleArguments(tool), shape);
}

function paginationOf(tool: ToolIR & { binding: HttpBinding }, args: ReadonlyMap<string, Argument>, shape: ResponseShape): Pagination | undefined {
  const method = tool.binding.method;
  if (method !== "GET" && method !== "POST") return undefined;
  const members = shape.members;
  const hasMore = findField(members, HAS_MORE_FIELDS, isBoolean);
  const items = itemsField(members);

  // Stripe's lists: the last item's id goes back in `starting_after` while `has_more` says so.
  if (args.has("starting_after") && items !== undefined && hasMore !== undefined) {
    return { style: "lastItemId", arg: "starting_after", items, hasMore };
  }
  // An opaque cursor the answer hands back (`next_cursor`, `nextPageToken`, `next_page.offset`).
  for (const arg of CURSOR_ARGS) {
    if (!args.has(arg)) continue;
    const wire = args.get(arg)!.name;
    const cursor = findField(members, CURSOR_FIELDS, isCursorType) ?? findField(members, [wire], isCursorType, CURSOR_CONTAINERS.filter((c) => c.startsWith("next")));
    if (cursor === undefined) continue;
    // `page` and `offset` are cursors only when the answer names its next value that way.
    if ((arg === "page" || arg === "offset") && !/^next_?page\b|^nextPage\b|\.offset$|\.page$/i.test(cursor)) continue;
    return { style: "cursor", arg, cursor, ...(hasMore === undefined ? {} : { hasMore }), ...(items === undefined ? {} : { items }) };
  }
  // GitHub: the `Link` header's rel="next" URL carries the marker; `since` is one only beside `per_page` without `page`.
  if (method === "GET" && shape.link) {
    const arg = argumentNamed(args, LINK_ARGS, "query") ?? (args.get("since")?.in === "query" && args.has("per_page") && !args.has("page") ? "since" : undefined);
    if (arg !== undefined) return { style: "link", arg };
  }
  // Item offsets (Jira's startAt/maxResults/total/isLast): a size argument and a list in the answer confirm them.
  const offset = argumentNamed(args, OFFSET_ARGS);
  const offsetSize = argumentNamed(args, OFFSET_SIZE_ARGS);
  const list = pagedList(shape);
  if (offset !== undefined && offsetSize !== undefined && list !== undefined && isIntegerSchema(args.get(offset)!.schema) && isIntegerSchema(args.get(offsetSize)!.schema)) {
    const total = findField(members, TOTAL_FIELDS, isCount, META_CONTAINERS);
    const isLast = findField(members, IS_LAST_FIELDS, isBoolean, META_CONTAINERS);
    return {
      style: "offset",
      arg: offset,
      items: list.items,
      ...(total === undefined ? {} : { total }),
      ...(isLast === undefined ? {} : { isLast }),
      ...(hasMore === undefined || isLast !== undefined ? {} : { hasMore }),
      ...sizeOf(args, offsetSize),
    };
  }
  // A next-page URL in the body (Twilio's next_page_uri, SendGrid's _metadata.next): its query carries the marker.
  const nextUrl = nextUrlField(members);
  const urlArg = nextUrl === undefined ? undefined : argumentNamed(args, NEXT_URL_ARGS);
  if (nextUrl !== undefined && urlArg !== undefined) {
    const wire = args.get(urlArg)!.name;
    return { style: "nextUrl", arg: urlArg, next: nextUrl, ...(wire === urlArg ? {} : { param: wire }), ...(items === undefined ? {} : { items }) };
  }
  // Page numbers: incremented while a more-pages flag says so, or while full pages come back.
  const page = argumentNamed(args, PAGE_ARGS);
  if (page !== undefined && items !== undefined && isIntegerSchema(args.get(page)!.schema)) {
    const firstPage = pageOrigin(args.get(page)!.schema);
    const first = firstPage === 1 ? {} : { firstPage };
    if (hasMore !== undefined) return { style: "page", arg: page, items, hasMore, ...first };
    const size = argumentNamed(args, PAGE_SIZE_ARGS);
    const defaultSize = size === undefined ? undefined : getOwn(args.get(size)!.schema, "default");
    if (size !== undefined && typeof defaultSize === "number" && Number.isInteger(defaultSize) && defaultSize > 0) {
      return { style: "page", arg: page, items, pageSizeArg: size, defaultPageSize: defaultSize, ...first };
    }
  }
  // Id-keyed pages (Discord's after/before + limit): the last item's id goes back; without a flag, a short page ends it.
  // Only one direction: with both, whether the list runs oldest or newest first decides which is right, and the spec does not say.
  const keyed = ID_KEY_ARGS.filter((arg) => args.has(arg));
  const keySize = argumentNamed(args, PAGE_SIZE_ARGS);
  const id = list?.members?.get("id");
  if (keyed.length === 1 && !args.has("around") && keySize !== undefined && list !== undefined && id !== undefined && carriesId(args.get(keyed[0]!)!.schema, id, list.members!)) {
    return { style: "lastItemId", arg: keyed[0]!, items: list.items, ...(hasMore === undefined ? {} : { hasMore }), ...sizeOf(args, keySize) };
  }
  return undefined;
}

/** The page size argument, and its default when the schema gives a positive integer one. */
function sizeOf(args: ReadonlyMap<string, Argument>, size: string): { pageSizeArg: string; defaultPageSize?: number } {
  const fallback = getOwn(args.get(size)!.schema, "default");
  return typeof fallback === "number" && Number.isSafeInteger(fallback) && fallback > 0 ? { pageSizeArg: size, defaultPageSize: fallback } : { pageSizeArg: size };
}

function isIntegerSchema(schema: unknown): boolean {
  const type = schemaType(schema);
  return type === "integer" || type === "number";
}

/** The first page's number: 0 when the schema's minimum or default says so, else 1. */
function pageOrigin(schema: unknown): number {
  return getOwn(schema, "minimum") === 0 || getOwn(schema, "default") === 0 ? 0 : 1;
}

export interface DetectPaginationOptions {
  /**
   * Also declare, for a tool taking a marker argument whose answer the spec leaves open
   * (no schema, or one that neither declares the marker's fields nor closes the object),
   * the declaration most tools confirmed for that argument (more than half of them).
   * Notion declares most answers as `{ type: object }`; Slack's template answers omit
   * `response_metadata`. Off by default: only confirmed declarations are made.
   */
  byConvention?: boolean;
}

/** Tool name -> pagination for every tool whose operation shows a known pattern, sorted by tool name. */
export function detectPagination(document: unknown, tools: readonly ToolIR[], resolver: RefResolver, options: DetectPaginationOptions = {}): Record<string, Pagination> {
  const swagger = typeof getOwn(document, "swagger") === "string";
  const paths = getOwn(document, "paths");
  const out: Record<string, Pagination> = {};
  const unconfirmed: { tool: ToolIR & { binding: HttpBinding }; args: ReadonlyMap<string, Argument>; shape: ResponseShape }[] = [];
  for (const tool of tools.filter((t) => t.binding.kind === "http").sort((a, b) => compareText(a.name, b.name))) {
    if (tool.binding.kind !== "http") continue;
    const http = tool as ToolIR & { binding: HttpBinding };
    // Most operations take no page marker (none of Kubernetes' do): neither a confirmed nor a conventional declaration can follow.
    const args = visibleArguments(http);
    if (!mayPaginate(http, args)) continue;
    let operation: Located;
    try {
      const item = resolver.deref(getOwn(paths, http.binding.path), resolver.main, `/paths/${escapePointerSegment(http.binding.path)}`);
      const method = http.binding.method.toLowerCase();
      const value = getOwn(item.value, method);
      if (typeof value !== "object" || value === null) continue;
      operation = { value, document: item.document, pointer: `${item.pointer}/${method}` };
    } catch {
      continue;
    }
    const shape = responseShape(operation, resolver, swagger);
    const pagination = paginationOf(http, args, shape);
    if (pagination !== undefined) Object.defineProperty(out, tool.name, { value: pagination, enumerable: true, writable: true, configurable: true });
    else unconfirmed.push({ tool: http, args, shape });
  }
  if (options.byConvention !== true) return out;
  const conventions = conventionsOf(Object.values(out));
  for (const { tool, args, shape } of unconfirmed) {
    const inferred = byConvention(tool, args, shape, conventions);
    if (inferred !== undefined) Object.defineProperty(out, tool.name, { value: inferred, enumerable: true, writable: true, configurable: true });
  }
  return sortedByName(out);
}

function sortedByName(record: Record<string, Pagination>): Record<string, Pagination> {
  const out: Record<string, Pagination> = {};
  for (const name of Object.keys(record).sort(compareText)) Object.defineProperty(out, name, { value: record[name], enumerable: true, writable: true, configurable: true });
  return out;
}

/** A declaration without its per-tool list location, as text (the key conventions are counted by). */
function withoutItems(pagination: Pagination): Pagination {
  if (pagination.style === "cursor" || pagination.style === "link" || pagination.style === "nextUrl") {
    const { items: _items, ...rest } = pagination;
    return rest;
  }
  return pagination;
}

const CONVENTION_ARGS = ["starting_after", ...CURSOR_ARGS.filter((arg) => arg !== "page" && arg !== "offset"), ...LINK_ARGS.filter((arg) => !CURSOR_ARGS.includes(arg)), "offset", "page"];

/**
 * Argument -> the declaration more than half of the confirmed tools taking it agree on
 * (list location aside; kept when they all agree on it too). Page-number, offset and
 * id-keyed declarations depend on each tool's page size, and a next-page URL member is
 * named per API: none of them is a convention.
 */
function conventionsOf(confirmed: readonly Pagination[]): Map<string, Pagination> {
  const byArg = new Map<string, Pagination[]>();
  for (const pagination of confirmed) {
    // Next-page URLs too: `after` is a next-URL marker on one Jira list and a position on its `move` operations.
    if (pagination.style === "page" || pagination.style === "offset" || pagination.style === "nextUrl" || (pagination.style === "lastItemId" && pagination.pageSizeArg !== undefined)) continue;
    const list = byArg.get(pagination.arg) ?? [];
    list.push(pagination);
    byArg.set(pagination.arg, list);
  }
  const out = new Map<string, Pagination>();
  // Marker arguments only (`since` is a date filter as often as a marker), in order of preference.
  for (const arg of CONVENTION_ARGS) {
    const list = byArg.get(arg);
    if (list === undefined) continue;
    const counts = new Map<string, number>();
    for (const pagination of list) {
      const key = JSON.stringify(withoutItems(pagination));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const [key, count] = [...counts].sort(([a, m], [b, n]) => n - m || compareText(a, b))[0]!;
    if (count * 2 <= list.length) continue;
    const winners = list.filter((p) => JSON.stringify(withoutItems(p)) === key);
    const items = new Set(winners.map((p) => ("items" in p ? p.items : undefined)));
    out.set(arg, items.size === 1 && count === list.length ? winners[0]! : (JSON.parse(key) as Pagination));
  }
  return out;
}

/** Whether the answer declares the member at `path` (one or two levels) with a type it cannot have. */
function contradicts(members: ReadonlyMap<string, Field>, path: string, accepts: (type: string | undefined) => boolean): boolean {
  const [first, second] = path.split(".");
  const top = members.get(first!);
  if (top === undefined) return false;
  if (second === undefined) return top.type !== undefined && !accepts(top.type);
  if (top.type !== undefined && top.type !== "object") return true;
  const inner = top.members?.get(second);
  return inner !== undefined && inner.type !== undefined && !accepts(inner.type);
}

/** The convention for an argument this tool takes, when its answer leaves room for it. */
function byConvention(tool: ToolIR & { binding: HttpBinding }, args: ReadonlyMap<string, Argument>, shape: ResponseShape, conventions: ReadonlyMap<string, Pagination>): Pagination | undefined {
  if (shape.closed) return undefined;
  const method = tool.binding.method;
  for (const [arg, convention] of conventions) {
    if (!args.has(arg)) continue;
    if (convention.style === "link" ? method !== "GET" || args.get(arg)!.in !== "query" : method !== "GET" && method !== "POST") continue;
    // A field the answer does declare must not say otherwise (a cursor that is an object, a flag that is a string).
    const expected: [string | undefined, (type: string | undefined) => boolean][] = [
      ["cursor" in convention ? convention.cursor : undefined, isCursorType],
      ["hasMore" in convention ? convention.hasMore : undefined, isBoolean],
      ["items" in convention ? convention.items : undefined, isArray],
    ];
    const contradicted = expected.some(([path, accepts]) => path !== undefined && contradicts(shape.members, path, accepts));
    if (contradicted) continue;
    return convention;
  }
  return undefined;
}
