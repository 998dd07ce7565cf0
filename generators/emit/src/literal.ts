/**
 * Plain data -> TypeScript literal text. Keys are always quoted (data keys, not identifiers);
 * `__proto__` is written as a computed key, because a quoted `"__proto__":` in an object
 * literal sets the prototype instead of creating a property. Multi-line values put each
 * member on its own line, indented two spaces past `indent`, with a trailing comma.
 */
export function literal(value: unknown, indent = ""): string {
  const out: string[] = [];
  writeLiteral(value, indent, out, true);
  return out.join("");
}

/**
 * JSON text (native, far faster than building it member by member) -> the literal layout:
 * every line break in JSON text is structural (strings escape theirs), so a break before a
 * closing bracket gets the trailing comma, each break gets the base indentation, and a
 * `"__proto__":` key (only a key can start a line and be followed by `": `) becomes computed.
 */
function fromJson(json: string, indent: string): string {
  return json.replace(/\n( *)([\]}]|"__proto__": )?/g, (_match, spaces: string, tail: string | undefined) => {
    if (tail === undefined) return `\n${indent}${spaces}`;
    if (tail === '"__proto__": ') return `\n${indent}${spaces}["__proto__"]: `;
    return `,\n${indent}${spaces}${tail}`;
  });
}

/** Plain JSON data that `JSON.stringify` writes exactly as `writeLiteral` would. Iterative: depth is input-controlled. */
function isJsonData(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return false;
      continue;
    }
    if (typeof value !== "object") return false;
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const item: unknown = value[i];
        if (item === undefined || !(i in value)) return false;
        stack.push(item);
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const member = (value as Record<string, unknown>)[key];
      // JSON drops undefined members, as the literal does.
      if (member !== undefined) stack.push(member);
    }
  }
  return true;
}

/**
 * Appends to one buffer. Below the top level, a member that is plain JSON data is written
 * from `JSON.stringify` (native, several times faster than walking it here); member by
 * member, so the transient JSON text is one member's, not the whole table's. Values JSON
 * would change (non-finite numbers, toJSON, undefined in arrays...) are walked here, which
 * refuses what it cannot write.
 */
function writeLiteral(value: unknown, indent: string, out: string[], top = false): void {
  if (!top && typeof value === "object" && value !== null && isJsonData(value)) {
    out.push(fromJson(JSON.stringify(value, null, 2), indent));
    return;
  }
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot emit non-finite number ${value}`);
    out.push(JSON.stringify(value));
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    out.push("[\n");
    for (const item of value) {
      out.push(inner);
      writeLiteral(item, inner, out);
      out.push(",\n");
    }
    out.push(indent, "]");
    return;
  }
  if (typeof value === "object") {
    let empty = true;
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      out.push(empty ? "{\n" : "", inner, propertyKey(key), ": ");
      empty = false;
      writeLiteral(member, inner, out);
      out.push(",\n");
    }
    out.push(empty ? "{}" : `${indent}}`);
    return;
  }
  throw new TypeError(`cannot emit ${typeof value} as a literal`);
}

export function propertyKey(key: string): string {
  return key === "__proto__" ? `[${JSON.stringify(key)}]` : JSON.stringify(key);
}
