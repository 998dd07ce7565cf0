import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SluiceError, Tool } from "@sluice/core";

/** Where workspace packs live, relative to this file. */
const PACKS_DIR = new URL("../../../packs/", import.meta.url);

/**
 * Tools from a workspace pack name (`linear`) or a module path (TypeScript allowed).
 * A module provides an exported `tools` array, a default-exported array, or named
 * exports that are tools.
 */
export async function loadTools(spec: string, cwd: string): Promise<Tool<object>[]> {
  const packEntry = /^[a-z0-9][a-z0-9-]*$/.test(spec) ? new URL(`${spec}/src/index.ts`, PACKS_DIR) : undefined;
  let url: string;
  if (packEntry && existsSync(packEntry)) {
    url = packEntry.href;
  } else {
    const file = isAbsolute(spec) ? spec : resolve(cwd, spec);
    if (!existsSync(file)) {
      throw new SluiceError("PACK_NOT_FOUND", `"${spec}" is neither a workspace pack (packs/${spec}) nor a module file.`, { candidates: workspacePacks() });
    }
    url = pathToFileURL(file).href;
  }
  const module = (await import(url)) as Record<string, unknown>;
  const tools = toolsOf(module);
  if (tools.length === 0) throw new SluiceError("PACK_NOT_FOUND", `${spec} exports no tools (export a \`tools\` array, or tools by name).`);
  return tools;
}

function toolsOf(module: Record<string, unknown>): Tool<object>[] {
  for (const candidate of [module.tools, module.default]) {
    if (Array.isArray(candidate) && candidate.every((t) => t instanceof Tool)) return candidate as Tool<object>[];
  }
  return Object.keys(module)
    .sort()
    .map((key) => module[key])
    .filter((value): value is Tool<object> => value instanceof Tool);
}

export function workspacePacks(): string[] {
  return readdirSync(PACKS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/src/index.ts`, PACKS_DIR)))
    .map((entry) => entry.name)
    .sort();
}

export function findTool(tools: readonly Tool<object>[], name: string, spec: string): Tool<object> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    const names = tools.map((t) => t.name);
    const close = names.filter((n) => n.includes(name) || name.includes(n)).slice(0, 10);
    throw new SluiceError("TOOL_NOT_FOUND", `${spec} has no tool named ${name}.`, { candidates: close.length > 0 ? close : names.slice(0, 10) });
  }
  return tool;
}
