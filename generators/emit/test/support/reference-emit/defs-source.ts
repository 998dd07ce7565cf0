import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { printSourceFile } from "./source-file.ts";

/**
 * `src/defs.gen.ts`: the pack's definitions table, each type once, in IR order, and the
 * members the generator withheld from those types (for egress maps). Changed since this copy
 * was frozen: both are built from pack-data.gen.ts's JSON texts (see pack-data-source.ts).
 */
export function emitDefsSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  return printSourceFile(header, [
    { text: 'import type { JsonSchemaObject, WithheldPath } from "@sluice/core";' },
    { text: 'import { defTexts, withheldTexts } from "./pack-data.gen.ts";' },
    { text: "export const defs: Readonly<Record<string, JsonSchemaObject>> = Object.fromEntries(defTexts.map((text) => JSON.parse(text)));" },
    { text: "export const withheldMembers: Readonly<Record<string, readonly WithheldPath[]>> = Object.fromEntries(withheldTexts.map((text) => JSON.parse(text)));" },
  ]);
}
