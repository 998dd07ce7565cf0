// The tables of a pack's generated data module (src/pack-data.gen.ts), read by the CLI
// without compiling the module: see typescript-esm-hooks.mjs, which serves a stub calling
// this in its place. The generated layout is fixed (generators/emit/src/pack-data-source.ts):
//   export const <name> = [\n  '<text>',\n  '<text>'\n];   or   export const <name> = [""].slice(1);
// each <text> a JSON text escaped for a single-quoted literal: a backslash and a quote, and
// nothing else, preceded by a backslash (JSON text holds no line break and, written so, no
// character beyond ASCII). Undoing those two escapes gives the literal's value, as V8 would.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const TABLES = ["toolTexts", "defTexts", "withheldTexts"];
const EMPTY = '[""].slice(1);\n';
const OPEN = "[\n  '";
const SEPARATOR = "',\n  '";
const CLOSE = "'\n];\n";

/** `{ toolTexts, defTexts, withheldTexts }` of the data module at `url`; a layout other than the generator's throws. */
export function readPackData(url) {
  const file = fileURLToPath(url);
  const text = readFileSync(file, "latin1");
  const tables = {};
  let at = 0;
  for (const name of TABLES) {
    const head = `\nexport const ${name} = `;
    const start = text.indexOf(head, at);
    if (start === -1) throw layoutError(file, `no \`export const ${name}\``);
    const open = start + head.length;
    if (text.startsWith(EMPTY, open)) {
      tables[name] = [];
      at = open + EMPTY.length - 1; // the line break the next table's head starts with
      continue;
    }
    if (!text.startsWith(OPEN, open)) throw layoutError(file, `${name} is not an array of single-quoted texts`);
    // A text holds no raw line break, so the first "'\n];\n" after the opening ends the table.
    const close = text.indexOf(CLOSE, open);
    if (close === -1) throw layoutError(file, `${name} has no end`);
    const texts = text.slice(open + OPEN.length, close).split(SEPARATOR);
    for (let i = 0; i < texts.length; i += 1) {
      const body = texts[i];
      if (body.includes("\\")) texts[i] = body.replace(ESCAPED, "$1");
    }
    tables[name] = texts;
    at = close + CLOSE.length - 1; // the line break the next table's head starts with
  }
  return tables;
}

const ESCAPED = /\\([\\'])/g;

function layoutError(file, what) {
  const error = new Error(`${file}: not the layout sluice generates (${what}); regenerate it with sluice generate.`);
  error.code = "IMPORT_FAILED";
  return error;
}
