import type { PackIR } from "@sluice/core";
import { generatedHeader, type GeneratorInfo } from "../../../src/header.ts";
import { toolIdentifiers } from "./identifiers.ts";
import { jsonTextExpression } from "./json-text.ts";
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
    // The one line changed since this copy was frozen: packs import definePack from the narrow entry.
    { text: 'import { definePack, type Tool, type ToolIR } from "@sluice/core/pack";' },
    { text: 'import { defs, withheldMembers } from "./defs.gen.ts";' },
    { text: 'import type * as T from "./types.gen.ts";' },
  ];
  if (runtimeModule !== undefined) statements.push({ text: `import { runtime } from ${quoteModuleSpecifier(runtimeModule)};` });
  // Changed since this copy was frozen: the tools are one single-quoted JSON text per line (toolStrings).
  statements.push({ text: `const toolsIR: readonly ToolIR[] = ${toolStrings(pack.tools)};` });
  statements.push({ text: `export const pack = definePack({ name: ${JSON.stringify(pack.name)}, defs, withheldMembers, ${runtime}tools: toolsIR });` });
  for (const tool of pack.tools) {
    const id = ids.get(tool.name)!;
    statements.push({ text: `export const ${id.value}: Tool<T.${id.args}> = pack.tool<T.${id.args}>(${JSON.stringify(tool.name)});` });
  }
  statements.push({ text: "export const tools = pack.tools;" });
  return printSourceFile(header, statements);
}

/**
 * The tools as src/json-strings.ts writes them, built another way: character by character over
 * each tool's JSON text. What the template form refused (jsonTextExpression throws) is refused.
 */
function toolStrings(tools: PackIR["tools"]): string {
  jsonTextExpression(tools, { lines: 1 });
  if (tools.length === 0) return "[]";
  const literal = (tool: unknown): string => {
    let body = "";
    for (const char of JSON.stringify(tool)) {
      for (let i = 0; i < char.length; i += 1) {
        const code = char.charCodeAt(i);
        if (code > 0x7f) body += `\\\\u${code.toString(16).padStart(4, "0")}`;
        else if (char === "\\") body += "\\\\";
        else if (char === "'") body += "\\'";
        else body += char;
      }
    }
    return `'${body}'`;
  };
  return `[\n${tools.map((tool) => `  ${literal(tool)}`).join(",\n")}\n].map((text) => JSON.parse(text))`;
}
