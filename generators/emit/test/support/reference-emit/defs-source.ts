import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { jsonTextExpression } from "./json-text.ts";
import { printSourceFile } from "./source-file.ts";

/**
 * `src/defs.gen.ts`: the pack's definitions table, each type once, in IR order, and the
 * members the generator withheld from those types (for egress maps). Both are JSON text
 * parsed at import (see json-text.ts), one def per line, typed by their declarations.
 */
export function emitDefsSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  return printSourceFile(header, [
    { text: 'import type { JsonSchemaObject, WithheldPath } from "@sluice/core";' },
    { text: `export const defs: Readonly<Record<string, JsonSchemaObject>> = ${jsonTextExpression(pack.defs, { lines: 1 })};` },
    {
      text: `export const withheldMembers: Readonly<Record<string, readonly WithheldPath[]>> = ${jsonTextExpression(pack.withheldMembers ?? {}, { lines: 1 })};`,
    },
  ]);
}
