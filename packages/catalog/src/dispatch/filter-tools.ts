import { SluiceError } from "@sluice/schema";
import { viewCatalog, type CatalogTool, type CatalogToolView } from "./catalog-tool.ts";

/**
 * Why a removal was refused. Callers branch on this, never on `message`.
 * - `forced_by_tool_choice`: `tool_choice` names the tool; the provider would reject the request.
 * - `provider_typed`: declared by `type` (web search, code execution, computer use): the
 *   provider defines it, and prompts and features depend on it by type.
 * - `last_tool`: removing it would leave an empty tools array, which changes what the
 *   request means (and `tool_choice` becomes invalid).
 * - `mentioned_in_system_prompt`: the system prompt tells the model to use it by name.
 * - `not_in_catalog`: no tool has this name and no tool is under this `mcp__` server; a
 *   typo must not pass as a removal.
 */
export type FilterRefusalReason = "forced_by_tool_choice" | "provider_typed" | "last_tool" | "mentioned_in_system_prompt" | "not_in_catalog";

export interface FilterRefusal {
  /** The tool name, or the `remove` entry that matched nothing. */
  readonly name: string;
  readonly reason: FilterRefusalReason;
  readonly message: string;
}

/** A system prompt as a string, or as the providers' lists of text blocks. */
export type SystemPrompt = string | readonly ({ readonly text?: string | undefined } | string)[];

/**
 * `tool_choice` in any provider's shape: a tool name, Anthropic `{ type: "tool", name }`,
 * OpenAI Chat `{ type: "function", function: { name } }`, OpenAI Responses
 * `{ type: "function", name }` or `{ type: "allowed_tools", tools: [...] }`, or a mode
 * (`"auto"`, `"required"`, `{ type: "any" }`) that forces no particular tool.
 */
export type ToolChoice = string | { readonly [key: string]: unknown };

export interface FilterToolsOptions {
  /** Tool names, or `mcp__<server>` for every tool of an MCP server (`mcp__<server>__<tool>`). */
  readonly remove: readonly string[];
  readonly toolChoice?: ToolChoice | undefined;
  readonly systemPrompt?: SystemPrompt | undefined;
}

export interface FilterToolsResult<T extends CatalogTool> {
  /** The kept entries, unchanged and in catalog order (the tools array is the start of the cached prefix). */
  readonly tools: T[];
  /** Names removed, in catalog order. */
  readonly removed: string[];
  readonly refused: FilterRefusal[];
}

const TOOL_CHOICE_MODES = new Set(["auto", "none", "required", "any"]);

/** The tool names a `tool_choice` value names (forces or restricts to). */
export function toolChoiceNames(choice: ToolChoice | undefined): string[] {
  if (choice === undefined || choice === null) return [];
  if (typeof choice === "string") return TOOL_CHOICE_MODES.has(choice) ? [] : [choice];
  const names: string[] = [];
  const name = choice["name"];
  if (typeof name === "string") names.push(name);
  const fn = choice["function"];
  if (typeof fn === "object" && fn !== null && typeof (fn as { name?: unknown }).name === "string") names.push((fn as { name: string }).name);
  const allowed = choice["tools"];
  if (Array.isArray(allowed)) {
    for (const tool of allowed) {
      if (typeof tool === "object" && tool !== null) names.push(...toolChoiceNames(tool as ToolChoice));
    }
  }
  return names;
}

function systemText(prompt: SystemPrompt | undefined): string {
  if (prompt === undefined) return "";
  if (typeof prompt === "string") return prompt;
  return prompt.map((block) => (typeof block === "string" ? block : (block.text ?? ""))).join("\n");
}

const NAME_CHAR = "A-Za-z0-9_-";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether the prose mentions the name as a whole word. Tool names are made of
 * `[A-Za-z0-9_-]`, so a boundary is any other character: with `\b`, `get-issue` would
 * match inside `get-issue-comments`.
 */
export function mentions(prose: string, name: string): boolean {
  return new RegExp(`(?<![${NAME_CHAR}])${escapeRegExp(name)}(?![${NAME_CHAR}])`).test(prose);
}

function serverPrefix(entry: string): string | undefined {
  const match = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)$/.exec(entry);
  return match ? `mcp__${match[1]}__` : undefined;
}

/**
 * Removes tools from a catalog, refusing (with the reason) every removal that would break
 * the request or the prompt. Nothing is removed silently and nothing asked for is
 * skipped silently: each `remove` entry ends up in `removed` or in `refused`.
 */
export function filterTools<T extends CatalogTool>(catalog: readonly T[], options: FilterToolsOptions): FilterToolsResult<T> {
  if (!Array.isArray(options.remove) || options.remove.some((entry) => typeof entry !== "string")) {
    throw new SluiceError("INVALID_OPTION", "remove must be an array of tool names or mcp__<server> prefixes.");
  }
  const views = viewCatalog(catalog);
  const forced = new Set(toolChoiceNames(options.toolChoice));
  const prose = systemText(options.systemPrompt);
  const refused: FilterRefusal[] = [];

  const asked = new Set<string>();
  for (const entry of options.remove) {
    const prefix = views.some((view) => view.name === entry) ? undefined : serverPrefix(entry);
    const matched = views.filter((view) => (prefix === undefined ? view.name === entry : view.name.startsWith(prefix)));
    if (matched.length === 0) {
      const what = prefix === undefined ? "no tool has this name" : `no tool starts with ${prefix}`;
      refused.push({ name: entry, reason: "not_in_catalog", message: `Not removed: ${what}.` });
    }
    for (const view of matched) asked.add(view.name);
  }

  const refuse = (view: CatalogToolView): FilterRefusal | undefined => {
    if (forced.has(view.name)) return { name: view.name, reason: "forced_by_tool_choice", message: `Kept ${view.name}: tool_choice names it; the provider rejects a tool_choice naming a tool that is not in the tools array.` };
    if (view.shape === "provider-typed") return { name: view.name, reason: "provider_typed", message: `Kept ${view.name}: a provider-typed tool (type ${JSON.stringify((view.entry as { type: string }).type)}); the provider defines it, and removing it turns off a provider feature.` };
    if (prose !== "" && mentions(prose, view.name)) return { name: view.name, reason: "mentioned_in_system_prompt", message: `Kept ${view.name}: the system prompt mentions it; the model would be told to use a tool it does not have.` };
    return undefined;
  };

  const removing = new Set<string>();
  for (const view of views) {
    if (!asked.has(view.name)) continue;
    const refusal = refuse(view);
    if (refusal) refused.push(refusal);
    else removing.add(view.name);
  }
  // The last tool in catalog order stays when every tool would go.
  if (removing.size === views.length && views.length > 0) {
    const last = views[views.length - 1]!;
    removing.delete(last.name);
    refused.push({ name: last.name, reason: "last_tool", message: `Kept ${last.name}: it is the last tool; an empty tools array changes what the request means.` });
  }

  const tools: T[] = [];
  const removed: string[] = [];
  views.forEach((view, index) => {
    if (removing.has(view.name)) removed.push(view.name);
    else tools.push(catalog[index]!);
  });
  return { tools, removed, refused };
}
