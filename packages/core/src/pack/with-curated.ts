import { createHash } from "node:crypto";
import { SluiceError } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { Tool } from "../tool.ts";

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
 * The tools to serve by default from a tool array (a pack's `allTools`, or a module's
 * exports): every tool except the `*_full` twins, a twin being a tool named
 * `fullNameOf(x.name)` for another tool x of the same array. A twin is a curated tool's
 * unprojected original: serving it beside the curated tool would let the model send every
 * argument the curated tool withholds, so servers and sessions offer twins only when asked.
 * Order is kept; the tools are the same values.
 */
export function defaultServedSet<T extends { readonly name: string }>(tools: readonly T[]): T[] {
  if (!guards.twinsLeftOut) return [...tools];
  const twins = twinNames(tools);
  return tools.filter((tool) => !twins.has(tool.name));
}

/**
 * Names of the `*_full` twins among `tools` (see `defaultServedSet`). A shortened twin name
 * is exactly 64 characters and ends in `_full`: when no name of the array is, no long name
 * can have a twin here, and the hash (most of this on a pack of long names, and it runs at
 * every start of a server) is not computed.
 */
function twinNames(tools: readonly { readonly name: string }[]): Set<string> {
  const names = new Set(tools.map((tool) => tool.name));
  let hashed = false;
  for (const name of names) {
    if (name.length === 64 && name.endsWith(FULL_SUFFIX)) {
      hashed = true;
      break;
    }
  }
  const twins = new Set<string>();
  for (const tool of tools) {
    const plain = tool.name + FULL_SUFFIX;
    const full = plain.length <= 64 ? plain : hashed ? fullNameOf(tool.name) : undefined;
    if (full !== undefined && full !== tool.name && names.has(full)) twins.add(full);
  }
  return twins;
}

/**
 * The tool exports of a pack module. `tools` is the default served set: what to hand an
 * adapter, a `ToolSession` or a server without thinking (curated tools, generated tools
 * without a curated twin, derived tools; no `*_full`). `allTools` adds each curated tool's
 * unprojected original as its `*_full` twin: everything the pack can send, for code that
 * names it (and for `--include-full`). A pack without curated tools may omit `allTools`.
 */
export interface PackToolSets {
  readonly tools: readonly Tool<object>[];
  readonly allTools?: readonly Tool<object>[] | undefined;
}

/**
 * A pack's two tool lists from its generated tools, the curated ones that replace them
 * (same name) and the ones derived under new names: `allTools` is `withCurated` plus the
 * derived tools, `tools` is `defaultServedSet(allTools)`. Any name the twin rule would
 * misread is refused (`INVALID_NAME`): a derived tool named like a twin would be left out
 * of what is served, and a tool whose name is another's `*_full` would hide it.
 */
export function packToolSets(
  generated: readonly Tool<object>[],
  curated: readonly Tool<object>[],
  derived: readonly Tool<object>[] = [],
): { tools: Tool<object>[]; allTools: Tool<object>[] } {
  const withTwins = withCurated(generated, curated);
  const names = new Set(withTwins.map((tool) => tool.name));
  for (const tool of derived) {
    if (names.has(tool.name)) {
      throw new SluiceError("INVALID_NAME", `Derived tool ${tool.name} has the name of another tool of the pack; give it a new name (a projection that replaces a generated tool belongs in curated).`);
    }
    names.add(tool.name);
  }
  const allTools = [...withTwins, ...derived];
  const twins = new Set(curated.map((tool) => fullNameOf(tool.name)));
  const tools = defaultServedSet(allTools);
  const served = new Set(tools);
  for (const tool of allTools) {
    if (served.has(tool) || twins.has(tool.name)) continue;
    const shadow = allTools.find((other) => fullNameOf(other.name) === tool.name)!;
    throw new SluiceError(
      "INVALID_NAME",
      `${tool.name} is named as the *_full twin of ${shadow.name}, so servers and sessions would leave it out; rename ${derived.includes(tool) ? tool.name : shadow.name} with derived({ name }).`,
    );
  }
  return { tools, allTools };
}

/**
 * Every tool a pack or a tool array holds: `allTools` when the pack exports it, else
 * `tools`; an array as given. Servers take the default served set of it, so a pack whose
 * `tools` is not exactly its `allTools` without the twins is refused (`INVALID_OPTION`):
 * code and servers would disagree on what it sends.
 */
export function allToolsOf(source: readonly Tool<object>[] | PackToolSets): readonly Tool<object>[] {
  if (Array.isArray(source)) return source as readonly Tool<object>[];
  const pack = source as PackToolSets;
  if (!Array.isArray(pack.tools)) throw new SluiceError("INVALID_OPTION", "A pack exports `tools`, an array of tools (and `allTools` when it has *_full twins).");
  if (pack.allTools === undefined) return pack.tools;
  if (!Array.isArray(pack.allTools)) throw new SluiceError("INVALID_OPTION", "A pack's `allTools` must be an array of tools.");
  const every = new Set(pack.allTools);
  const missing = pack.tools.filter((tool) => !every.has(tool)).map((tool) => tool.name);
  if (missing.length > 0) {
    throw new SluiceError("INVALID_OPTION", `The pack's \`tools\` holds ${list(missing)}, which its \`allTools\` lacks; \`allTools\` must hold every tool of \`tools\` (the same values).`, { candidates: missing });
  }
  const served = new Set(pack.tools);
  const twins = twinNames(pack.allTools);
  const extra = pack.allTools.filter((tool) => !served.has(tool) && !twins.has(tool.name)).map((tool) => tool.name);
  if (extra.length > 0) {
    throw new SluiceError("INVALID_OPTION", `The pack's \`allTools\` holds ${list(extra)}, which is neither in its \`tools\` nor a *_full twin; \`allTools\` is \`tools\` plus the twins, and a server would serve it.`, { candidates: extra });
  }
  return pack.allTools;
}

function list(names: readonly string[]): string {
  return `${names.slice(0, 5).join(", ")}${names.length > 5 ? ` and ${names.length - 5} more` : ""}`;
}
