import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { allToolsOf, defaultServedSet, fullNameOf, isSluiceError, SluiceError, Tool } from "@sluice/core/pack";
import { closest } from "./args.ts";
import { importModule } from "./load-module.ts";
import { resolvePack, workspacePacksDir } from "./resolve-pack.ts";

/** A loaded `<pack>`: its tools and the module they came from. */
export interface LoadedPack {
  /** Every tool the module can send: its `allTools` (the `*_full` twins included) when it exports them. */
  tools: Tool<object>[];
  module: Record<string, unknown>;
  file: string;
}

/**
 * Tools of `<pack>` (resolved as resolvePack documents). A module provides an exported
 * `tools` array, a default-exported array, or named exports that are tools. A pack that
 * also exports `allTools` (its `tools` plus the `*_full` twins) is loaded by it, so the
 * egress map, the survey and the report cover everything it can send; servers take the
 * default served set from that (`defaultServedSet`), which is the pack's `tools`.
 */
export async function loadPack(spec: string, cwd: string): Promise<LoadedPack> {
  const { file } = resolvePack(spec, cwd);
  const module = await importModule(file, spec);
  const tools = toolsOf(module, `${spec} (${file})`);
  if (tools.length === 0 && Object.values(module).some(looksLikeTools)) {
    // instanceof fails across two installs of @sluice/core: the module's and the CLI's.
    throw new SluiceError(
      "IMPORT_FAILED",
      `${spec} (${file}) exports tools made by another copy of @sluice/core than the one sluice runs with; install @sluice/core and @sluice/cli at one version in one project.`,
    );
  }
  if (tools.length === 0) throw new SluiceError("PACK_NOT_FOUND", `${spec} (${file}) exports no tools (export a \`tools\` array, or tools by name).`);
  return { tools, module, file };
}

export async function loadTools(spec: string, cwd: string): Promise<Tool<object>[]> {
  return (await loadPack(spec, cwd)).tools;
}

function looksLikeTools(value: unknown): boolean {
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (first === null || typeof first !== "object") return false;
  const candidate = first as { name?: unknown; derived?: unknown; inputSchema?: unknown };
  return typeof candidate.name === "string" && typeof candidate.derived === "function" && typeof candidate.inputSchema === "object";
}

function toolsOf(module: Record<string, unknown>, label: string): Tool<object>[] {
  const all = module.allTools;
  if (Array.isArray(all) && all.length > 0 && all.every((t) => t instanceof Tool)) {
    const tools = module.tools;
    if (!Array.isArray(tools) || !tools.every((t) => t instanceof Tool)) {
      throw new SluiceError("IMPORT_FAILED", `${label} exports \`allTools\` but no \`tools\` array: export both (\`tools\` is what is served, \`allTools\` adds the *_full twins).`);
    }
    try {
      return [...allToolsOf({ tools: tools as Tool<object>[], allTools: all as Tool<object>[] })];
    } catch (error) {
      if (isSluiceError(error)) throw new SluiceError(error.code, `${label}: ${error.message}`, error.candidates === undefined ? {} : { candidates: error.candidates });
      throw error;
    }
  }
  for (const candidate of [module.tools, module.default]) {
    if (Array.isArray(candidate) && candidate.length > 0 && candidate.every((t) => t instanceof Tool)) return candidate as Tool<object>[];
  }
  return Object.keys(module)
    .sort()
    .map((key) => module[key])
    .filter((value): value is Tool<object> => value instanceof Tool);
}

/** The packs of the sluice repository (empty for an installed CLI). */
export function workspacePacks(): string[] {
  const dir = workspacePacksDir();
  if (dir === undefined) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort();
}

export function findTool(tools: readonly Tool<object>[], name: string, spec: string): Tool<object> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    const names = tools.map((t) => t.name);
    const near = closest(name, names, 5);
    const close = near.length > 0 ? near : names.filter((n) => n.includes(name) || name.includes(n)).slice(0, 10);
    throw new SluiceError("TOOL_NOT_FOUND", `${spec} has no tool named ${name}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`, { candidates: close.length > 0 ? close : names.slice(0, 10) });
  }
  return tool;
}

/**
 * What survey, report and suggest price: the tools `sluice serve` would serve (no `*_full`
 * twins), as check and `egress --served` count them; every tool with `--include-full`.
 */
export function pricedSet(tools: readonly Tool<object>[], includeFull: unknown): Tool<object>[] {
  return includeFull === true ? [...tools] : defaultServedSet(tools);
}

/**
 * findTool among the priced tools; a `*_full` twin left out of them is named as such, with
 * the flag that brings it back, rather than as a typo.
 */
export function findPricedTool(all: readonly Tool<object>[], priced: readonly Tool<object>[], name: string, spec: string, command: string): Tool<object> {
  if (priced.length < all.length && !priced.some((tool) => tool.name === name) && all.some((tool) => tool.name === name)) {
    const curated = priced.find((tool) => fullNameOf(tool.name) === name);
    throw new SluiceError(
      "TOOL_NOT_FOUND",
      `${name} is the *_full twin${curated === undefined ? "" : ` of ${curated.name}`}, left out of the served set ${command} prices by default; add --include-full to price it.`,
    );
  }
  return findTool(priced, name, spec);
}
