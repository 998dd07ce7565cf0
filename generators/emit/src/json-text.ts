import { Buffer } from "node:buffer";

/**
 * Plain data -> a TypeScript expression that builds it at import time from JSON text:
 * `JSON.parse(`...`)`. A pack's tables are megabytes of data the type checker has no use
 * for; written as an object literal, every `tsc` of a project that imports the pack infers
 * and relates the literal's type member by member (most of a Stripe pack's check time).
 * Written as a string, the checker reads one template token, and the declared type of the
 * variable it is assigned to says what it holds.
 *
 * Layout (`lines`): the members of the first `lines` levels of nesting stand one per line,
 * two-space indented, and everything deeper is compact JSON. The tools and defs tables are
 * written with `lines: 1` (one tool or def per line): a regenerated pack's diff still names
 * the tools that changed, and the scanner of every user's tsc reads 1.3 MB of Stripe's tool
 * data where the fully indented text (74,718 lines) was 2.4 MB. Small tables keep the fully
 * indented form (the default).
 *
 * The text is ASCII: other characters are written as JSON `\uXXXX` escapes, so V8 holds the
 * text as a one-byte string (half the memory of a two-byte one; measured on Stripe, the heap
 * after import is then below the object literal's, where a `String.raw` template, which V8
 * keeps as both cooked and raw strings, was 8 MiB above). Backtick and `${` are JSON-escaped
 * too (`\u0060`, `\u0024{`), and then every backslash is doubled for the template, whose
 * cooked value is the JSON text. `JSON.parse` defines every key as an own property, so a
 * `__proto__` key stays data.
 */
export function jsonTextExpression(value: unknown, options: { lines?: number } = {}): string {
  const parts: string[] = [];
  writeJsonTextExpression(parts, value, options.lines);
  return parts.join("");
}

/**
 * The same expression appended to `out` piece by piece, so that a file built from parts
 * (source-file.ts) joins its megabytes once: each member is stringified and escaped on its
 * own, and no text of the whole table is built, escaped and copied again in between.
 */
export function writeJsonTextExpression(out: string[], value: unknown, lines = Number.POSITIVE_INFINITY): void {
  out.push("JSON.parse(`");
  if (lines === Number.POSITIVE_INFINITY) {
    assertJsonData(value);
    out.push(templateText(JSON.stringify(value, null, 2)));
  } else {
    layout(out, value, lines, "");
  }
  out.push("`)");
}

/**
 * JSON text with the members of `depth` levels one per line, as `JSON.stringify(value, null, 2)`
 * lays them out (an empty array or object stays `[]`/`{}`), and compact below. Undefined
 * object members are dropped, as JSON.stringify drops them; assertJsonData refuses the
 * rest JSON would change, each value checked once, before it is stringified. Recursion is
 * bounded by `depth` (1 for the big tables).
 */
function layout(out: string[], value: unknown, depth: number, indent: string): void {
  if (depth <= 0 || value === null || typeof value !== "object") {
    assertJsonData(value);
    out.push(templateText(JSON.stringify(value)));
    return;
  }
  refuseToJSON(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value) || value[i] === undefined) throw new TypeError("cannot emit undefined in an array");
      out.push(i === 0 ? `[\n${inner}` : `,\n${inner}`);
      layout(out, value[i], depth - 1, inner);
    }
    out.push(`\n${indent}]`);
    return;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    out.push(first ? `{\n${inner}` : `,\n${inner}`, templateText(JSON.stringify(key)), ": ");
    first = false;
    layout(out, member, depth - 1, inner);
  }
  out.push(first ? "{}" : `\n${indent}}`);
}

/** What JSON escapes do not cover: characters outside ASCII, and what would end the template or open a substitution. */
const TEMPLATE_UNSAFE = /[^\x00-\x7f]|`|\$\{/g;

/**
 * JSON text as the raw text of a template literal whose cooked value is that JSON text.
 * Backslashes are doubled first and the few escapes added after are written doubled, the
 * same bytes as escaping first and doubling after. The cheap tests (a length compare,
 * `includes`) let the usual member, ASCII and free of backticks, skip the regular expression.
 */
function templateText(json: string): string {
  const text = json.includes("\\") ? json.replaceAll("\\", "\\\\") : json;
  // UTF-8 is one byte a character exactly when every character is ASCII. Asked of the JSON
  // text, flat as JSON.stringify made it (doubling backslashes adds no other character): the
  // doubled text is a string V8 would first flatten into a copy to count it (6 MiB for Kubernetes).
  if (Buffer.byteLength(json, "utf8") === json.length && !json.includes("`") && !json.includes("${")) return text;
  return text.replace(TEMPLATE_UNSAFE, (match) => (match === "${" ? "\\\\u0024{" : `\\\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

function refuseToJSON(value: object): void {
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") throw new TypeError("cannot emit an object with a toJSON method as JSON data");
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
    refuseToJSON(value);
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
