import { fit, profile as profileById, toMCP, toMCPShared, type FitChange, type Finding, type Profile } from "@sluice/catalog/serve";
import { allToolsOf, defaultServedSet, editDistance, FULL_SUFFIX, fullNameOf, SluiceError, Tool, type JsonSchemaObject, type PackToolSets } from "@sluice/core/pack";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";

export interface CatalogOptions {
  /**
   * Fit the tools to a client profile (`claude-code`, `cursor`, `vscode`, `windsurf`,
   * `mcp`, or any provider profile id): names are shortened to the client's limit,
   * schemas rewritten where the client needs it. Calls still run through the original
   * tools, so pins, validation and handlers are those of the tools given.
   */
  profile?: string;
  /** The server name the client prefixes tool names with (it counts against name limits). Default `sluice`. */
  serverName?: string;
  /** Accept lossy fitting changes (each is listed on stderr). */
  allowLossy?: boolean;
  /** Unroll recursive schemas to this depth when the profile refuses cycles. */
  unroll?: number;
  /**
   * Output schemas by tool name (the name given, before fitting). A tool with one
   * advertises it in tools/list and returns its handler's output as `structuredContent`
   * beside the text.
   */
  outputSchemas?: Readonly<Record<string, JsonSchemaObject>>;
  /**
   * Serve the `*_full` twins too (a curated tool's unprojected original, named
   * `fullNameOf(name)`). Default false: a twin sends every argument its curated tool
   * withholds, so a served set without it is the one the curated tools promise.
   */
  includeFull?: boolean;
}

/**
 * The tools/list entry of one tool, sharing the tool's input schema instead of copying it.
 * `toMCP` hands back a private copy a caller may edit; a served definition is only ever
 * serialized, and a tool's schema is deep-frozen, so the copy (about half of building a
 * 500-tool first page) buys nothing here. A schema that is not frozen (a hand-made tool
 * value) is copied as before; one whose root is not an object is refused by the adapter.
 */
function mcpDefinition(tool: Tool<object>): McpTool {
  const schema = tool.inputSchema;
  return Object.isFrozen(schema) ? toMCPShared(tool) : toMCP([tool])[0]!;
}

/**
 * The tools one server serves, shared by every connection: the wire tools (fitted when a
 * profile is given) in a stable order, the route from a wire name back to the tool that
 * is called, and MCP definitions built on first use (a pack's schemas are assembled
 * lazily, so listing the first page of 500 tools builds 100 schemas, not 500).
 */
export class ServedCatalog {
  /** Wire tools, by name (UTF-16 order): the order of tools/list pages. */
  readonly tools: readonly Tool<object>[];
  readonly profile: Profile | undefined;
  /** Changes fitting made (empty without a profile). */
  readonly changes: readonly FitChange[];
  /** What the profile would still reject or filter (too many tools for Cursor's 40), as `check` reports it. */
  readonly findings: readonly Finding[];
  /** `*_full` twins among the tools given (by name, in the order given): served only with `includeFull`. */
  readonly twins: readonly string[];
  /** Whether the twins are served. */
  readonly includeFull: boolean;
  readonly #leftOut = new Map<string, string>();
  readonly #byWireName = new Map<string, Tool<object>>();
  readonly #original = new Map<string, Tool<object>>();
  readonly #outputSchemas = new Map<string, JsonSchemaObject>();
  readonly #definitions = new Map<string, McpTool>();

  /**
   * `source` is a tool array or a pack module (`{ tools, allTools }`, taken by its
   * `allTools`): the twins among it are served only with `includeFull`, so a pack's
   * `tools` and `new ServedCatalog(pack)` serve the same set.
   */
  constructor(source: readonly Tool<object>[] | PackToolSets, options: CatalogOptions = {}) {
    if (source === null || typeof source !== "object") throw new SluiceError("INVALID_OPTION", "Serve takes an array of tools or a pack module ({ tools, allTools }).");
    const all = allToolsOf(source);
    if (!Array.isArray(all) || all.length === 0) throw new SluiceError("INVALID_OPTION", "There are no tools to serve.");
    for (const tool of all) {
      if (!(tool instanceof Tool)) throw new SluiceError("INVALID_OPTION", "Serve takes Tool values (a pack's tools, or projections of them).");
    }
    const seen = new Set<string>();
    for (const tool of all) {
      if (seen.has(tool.name)) throw new SluiceError("INVALID_NAME", `Two tools are named ${tool.name}; an MCP client cannot tell them apart. Rename one with derived({ name }).`);
      seen.add(tool.name);
    }
    this.includeFull = options.includeFull === true;
    const served = defaultServedSet(all);
    const servedNames = new Set(served.map((tool) => tool.name));
    this.twins = all.filter((tool) => !servedNames.has(tool.name)).map((tool) => tool.name);
    if (!this.includeFull && this.twins.length > 0) {
      // Remember whose twin each left-out tool is, so a call of it can say why it is missing.
      // Only a twin of 64 characters can carry a hashed name: without one, no hash is needed.
      const twins = new Set(this.twins);
      const hashed = this.twins.some((name) => name.length === 64);
      for (const tool of all) {
        const plain = tool.name + FULL_SUFFIX;
        const full = plain.length <= 64 ? plain : hashed ? fullNameOf(tool.name) : undefined;
        if (full !== undefined && twins.has(full)) this.#leftOut.set(full, tool.name);
      }
    }
    const tools = this.includeFull ? all : served;
    const given = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of Object.keys(options.outputSchemas ?? {})) {
      if (!given.has(name)) {
        const hint = this.#leftOut.has(name) ? " It is a *_full twin, served only with includeFull (--include-full)." : "";
        throw new SluiceError("INVALID_OPTION", `outputSchemas names ${name}, which is not one of the served tools.${hint}`);
      }
      const schema = options.outputSchemas![name]!;
      if (typeof schema !== "object" || schema === null || schema.type !== "object") {
        throw new SluiceError("INVALID_OPTION", `The output schema of ${name} must have {"type": "object"} at its root (MCP structuredContent is an object).`);
      }
    }

    let wire: readonly Tool<object>[] = tools;
    let nameMap: Record<string, string> | undefined;
    if (options.profile !== undefined) {
      this.profile = profileById(options.profile);
      const fitted = fit(tools, this.profile, {
        server: options.serverName ?? "sluice",
        ...(options.allowLossy === undefined ? {} : { allowLossy: options.allowLossy }),
        ...(options.unroll === undefined ? {} : { unroll: options.unroll }),
      });
      wire = fitted.tools;
      nameMap = fitted.nameMap;
      this.changes = fitted.changes;
      this.findings = fitted.remaining;
    } else {
      this.profile = undefined;
      this.changes = [];
      this.findings = [];
    }
    this.tools = [...wire].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const tool of this.tools) {
      const originalName = nameMap?.[tool.name] ?? tool.name;
      const original = given.get(originalName)!;
      this.#byWireName.set(tool.name, tool);
      this.#original.set(tool.name, original);
      const output = options.outputSchemas?.[originalName];
      if (output !== undefined) this.#outputSchemas.set(tool.name, output);
    }
  }

  /** The wire tool of this name, if served. */
  wireTool(name: string): Tool<object> | undefined {
    return this.#byWireName.get(name);
  }

  /** The tool a call of this wire name runs (the one given, with its pins and handler). */
  original(name: string): Tool<object> | undefined {
    return this.#original.get(name);
  }

  outputSchema(name: string): JsonSchemaObject | undefined {
    return this.#outputSchemas.get(name);
  }

  /**
   * The tools/list entry of a wire tool (or of any tool of the same shape, such as a
   * session's search tool: every session builds the same one), cached by name. Built by the catalog's MCP adapter, so the
   * hints come from the tool's annotations.
   */
  definition(tool: Tool<object>): McpTool {
    let definition = this.#definitions.get(tool.name);
    if (definition === undefined) {
      definition = mcpDefinition(tool);
      const output = this.#outputSchemas.get(tool.name);
      if (output !== undefined) definition = { ...definition, outputSchema: output as McpTool["outputSchema"] };
      this.#definitions.set(tool.name, definition);
    }
    return definition;
  }

  /**
   * For a `*_full` twin left out of this catalog, the curated tool it is the original of
   * (undefined for any other name): an unknown-tool answer can then say why.
   */
  twinOf(name: string): string | undefined {
    return this.#leftOut.get(name);
  }

  /** Up to 5 served names close to `name` (near typos first, then names sharing its words), for an unknown-tool message. */
  near(name: string): string[] {
    const lower = name.toLowerCase();
    const limit = Math.max(2, Math.floor(name.length / 5));
    const typos = this.tools
      .map((tool) => ({ name: tool.name, distance: editDistance(lower, tool.name.toLowerCase(), limit) }))
      .filter((entry) => entry.distance <= limit)
      .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
      .map((entry) => entry.name);
    const words = lower.split(/[^a-z0-9]+/).filter((word) => word.length > 2);
    const sharing = this.tools
      .map((tool) => ({ name: tool.name, score: words.filter((word) => tool.name.toLowerCase().includes(word)).length }))
      .filter((entry) => words.length > 0 && entry.score === words.length)
      .sort((a, b) => a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
      .map((entry) => entry.name);
    return [...new Set([...typos, ...sharing])].slice(0, 5);
  }
}

