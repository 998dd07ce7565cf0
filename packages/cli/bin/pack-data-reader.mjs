// The tables of a pack's generated data module (src/pack-data.gen.ts), read by the CLI
// without compiling the module: see typescript-esm-hooks.mjs, which serves a stub calling
// this in its place. The generated layout is fixed (generators/emit/src/pack-data-source.ts):
//   // comment lines
//   export const <name> = [\n  '<text>',\n  '<text>'\n];   or   export const <name> = [""].slice(1);
// for the three tables in order and nothing after them, each <text> a JSON text escaped for a
// single-quoted literal: a backslash and a quote, and nothing else, preceded by a backslash
// (JSON text holds no line break and, written so, no character beyond ASCII). Undoing those
// two escapes gives the literal's value, as V8 would.
//
// The reader answers only for a file that is exactly that layout: any other byte (a statement
// added by hand, another escape, a quote that ends a literal early, a character beyond ASCII,
// a carriage return) would make what it reads differ from what the program means, and then
// it gives undefined and the stub imports the file as written, through tsx. What the CLI
// sees of a pack (its egress map, its check) is always what the pack's own program makes.
import { readFileSync } from "node:fs";
import { isAscii } from "node:buffer";
import { fileURLToPath } from "node:url";

export const TABLES = ["toolTexts", "defTexts", "withheldTexts"];
const EMPTY = '[""].slice(1);\n';
const OPEN = "[\n  '";
const SEPARATOR = "',\n  '";
const CLOSE = "'\n];\n";

/**
 * `{ toolTexts, defTexts, withheldTexts }` of the data module at `url`, or undefined when the
 * file is not exactly in the generated layout (the caller then imports it as written).
 */
export function readPackData(url) {
  const bytes = readFileSync(fileURLToPath(url));
  // Beyond ASCII, reading the bytes as Latin-1 would not be the engine's UTF-8; a carriage
  // return ends a literal for the engine but not for the splits below.
  if (!isAscii(bytes) || bytes.includes(13)) return undefined;
  const text = bytes.toString("latin1");
  // Everything before the first table is comment lines.
  let at = text.indexOf(`\nexport const ${TABLES[0]} = `);
  if (at === -1) return undefined;
  for (const line of text.slice(0, at).split("\n")) if (!line.startsWith("//")) return undefined;
  const tables = {};
  for (const name of TABLES) {
    const head = `\nexport const ${name} = `;
    if (!text.startsWith(head, at)) return undefined;
    const open = at + head.length;
    if (text.startsWith(EMPTY, open)) {
      tables[name] = [];
      at = open + EMPTY.length - 1; // the line break the next table's head starts with
      continue;
    }
    if (!text.startsWith(OPEN, open)) return undefined;
    const close = text.indexOf(CLOSE, open);
    if (close === -1) return undefined;
    const texts = text.slice(open + OPEN.length, close).split(SEPARATOR);
    for (let i = 0; i < texts.length; i += 1) {
      const body = texts[i];
      // A raw line break or a bare quote means the literals are not where the splits put them.
      if (body.includes("\n")) return undefined;
      if (!body.includes("\\") && !body.includes("'")) continue;
      // Only `\\` and `\'` escapes, and every quote escaped: what is left without them holds neither.
      const rest = body.replace(ESCAPED, "");
      if (rest.includes("\\") || rest.includes("'")) return undefined;
      texts[i] = body.replace(ESCAPED, "$1");
    }
    tables[name] = texts;
    at = close + CLOSE.length - 1;
  }
  // Nothing after the last table but its line break.
  return at === text.length - 1 ? tables : undefined;
}

const ESCAPED = /\\([\\'])/g;
