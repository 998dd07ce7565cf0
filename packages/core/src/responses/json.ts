/**
 * The few JSON-value helpers every response handler needs. Handlers read answers from
 * APIs, so they look at own properties only (a key named `__proto__` is data, not a
 * prototype) and build their results with own data properties.
 */

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own property `key` of a JSON object, or undefined (for anything that is not one, too). */
export function ownValue(value: unknown, key: string): unknown {
  return isRecord(value) && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

/** Sets `key` as an own data property, even when it is `__proto__`. */
export function defineOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Carries no information for a model: null, undefined, "", [] or {}. `false` and `0` are not empty. */
export function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}
