import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { toolIdentifiers, type ToolIdentifiers } from "./identifiers.ts";
import { quoteModuleSpecifier, SourceText } from "./source-file.ts";

/**
 * `src/tools.gen.ts`: the pack value plus one typed export per tool. The tools' IR is the
 * JSON texts of pack-data.gen.ts, one per tool, parsed at import and typed by its
 * declaration here: what a user's `tsc` reads of this file is the per-tool exports, each
 * typed by its interface in types.gen.ts.
 */
export function emitToolsSource(
  pack: PackIR,
  generator: GeneratorInfo,
  runtimeModule?: string,
  header = generatedHeader(pack, generator),
  ids: ReadonlyMap<string, ToolIdentifiers> = toolIdentifiers(pack),
): string {
  const runtime = runtimeModule === undefined ? "" : "runtime, ";
  const file = new SourceText(header);
  file.statement('import { definePack, type Tool, type ToolIR } from "@sluice/core/pack";');
  file.statement('import { defs, withheldMembers } from "./defs.gen.ts";');
  file.statement('import { toolTexts } from "./pack-data.gen.ts";');
  file.statement('import type * as T from "./types.gen.ts";');
  if (runtimeModule !== undefined) file.statement(`import { runtime } from ${quoteModuleSpecifier(runtimeModule)};`);
  file.statement("const toolsIR: readonly ToolIR[] = toolTexts.map((text) => JSON.parse(text));");
  file.statement(`export const pack = definePack({ name: ${JSON.stringify(pack.name)}, defs, withheldMembers, ${runtime}tools: toolsIR });`);
  for (const tool of pack.tools) {
    const id = ids.get(tool.name)!;
    file.statement(`export const ${id.value}: Tool<T.${id.args}> = pack.tool<T.${id.args}>(${JSON.stringify(tool.name)});`);
  }
  file.statement("export const tools = pack.tools;");
  return file.finish();
}
