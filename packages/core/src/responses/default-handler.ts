import type { ResponseHandler, ResponseInfo } from "../call/types.ts";
import type { Binding } from "../tool-ir.ts";
import { nextLinkParam } from "../call/pagination.ts";
import { defineOwn, isEmpty, isRecord } from "./json.ts";
import { neverThrows } from "./shape.ts";
import type { ResponseHints } from "./response-hints.ts";

/**
 * The response handler of a pack nobody has hand-tuned: generic trimming that any JSON
 * API benefits from, and nothing that needs to know the API. What it removes carries no
 * information the model lacks elsewhere in the same answer:
 *  - members that are null, "", [] or {} (array elements stay: a position in an array can
 *    be data, e.g. a spreadsheet row);
 *  - hypermedia twins: `*_url` / `*_uri` links to the API itself (sub-resources of the
 *    object's own self link, URI templates, links under the spec's server URL) of an object
 *    that keeps an id or a web link; `url` beside `html_url`; `self` links that spell the
 *    object's id; `_links` / `links` objects of `{ href }` (their `next` / `prev` stay);
 *    `node_id`-style duplicate ids beside an `id`;
 *  - repeats: a nested object with an id that the answer already carried in full, with the
 *    same content, becomes its id (an issue list names the same author ten times);
 *  - envelopes: `{ data: ... }`, `{ result: ... }`, or the one the hints name, when nothing
 *    else is beside them.
 * Every id stays, every pagination field (cursor, token, more-pages flag, next link) stays,
 * also when false, null or empty. It never throws: on its own failure the answer passes
 * through unchanged.
 */
export function defaultResponseHandler(hints: ResponseHints = {}): ResponseHandler {
  const rules = compileRules(hints);
  return neverThrows((body, info) => withLinkPaging(unwrapEnvelope(prune(body, rules), rules), rules, info));
}

/**
 * The hints a tool's binding implies, which a runtime can compute when it loads (so a
 * generated runtime stores nothing per tool for them): a GraphQL answer is
 * `{ data: { <root field>: ... } }`, so its envelope is `data.<field>` (generated
 * documents use no alias). https://spec.graphql.org/October2021/#sec-Response-Format
 */
export function bindingResponseHints(binding: Binding): ResponseHints {
  return binding.kind === "graphql" ? { envelope: `data.${binding.field}` } : {};
}

interface Rules {
  api: readonly string[];
  links: ReadonlySet<string>;
  ids: ReadonlySet<string>;
  page: ReadonlySet<string>;
  /** The page paths and every path on the way to one: nothing on them is dropped as hypermedia. */
  pageRoutes: ReadonlySet<string>;
  /** Segments of the longest page path: deeper members have no path worth spelling (nesting must not make paths quadratic). */
  pageDepth: number;
  envelope: readonly string[] | undefined;
  link: string | undefined;
}

function compileRules(hints: ResponseHints): Rules {
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : []);
  return {
    // A base must be an absolute http(s) URL to mean anything; the trailing slash is ours to add.
    api: strings(hints.api)
      .filter((base) => /^https?:\/\/[^/]/.test(base))
      .map((base) => base.replace(/\/+$/, "")),
    links: new Set(strings(hints.links)),
    ids: new Set(strings(hints.ids)),
    page: new Set(strings(hints.page)),
    pageRoutes: new Set(strings(hints.page).flatMap((path) => path.split(".").map((_, i, all) => all.slice(0, i + 1).join(".")))),
    pageDepth: Math.max(0, ...strings(hints.page).map((path) => path.split(".").length)),
    envelope: typeof hints.envelope === "string" && hints.envelope !== "" ? hints.envelope.split(".") : undefined,
    link: typeof hints.link === "string" && hints.link !== "" ? hints.link : undefined,
  };
}

/** Envelopes unwrapped without a hint. */
const ENVELOPES = new Set(["data", "result"]);

/** Ids that duplicate another id of the same object (GitHub's GraphQL `node_id` beside the REST `id`). */
const DUPLICATE_IDS = new Set(["node_id", "nodeId", "global_id", "globalId", "graphql_id", "graphqlId"]);

/** Members that are an object's link to itself. */
const SELF_LINKS = ["url", "self", "uri", "href"] as const;

/** Links to a web page: never API plumbing. */
const WEB_LINK = /(html|web)/i;

/** Links for people (a download, an image, a checkout page) that an API may serve from its own host. */
const PEOPLE_LINK = /(download|avatar|image|icon|logo|photo|picture|thumbnail|permalink|clone|ssh|svn|homepage|hosted|receipt|checkout|dashboard|share|embed|preview|pdf|redirect|callback|webhook|return)/i;

/** A URI template (RFC 6570) such as `{/number}` or `{?since,all}`: only API hypermedia is written so. */
const URI_TEMPLATE = /\{[/?&#+.;]?[A-Za-z_][\w,.]*\}/;

/** A value that can be a link: an absolute http(s) URL or a path on the API's host. */
const LINK_VALUE = /^(https?:\/\/|\/[^/])/;

/**
 * Whether a member is (or holds) a pagination field, by its name: a more-pages flag, a
 * cursor or page token, a next link. Such members stay even when false, null or empty:
 * "there is no next page" is an answer.
 */
export function isPaginationKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[_-]/g, "");
  if (name.startsWith("next") || name.endsWith("cursor") || name.endsWith("pagetoken") || name.endsWith("continuationtoken")) return true;
  if (/^has(more|next|nextpage|previouspage|morepages|moreitems|moreresults)$/.test(name)) return true;
  return ["more", "moreresults", "islast", "lastpage", "truncated", "istruncated", "continuation", "pageinfo", "paging", "pagination"].includes(name);
}

/** Whether a member holds an id by its name (`id`, `*_id`, `*Id`, or one the hints name). Duplicate ids are ids too. */
function isIdKey(key: string, rules: Rules): boolean {
  return key === "id" || /(_id|Id)$/.test(key) || rules.ids.has(key);
}

function isScalarId(value: unknown): value is string | number {
  return (typeof value === "string" && value !== "") || typeof value === "number";
}

/** The id values an object keeps: members that are ids and not mere duplicates of another id. */
function keptIds(object: Record<string, unknown>, rules: Rules): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const key of Object.keys(object)) {
    if (DUPLICATE_IDS.has(key) && !rules.ids.has(key)) continue;
    const value = object[key];
    if (isIdKey(key, rules) && isScalarId(value)) ids.push(value);
  }
  return ids;
}

/** Whether `link` names one of `ids` as a whole path or query segment (so the link is derivable from the id). */
function spellsId(link: string, ids: ReadonlyArray<string | number>): boolean {
  const segments = new Set(link.split(/[/?#=&]/).map((s) => s.replace(/\.(json|xml)$/, "")));
  return ids.some((id) => segments.has(String(id)));
}

function underApi(link: string, rules: Rules): boolean {
  return rules.api.some((base) => link === base || link.startsWith(`${base}/`) || link.startsWith(`${base}{`));
}

/** A link `self` points into: `https://api/x/1` for `https://api/x/1.json`, for sub-resources such as `.../1/comments`. */
function selfStem(self: string): string {
  return self.replace(/\.(json|xml)$/, "").replace(/\/+$/, "");
}

/**
 * Whether the member `key` holds a link to the API itself: a URI template, a sub-resource of
 * the object's self link, or (unless its name says it is for people: a page, a download, an
 * image) a link under the server URL.
 */
function isApiLink(key: string, link: string, self: string | undefined, rules: Rules): boolean {
  if (!LINK_VALUE.test(link) || WEB_LINK.test(key)) return false;
  if (URI_TEMPLATE.test(link)) return true;
  if (self !== undefined) {
    const stem = selfStem(self);
    if (link.startsWith(`${stem}/`) || link.startsWith(`${stem}{`)) return true;
  }
  return !PEOPLE_LINK.test(key) && underApi(link, rules);
}

/** Members a HAL / JSON:API link object may have besides `href`: none of them is an id or a cursor. */
const LINK_OBJECT_KEYS = new Set(["href", "templated", "type", "name", "title", "method", "rel", "hreflang", "profile", "deprecation"]);

function isLinkObject(value: unknown): boolean {
  if (!isRecord(value) || !Object.prototype.hasOwnProperty.call(value, "href") || typeof value["href"] !== "string") return false;
  return Object.keys(value).every((k) => LINK_OBJECT_KEYS.has(k) && typeof value[k] !== "object");
}

/** A value shaped as hypermedia: a link string, a link object `{ href, ... }`, or a list of those. */
function isLinkShaped(value: unknown): boolean {
  if (typeof value === "string") return LINK_VALUE.test(value);
  if (Array.isArray(value)) return value.length > 0 && value.every((item) => (typeof item === "string" ? LINK_VALUE.test(item) : isLinkObject(item)));
  return isLinkObject(value);
}

/** What to do with one member of an object, decided from the object as the API sent it. */
type Verdict = "keep" | "drop" | "pages";

interface ObjectFacts {
  ids: Array<string | number>;
  web: boolean;
  self: string | undefined;
}

function factsOf(object: Record<string, unknown>, rules: Rules): ObjectFacts {
  let self: string | undefined;
  for (const key of SELF_LINKS) {
    const value = Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
    if (typeof value === "string" && LINK_VALUE.test(value)) {
      self = value;
      break;
    }
  }
  const web = ["html_url", "web_url", "htmlUrl", "webUrl"].some((key) => Object.prototype.hasOwnProperty.call(object, key) && typeof object[key] === "string" && object[key] !== "");
  return { ids: keptIds(object, rules), web, self };
}

function verdict(key: string, value: unknown, facts: ObjectFacts, rules: Rules, path: string | undefined): Verdict {
  if (rules.ids.has(key) || (path !== undefined && rules.pageRoutes.has(path)) || isPaginationKey(key)) return "keep";
  const anchored = facts.ids.length > 0 || facts.web;
  if (DUPLICATE_IDS.has(key)) return facts.ids.length > 0 && (typeof value === "string" || typeof value === "number") ? "drop" : "keep";
  if (typeof value === "string") {
    if (key === "url") return facts.web || (facts.ids.length > 0 && underApi(value, rules) && spellsId(value, facts.ids)) ? "drop" : "keep";
    if (key === "self" || key === "uri") return LINK_VALUE.test(value) && (facts.web || spellsId(value, facts.ids)) ? "drop" : "keep";
    const named = /(_url|Url|_uri|Uri)$/.test(key) || rules.links.has(key);
    if (named && anchored && isApiLink(key, value, facts.self, rules)) return "drop";
    return "keep";
  }
  if (isRecord(value)) {
    if ((key === "_links" || key === "links") && Object.keys(value).length > 0 && Object.keys(value).every((k) => isLinkShaped(value[k]))) return "pages";
    // Twilio's `subresource_uris`: a map of links under the object's own.
    if (/(_urls|Urls|_uris|Uris)$/.test(key) && anchored && Object.keys(value).length > 0) {
      const members = Object.keys(value);
      return members.every((k) => !isPaginationKey(k) && typeof value[k] === "string" && isApiLink(k, value[k] as string, facts.self, rules)) ? "drop" : "keep";
    }
  }
  return "keep";
}

/** Repeats are replaced only when that saves something worth a model's attention. */
const MIN_REPEAT_CHARS = 64;
/** Larger objects are not compared: comparing flattens their text, and nesting must not make that quadratic. */
const MAX_REPEAT_CHARS = 4096;

interface Frame {
  source: Record<string, unknown> | unknown[];
  /** Object members still to visit with their verdicts, or array indices. */
  keys: string[];
  verdicts: Verdict[];
  index: number;
  out: Record<string, unknown> | unknown[];
  /**
   * Canonical text of the pruned value before repeats were replaced: what "same content"
   * compares. Built by `+` (V8 keeps it as a rope: no copy per level of nesting).
   */
  canon: string;
  /** Dotted path from the root (arrays transparent), while within the page paths' depth; undefined below. */
  path: string | undefined;
  depth: number;
  /** Where the result goes: the parent frame and the member name (undefined for an array element). */
  parent: Frame | undefined;
  key: string | undefined;
}

/**
 * Prunes without recursion: answers come from the network, and their depth is theirs to
 * choose. A frame is pushed per object or array and popped when its members are done.
 */
function prune(body: unknown, rules: Rules): unknown {
  if (!isRecord(body) && !Array.isArray(body)) return body;
  const seen = new Set<string>();
  let result: unknown = body;
  const memberPath = (frame: { path: string | undefined; depth: number }, key: string): string | undefined =>
    frame.path === undefined || frame.depth + 1 > rules.pageDepth ? undefined : frame.path === "" ? key : `${frame.path}.${key}`;
  const open = (source: Record<string, unknown> | unknown[], path: string | undefined, depth: number, parent: Frame | undefined, key: string | undefined): Frame => {
    if (Array.isArray(source)) {
      return { source, keys: source.map((_, i) => String(i)), verdicts: [], index: 0, out: [], canon: "", path, depth, parent, key };
    }
    const facts = factsOf(source, rules);
    const keys = Object.keys(source);
    const verdicts = keys.map((k) => verdict(k, source[k], facts, rules, memberPath({ path, depth }, k)));
    return { source, keys, verdicts, index: 0, out: {}, canon: "", path, depth, parent, key };
  };
  const place = (frame: Frame, key: string, value: unknown, canon: string): void => {
    if (Array.isArray(frame.out)) {
      frame.canon = frame.out.length === 0 ? canon : frame.canon + "," + canon;
      frame.out.push(value);
      return;
    }
    const path = memberPath(frame, key);
    if (isEmpty(value) && !isPaginationKey(key) && (path === undefined || !rules.page.has(path))) return;
    const member = JSON.stringify(key) + ":" + canon;
    frame.canon = frame.canon === "" ? member : frame.canon + "," + member;
    defineOwn(frame.out, key, value);
  };
  const stack: Frame[] = [open(body, "", 0, undefined, undefined)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index < frame.keys.length) {
      const i = frame.index++;
      const key = frame.keys[i]!;
      const isArray = Array.isArray(frame.source);
      const value = isArray ? (frame.source as unknown[])[i] : (frame.source as Record<string, unknown>)[key];
      const verdictHere = isArray ? "keep" : frame.verdicts[i]!;
      if (verdictHere === "drop") continue;
      const childPath = isArray ? frame.path : memberPath(frame, key);
      const childDepth = isArray ? frame.depth : frame.depth + 1;
      if (verdictHere === "pages") {
        // Of a hypermedia map only the way to the next (or previous) page matters.
        const pages: Record<string, unknown> = {};
        const links = value as Record<string, unknown>;
        for (const name of Object.keys(links)) if (isPaginationKey(name) || /^prev(ious)?$/i.test(name)) defineOwn(pages, name, links[name]);
        stack.push(open(pages, childPath, childDepth, frame, key));
        continue;
      }
      if (isRecord(value) || Array.isArray(value)) stack.push(open(value, childPath, childDepth, frame, isArray ? undefined : key));
      else place(frame, key, value, value === undefined ? "null" : JSON.stringify(value));
      continue;
    }
    stack.pop();
    const canon = Array.isArray(frame.out) ? "[" + frame.canon + "]" : "{" + frame.canon + "}";
    const value = finish(frame, canon, seen, rules);
    if (frame.parent === undefined) result = value;
    else place(frame.parent, frame.key ?? String(frame.parent.index - 1), value, canon);
  }
  return result;
}

/** A finished object or array: handles collapse to the handle, repeats of a member object to its id. */
function finish(frame: Frame, canon: string, seen: Set<string>, rules: Rules): unknown {
  const out = frame.out;
  if (Array.isArray(out) || frame.parent === undefined) return out;
  const keys = Object.keys(out);
  if (keys.length === 1 && (keys[0] === "id" || keys[0] === "__typename")) {
    const handle = out[keys[0]];
    if (typeof handle === "string" || typeof handle === "number") return handle;
  }
  // Only members of objects: an array's elements are the items the call was about.
  if (frame.key === undefined || canon.length < MIN_REPEAT_CHARS || canon.length > MAX_REPEAT_CHARS) return out;
  const id = Object.prototype.hasOwnProperty.call(out, "id") ? out["id"] : undefined;
  if (!isScalarId(id)) {
    const named = keys.find((k) => rules.ids.has(k) && isScalarId(out[k]));
    if (named === undefined) return out;
    return repeatOr(out, canon, seen, out[named] as string | number);
  }
  return repeatOr(out, canon, seen, id);
}

function repeatOr(out: Record<string, unknown>, canon: string, seen: Set<string>, id: string | number): unknown {
  if (seen.has(canon)) return id;
  seen.add(canon);
  return out;
}

function unwrapEnvelope(value: unknown, rules: Rules): unknown {
  let current = value;
  const soleMember = (v: unknown, name: string): unknown => {
    if (!isRecord(v)) return undefined;
    const keys = Object.keys(v);
    return keys.length === 1 && keys[0] === name ? v[name] : undefined;
  };
  if (rules.envelope !== undefined) {
    for (const segment of rules.envelope) {
      const inner = soleMember(current, segment);
      if (inner === undefined || inner === null) break;
      current = inner;
    }
    return current;
  }
  for (let level = 0; level < 4; level++) {
    if (!isRecord(current)) break;
    const keys = Object.keys(current);
    if (keys.length !== 1 || !ENVELOPES.has(keys[0]!)) break;
    const inner = current[keys[0]!];
    // A scalar in an envelope keeps its name: `{ "result": true }` says more than `true`.
    if (!isRecord(inner) && !Array.isArray(inner)) break;
    current = inner;
  }
  return current;
}

/** For a `Link`-paginated tool, says in the answer what the header says: whether there is more, and the next marker. */
function withLinkPaging(value: unknown, rules: Rules, info: ResponseInfo | undefined): unknown {
  if (rules.link === undefined) return value;
  const next = nextLinkParam(info?.headers?.["link"], rules.link);
  const paging: Record<string, unknown> = {};
  defineOwn(paging, "has_more", next !== undefined);
  if (next !== undefined) defineOwn(paging, `next_${rules.link}`, next);
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    defineOwn(out, "items", value);
    for (const key of Object.keys(paging)) defineOwn(out, key, paging[key]);
    return out;
  }
  const out: Record<string, unknown> = {};
  // A scalar answer (rare for a list) is kept under `value`, so the paging still has a place.
  if (!isRecord(value)) {
    if (value !== undefined) defineOwn(out, "value", value);
  } else for (const key of Object.keys(value)) defineOwn(out, key, value[key]);
  for (const key of Object.keys(paging)) if (!Object.prototype.hasOwnProperty.call(out, key)) defineOwn(out, key, paging[key]);
  return out;
}
