/**
 * Plain data -> TypeScript literal text. Keys are always quoted (data keys, not identifiers);
 * `__proto__` is written as a computed key, because a quoted `"__proto__":` in an object
 * literal sets the prototype instead of creating a property.
 */
export function literal(value: unknown, indent = ""): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot emit non-finite number ${value}`);
    return JSON.stringify(value);
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${inner}${literal(item, inner)},\n`).join("")}${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, v]) => `${inner}${propertyKey(key)}: ${literal(v, inner)},\n`).join("")}${indent}}`;
  }
  throw new TypeError(`cannot emit ${typeof value} as a literal`);
}

export function propertyKey(key: string): string {
  return key === "__proto__" ? `[${JSON.stringify(key)}]` : JSON.stringify(key);
}
