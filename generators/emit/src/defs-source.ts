import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { SourceText } from "./source-file.ts";

/**
 * `src/defs.gen.ts`: the pack's definitions table, each type once, in IR order, and the
 * members the generator withheld from those types (for egress maps). Both are built from
 * the JSON texts of pack-data.gen.ts (one `[name, value]` pair per entry) and typed by
 * their declarations here.
 */
export function emitDefsSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  const file = new SourceText(header);
  file.statement('import type { JsonSchemaObject, WithheldPath } from "@sluice/core";');
  file.statement('import { defTexts, withheldTexts } from "./pack-data.gen.ts";');
  file.statement("export const defs: Readonly<Record<string, JsonSchemaObject>> = Object.fromEntries(defTexts.map((text) => JSON.parse(text)));");
  file.statement("export const withheldMembers: Readonly<Record<string, readonly WithheldPath[]>> = Object.fromEntries(withheldTexts.map((text) => JSON.parse(text)));");
  return file.finish();
}
