import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { writeJsonTextExpression } from "./json-text.ts";
import { SourceText } from "./source-file.ts";

/**
 * `src/defs.gen.ts`: the pack's definitions table, each type once, in IR order, and the
 * members the generator withheld from those types (for egress maps). Both are JSON text
 * parsed at import (see json-text.ts), one def per line, typed by their declarations.
 */
export function emitDefsSource(pack: PackIR, generator: GeneratorInfo, header = generatedHeader(pack, generator)): string {
  const file = new SourceText(header);
  file.statement('import type { JsonSchemaObject, WithheldPath } from "@sluice/core";');
  const defs = file.begin();
  defs.push("export const defs: Readonly<Record<string, JsonSchemaObject>> = ");
  writeJsonTextExpression(defs, pack.defs, 1);
  defs.push(";");
  file.end();
  const withheld = file.begin();
  withheld.push("export const withheldMembers: Readonly<Record<string, readonly WithheldPath[]>> = ");
  writeJsonTextExpression(withheld, pack.withheldMembers ?? {}, 1);
  withheld.push(";");
  file.end();
  return file.finish();
}
