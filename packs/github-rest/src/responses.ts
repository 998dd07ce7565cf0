/**
 * What GitHub REST answers reach the model as (hand-written). Most of a REST object is
 * hypermedia for API clients: a user is 18 fields of which 15 are URLs; an issue repeats
 * a full user object for its author, assignee and each assignee; a pull request embeds
 * two full repositories. The handler keeps what a person (or a model) acts on: ids,
 * numbers, names, states, text, `html_url`, and says where the next page is, which
 * GitHub puts in the `Link` header where the model never sees it.
 */
import { defineOwn, isEmpty, isRecord, neverThrows, nextLinkParam, ownValue, type ResponseHandler } from "@sluice/core/pack";

type Json = unknown;

/** URLs that lead a person somewhere (a page, a download, a clone), unlike API hypermedia. */
const PEOPLE_URLS = new Set(["html_url", "browser_download_url", "download_url", "clone_url", "ssh_url"]);

const API_URL = /^https?:\/\/(api\.github\.com|[^/]+\/api\/v3)\//;

/** Whether a member is API plumbing: `*_url` hypermedia, `node_id`, `_links`, an API self link. */
function isPlumbing(key: string, value: unknown, parent: Record<string, unknown>): boolean {
  if (key === "node_id" || key === "_links" || key === "gravatar_id") return true;
  if (key.endsWith("_url")) return !PEOPLE_URLS.has(key);
  if (key === "url") return Object.prototype.hasOwnProperty.call(parent, "html_url") || (typeof value === "string" && API_URL.test(value));
  return false;
}

/** A user or organization as GitHub embeds it: `login` beside `id`. */
function isAccount(value: Record<string, unknown>): boolean {
  return typeof ownValue(value, "login") === "string" && ownValue(value, "id") !== undefined;
}

/** A repository as GitHub embeds it: `full_name` beside `id` and an owner. */
function isRepository(value: Record<string, unknown>): boolean {
  return typeof ownValue(value, "full_name") === "string" && ownValue(value, "id") !== undefined && isRecord(ownValue(value, "owner"));
}

/** An emoji reaction summary with no reactions in it. */
function isNoReactions(value: Record<string, unknown>): boolean {
  return ownValue(value, "total_count") === 0 && Object.prototype.hasOwnProperty.call(value, "+1");
}

/**
 * A file or blob (`repos/get-content`, `git/get-blob`) with its `content` in base64:
 * the text when it decodes as UTF-8 text, a note when it is binary. The model reads
 * files; it cannot read base64.
 */
function decodedContent(value: Record<string, unknown>): Record<string, unknown> {
  const bytes = Buffer.from((ownValue(value, "content") as string).replace(/\s+/g, ""), "base64");
  const text = new TextDecoder("utf-8").decode(bytes);
  const binary = text.includes("\uFFFD") || /[\u0000-\u0008\u000E-\u001F]/.test(text);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === "content") defineOwn(out, key, binary ? `binary, ${bytes.byteLength} bytes (not shown)` : text);
    else if (key === "encoding") defineOwn(out, key, binary ? "none" : "utf-8");
    else defineOwn(out, key, value[key]);
  }
  return out;
}

/**
 * Prunes one value. `depth` 0 is an answer's object or a list's item: those are what
 * the call was about and keep every field but plumbing; below that, accounts become
 * `{ login, id }` and repositories `{ id, full_name }`.
 */
function prune(input: Json, depth: number): Json {
  if (Array.isArray(input)) {
    const out: Json[] = [];
    for (const item of input) {
      const pruned = prune(item, depth);
      if (!isEmpty(pruned)) out.push(pruned);
    }
    return out;
  }
  if (!isRecord(input)) return input;
  if (depth > 0 && isAccount(input)) return { login: ownValue(input, "login"), id: ownValue(input, "id") };
  const value = ownValue(input, "encoding") === "base64" && typeof ownValue(input, "content") === "string" ? decodedContent(input) : input;
  if (depth > 0 && isRepository(value)) return { id: ownValue(value, "id"), full_name: ownValue(value, "full_name") };
  const signed = typeof ownValue(value, "verified") === "boolean";
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (isPlumbing(key, child, value)) continue;
    // A commit's verification keeps its verdict, not the signature and signed text.
    if (signed && (key === "signature" || key === "payload")) continue;
    if (isRecord(child) && isNoReactions(child)) continue;
    const pruned = prune(child, depth + 1);
    if (!isEmpty(pruned)) defineOwn(out, key, pruned);
  }
  return out;
}

function pruneAnswer(body: Json): Json {
  // A list answer's items are depth 0, like a single object answer.
  if (Array.isArray(body)) return body.map((item) => prune(item, 0)).filter((item) => !isEmpty(item));
  return prune(body, 0);
}

const handlers = new Map<string, ResponseHandler>();

/**
 * The handler for GitHub REST tools. With `pageArg` (the argument a paginated tool
 * takes its page marker in: `page`, `cursor`, `after`, `since`), the answer also says
 * `has_more` (true or false) and, when there is a next page, `next_<pageArg>` with the
 * value to pass; a list answer becomes `{ items, has_more, next_page }` for that.
 */
export function githubRestResponse(pageArg?: string): ResponseHandler {
  const key = pageArg ?? "";
  let handler = handlers.get(key);
  if (handler !== undefined) return handler;
  handler = neverThrows((body, info) => {
    const pruned = pruneAnswer(body);
    if (pageArg === undefined) return pruned;
    const next = nextLinkParam(info?.headers?.["link"], pageArg);
    const paging: Record<string, unknown> = { has_more: next !== undefined };
    if (next !== undefined) defineOwn(paging, `next_${pageArg}`, next);
    if (Array.isArray(pruned)) return { items: pruned, ...paging };
    if (isRecord(pruned)) {
      const out: Record<string, unknown> = {};
      for (const name of Object.keys(pruned)) defineOwn(out, name, pruned[name]);
      for (const name of Object.keys(paging)) defineOwn(out, name, paging[name]);
      return out;
    }
    return pruned;
  });
  handlers.set(key, handler);
  return handler;
}
