import { getOwn, hasOwn } from "@sluice/schema";
import type { Pagination } from "./types.ts";

/** The value at a dotted property path (own properties only), or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = getOwn(current as object, segment);
  }
  return current;
}

/** The `rel="next"` target of a `Link` header, if any. */
export function nextLink(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match === null) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2]!);
    if (rels !== null && rels[1]!.split(/\s+/).includes("next")) return match[1];
  }
  return undefined;
}

/**
 * The value of query parameter `param` in a next-page URL (a number when it is written as
 * one, without leading zeros: `007` stays text; the caller turns a number back into text
 * where the argument is a string), or
 * undefined when the text is not a URL or lacks the parameter. The URL is only read,
 * never fetched; a relative URL is read against a placeholder origin.
 */
export function queryParamOf(target: unknown, param: string): string | number | undefined {
  if (typeof target !== "string" || target === "") return undefined;
  let url: URL;
  try {
    url = new URL(target, "http://link.invalid/");
  } catch {
    return undefined;
  }
  const value = url.searchParams.get(param);
  if (value === null || value === "") return undefined;
  return /^(0|[1-9]\d*)$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

/**
 * The page marker a `Link` header's `rel="next"` URL carries in its query parameter
 * `param` (a number when it is one), or undefined on the last page.
 */
export function nextLinkParam(header: string | undefined, param: string): string | number | undefined {
  return queryParamOf(nextLink(header), param);
}

/** How a declaration's `items` says "the answer itself is the list" (Discord, SendGrid, GitHub answer with a bare array). */
export const BODY_ITEMS = "$";

/** The list a paginated answer carries: the body itself for `$`, else the value at the dotted path. */
export function itemsAt(body: unknown, path: string): unknown {
  return path === BODY_ITEMS ? body : valueAt(body, path);
}

/** A non-negative safe integer: an offset, a size or a total one can count with. */
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** The page size the previous call asked for (its size argument, else the declared default), if known. */
function pageSize(pagination: { pageSizeArg?: string; defaultPageSize?: number }, previousArgs: Readonly<Record<string, unknown>>): number | undefined {
  const asked = pagination.pageSizeArg !== undefined && hasOwn(previousArgs, pagination.pageSizeArg) ? previousArgs[pagination.pageSizeArg] : undefined;
  if (isCount(asked) && asked > 0) return asked;
  return pagination.defaultPageSize;
}

/** Whether `received` items are fewer than a known page size (an unknown size never makes a page short). */
function shortPage(received: number, size: number | undefined): boolean {
  return size !== undefined && received < size;
}

/** What a flag says: `true`/`false`, or the same as text (some APIs send "true"); undefined when it says neither. */
function flagOf(value: unknown): boolean | undefined {
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return undefined;
}

/** Whether a more-pages flag says there is more. */
function more(flag: unknown): boolean {
  return flagOf(flag) === true;
}

/**
 * The arguments of the next page's call: the previous arguments with the page marker
 * replaced, or undefined on the last page (or when the answer carries no marker).
 */
export function nextPageArgs(
  pagination: Pagination,
  response: { body: unknown; headers?: Readonly<Record<string, string>> },
  previousArgs: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const next = (marker: unknown): Record<string, unknown> => {
    const args: Record<string, unknown> = {};
    for (const key of Object.keys(previousArgs)) Object.defineProperty(args, key, { value: previousArgs[key], enumerable: true, writable: true, configurable: true });
    Object.defineProperty(args, pagination.arg, { value: marker, enumerable: true, writable: true, configurable: true });
    return args;
  };
  const { body } = response;
  switch (pagination.style) {
    case "cursor": {
      if (pagination.hasMore !== undefined && !more(valueAt(body, pagination.hasMore))) return undefined;
      const cursor = valueAt(body, pagination.cursor);
      if (cursor === undefined || cursor === null || cursor === "") return undefined;
      return next(cursor);
    }
    case "lastItemId": {
      if (pagination.hasMore !== undefined && !more(valueAt(body, pagination.hasMore))) return undefined;
      const items = itemsAt(body, pagination.items);
      if (!Array.isArray(items) || items.length === 0) return undefined;
      // Without a more-pages flag, a page shorter than the size asked for is the last (Discord's `before`/`after`).
      if (pagination.hasMore === undefined && shortPage(items.length, pageSize(pagination, previousArgs))) return undefined;
      const id = valueAt(items[items.length - 1], pagination.idField ?? "id");
      return typeof id === "string" || typeof id === "number" ? (id === "" ? undefined : next(id)) : undefined;
    }
    case "offset": {
      const items = itemsAt(body, pagination.items);
      if (!Array.isArray(items) || items.length === 0) return undefined;
      const given = hasOwn(previousArgs, pagination.arg) ? previousArgs[pagination.arg] : undefined;
      if (given !== undefined && !isCount(given)) return undefined;
      // The next offset counts what came back, not what was asked for: servers cap page sizes (Jira's maxResults).
      const following = (given ?? 0) + items.length;
      const last = pagination.isLast === undefined ? undefined : flagOf(valueAt(body, pagination.isLast));
      if (last !== undefined) return last ? undefined : next(following);
      const hasMore = pagination.hasMore === undefined ? undefined : flagOf(valueAt(body, pagination.hasMore));
      if (hasMore !== undefined) return hasMore ? next(following) : undefined;
      if (pagination.total !== undefined) {
        const total = valueAt(body, pagination.total);
        if (isCount(total)) return following >= total ? undefined : next(following);
      }
      return shortPage(items.length, pageSize(pagination, previousArgs)) ? undefined : next(following);
    }
    case "nextUrl": {
      // Only a query parameter is read from the URL; the next call goes to the tool's own server as usual.
      const marker = queryParamOf(valueAt(body, pagination.next), pagination.param ?? pagination.arg);
      return marker === undefined ? undefined : next(marker);
    }
    case "link": {
      const marker = nextLinkParam(response.headers?.["link"], pagination.param ?? pagination.arg);
      return marker === undefined ? undefined : next(marker);
    }
    case "page": {
      const first = pagination.firstPage ?? 1;
      const current = hasOwn(previousArgs, pagination.arg) && typeof previousArgs[pagination.arg] === "number" ? (previousArgs[pagination.arg] as number) : first;
      if (pagination.hasMore !== undefined) return more(valueAt(body, pagination.hasMore)) ? next(current + 1) : undefined;
      const items = itemsAt(body, pagination.items);
      // Without a flag, only a full page of a known size says there may be more.
      const size = pageSize(pagination, previousArgs);
      if (!Array.isArray(items) || size === undefined || shortPage(items.length, size)) return undefined;
      return next(current + 1);
    }
  }
}
