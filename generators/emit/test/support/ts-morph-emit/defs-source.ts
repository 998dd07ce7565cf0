import { StructureKind, VariableDeclarationKind } from "ts-morph";
import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { literal } from "./literal.ts";
import { printSourceFile } from "./source-file.ts";

/**
 * `src/defs.gen.ts`: the pack's definitions table, each type once, in IR order, and the
 * members the generator withheld from those types (for egress maps).
 */
export function emitDefsSource(pack: PackIR, generator: GeneratorInfo): string {
  return printSourceFile(generatedHeader(pack, generator), [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: "@sluice/core", namedImports: ["JsonSchemaObject", "WithheldPath"], isTypeOnly: true },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: "defs", type: "Readonly<Record<string, JsonSchemaObject>>", initializer: literal(pack.defs) }],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [
        { name: "withheldMembers", type: "Readonly<Record<string, readonly WithheldPath[]>>", initializer: literal(pack.withheldMembers ?? {}) },
      ],
    },
  ]);
}
