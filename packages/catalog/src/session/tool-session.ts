import { allToolsOf, defaultServedSet, editDistance, fullNameOf, SluiceError, Tool, type HttpBinding, type JsonSchemaObject, type PackToolSets, type ToolArgs } from "@sluice/core/pack";
import type { Encoding } from "@sluice/core/tokens";
import { describeCatalog, type CatalogGroup, type GroupLevel } from "./catalog-description.ts";
import { parseQuery, rank, searchEntry, type SearchEntry } from "./search.ts";
import type { UsageSink } from "../usage/usage-sink.ts";

/**
 * Deferred tool loading, provider-neutral.
 *
 * The model first sees one tool, the search tool, whose description summarizes the
 * catalog. Calling it loads tools; `visibleTools()` is the search tool followed by the
 * loaded tools in load order, so each turn's tool list extends the previous one and a
 * provider's cached prompt prefix survives. Calling a tool that is not loaded yields a
 * `TOOL_NOT_LOADED` error that says which query loads it.
 *
 * The search tool is handled by the session and never sent to an API. Its binding is a
 * placeholder (`POST /sluice/tool_search`, see `SEARCH_TOOL_BINDING`) because the tool
 * model has no local binding kind; never hand it to an HTTP transport.
 */

export interface ToolSessionOptions {
  /** Name of the search tool (default `tool_search`). */
  searchToolName?: string;
  /** Tools loaded by one keyword query, best first (default 5). `select:` loads every name given. */
  maxResults?: number;
  /** Token budget of the search tool's description (default 1,000); see `describeCatalog`. */
  descriptionBudget?: number;
  /** Tokenizer for the budget (default `o200k_base`). */
  encoding?: Encoding;
  /**
   * Records what the model is shown (the search tool, then each tool as it loads) and which
   * tools it calls, by name: a session of `openUsageStore(...).session(pack)` from
   * `@sluice/catalog/usage`, read back by `sluice usage`.
   */
  usage?: UsageSink;
}

export interface FromPacksOptions extends ToolSessionOptions {
  /**
   * What to do when two packs ship a tool of the same name: `refuse` (default) throws
   * `INVALID_NAME`; `prefix` renames every tool of that name to `<pack>_<name>` in every
   * pack that has it (no pack wins), and `origin()` maps the new name back.
   */
  collisions?: "refuse" | "prefix";
  /**
   * Put each pack's `*_full` twins (curated tools' unprojected originals) in the catalog
   * too: a pack module given whole (`import * as linear`) contributes its `allTools`, a
   * tool array all of its tools. Default false: each contributes its default served set
   * (`defaultServedSet`: a pack's `tools`), so the model cannot load a twin and send what
   * the curated tool withholds.
   */
  includeFull?: boolean;
}

/** Where a catalog tool came from: its pack (or "") and its name in that pack. */
export interface ToolOrigin {
  pack: string;
  name: string;
}

export interface LoadResult {
  /** The query as given (for `load`, `select:` and the names). */
  query: string;
  /** Tools loaded by this call, in the order they were appended. */
  loaded: string[];
  /** Tools the query selected that were loaded before (their position is unchanged). */
  alreadyLoaded: string[];
  /** `select:` names that are not in the catalog. */
  unknown: string[];
  /** Further keyword matches that were not loaded (at most 10), for a follow-up `select:`. */
  more: string[];
  /** A short account for the model, to return as the search tool's result. */
  text: string;
}

export type CallOutcome =
  | { kind: "search"; result: LoadResult; text: string }
  | { kind: "tool"; tool: Tool<object>; args: ToolArgs }
  | { kind: "error"; error: SluiceError; text: string };

/** Placeholder binding of the search tool: the session answers it; it is never sent anywhere. */
export const SEARCH_TOOL_BINDING: HttpBinding = Object.freeze({
  kind: "http",
  method: "POST",
  path: "/sluice/tool_search",
  parameters: [],
}) as HttpBinding;

const DEFAULT_SEARCH_TOOL_NAME = "tool_search";
const DEFAULT_MAX_RESULTS = 5;
const DEFAULT_DESCRIPTION_BUDGET = 1_000;
const MORE_LIMIT = 10;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** @internal How `fromPacks` lays out the catalog: groups for the description, origins for `origin()`. */
export interface PackLayout {
  groups: readonly CatalogGroup[];
  origins: ReadonlyMap<string, ToolOrigin>;
}

export class ToolSession {
  /** The one tool the model sees before anything is loaded. Answered by the session, never sent to an API. */
  readonly searchTool: Tool<{ query: string }>;
  /** Tokens of the search tool's description, as measured against the budget. */
  readonly descriptionTokens: number;
  /** The level at which each catalog group is described, by pack ("" without packs). */
  readonly descriptionLevels: ReadonlyMap<string, GroupLevel>;
  readonly #catalog: readonly Tool<object>[];
  readonly #byName: ReadonlyMap<string, Tool<object>>;
  readonly #origins: ReadonlyMap<string, ToolOrigin>;
  /** Built on the first keyword search: reading a curated tool's description builds its projection. */
  #entries: readonly SearchEntry[] | undefined;
  /** `*_full` twins of curated tools in the catalog: keyword search skips them; `select:` loads them. */
  readonly #fullTwins: ReadonlySet<string>;
  readonly #maxResults: number;
  readonly #loaded: Tool<object>[] = [];
  readonly #loadedNames = new Set<string>();
  readonly #usageSink: UsageSink | undefined;

  /**
   * A session over one tool array; names must be unique (`INVALID_NAME` otherwise). The
   * third parameter is internal (`fromPacks`).
   */
  constructor(tools: readonly Tool<object>[], options: ToolSessionOptions = {}, layout?: PackLayout) {
    if (!Array.isArray(tools)) throw new SluiceError("INVALID_OPTION", "ToolSession takes an array of tools.");
    const searchName = options.searchToolName ?? DEFAULT_SEARCH_TOOL_NAME;
    const maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
    if (!Number.isInteger(maxResults) || maxResults < 1) {
      throw new SluiceError("INVALID_OPTION", `maxResults must be a positive integer, got ${String(maxResults)}.`);
    }
    const budget = options.descriptionBudget ?? DEFAULT_DESCRIPTION_BUDGET;
    if (!Number.isInteger(budget) || budget < 1) {
      throw new SluiceError("INVALID_OPTION", `descriptionBudget must be a positive integer, got ${String(budget)}.`);
    }

    const byName = new Map<string, Tool<object>>();
    const duplicates = new Set<string>();
    for (const tool of tools) {
      if (!(tool instanceof Tool)) throw new SluiceError("INVALID_OPTION", "ToolSession takes Tool values (Tool.create, or a pack's tools).");
      if (byName.has(tool.name)) duplicates.add(tool.name);
      byName.set(tool.name, tool);
    }
    if (duplicates.size > 0) {
      const list = [...duplicates].sort(compare);
      throw new SluiceError("INVALID_NAME", `Tool names must be unique in a session; duplicated: ${list.join(", ")}.`, { candidates: list });
    }
    if (byName.has(searchName)) {
      throw new SluiceError("INVALID_NAME", `The search tool name ${searchName} is also a catalog tool; pass another searchToolName.`);
    }

    this.#catalog = [...tools];
    this.#byName = byName;
    this.#maxResults = maxResults;
    this.#origins = layout?.origins ?? new Map(tools.map((tool) => [tool.name, { pack: "", name: tool.name }]));
    // Twins are found by pack-local names, so a curated tool renamed by `fromPacks` keeps its twin.
    const byOrigin = new Map<string, string>();
    for (const tool of tools) {
      const origin = this.#origins.get(tool.name) ?? { pack: "", name: tool.name };
      byOrigin.set(`${origin.pack}\u0000${origin.name}`, tool.name);
    }
    const twins = new Set<string>();
    for (const tool of tools) {
      const origin = this.#origins.get(tool.name) ?? { pack: "", name: tool.name };
      const full = fullNameOf(origin.name);
      const twin = byOrigin.get(`${origin.pack}\u0000${full}`);
      if (full !== origin.name && twin !== undefined) twins.add(twin);
    }
    this.#fullTwins = twins;

    const groups = layout?.groups ?? [{ label: "", names: tools.map((tool) => tool.name) }];
    const described = describeCatalog(searchIntro(maxResults, twins.size > 0), groups, budget, options.encoding ?? "o200k_base");
    this.descriptionTokens = described.tokens;
    this.descriptionLevels = described.levels;
    this.searchTool = Tool.create<{ query: string }>({
      name: searchName,
      description: described.text,
      inputSchema: SEARCH_INPUT_SCHEMA,
      binding: { ...SEARCH_TOOL_BINDING, path: `/sluice/${searchName}`, parameters: [] },
      annotations: { readOnly: true, destructive: false, idempotent: true },
    });
    this.#usageSink = options.usage;
    this.#usageSink?.declared([this.searchTool.toJSON()]);
  }

  /**
   * A session over several packs, described pack by pack; packs are taken in the order of
   * the record's keys (use non-numeric keys: JavaScript reorders integer-like ones). Each
   * pack contributes its default served set (no `*_full` twins) unless `includeFull`.
   * A pack is its `tools` array (`linear.tools`) or the pack module itself (`{ tools,
   * allTools }`); only the module can give the twins, since its `tools` has none.
   */
  static fromPacks(given: Readonly<Record<string, readonly Tool<object>[] | PackToolSets>>, options: FromPacksOptions = {}): ToolSession {
    const labels = Object.keys(given);
    const packs = new Map<string, readonly Tool<object>[]>();
    for (const label of labels) {
      const source = given[label];
      if (source === null || typeof source !== "object" || !(Array.isArray(source) || Array.isArray((source as PackToolSets).tools))) throw new SluiceError("INVALID_OPTION", `fromPacks takes, per pack, an array of tools or a pack module ({ tools, allTools }); ${label} is neither.`);
      const every = allToolsOf(source);
      packs.set(label, options.includeFull === true ? every : defaultServedSet(every));
    }
    const holders = new Map<string, Set<string>>();
    for (const label of labels) {
      for (const tool of packs.get(label)!) {
        const set = holders.get(tool.name) ?? new Set<string>();
        set.add(label);
        holders.set(tool.name, set);
      }
    }
    const collided = [...holders].filter(([, set]) => set.size > 1);
    if (collided.length > 0 && (options.collisions ?? "refuse") === "refuse") {
      const list = collided.map(([name, set]) => `${name} (${[...set].join(", ")})`).sort(compare);
      throw new SluiceError(
        "INVALID_NAME",
        `${collided.length} tool name${collided.length === 1 ? " is" : "s are"} shipped by more than one pack: ${list.join("; ")}. ` +
          `Rename them, or pass { collisions: "prefix" } to name them <pack>_<name>.`,
        { candidates: list },
      );
    }
    const renamed = new Set(collided.map(([name]) => name));
    const tools: Tool<object>[] = [];
    const groups: CatalogGroup[] = [];
    const origins = new Map<string, ToolOrigin>();
    for (const label of labels) {
      const names: string[] = [];
      for (const tool of packs.get(label)!) {
        let out = tool;
        if (renamed.has(tool.name)) {
          const name = `${label.replace(/[^a-zA-Z0-9_-]/g, "_")}_${tool.name}`;
          if (name.length > 64) {
            throw new SluiceError("INVALID_NAME", `Cannot rename ${tool.name} of pack ${label} to ${name}: longer than 64 characters.`);
          }
          out = tool.derived({ name });
        }
        tools.push(out);
        names.push(out.name);
        origins.set(out.name, { pack: label, name: tool.name });
      }
      groups.push({ label, names });
    }
    const { collisions: _collisions, includeFull: _includeFull, ...sessionOptions } = options;
    return new ToolSession(tools, sessionOptions, { groups, origins });
  }

  /** Every catalog tool, in catalog order (the search tool is not part of it). */
  get catalog(): readonly Tool<object>[] {
    return this.#catalog;
  }

  /** Names of the loaded tools, in load order. */
  get loaded(): readonly string[] {
    return this.#loaded.map((tool) => tool.name);
  }

  /** Pack and pack-local name of a catalog tool (after `fromPacks` renaming), or undefined. */
  origin(name: string): ToolOrigin | undefined {
    return this.#origins.get(name);
  }

  /**
   * The tools to send this turn: the search tool, then the loaded tools in load order.
   * Append-only: the list after a load always starts with the list before it.
   */
  visibleTools(): Tool<object>[] {
    return [this.searchTool as Tool<object>, ...this.#loaded];
  }

  /**
   * For a provider's own deferred loading (Anthropic `defer_loading`): every catalog tool,
   * loaded ones first in load order and then the rest in catalog order, and the names to
   * mark deferred (everything not loaded). The session's search tool is not included: the
   * provider's search tool replaces it. Expected use:
   * `toAnthropic(tools, { deferred, order: "as-given" })` plus Anthropic's tool search tool.
   */
  allToolsDeferred(): { tools: Tool<object>[]; deferred: string[] } {
    const rest = this.#catalog.filter((tool) => !this.#loadedNames.has(tool.name));
    return { tools: [...this.#loaded, ...rest], deferred: rest.map((tool) => tool.name) };
  }

  /** Runs a search-tool query: `select:a,b`, or keywords with `+required` terms. Loads what it selects. */
  search(query: string): LoadResult {
    if (typeof query !== "string") throw new SluiceError("INVALID_ARGUMENTS", `${this.searchTool.name} takes { "query": string }.`);
    const parsed = parseQuery(query);
    if (parsed.kind === "select") return this.#load(query, parsed.names, []);
    if (parsed.terms.length === 0 && parsed.required.length === 0) {
      return this.#result(query, [], [], [], [], `Empty query. ${this.#usage()}`);
    }
    const wantsFull = [...parsed.terms, ...parsed.required].some((term) => term === "full");
    const ranked = rank(this.#searchEntries(), parsed.terms, parsed.required).filter((r) => wantsFull || !this.#fullTwins.has(r.name));
    const chosen = ranked.slice(0, this.#maxResults).map((r) => r.name);
    const more = ranked.slice(this.#maxResults, this.#maxResults + MORE_LIMIT).map((r) => r.name);
    if (chosen.length === 0) {
      return this.#result(query, [], [], [], [], `No tool matches ${JSON.stringify(query)}. Try other keywords, fewer + terms, or select:<exact names>.`);
    }
    return this.#load(query, chosen, more);
  }

  /** Loads tools by exact name (like `select:`). */
  load(names: readonly string[]): LoadResult {
    return this.#load(`select:${names.join(",")}`, [...new Set(names)], []);
  }

  /**
   * The tool to call for a name the model used. The search tool resolves to itself;
   * a catalog tool that is not loaded is `TOOL_NOT_LOADED` (the message says how to load
   * it); a name outside the catalog is `TOOL_NOT_FOUND`.
   */
  resolve(name: string): Tool<object> {
    if (name === this.searchTool.name) return this.searchTool as Tool<object>;
    const tool = this.#byName.get(name);
    if (tool === undefined) {
      const near = this.#near(name);
      throw new SluiceError(
        "TOOL_NOT_FOUND",
        `There is no tool named ${name}. ${near.length > 0 ? `Similar names: ${near.join(", ")}. ` : ""}` +
          `Call ${this.searchTool.name} with keywords to find tools.`,
        { candidates: near },
      );
    }
    if (!this.#loadedNames.has(name)) {
      const query = `select:${name}`;
      throw new SluiceError(
        "TOOL_NOT_LOADED",
        `Tool ${name} is not loaded. Call ${this.searchTool.name} with ${JSON.stringify({ query })} to load it, then call ${name} again.`,
        { candidates: [query] },
      );
    }
    return tool;
  }

  /**
   * One model tool call. The search tool runs the search and loads tools; a loaded tool
   * comes back to be called (calling is the runtime's job); anything else is an error
   * whose `text` can be returned to the model as the tool result.
   */
  call(name: string, args: unknown): CallOutcome {
    try {
      if (name === this.searchTool.name) {
        const query = typeof args === "object" && args !== null ? (args as Record<string, unknown>).query : undefined;
        if (typeof query !== "string") {
          throw new SluiceError("INVALID_ARGUMENTS", `${name} takes { "query": string }. ${this.#usage()}`, { pointer: "/query" });
        }
        const result = this.search(query);
        this.#usageSink?.invoked(name);
        return { kind: "search", result, text: result.text };
      }
      const tool = this.resolve(name);
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        throw new SluiceError("INVALID_ARGUMENTS", `${name} takes an object of arguments.`);
      }
      this.#usageSink?.invoked(name);
      return { kind: "tool", tool, args: args as ToolArgs };
    } catch (error) {
      if (error instanceof SluiceError) return { kind: "error", error, text: error.message };
      throw error;
    }
  }

  #searchEntries(): readonly SearchEntry[] {
    this.#entries ??= this.#catalog.map((tool) => searchEntry(tool.name, this.#origins.get(tool.name)?.pack ?? "", tool.description));
    return this.#entries;
  }

  #load(query: string, names: readonly string[], more: readonly string[]): LoadResult {
    const loaded: string[] = [];
    const already: string[] = [];
    const unknown: string[] = [];
    for (const name of names) {
      const tool = this.#byName.get(name);
      if (tool === undefined) unknown.push(name);
      else if (this.#loadedNames.has(name)) already.push(name);
      else {
        this.#loaded.push(tool);
        this.#loadedNames.add(name);
        loaded.push(name);
      }
    }
    const lines: string[] = [];
    if (loaded.length > 0) lines.push(`Loaded ${loaded.length} tool${loaded.length === 1 ? "" : "s"}, callable now: ${loaded.join(", ")}.`);
    if (already.length > 0) lines.push(`Already loaded: ${already.join(", ")}.`);
    for (const name of unknown) {
      const near = this.#near(name);
      lines.push(`No tool named ${name}.${near.length > 0 ? ` Similar: ${near.join(", ")}.` : ""}`);
    }
    if (loaded.length > 0) this.#usageSink?.declared(loaded.map((name) => this.#byName.get(name)!.toJSON()));
    if (more.length > 0) lines.push(`More matches, not loaded (use select:): ${more.join(", ")}.`);
    if (lines.length === 0) lines.push(`Nothing to load. ${this.#usage()}`);
    return this.#result(query, loaded, already, unknown, more, lines.join("\n"));
  }

  #result(query: string, loaded: string[], alreadyLoaded: string[], unknown: string[], more: readonly string[], text: string): LoadResult {
    return { query, loaded, alreadyLoaded, unknown, more: [...more], text };
  }

  #usage(): string {
    return `Use select:<name>,<name> for exact names, or keywords (+word to require a word).`;
  }

  /** Up to 5 catalog names close to `name`: near typos first (edit distance), then names sharing its words. */
  #near(name: string): string[] {
    const limit = Math.max(2, Math.floor(name.length / 5));
    const typos = this.#catalog
      .map((tool) => ({ name: tool.name, distance: editDistance(name, tool.name, limit) }))
      .filter((entry) => entry.distance <= limit)
      .sort((a, b) => a.distance - b.distance || compare(a.name, b.name))
      .map((entry) => entry.name);
    const ranked = rank(this.#searchEntries().filter((entry) => !this.#fullTwins.has(entry.name)), nameWordsOf(name), []);
    const sharing = ranked.filter((r) => r.score >= 8).map((r) => r.name);
    return [...new Set([...typos, ...sharing])].slice(0, 5);
  }
}

function nameWordsOf(name: string): string[] {
  return name.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 0);
}

/** The search tool's instructions; the sentence on `*_full` twins only when the catalog has some (tokens are sent every turn). */
function searchIntro(maxResults: number, hasTwins: boolean): string {
  return [
    "Finds and loads tools from the catalog below; only loaded tools can be called, and they stay loaded.",
    `query: "select:name_a,name_b" loads exact names; keywords ("create issue") load the ${maxResults} best matches by name and description;`,
    `"+word" requires a word ("+stripe refund").${hasTwins ? " *_full twins (unprojected originals) load only by select:." : ""}`,
  ].join("\n");
}

const SEARCH_INPUT_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "select:<name>,<name> | keywords, +word to require one",
    },
  },
  required: ["query"],
  additionalProperties: false,
};
