import { Buffer } from "node:buffer";
import { assertJsonData } from "./json-text.ts";

/**
 * A table of records -> a JavaScript array literal of single-quoted strings, each one
 * record's compact JSON text on a line of its own (`[\n  '{...}',\n  '{...}'\n]`); the
 * module that imports it parses them one by one (`texts.map((text) => JSON.parse(text))`).
 *
 * Why not one `JSON.parse(`...`)` template as json-text.ts writes: V8 compiles one huge
 * literal far slower than many small ones. Measured on the 8,984 tools of eight Kubernetes
 * copies (52 MiB of tool data, plain node; bench/TOOL-DATA-FORMAT.md): importing the template
 * took 12.1 s of CPU, one single-quoted string 6.7 s, one literal per tool 1.6 s, and
 * `JSON.parse` of the same text read from a .json file 1.1 s. A sibling .json
 * file is not taken: importing it needs import attributes (not in early Node 20.x) or a file
 * read that bundlers do not follow.
 *
 * Still one record per line, so a regenerated pack's diff names the records that changed.
 * The text is ASCII, as in json-text.ts (V8 keeps it as one-byte strings): other characters
 * are written as JSON `\uXXXX` escapes. In the literal, a backslash and a quote are escaped,
 * so the string's value is the JSON text; JSON text holds no raw line terminator.
 * `JSON.parse` defines every key as an own property, so a `__proto__` key stays data.
 */
export function writeJsonStringsArray(out: string[], records: readonly unknown[]): void {
  if (records.length === 0) {
    out.push("[]");
    return;
  }
  for (let i = 0; i < records.length; i += 1) {
    if (!(i in records) || records[i] === undefined) throw new TypeError("cannot emit undefined in an array");
    const record = records[i];
    assertJsonData(record);
    out.push(i === 0 ? "[\n  '" : "',\n  '", stringText(JSON.stringify(record)));
  }
  out.push("'\n]");
}

/** Characters outside ASCII, and the two a single-quoted literal must escape. */
const STRING_UNSAFE = /[^\x00-\x7f]|\\|'/g;

/** JSON text as the body of a single-quoted literal whose value is that JSON text. */
function stringText(json: string): string {
  // The usual record is ASCII with neither a backslash nor a quote: no regular expression.
  if (Buffer.byteLength(json, "utf8") === json.length && !json.includes("\\") && !json.includes("'")) return json;
  return json.replace(STRING_UNSAFE, (match) => {
    if (match === "\\") return "\\\\";
    if (match === "'") return "\\'";
    // A JSON escape, its backslash written escaped.
    return `\\\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
