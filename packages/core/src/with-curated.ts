import { createHash } from "node:crypto";
import { SluiceError } from "@sluice/schema";
import type { Tool } from "./tool.ts";

/** Suffix of the untouched original kept beside a curated tool. */
export const FULL_SUFFIX = "_full";

/**
 * A pack's tool list with curated tools in place of the generated ones of the same
 * name, each original kept beside it as `<name>_full` (renamed only, never narrowed).
 * Sorted by name. When `<name>_full` would pass 64 characters, the name is shortened
 * with a stable hash (`fullNameOf`). A curated tool with no generated counterpart is an error: it would
 * otherwise widen the pack silently.
 */
export function withCurated(generated: readonly Tool<object>[], curated: readonly Tool<object>[]): Tool<object>[] {
  const byName = new Map(generated.map((tool) => [tool.name, tool]));
  const replaced = new Map<string, Tool<object>>();
  for (const tool of curated) {
    if (!byName.has(tool.name)) {
      throw new SluiceError("TOOL_NOT_FOUND", `Curated tool ${tool.name} has no generated tool of the same name to replace.`);
    }
    if (replaced.has(tool.name)) throw new SluiceError("INVALID_NAME", `Two curated tools are named ${tool.name}.`);
    replaced.set(tool.name, tool);
  }
  const out: Tool<object>[] = [];
  for (const tool of generated) {
    const curatedTool = replaced.get(tool.name);
    if (curatedTool === undefined) {
      out.push(tool);
      continue;
    }
    const fullName = fullNameOf(tool.name);
    if (byName.has(fullName)) throw new SluiceError("INVALID_NAME", `Cannot keep ${tool.name}'s original as ${fullName}: a generated tool has that name.`);
    out.push(curatedTool, tool.derived({ name: fullName }));
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `<name>_full`, shortened deterministically (6 hex of sha256 of the name) when it would pass 64 characters. */
export function fullNameOf(name: string): string {
  const full = name + FULL_SUFFIX;
  if (full.length <= 64) return full;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 6);
  return `${name.slice(0, 64 - FULL_SUFFIX.length - hash.length - 1)}_${hash}${FULL_SUFFIX}`;
}

/**
 * The tools to serve by default from a tool array (a pack's `withCurated` list, or a
 * module's exports): every tool except the `*_full` twins, a twin being a tool named
 * `fullNameOf(x.name)` for another tool x of the same array. A twin is a curated tool's
 * unprojected original: serving it beside the curated tool would let the model send every
 * argument the curated tool withholds, so servers and sessions offer twins only when asked.
 * Order is kept; the tools are the same values.
 */
export function defaultServedSet<T extends { readonly name: string }>(tools: readonly T[]): T[] {
  const names = new Set(tools.map((tool) => tool.name));
  const twins = new Set<string>();
  for (const tool of tools) {
    const full = fullNameOf(tool.name);
    if (full !== tool.name && names.has(full)) twins.add(full);
  }
  return tools.filter((tool) => !twins.has(tool.name));
}
