import { SluiceError } from "./sluice-error.ts";

/**
 * Canonical compact JSON: object keys sorted by UTF-16 code units (as RFC 8785 does),
 * no whitespace, numbers and strings as ECMAScript's JSON serializes them. The same
 * value always gives the same bytes, whatever order its keys were inserted in (the
 * engine moves integer-like keys first, so insertion order is not a stable basis).
 * Iterative: deep nesting does not overflow the stack; a looping graph is refused.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const onPath = new Set<object>();
  const frames: CanonicalFrame[] = [];
  emitValue(value, out, onPath, frames);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.index >= frame.length) {
      out.push(frame.keys === undefined ? "]" : "}");
      onPath.delete(frame.container);
      frames.pop();
      continue;
    }
    if (frame.index > 0) out.push(",");
    const i = frame.index++;
    if (frame.keys === undefined) {
      const item = (frame.container as unknown[])[i];
      emitValue(item === undefined ? null : item, out, onPath, frames);
    } else {
      const key = frame.keys[i]!;
      out.push(JSON.stringify(key), ":");
      emitValue((frame.container as Record<string, unknown>)[key], out, onPath, frames);
    }
  }
  return out.join("");
}

/** An object (its keys sorted, undefined members left out) or an array being written. */
interface CanonicalFrame {
  container: object;
  keys: string[] | undefined;
  index: number;
  length: number;
}

/**
 * Writes a scalar, or opens a container (pushing its frame). A function of its own, not a
 * closure per call: the built packages name every closure they make (esbuild's keepNames),
 * and this runs for every definition a report prices.
 */
function emitValue(v: unknown, out: string[], onPath: Set<object>, frames: CanonicalFrame[]): void {
  if (v === null) return void out.push("null");
  switch (typeof v) {
    case "string":
      return void out.push(JSON.stringify(v));
    case "boolean":
      return void out.push(v ? "true" : "false");
    case "number":
      if (!Number.isFinite(v)) throw new SluiceError("SPEC_INVALID", `Cannot serialize the number ${v} as JSON.`);
      return void out.push(JSON.stringify(v));
    case "object": {
      if (onPath.has(v)) throw new SluiceError("SPEC_INVALID", "Cannot serialize a looping object graph as JSON.");
      onPath.add(v);
      if (Array.isArray(v)) {
        out.push("[");
        frames.push({ container: v, keys: undefined, index: 0, length: v.length });
      } else {
        const keys = definedKeys(v as Record<string, unknown>).sort();
        out.push("{");
        frames.push({ container: v, keys, index: 0, length: keys.length });
      }
      return;
    }
    default:
      throw new SluiceError("SPEC_INVALID", `Cannot serialize a value of type ${typeof v} as JSON.`);
  }
}

/** Own keys whose value is not undefined (a loop, not filter with a closure: see emitValue). */
function definedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  let kept = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (object[key] !== undefined) keys[kept++] = key;
  }
  keys.length = kept;
  return keys;
}
