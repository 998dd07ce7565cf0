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
  type Frame = { container: object; keys: string[] | undefined; index: number; length: number };
  const frames: Frame[] = [];

  const emitValue = (v: unknown): void => {
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
          const keys = Object.keys(v)
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .sort();
          out.push("{");
          frames.push({ container: v, keys, index: 0, length: keys.length });
        }
        return;
      }
      default:
        throw new SluiceError("SPEC_INVALID", `Cannot serialize a value of type ${typeof v} as JSON.`);
    }
  };

  emitValue(value);
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
      emitValue(item === undefined ? null : item);
    } else {
      const key = frame.keys[i]!;
      out.push(JSON.stringify(key), ":");
      emitValue((frame.container as Record<string, unknown>)[key]);
    }
  }
  return out.join("");
}
