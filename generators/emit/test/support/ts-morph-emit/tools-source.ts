import { StructureKind, VariableDeclarationKind, type VariableStatementStructure } from "ts-morph";
import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { toolIdentifiers } from "../../../src/identifiers.ts";
import { literal } from "./literal.ts";
import { printSourceFile } from "./source-file.ts";

/** `src/tools.gen.ts`: the pack value plus one typed export per tool. */
export function emitToolsSource(pack: PackIR, generator: GeneratorInfo, runtimeModule?: string): string {
  const ids = toolIdentifiers(pack);
  const constant = (name: string, initializer: string, type?: string): VariableStatementStructure => ({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    declarations: [type === undefined ? { name, initializer } : { name, type, initializer }],
  });
  return printSourceFile(generatedHeader(pack, generator), [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: "@sluice/core/pack", namedImports: ["definePack", "type Tool"] },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: "./defs.gen.ts", namedImports: ["defs", "withheldMembers"] },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: "./types.gen.ts", namespaceImport: "T", isTypeOnly: true },
    ...(runtimeModule === undefined ? [] : [{ kind: StructureKind.ImportDeclaration as const, moduleSpecifier: runtimeModule, namedImports: ["runtime"] }]),
    constant("pack", `definePack({ name: ${JSON.stringify(pack.name)}, defs, withheldMembers, ${runtimeModule === undefined ? "" : "runtime, "}tools: ${literal(pack.tools)} })`),
    ...pack.tools.map((tool) => {
      const id = ids.get(tool.name)!;
      return constant(id.value, `pack.tool<T.${id.args}>(${JSON.stringify(tool.name)})`, `Tool<T.${id.args}>`);
    }),
    constant("tools", "pack.tools"),
  ]);
}
