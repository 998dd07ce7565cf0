import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { writeJsonStringsArray } from "./json-strings.ts";
import { SourceText } from "./source-file.ts";

/**
 * The line that marks a generated data module as plain JavaScript. The CLI's module hook
 * (packages/cli/bin/typescript-esm-hooks.mjs) looks for it, word for word, before it serves
 * the file to Node as it is, without tsx: tsx would decode, hash and transform the
 * megabytes of a large pack's data only to give back the same program.
 */
export const PLAIN_JAVASCRIPT = "// Plain JavaScript (no TypeScript syntax): the sluice CLI loads this file without a TypeScript transform.";

/**
 * `src/pack-data.gen.ts`: the pack's data as JSON texts, one string literal per tool, per
 * definition and per type's withheld members (json-strings.ts), for tools.gen.ts and
 * defs.gen.ts to parse and type. Nothing here is TypeScript, so this file, nearly all of a
 * pack's bytes, runs as written: tsx, bundlers and tsc read it as the .ts it is named, and
 * the CLI hands it to Node untransformed.
 */
export function emitPackDataSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  const file = new SourceText(header);
  file.statement(PLAIN_JAVASCRIPT);
  const tables: Array<[string, readonly unknown[]]> = [
    ["toolTexts", pack.tools],
    // [name, value] pairs, which Object.fromEntries turns back into the tables in this order.
    ["defTexts", Object.entries(pack.defs)],
    ["withheldTexts", Object.entries(pack.withheldMembers ?? {})],
  ];
  for (const [name, records] of tables) {
    const out = file.begin();
    out.push(`export const ${name} = `);
    // An empty table typed string[] as a full one is (a bare `[]` would be any[]).
    if (records.length === 0) out.push('[""].slice(1)');
    else writeJsonStringsArray(out, records);
    out.push(";");
    file.end();
  }
  return file.finish();
}
