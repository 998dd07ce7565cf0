import { getOwn } from "@sluice/schema";
import { itemsAt, nextLinkParam, valueAt } from "./pagination.ts";
import type { Pagination } from "./types.ts";

/**
 * What the next call needs from an answer, read from the raw body: the ids of the
 * listed items, the cursor or page marker, and the more-pages flag. `missingMarkers`
 * checks that a handler's output still carries each of them, so "the handler keeps what
 * matters" is checked rather than assumed.
 */
export interface PageMarkers {
  ids: Array<string | number>;
  /** The cursor (cursor style), the next page's marker from a `Link` header, or the next-page URL (`nextUrl` style). */
  cursor?: string | number;
  /** The more-pages flag (or `isLast`, offset style): its key (last path segment) and value, also when false. */
  hasMore?: { key: string; value: unknown };
  /** The total item count an offset-paged answer states (Jira's `total`): its key and value. */
  total?: { key: string; value: unknown };
}

export function pageMarkers(pagination: Pagination | undefined, body: unknown, headers: Readonly<Record<string, string>> = {}): PageMarkers {
  const markers: PageMarkers = { ids: [] };
  const itemsPath = pagination?.items;
  const items = itemsPath === undefined ? undefined : itemsAt(body, itemsPath);
  if (Array.isArray(items)) {
    const idField = pagination?.style === "lastItemId" ? (pagination.idField ?? "id") : "id";
    for (const item of items) {
      const id = typeof item === "object" && item !== null ? getOwn(item as object, idField) : undefined;
      if (typeof id === "string" || typeof id === "number") markers.ids.push(id);
    }
  }
  if (pagination === undefined) return markers;
  if (pagination.style === "cursor") {
    const cursor = valueAt(body, pagination.cursor);
    if ((typeof cursor === "string" && cursor !== "") || typeof cursor === "number") markers.cursor = cursor;
  }
  if (pagination.style === "link") {
    const marker = nextLinkParam(headers["link"], pagination.param ?? pagination.arg);
    if (marker !== undefined) markers.cursor = marker;
  }
  if (pagination.style === "nextUrl") {
    // The URL itself must stay: it is what the answer says about the next page.
    const url = valueAt(body, pagination.next);
    if (typeof url === "string" && url !== "") markers.cursor = url;
  }
  const flag = pagination.style === "offset" ? (pagination.isLast ?? pagination.hasMore) : "hasMore" in pagination ? pagination.hasMore : undefined;
  if (flag !== undefined) {
    const value = valueAt(body, flag);
    if (value !== undefined) markers.hasMore = { key: flag.split(".").pop()!, value };
  }
  if (pagination.style === "offset" && pagination.total !== undefined) {
    const value = valueAt(body, pagination.total);
    if (value !== undefined) markers.total = { key: pagination.total.split(".").pop()!, value };
  }
  return markers;
}

/** Markers of the raw answer that the output lost, described (empty when all are kept). */
export function missingMarkers(markers: PageMarkers, output: unknown): string[] {
  const values = new Set<unknown>();
  const byKey = new Map<string, unknown[]>();
  const stack: Array<{ value: unknown; key: string | undefined }> = [{ value: output, key: undefined }];
  let budget = 5_000_000;
  while (stack.length > 0 && budget-- > 0) {
    const { value, key } = stack.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, key });
    } else if (typeof value === "object" && value !== null) {
      for (const k of Object.keys(value)) stack.push({ value: (value as Record<string, unknown>)[k], key: k });
    } else {
      values.add(value);
      if (typeof value === "number") values.add(String(value));
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), value]);
    }
  }
  const missing: string[] = [];
  for (const id of markers.ids) if (!values.has(id) && !values.has(String(id))) missing.push(`id ${JSON.stringify(id)}`);
  if (markers.cursor !== undefined && !values.has(markers.cursor) && !values.has(String(markers.cursor))) missing.push(`next page marker ${JSON.stringify(markers.cursor)}`);
  if (markers.hasMore !== undefined && !(byKey.get(markers.hasMore.key) ?? []).includes(markers.hasMore.value)) {
    missing.push(`more-pages flag ${markers.hasMore.key}: ${JSON.stringify(markers.hasMore.value)}`);
  }
  if (markers.total !== undefined && !(byKey.get(markers.total.key) ?? []).includes(markers.total.value)) {
    missing.push(`total ${markers.total.key}: ${JSON.stringify(markers.total.value)}`);
  }
  return missing;
}
