/**
 * packages/cli/bin/pack-data-reader.mjs reads the tables of a generated pack-data.gen.ts
 * from its layout, in place of V8 compiling the module (the CLI's hook serves a stub that
 * calls it). What it returns must be what the engine makes of the same file: each data
 * module here is written by the generator's own emitter (generators/emit) and also run as
 * JavaScript by the engine, the oracle, on texts chosen to break a reader (quotes,
 * backslashes before them, line terminators, lone surrogates, `*\/`, `__proto__`), empty
 * tables in every position, and the committed packs. A layout the generator does not write
 * gets no answer (the stub then imports the file as written), never a reading of something else.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { PackIR, ToolIR } from "@sluice/core";
import { emitPackDataSource } from "../generators/emit/src/pack-data-source.ts";

type Tables = { toolTexts: string[]; defTexts: string[]; withheldTexts: string[] };
const READER = new URL("../packages/cli/bin/pack-data-reader.mjs", import.meta.url).href;
const { readPackData } = (await import(READER)) as { readPackData: (url: string) => Tables | undefined };
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const GENERATOR = { name: "@sluice/test-generator", version: "0.0.0" };

const dir = mkdtempSync(join(tmpdir(), "sluice-pack-data-reader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The module text run by the engine: its `export const`s as assignments, nothing else changed. */
function engineTables(text: string): Tables {
  const exports: Record<string, unknown> = {};
  new Function("exports", text.replace(/^export const (\w+) = /gm, "exports.$1 = "))(exports);
  return exports as Tables;
}

/** The reader's tables of `text`, written to a pack-data.gen.ts of its own. */
function readerTables(text: string): Tables {
  const file = join(dir, `${(files += 1)}-pack-data.gen.ts`);
  writeFileSync(file, text, "utf8");
  const tables = readPackData(pathToFileURL(file).href);
  if (tables === undefined) throw new Error("the reader did not answer for a generated layout");
  return tables;
}

function pack(tools: readonly unknown[], defs: Record<string, unknown>, withheld: Record<string, unknown>): PackIR {
  return { name: "p", source: { kind: "openapi", file: "spec */.json", sha256: "0".repeat(64) }, tools: tools as ToolIR[], defs: defs as PackIR["defs"], withheldMembers: withheld as NonNullable<PackIR["withheldMembers"]>, skipped: [] };
}

const HARD = ["'", "\\'", "\\\\'", "\\", "\\\\", '"', '\\"', "`", "${", "\u2028", "\u2029", "\r\n", "\r", "\n", "\u0000", "\ud800", "\udfff", "😀", "é", "</script>", "*/", "',\n  '", "'\n];\n", "\nexport const defTexts = "];

describe("readPackData against the engine", () => {
  it.each([
    ["every table filled", [{ name: "a" }, { name: "b" }], { A: { type: "string" } }, { A: [{ path: "A.x", reason: "deprecated" }] }],
    ["no tools", [], { A: { type: "string" } }, { A: [] }],
    ["no definitions (an empty table in the middle)", [{ name: "a" }], {}, { A: [] }],
    ["no withheld members (an empty table at the end)", [{ name: "a" }], { A: {} }, {}],
    ["every table empty", [], {}, {}],
  ])("%s", (_name, tools, defs, withheld) => {
    const text = emitPackDataSource(pack(tools, defs, withheld), GENERATOR);
    expect(readerTables(text)).toEqual(engineTables(text));
  });

  it.each(HARD.map((hard) => [JSON.stringify(hard), hard] as const))("texts holding %s, in values and keys", (_name, hard) => {
    const record = { [hard]: [hard, `a${hard}b`, { nested: hard }], name: hard };
    const text = emitPackDataSource(pack([record, { name: `${hard}${hard}` }], { [hard]: record, __proto__x: {} }, { [hard]: [{ path: hard, reason: "pinned", value: hard }] }), GENERATOR);
    const engine = engineTables(text);
    expect(readerTables(text)).toEqual(engine);
    // And the texts are the records' JSON: the engine's reading is the one the emitter meant.
    expect(JSON.parse(engine.toolTexts[0]!)).toEqual(record);
  });

  it("property: random records from a hostile alphabet read as the engine reads them (seeded)", () => {
    const unit = fc.constantFrom("a", "'", "\\", '"', "\n", "\r", "\u2028", "😀", "é", "*", "/", "`", "$", "{", ",", " ", "]", ";", "\u0000");
    const text = fc.string({ unit, maxLength: 12 });
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 3 }),
      object: fc.dictionary(text, tie("value"), { maxKeys: 3 }),
    })).value;
    fc.assert(
      fc.property(fc.array(fc.dictionary(text, value, { maxKeys: 3 }), { maxLength: 3 }), fc.dictionary(text, fc.dictionary(text, value, { maxKeys: 2 }), { maxKeys: 3 }), (tools, defs) => {
        const source = emitPackDataSource(pack(tools, defs, {}), GENERATOR);
        expect(readerTables(source)).toEqual(engineTables(source));
      }),
      { seed: 20261207, numRuns: 60 },
    );
  });

  it.each(["stripe", "linear", "gdocs"])("the committed %s pack", (name) => {
    const file = join(ROOT, "packs", name, "src/pack-data.gen.ts");
    expect(readPackData(pathToFileURL(file).href)).toEqual(engineTables(readFileSync(file, "utf8")));
  });
});

describe("a layout the generator does not write", () => {
  const text = emitPackDataSource(pack([{ name: "a" }, { name: "b" }], { A: { type: "string" } }, {}), GENERATOR);
  const firstTool = "'{\"name\":\"a\"}'";

  // Each is a file the engine reads otherwise than the generated layout says (or not at all):
  // the reader must not answer, so that the stub imports it as written.
  it.each([
    ["a table missing", text.replace(/\nexport const defTexts = [^\n]*(\n  [^\n]*)*\n\];/, "")],
    ["texts in double quotes (reformatted)", text.replace(/^ {2}'(.*)',?$/gm, (_line, body: string) => `  "${body.replaceAll('"', '\\"')}",`)],
    ["a table cut short", text.slice(0, text.indexOf("\nexport const defTexts") + 40)],
    ["tables in another order", text.replace("export const toolTexts", "export const tmp").replace("export const defTexts", "export const toolTexts").replace("export const tmp", "export const defTexts")],
    ["a statement added after the tables", `${text}toolTexts.push('{"name":"added"}');\n`],
    ["a statement added between two tables", text.replace("\nexport const defTexts", "\ntoolTexts.pop();\nexport const defTexts")],
    ["a code line above the tables", text.replace("\nexport const toolTexts", "\nglobalThis.x = 1;\nexport const toolTexts")],
    ["two literals joined on one line", text.replace(firstTool, `'{"name":' + '"a"}'`)],
    ["an escape the reader does not undo", text.replace(firstTool, "'{\"name\":\"\\x61\"}'")],
    ["a quote left unescaped", text.replace(firstTool, `'{"name":"a'b"}'`)],
    ["a character beyond ASCII", text.replace(firstTool, `'{"name":"\u00e9"}'`)],
    ["a carriage return", text.replace(firstTool, `'{"name":"a"}'\r`)],
  ])("%s: the reader gives no tables", (_name, bad) => {
    expect(bad).not.toBe(text);
    const file = join(dir, `${(files += 1)}-pack-data.gen.ts`);
    writeFileSync(file, bad, "utf8");
    expect(readPackData(pathToFileURL(file).href)).toBeUndefined();
  });
});
