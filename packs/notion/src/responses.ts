/**
 * What Notion answers reach the model as (hand-written). Notion wraps every value: a
 * page's title is an array of rich-text runs, each with its annotations (bold, italic,
 * colour...), its link and its text twice; a select is `{ id, name, color }`; a user is
 * `{ object, id }`. The handler flattens property values to what they say (text, a
 * number, a name, a date, a list of names or ids), rich text to plain text, and keeps
 * every id and the paging state (`has_more`, also when false, and `next_cursor`).
 */
import { defineOwn, isEmpty, isRecord, neverThrows, ownValue, type ResponseHandler } from "@sluice/core/pack";

type Json = unknown;

/** An array of rich-text runs (each has `plain_text`, or `text.content`). */
function isRichText(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every((run) => isRecord(run) && (typeof ownValue(run, "plain_text") === "string" || typeof ownValue(ownValue(run, "text"), "content") === "string"));
}

/** Plain text of rich-text runs. */
export function plainText(runs: unknown): string {
  if (!Array.isArray(runs)) return typeof runs === "string" ? runs : "";
  return runs
    .map((run) => {
      const plain = ownValue(run, "plain_text");
      if (typeof plain === "string") return plain;
      const content = ownValue(ownValue(run, "text"), "content");
      return typeof content === "string" ? content : "";
    })
    .join("");
}

/** A user as a reference: `{ object: "user", id }` (name and email kept when Notion sends them). */
function userRef(user: unknown): unknown {
  if (!isRecord(user)) return user;
  const id = ownValue(user, "id");
  const name = ownValue(user, "name");
  const email = ownValue(ownValue(user, "person"), "email");
  if (typeof name !== "string" || name === "") return id;
  const out: Record<string, unknown> = { id, name };
  if (typeof email === "string" && email !== "") out["email"] = email;
  return out;
}

/** A file object's name, or its URL when it has none. */
function fileRef(file: unknown): unknown {
  const name = ownValue(file, "name");
  if (typeof name === "string" && name !== "") return name;
  return ownValue(ownValue(file, "external"), "url") ?? ownValue(ownValue(file, "file"), "url") ?? file;
}

function dateValue(date: unknown): unknown {
  if (!isRecord(date)) return date;
  const start = ownValue(date, "start");
  const end = ownValue(date, "end");
  return end === null || end === undefined ? start : { start, end };
}

/**
 * What a property value says: text for text, a name for a select or status, names for
 * a multi-select, a date (or `{ start, end }`), user references, file names, related
 * page ids, a formula's or rollup's result. Unknown types are passed on pruned.
 */
export function propertyValue(property: unknown, depth = 0): unknown {
  if (!isRecord(property) || depth > 8) return property;
  const type = ownValue(property, "type");
  if (typeof type !== "string") return prune(property, depth + 1);
  const value = ownValue(property, type);
  switch (type) {
    case "title":
    case "rich_text":
      return plainText(value);
    case "select":
    case "status":
      return ownValue(value, "name") ?? null;
    case "multi_select":
      return Array.isArray(value) ? value.map((option) => ownValue(option, "name")) : value;
    case "date":
      return dateValue(value);
    case "people":
      return Array.isArray(value) ? value.map(userRef) : value;
    case "created_by":
    case "last_edited_by":
      return userRef(value);
    case "files":
      return Array.isArray(value) ? value.map(fileRef) : value;
    case "relation": {
      const ids = Array.isArray(value) ? value.map((r) => ownValue(r, "id") ?? r) : value;
      // A relation with more than 25 pages says so; the rest is fetched per property.
      return ownValue(property, "has_more") === true ? { ids, has_more: true } : ids;
    }
    case "formula":
      return isRecord(value) && typeof ownValue(value, "type") === "string" ? propertyValue(value, depth + 1) : value;
    case "rollup":
      if (isRecord(value) && ownValue(value, "type") === "array") {
        const items = ownValue(value, "array");
        return Array.isArray(items) ? items.map((item) => propertyValue(item, depth + 1)) : items;
      }
      return isRecord(value) && typeof ownValue(value, "type") === "string" ? ownValue(value, ownValue(value, "type") as string) : value;
    case "unique_id": {
      const prefix = ownValue(value, "prefix");
      const number = ownValue(value, "number");
      return typeof prefix === "string" && prefix !== "" ? `${prefix}-${String(number)}` : number;
    }
    case "verification":
      return ownValue(value, "state");
    case "button":
      return undefined;
    default:
      return value === undefined ? prune(property, depth + 1) : prune(value, depth + 1);
  }
}

/** An object's `icon`: the emoji when it is one; image URLs (signed, hundreds of characters) are dropped. */
function iconValue(icon: unknown): unknown {
  return ownValue(icon, "type") === "emoji" ? ownValue(icon, "emoji") : undefined;
}

/** Keys dropped everywhere: styling and request bookkeeping. */
const NOISE = new Set(["request_id", "annotations", "cover"]);

/**
 * Prunes a value: nulls and empties go (also `color: "default"`), rich text becomes
 * plain text, users become ids, a page's properties become their values, an object's
 * `type` tag goes when it only names the member beside it (`{ type: "page_id", page_id }`).
 */
function prune(value: Json, depth: number): Json {
  if (depth > 64) return value;
  if (isRichText(value)) return plainText(value);
  if (Array.isArray(value)) return value.map((item) => prune(item, depth + 1)).filter((item) => !isEmpty(item));
  if (!isRecord(value)) return value;
  if (depth > 0 && ownValue(value, "object") === "user") return userRef(value);
  const type = ownValue(value, "type");
  const tagOnly = typeof type === "string" && Object.prototype.hasOwnProperty.call(value, type) && !isRecord(ownValue(value, type)) && !Array.isArray(ownValue(value, type));
  const isPage = ownValue(value, "object") === "page";
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (NOISE.has(key)) continue;
    if (key === "type" && tagOnly) continue;
    if (key === "color" && child === "default") continue;
    let pruned: unknown;
    // A list's results are the objects asked for: a users list keeps each user whole.
    if (depth === 0 && key === "results" && Array.isArray(child)) pruned = child.map((item) => listItem(prune(item, 0))).filter((item) => !isEmpty(item));
    else if (key === "icon") pruned = iconValue(child);
    else if (key === "properties" && isPage && isRecord(child)) {
      const props: Record<string, unknown> = {};
      for (const name of Object.keys(child)) {
        const flat = propertyValue(child[name], depth + 2);
        if (!isEmpty(flat)) defineOwn(props, name, flat);
      }
      pruned = props;
    } else pruned = prune(child, depth + 1);
    if (!isEmpty(pruned) || (key === "has_more" && pruned !== undefined)) defineOwn(out, key, pruned);
  }
  return out;
}

const TEXT_MAX = 120;

/** `text` cut to `max` characters with a marker saying how much was cut and where it is whole. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = `${text.slice(0, max)}… [+${text.length - max} chars; whole text via get]`;
  // Cutting a text barely over the limit would make it longer: it stays whole then.
  return cut.length < text.length ? cut : text;
}

/**
 * A result of a list (query, search): a page's or database's description is cut to 120
 * characters with a marker, enough to tell results apart; the retrieve tool returns it
 * whole. Ids, url, times, parent and flattened properties stay.
 */
function listItem(item: Json): Json {
  if (!isRecord(item)) return item;
  const description = ownValue(item, "description");
  if (typeof description !== "string") return item;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(item)) defineOwn(out, key, key === "description" ? cutText(description, TEXT_MAX) : item[key]);
  return out;
}

/** The list envelope's own members that say nothing: its tag and the empty type marker object. */
function unwrapList(body: Json): Json {
  if (!isRecord(body) || ownValue(body, "object") !== "list") return body;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    if (key === "object" || key === "type") continue;
    const type = ownValue(body, "type");
    if (typeof type === "string" && key === type && isEmpty(body[key])) continue;
    defineOwn(out, key, body[key]);
  }
  return out;
}

/** The handler for every Notion tool. */
export const notionResponse: ResponseHandler = neverThrows((body) => {
  const pruned = prune(unwrapList(body), 0);
  // `results` stays even when empty: an empty page of results is an answer.
  if (isRecord(body) && ownValue(body, "object") === "list" && Array.isArray(ownValue(body, "results")) && isRecord(pruned) && !Object.prototype.hasOwnProperty.call(pruned, "results")) {
    defineOwn(pruned, "results", []);
  }
  return pruned;
});
