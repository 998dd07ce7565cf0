import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { jsonTextExpression } from "./json-text.ts";
import { printSourceFile } from "./source-file.ts";

/**
 * Added since this copy was frozen: `src/pack-data.gen.ts`, the tools', defs' and withheld
 * members' JSON texts as src/pack-data-source.ts writes them, built another way: each text
 * character by character, the file through the frozen printer. What the template form
 * refused (jsonTextExpression throws) is refused.
 */
export function emitPackDataSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  return printSourceFile(header, [
    { text: "// Plain JavaScript (no TypeScript syntax): the sluice CLI loads this file without a TypeScript transform." },
    { text: `export const toolTexts = ${stringsArray(pack.tools)};` },
    { text: `export const defTexts = ${stringsArray(Object.entries(pack.defs))};` },
    { text: `export const withheldTexts = ${stringsArray(Object.entries(pack.withheldMembers ?? {}))};` },
  ]);
}

function stringsArray(records: readonly unknown[]): string {
  jsonTextExpression(records, { lines: 1 });
  if (records.length === 0) return '[""].slice(1)';
  const literal = (record: unknown): string => {
    let body = "";
    for (const char of JSON.stringify(record)) {
      for (let i = 0; i < char.length; i += 1) {
        const code = char.charCodeAt(i);
        if (code > 0x7f) body += `\\\\u${code.toString(16).padStart(4, "0")}`;
        else if (char === "\\") body += "\\\\";
        else if (char === "'") body += "\\'";
        else body += char;
      }
    }
    return `'${body}'`;
  };
  return `[\n${records.map((record) => `  ${literal(record)}`).join(",\n")}\n]`;
}
