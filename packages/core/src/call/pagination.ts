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
 * The page marker a `Link` header's `rel="next"` URL carries in its query parameter
 * `param` (a number when it is one), or undefined on the last page.
 */
export function nextLinkParam(header: string | undefined, param: string): string | number | undefined {
  const target = nextLink(header);
  if (target === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(target, "http://link.invalid/");
  } catch {
    return undefined;
  }
  const value = url.searchParams.get(param);
  if (value === null) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Whether a more-pages flag says there is more: `true`, or a non-empty string (some APIs send "true"). */
function more(flag: unknown): boolean {
  return flag === true || flag === "true";
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
      if (!more(valueAt(body, pagination.hasMore))) return undefined;
      const items = valueAt(body, pagination.items);
      if (!Array.isArray(items) || items.length === 0) return undefined;
      const id = valueAt(items[items.length - 1], pagination.idField ?? "id");
      return id === undefined || id === null ? undefined : next(id);
    }
    case "link": {
      const marker = nextLinkParam(response.headers?.["link"], pagination.param ?? pagination.arg);
      return marker === undefined ? undefined : next(marker);
    }
    case "page": {
      const first = pagination.firstPage ?? 1;
      const current = hasOwn(previousArgs, pagination.arg) && typeof previousArgs[pagination.arg] === "number" ? (previousArgs[pagination.arg] as number) : first;
      if (pagination.hasMore !== undefined) return more(valueAt(body, pagination.hasMore)) ? next(current + 1) : undefined;
      const items = valueAt(body, pagination.items);
      const size = pagination.pageSizeArg !== undefined && typeof previousArgs[pagination.pageSizeArg] === "number" ? (previousArgs[pagination.pageSizeArg] as number) : pagination.defaultPageSize;
      if (!Array.isArray(items) || size === undefined || items.length < size) return undefined;
      return next(current + 1);
    }
  }
}
