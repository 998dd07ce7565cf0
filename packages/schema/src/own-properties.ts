/**
 * Object helpers that treat every key as data. Schema property names come from specs
 * and can be `__proto__` or `constructor`; plain assignment (`obj[key] = v`) would set
 * a prototype instead of a property.
 */

export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function hasOwn(target: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

export function getOwn(target: unknown, key: string): unknown {
  if (typeof target !== "object" || target === null) return undefined;
  return hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined;
}
