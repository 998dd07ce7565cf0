import { SluiceError } from "./sluice-error.ts";
import { setOwn } from "./own-properties.ts";

/**
 * Deep copy of JSON data. Iterative (deep nesting is fine), keys kept as data
 * (`__proto__` stays a property), and a looping object graph is refused rather than
 * followed forever. Shared (aliased) subtrees are copied separately. In arrays,
 * `undefined` and holes become `null` (as JSON does) rather than shifting later items.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const rootCopy: unknown = Array.isArray(value) ? [] : {};
  const onPath = new Set<object>();
  type Frame = { source: object; target: object; keys: string[]; index: number };
  const frames: Frame[] = [{ source: value, target: rootCopy as object, keys: keysOf(value), index: 0 }];
  onPath.add(value);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.index >= frame.keys.length) {
      onPath.delete(frame.source);
      frames.pop();
      continue;
    }
    const key = frame.keys[frame.index++]!;
    const child = (frame.source as Record<string, unknown>)[key];
    if (child === undefined) {
      if (Array.isArray(frame.target)) frame.target.push(null);
      continue;
    }
    let copy: unknown = child;
    if (typeof child === "object" && child !== null) {
      if (onPath.has(child)) throw new SluiceError("SPEC_INVALID", "The document contains a reference loop between objects (a YAML alias pointing at its own ancestor).");
      copy = Array.isArray(child) ? [] : {};
      onPath.add(child);
      frames.push({ source: child, target: copy as object, keys: keysOf(child), index: 0 });
    }
    if (Array.isArray(frame.target)) frame.target.push(copy);
    else setOwn(frame.target as Record<string, unknown>, key, copy);
  }
  return rootCopy as T;
}

/** Own keys to copy; for an array every index, holes included. */
function keysOf(value: object): string[] {
  return Array.isArray(value) ? Array.from(value, (_item, index) => String(index)) : Object.keys(value);
}
