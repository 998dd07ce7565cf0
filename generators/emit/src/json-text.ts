/**
 * Plain data -> a TypeScript expression that builds it at import time from JSON text:
 * `JSON.parse(String.raw`...`)`. A pack's tables are megabytes of data the type checker has
 * no use for; written as an object literal, every `tsc` of a project that imports the pack
 * infers and relates the literal's type member by member (most of a Stripe pack's check
 * time). Written as a string, the checker reads one string token, and the declared type of
 * the variable it is assigned to says what it holds. V8 parses JSON faster than it compiles
 * an object literal of the same data, so import time does not suffer either.
 *
 * The JSON is pretty-printed (two spaces, one member per line) so a regenerated pack's diff
 * stays a readable line diff. `String.raw` keeps JSON's own escapes (`\"`, `\n`) as written;
 * the only characters a raw template cannot hold are the backtick and `${`, which occur in
 * JSON text only inside strings, and are written there as the JSON escapes `\u0060` and
 * `\u0024{`. (A backslash before them in JSON text is always half of an escaped backslash,
 * so the result stays valid JSON.) `JSON.parse` defines every key as an own property, so a
 * `__proto__` key stays data.
 */
export function jsonTextExpression(value: unknown): string {
  assertJsonData(value);
  const json = JSON.stringify(value, null, 2).replace(/`|\$\{/g, (match) => (match === "`" ? "\\u0060" : "\\u0024{"));
  return `JSON.parse(String.raw\`${json}\`)`;
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
