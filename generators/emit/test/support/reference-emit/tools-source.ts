import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { toolIdentifiers } from "./identifiers.ts";
import { printSourceFile, quoteModuleSpecifier, type Statement } from "./source-file.ts";

/**
 * `src/tools.gen.ts`: the pack value plus one typed export per tool. The tools' IR is JSON
 * text parsed at import (see json-text.ts), one tool per line, typed by its declaration: what
 * a user's `tsc` reads of this file is the per-tool exports, each typed by its interface in
 * types.gen.ts.
 */
export function emitToolsSource(pack: PackIR, generator: GeneratorInfo, runtimeModule?: string, header = generatedHeader(pack, generator)): string {
  const ids = toolIdentifiers(pack);
  const runtime = runtimeModule === undefined ? "" : "runtime, ";
  const statements: Statement[] = [
    // Changed since this copy was frozen: packs import definePack from the narrow entry.
    { text: 'import { definePack, type Tool, type ToolIR } from "@sluice/core/pack";' },
    { text: 'import { defs, withheldMembers } from "./defs.gen.ts";' },
    // Changed since this copy was frozen: the tools' JSON texts come from pack-data.gen.ts.
    { text: 'import { toolTexts } from "./pack-data.gen.ts";' },
    { text: 'import type * as T from "./types.gen.ts";' },
  ];
  if (runtimeModule !== undefined) statements.push({ text: `import { runtime } from ${quoteModuleSpecifier(runtimeModule)};` });
  statements.push({ text: "const toolsIR: readonly ToolIR[] = toolTexts.map((text) => JSON.parse(text));" });
  statements.push({ text: `export const pack = definePack({ name: ${JSON.stringify(pack.name)}, defs, withheldMembers, ${runtime}tools: toolsIR });` });
  for (const tool of pack.tools) {
    const id = ids.get(tool.name)!;
    statements.push({ text: `export const ${id.value}: Tool<T.${id.args}> = pack.tool<T.${id.args}>(${JSON.stringify(tool.name)});` });
  }
  statements.push({ text: "export const tools = pack.tools;" });
  return printSourceFile(header, statements);
}
