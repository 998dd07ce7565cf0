/**
 * Plain data -> a TypeScript expression that builds it at import time from JSON text:
 * `JSON.parse(`...`)`. A pack's tables are megabytes of data the type checker has no use
 * for; written as an object literal, every `tsc` of a project that imports the pack infers
 * and relates the literal's type member by member (most of a Stripe pack's check time).
 * Written as a string, the checker reads one template token, and the declared type of the
 * variable it is assigned to says what it holds.
 *
 * The JSON is pretty-printed (two spaces, one member per line) so a regenerated pack's diff
 * stays a readable line diff. It is ASCII: other characters are written as JSON `\uXXXX`
 * escapes, so V8 holds the text as a one-byte string (half the memory of a two-byte one;
 * measured on Stripe, the heap after import is then below the object literal's, where a
 * `String.raw` template, which V8 keeps as both cooked and raw strings, was 8 MiB above).
 * Backtick and `${` are JSON-escaped too (`\u0060`, `\u0024{`), and then every backslash is
 * doubled for the template, whose cooked value is the JSON text. `JSON.parse` defines every
 * key as an own property, so a `__proto__` key stays data.
 */
export function jsonTextExpression(value: unknown): string {
  assertJsonData(value);
  const json = JSON.stringify(value, null, 2).replace(/[^\x00-\x7f]|`|\$\{/g, (match) => (match === "${" ? "\\u0024{" : `\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`));
  return `JSON.parse(\`${json.replace(/\\/g, "\\\\")}\`)`;
}

/**
 * Refuses what JSON text would change or lose rather than write something else: non-finite
 * numbers (JSON writes null), holes and undefined in arrays (null), `toJSON` objects such as
 * a Date (JSON writes what the method returns), functions, symbols and bigints. Undefined
 * object members are dropped, as the IR's optional members are. Iterative: depth is
 * input-controlled.
 */
export function assertJsonData(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) throw new TypeError(`cannot emit non-finite number ${value}`);
      continue;
    }
    if (typeof value !== "object") throw new TypeError(`cannot emit ${typeof value} as JSON data`);
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") throw new TypeError("cannot emit an object with a toJSON method as JSON data");
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        if (!(i in value) || value[i] === undefined) throw new TypeError("cannot emit undefined in an array");
        stack.push(value[i]);
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) stack.push(member);
    }
  }
}
