import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "./header.ts";
import { toolIdentifiers, type ToolIdentifiers } from "./identifiers.ts";
import { writeJsonStringsExpression } from "./json-strings.ts";
import { quoteModuleSpecifier, SourceText } from "./source-file.ts";

/**
 * `src/tools.gen.ts`: the pack value plus one typed export per tool. The tools' IR is JSON
 * text parsed at import, one string literal per tool (see json-strings.ts: one huge literal
 * is slow for V8 to compile), typed by its declaration: what
 * a user's `tsc` reads of this file is the per-tool exports, each typed by its interface in
 * types.gen.ts.
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
  file.statement('import type * as T from "./types.gen.ts";');
  if (runtimeModule !== undefined) file.statement(`import { runtime } from ${quoteModuleSpecifier(runtimeModule)};`);
  const toolsIR = file.begin();
  toolsIR.push("const toolsIR: readonly ToolIR[] = ");
  writeJsonStringsExpression(toolsIR, pack.tools);
  toolsIR.push(";");
  file.end();
  file.statement(`export const pack = definePack({ name: ${JSON.stringify(pack.name)}, defs, withheldMembers, ${runtime}tools: toolsIR });`);
  for (const tool of pack.tools) {
    const id = ids.get(tool.name)!;
    file.statement(`export const ${id.value}: Tool<T.${id.args}> = pack.tool<T.${id.args}>(${JSON.stringify(tool.name)});`);
  }
  file.statement("export const tools = pack.tools;");
  return file.finish();
}
