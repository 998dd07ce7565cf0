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
  const onPath = new Set<object>([value]);
  const frames: CloneFrame[] = [frameOf(value, rootCopy as object)];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.index >= frame.length) {
      onPath.delete(frame.source);
      frames.pop();
      continue;
    }
    const i = frame.index++;
    const key = frame.keys === undefined ? i : frame.keys[i]!;
    const child = (frame.source as Record<string | number, unknown>)[key];
    let copy: unknown = child;
    if (typeof child === "object" && child !== null) {
      if (onPath.has(child)) throw new SluiceError("SPEC_INVALID", "The document contains a reference loop between objects (a YAML alias pointing at its own ancestor).");
      copy = Array.isArray(child) ? [] : {};
      onPath.add(child);
      frames.push(frameOf(child, copy as object));
    }
    if (frame.keys === undefined) (frame.target as unknown[]).push(copy === undefined ? null : copy);
    else if (copy === undefined) continue;
    // Plain assignment is far cheaper than defineProperty (this copies every projected
    // schema). A key Object.prototype holds needs setOwn: `__proto__` is an accessor there,
    // and where Object.prototype is frozen (a hardened runtime) assigning `toString` throws.
    else if (PROTOTYPE_KEYS.has(key as string)) setOwn(frame.target as Record<string, unknown>, key as string, copy);
    else (frame.target as Record<string, unknown>)[key as string] = copy;
  }
  return rootCopy as T;
}

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** An object or array being copied: its own keys (none for an array: every index, holes included) and the next one. */
interface CloneFrame {
  source: object;
  target: object;
  keys: string[] | undefined;
  index: number;
  length: number;
}

function frameOf(source: object, target: object): CloneFrame {
  if (Array.isArray(source)) return { source, target, keys: undefined, index: 0, length: source.length };
  const keys = Object.keys(source);
  return { source, target, keys, index: 0, length: keys.length };
}
