import { getOwn, hasOwn } from "@sluice/schema";
import type { ResponseHandler, ResponseInfo } from "../call/types.ts";
import { defineOwn, isEmpty, isRecord } from "./json.ts";

/**
 * Small handlers that compose. Each takes the body (or the part of it it is pointed at)
 * and returns a new value; none mutates its input. Paths are dotted property paths;
 * arrays on the way are mapped over, so `data.nodes.title` reaches every node's title.
 */

type Json = unknown;

/** The body as the API sent it. */
export const passThrough: ResponseHandler = (body) => body;

/** Handlers applied one after another. */
export function pipe(...handlers: readonly ResponseHandler[]): ResponseHandler {
  return (body, info) => handlers.reduce((value, handler) => handler(value, info), body);
}

/** Applies `handler` to the value at `path` (every element, when arrays lie on the way); the rest is kept. */
export function at(path: string, handler: ResponseHandler): ResponseHandler {
  const segments = path.split(".");
  const apply = (value: Json, index: number, info: ResponseInfo): Json => {
    if (index === segments.length) return handler(value, info);
    if (Array.isArray(value)) return value.map((item) => apply(item, index, info));
    if (!isRecord(value) || !hasOwn(value, segments[index]!)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineOwn(out, key, key === segments[index] ? apply(value[key], index + 1, info) : value[key]);
    return out;
  };
  return (body, info) => apply(body, 0, info);
}

/** Applies `handler` to each element of the array at `path`. */
export function eachItem(path: string, handler: ResponseHandler): ResponseHandler {
  return at(path, (items, info) => (Array.isArray(items) ? items.map((item) => handler(item, info)) : items));
}

/** Keeps only the listed dotted paths of an object (of each element, for arrays). */
export function pick(paths: readonly string[]): ResponseHandler {
  const tree = pathTree(paths);
  return (body) => pickTree(body, tree);
}

/** Removes the listed dotted paths (from each element, for arrays). */
export function omit(paths: readonly string[]): ResponseHandler {
  const tree = pathTree(paths);
  return (body) => omitTree(body, tree);
}

/** Replaces an object by the value at `path` inside it (`data.issues` for a GraphQL answer). */
export function unwrap(path: string): ResponseHandler {
  const segments = path.split(".");
  return (body) => {
    let current: unknown = body;
    for (const segment of segments) {
      if (!isRecord(current)) return body;
      current = getOwn(current, segment);
    }
    return current;
  };
}

/**
 * Removes what carries no information for a model: nulls, empty strings, empty arrays
 * and objects (recursively). `false` and `0` stay: a more-pages flag that is false is an
 * answer. Paths listed in `keep` (dotted, from the root) stay even when empty.
 */
export function dropEmpty(options: { keep?: readonly string[] } = {}): ResponseHandler {
  const keep = new Set(options.keep ?? []);
  const prune = (value: Json, path: string): Json => {
    if (Array.isArray(value)) {
      return value.map((item) => prune(item, path)).filter((item) => !isEmpty(item));
    }
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = path === "" ? key : `${path}.${key}`;
      const pruned = prune(value[key], child);
      if (!isEmpty(pruned) || keep.has(child)) defineOwn(out, key, pruned);
    }
    return out;
  };
  return (body) => prune(body, "");
}

/**
 * Cuts strings longer than `max` characters, saying how much was cut. Strings under keys
 * that look like identifiers or cursors (`id`, `*_id`, `*Id`, `cursor`, `*Cursor`,
 * `*_token`, `*Token`, `url`) are never cut: the next call needs them whole.
 */
export function truncateStrings(max: number): ResponseHandler {
  const cut = (value: Json, key: string | undefined): Json => {
    if (typeof value === "string") {
      if (value.length <= max || (key !== undefined && isMarkerKey(key))) return value;
      return `${value.slice(0, max)}… [${value.length - max} more characters]`;
    }
    if (Array.isArray(value)) return value.map((item) => cut(item, key));
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) defineOwn(out, k, cut(value[k], k));
    return out;
  };
  return (body) => cut(body, undefined);
}

/** Keys whose values are handles for the next call, never to be shortened or dropped by generic passes. */
export function isMarkerKey(key: string): boolean {
  return /^(id|ids|cursor|url|next|token)$/i.test(key) || /(_id|Id|_ids|Ids|[cC]ursor|_token|Token|_url|Url)$/.test(key);
}

interface PathTree {
  [segment: string]: PathTree | true;
}

function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = Object.create(null) as PathTree;
  for (const path of paths) {
    let node = root;
    const segments = path.split(".");
    segments.forEach((segment, index) => {
      if (index === segments.length - 1) node[segment] = true;
      else {
        const next = node[segment];
        if (next === true) return;
        node = node[segment] = next ?? (Object.create(null) as PathTree);
      }
    });
  }
  return root;
}

function pickTree(value: Json, tree: PathTree): Json {
  if (Array.isArray(value)) return value.map((item) => pickTree(item, tree));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(tree)) {
    if (!hasOwn(value, key)) continue;
    const sub = tree[key]!;
    defineOwn(out, key, sub === true ? value[key] : pickTree(value[key], sub));
  }
  return out;
}

function omitTree(value: Json, tree: PathTree): Json {
  if (Array.isArray(value)) return value.map((item) => omitTree(item, tree));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const sub = tree[key];
    if (sub === true) continue;
    defineOwn(out, key, sub === undefined ? value[key] : omitTree(value[key], sub));
  }
  return out;
}
