import type { ResponseHandler } from "../call/types.ts";
import { defineOwn, isRecord } from "./json.ts";

/**
 * Deep, shape-agnostic passes for response handlers. Like the helpers in helpers.ts they
 * never mutate their input, copy with own properties only (a key named `__proto__` is
 * data, not a prototype), and accept any JSON value: what they do not recognise they
 * return as it came.
 */

/**
 * Removes, at every depth, the object members `test` says to remove. `test` sees the
 * key, the value and the object holding it (so a rule can depend on siblings, e.g.
 * "drop `url` when there is an `html_url` beside it").
 */
export function omitKeysDeep(test: (key: string, value: unknown, parent: Readonly<Record<string, unknown>>) => boolean): ResponseHandler {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (test(key, value[key], value)) continue;
      defineOwn(out, key, walk(value[key]));
    }
    return out;
  };
  return (body) => walk(body);
}

/**
 * Replaces, below the root, objects that carry nothing but a handle by the handle:
 * `{ "id": "x" }` becomes `"x"` and `{ "__typename": "T" }` becomes `"T"`. GraphQL
 * documents that select only `id` of related objects answer with dozens of these; the
 * key they sit under already says what they are.
 */
export function collapseHandles(): ResponseHandler {
  const walk = (value: unknown, root: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, false));
    if (!isRecord(value)) return value;
    const keys = Object.keys(value);
    if (!root && keys.length === 1 && (keys[0] === "id" || keys[0] === "__typename")) {
      const handle = value[keys[0]];
      if (typeof handle === "string" || typeof handle === "number") return handle;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) defineOwn(out, key, walk(value[key], false));
    return out;
  };
  return (body) => walk(body, true);
}

/**
 * A handler that cannot fail: if `handler` throws (an answer shaped like nothing it
 * expects, nesting deep enough to exhaust the stack), the body is passed on as the API
 * sent it. A handler exists to make answers smaller, so on its own failure the honest
 * fallback is the unreduced answer, not an error the model cannot act on.
 */
export function neverThrows(handler: ResponseHandler): ResponseHandler {
  return (body, info) => {
    try {
      return handler(body, info);
    } catch {
      return body;
    }
  };
}
