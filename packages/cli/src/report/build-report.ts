import { BudgetUnreachableError, egressMap, isSluiceError, formatEgressMap, fullNameOf, recursionCuts, selectorSegment, splitSelector, suggestProjection, type EgressToolEntry, type Tool, type WithheldPath } from "@sluice/core";
import { DefinitionTotals, PieceCounter, ToolPricer, transparentClosure } from "@sluice/core/cost";
import type { Encoding } from "@sluice/core/tokens";
import { canonicalJson, cyclicComponents, defsOf, isSchemaObject, refGraph, ROOT, type JsonSchemaObject } from "@sluice/schema";
import { findPricedTool, pricedSet } from "../load-tools.ts";
import type { BranchStatus, ReportBranch, ReportCurated, ReportCycle, ReportData, ReportSharedType, ReportSuggestion, ReportTool } from "./report-data.ts";

export interface BuildReportOptions {
  /** The pack as named on the command line (goes into the report as given). */
  pack: string;
  encoding?: Encoding;
  /** With a budget: a suggestion for every tool above it. */
  budget?: number;
  /** Only this tool (and its twin, when it is curated or a twin). */
  tool?: string;
  /** Levels of argument paths priced below a tool (default 2: the arguments and one level below). */
  depth?: number;
  /**
   * List and total only the served set (`defaultServedSet`: what serve serves, check and
   * `egress --served` count), each twin priced only beside its curated tool. The CLI's
   * default; without it, every tool given is listed.
   */
  served?: boolean;
  /** Told the name of each step as it starts (the CLI's progress line). */
  step?: (label: string) => void;
}

/**
 * How much of a pack is priced by real pruning. Pricing is the slow part of a report
 * (each price is a projection and a count), so it goes where the tokens are:
 *  - a tool is priced (its arguments are) when it costs at least PRICED_MIN_TOKENS, or is
 *    one of the PRICED_FATTEST fattest tools (so a pack of small tools still shows its
 *    largest ones opened);
 *  - levels below the arguments are priced only in the fat tools (at least DEEP_SHARE of
 *    the fattest tool's tokens; at most DEEP_MAX of them, fattest first), the curated
 *    tools whose twin is one of them (so the page can show what they withhold), and
 *    every tool of a `--tool` report; and only below a branch that costs at least
 *    OPEN_SHARE of its tool;
 *  - every child of an opened branch is priced; the MAX_CHILDREN costliest visible ones
 *    and every withheld or pinned one are listed, the others summed in `rest` (their
 *    count, and the sum of their exact costs);
 *  - a branch of the last priced level (the depth bound, or level 1 of a tool that is
 *    not opened deeper) with members below gets `rest` = { paths: how many, tokens: the
 *    branch's own cost }: nothing below it was priced, so its whole cost is "the rest".
 * Numbers that are given are exact `paths({ byCost })` numbers; the rule only decides
 * which ones are computed.
 */
const PRICED_MIN_TOKENS = 1000;
const PRICED_FATTEST = 10;
const DEEP_SHARE = 0.5;
const DEEP_MAX = 40;
const OPEN_SHARE = 0.05;
const MAX_CHILDREN = 12;
const DEFAULT_DEPTH = 2;

/**
 * What `sluice report` shows of a tool array (a pack as loaded, curated tools and their
 * `*_full` twins included; with `served`, its served set). Numbers are exact where the contract says they are: tool
 * tokens are `schemaTokens`, branch tokens are `paths({ byCost })` numbers (one
 * `ToolPricer` per tool; all of them share one `PieceCounter`, which only remembers
 * texts and their exact counts, so sharing changes no number, only the time), cycle
 * savings are real projections. Deterministic: every list is sorted.
 */
export async function buildReport(tools: readonly Tool<object>[], options: BuildReportOptions): Promise<ReportData> {
  const encoding = options.encoding ?? "o200k_base";
  const depth = options.depth ?? DEFAULT_DEPTH;
  const step = options.step ?? (() => {});
  step(`counting tokens of ${tools.length} tools`);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const selected = selectTools(tools, byName, options);
  const counter = new PieceCounter(encoding);
  // Totals count each shared definition once (exact: DefinitionTotals); pricing reuses the same pieces.
  const totals = new DefinitionTotals(encoding, counter);
  const pricers = new Map<string, CachedPricer>();
  const pricerOf = (tool: Tool<object>): CachedPricer => {
    let pricer = pricers.get(tool.name);
    if (pricer === undefined) pricers.set(tool.name, (pricer = new CachedPricer(tool, encoding, counter, totals.total(tool))));
    return pricer;
  };

  const tokens = new Map(selected.map((tool) => [tool.name, pricerOf(tool).total]));
  const bySize = [...selected].sort((a, b) => tokens.get(b.name)! - tokens.get(a.name)! || compare(a.name, b.name));
  const lineage = lineageOf(selected, byName);
  step("egress map");
  const entries = new Map(egressMap(selected).map((entry) => [entry.name, entry]));

  const priced = new Set(bySize.filter((tool, i) => i < PRICED_FATTEST || tokens.get(tool.name)! >= PRICED_MIN_TOKENS).map((tool) => tool.name));
  const fattest = bySize.length === 0 ? 0 : tokens.get(bySize[0]!.name)!;
  const deep = new Set(
    options.tool !== undefined
      ? selected.map((tool) => tool.name)
      : bySize
          .filter((tool) => priced.has(tool.name) && tokens.get(tool.name)! >= fattest * DEEP_SHARE)
          .slice(0, DEEP_MAX)
          .map((tool) => tool.name),
  );
  if (options.tool === undefined) {
    for (const tool of selected) {
      const source = lineage.get(tool.name);
      if (source?.kind === "curated" && source.source !== undefined && deep.has(source.source)) deep.add(tool.name);
    }
  }

  step("pricing argument paths");
  // A tool's pricer holds a model of its schema: kept only while something later prices the
  // tool again (a curated or derived tool narrowing it, or a cycle it reaches), so that the
  // models of 9,000 tools are not all alive at once. A pricer made again gives the same numbers.
  const pricedAgain = new Set([...lineage.values()].flatMap((info) => (info.source === undefined ? [] : [info.source])));
  const reportTools: ReportTool[] = bySize.map((tool) => {
    const entry = entries.get(tool.name)!;
    const info = lineage.get(tool.name) ?? { kind: "plain" as const };
    const total = tokens.get(tool.name)!;
    const out: ReportTool = {
      name: tool.name,
      endpoint: entry.endpoint,
      tokens: total,
      kind: info.kind,
      ...((info.kind === "curated" || info.kind === "derived") && info.source !== undefined ? { source: info.source } : {}),
      branches: [],
      frame: total,
      priced: priced.has(tool.name),
      egress: egressCounts(entry),
    };
    if (!out.priced) return out;
    const source = info.source === undefined ? undefined : byName.get(info.source);
    const branches = toolBranches(tool, source, pricerOf, deep.has(tool.name) ? depth : 1);
    out.branches = branches;
    // What no argument accounts for: name, description, the schema's own keywords, and
    // what top-level drops leave in place (shared definitions make costs non-additive,
    // so it can be negative). Withheld branches are priced on the source: not counted.
    out.frame = total - branches.filter((branch) => branch.status === "visible").reduce((sum, branch) => sum + branch.tokens, 0);
    if (!pricedAgain.has(tool.name) && componentsOf(tool).length === 0) pricers.delete(tool.name);
    return out;
  });

  step("cycles and shared types");
  const cycles = cyclesOf(selected, pricerOf);
  const sharedTypes = sharedTypesOf(selected, counter);
  const curated: ReportCurated[] = selected
    .filter((tool) => lineage.get(tool.name)?.kind === "curated")
    .map((tool) => {
      const full = lineage.get(tool.name)!.source!;
      const fullTokens = tokens.get(full) ?? pricerOf(byName.get(full)!).total;
      const own = tokens.get(tool.name)!;
      return { name: tool.name, full, tokens: own, fullTokens, saved: fullTokens - own, withheldLines: withheldLines(entries.get(tool.name)!) };
    })
    .sort((a, b) => b.saved - a.saved || compare(a.name, b.name));

  const data: ReportData = {
    version: 1,
    pack: options.pack,
    encoding,
    totals: { tools: selected.length, tokens: selected.reduce((sum, tool) => sum + tokens.get(tool.name)!, 0) },
    tools: reportTools,
    cycles,
    sharedTypes,
    curated,
    suggestions: [],
  };
  if (options.budget !== undefined) {
    data.budget = options.budget;
    step(`projections under ${options.budget} tokens`);
    data.suggestions = await suggestionsFor(bySize.filter((tool) => tokens.get(tool.name)! > options.budget!), options.budget, encoding);
  }
  return data;
}

/**
 * The report's tools: all of them (the served set with `served`), or the one named (with
 * its twin, either way round, unless `served`).
 */
function selectTools(tools: readonly Tool<object>[], byName: ReadonlyMap<string, Tool<object>>, options: BuildReportOptions): Tool<object>[] {
  const pool = pricedSet(tools, options.served !== true);
  if (options.tool === undefined) return pool;
  const tool = findPricedTool(tools, pool, options.tool, options.pack, "report");
  if (options.served === true) return [tool];
  const out = [tool];
  const twin = byName.get(fullNameOf(tool.name));
  if (twin !== undefined && twin !== tool) out.push(twin);
  for (const other of tools) if (other !== tool && fullNameOf(other.name) === tool.name) out.push(other);
  return out;
}

interface Lineage {
  kind: ReportTool["kind"];
  /** The twin of a curated tool, the source of a derived one. */
  source?: string;
}

/**
 * Kinds. Curated and full come from the twin naming (`withCurated`): X is curated when
 * `fullNameOf(X)` is also a tool, which is then its `full` twin. A tool carries no
 * pointer to its source, but a projection appends what it withholds to its source's
 * list (`Tool.project`), so a tool is `derived` from another tool of the same endpoint
 * whose withheld list is a proper prefix of its own (the nearest such ancestor, then by
 * name). Everything else is `plain`.
 */
function lineageOf(selected: readonly Tool<object>[], byName: ReadonlyMap<string, Tool<object>>): Map<string, Lineage> {
  const out = new Map<string, Lineage>();
  for (const tool of selected) {
    const full = fullNameOf(tool.name);
    if (full !== tool.name && byName.has(full)) {
      out.set(tool.name, { kind: "curated", source: full });
      out.set(full, { kind: "full" });
    }
  }
  const byEndpoint = new Map<string, Tool<object>[]>();
  for (const tool of byName.values()) {
    const key = endpointKey(tool);
    let list = byEndpoint.get(key);
    if (list === undefined) byEndpoint.set(key, (list = []));
    list.push(tool);
  }
  for (const tool of selected) {
    if (out.has(tool.name) || tool.withheld.length === 0) continue;
    const candidates = byEndpoint.get(endpointKey(tool))!.filter((other) => other !== tool && isProperPrefix(other.withheld, tool.withheld));
    if (candidates.length === 0) continue;
    candidates.sort((a, b) => b.withheld.length - a.withheld.length || compare(a.name, b.name));
    out.set(tool.name, { kind: "derived", source: candidates[0]!.name });
  }
  return out;
}

/** A binding's target, without building any schema. */
function endpointKey(tool: Tool<object>): string {
  const binding = tool.binding;
  if (binding.kind === "mcp") return `mcp ${binding.tool}`;
  return binding.kind === "graphql" ? `graphql ${binding.operationType} ${binding.field}` : `http ${binding.method} ${binding.path}`;
}

function isProperPrefix(a: readonly WithheldPath[], b: readonly WithheldPath[]): boolean {
  if (a.length >= b.length) return false;
  return a.every((entry, i) => entry.path === b[i]!.path && entry.reason === b[i]!.reason);
}

function egressCounts(entry: EgressToolEntry): ReportTool["egress"] {
  const visible = entry.visible.length + entry.types.reduce((sum, section) => sum + section.members.length, 0);
  return { visible, withheld: entry.withheld.filter((w) => w.reason !== "pinned").length, pinned: Object.keys(entry.pins).length };
}

/** The tool's `-` and `=` lines exactly as `formatEgressMap` prints them, unindented. */
function withheldLines(entry: EgressToolEntry): string[] {
  return formatEgressMap([entry])
    .split("\n")
    .filter((line) => line.startsWith("  - ") || line.startsWith("  = "))
    .map((line) => line.slice(2));
}

/** A `ToolPricer` that remembers each path set it priced (a twin's prices serve its curated tool too). */
class CachedPricer {
  readonly #pricer: ToolPricer;
  readonly #known = new Map<string, number | undefined>();
  readonly tool: Tool<object>;

  constructor(tool: Tool<object>, encoding: Encoding, counter: PieceCounter, total: number) {
    this.tool = tool;
    this.#pricer = new ToolPricer(tool as unknown as Tool, encoding, counter, total);
  }

  get total(): number {
    return this.#pricer.total;
  }

  /**
   * What `narrow` (derived) says when asked to drop this branch, when it refuses: the page
   * then never offers `drop: [...]` for it. Asked only for names some `required` list holds;
   * checked on the drop's stand-in, not a derive of the whole tool (ToolPricer.refusal).
   */
  refusal(path: string): string | undefined {
    return this.#pricer.refusal(path);
  }

  /** tokens(tool) - tokens(tool without all `paths`); undefined when the projection refuses the selectors. */
  cost(paths: readonly string[]): number | undefined {
    const key = paths.join("\n");
    if (this.#known.has(key)) return this.#known.get(key);
    let cost: number | undefined;
    try {
      cost = this.#pricer.cost(paths);
    } catch (error) {
      // An ambiguous or unknown selector is not a branch one can drop; it is left out.
      if (!isSluiceError(error)) throw error;
      cost = undefined;
    }
    this.#known.set(key, cost);
    return cost;
  }
}

/** A place in a tool's schema: its selector and the schema nodes it stands for. */
interface Position {
  path: string;
  nodes: JsonSchemaObject[];
  /** Some schema holding this member lists it in `required` (or `dependentRequired`): a drop may be refused. */
  required?: boolean;
}

/** What a tool's schema knows for walking it. */
interface SchemaView {
  defs: Record<string, JsonSchemaObject>;
  origins: ReadonlyMap<string, string>;
  /** Types (by origin name) in a cycle of this tool's definitions. */
  recursive: Set<string>;
}

const views = new WeakMap<Tool<object>, SchemaView>();
const components = new WeakMap<Tool<object>, string[][]>();

/** The tool's cycles of definitions (computed once per tool: the view and the cycles both need them). */
function componentsOf(tool: Tool<object>): string[][] {
  let found = components.get(tool);
  if (found === undefined) components.set(tool, (found = cyclicComponents(refGraph(tool.inputSchema, bodyRefs))));
  return found;
}

/** What each definition body refers to, per body object: a pack's tools share their definition objects (refGraph walks each once). */
const bodyRefs = new WeakMap<object, string[]>();

function viewOf(tool: Tool<object>): SchemaView {
  let view = views.get(tool);
  if (view !== undefined) return view;
  const schema = tool.inputSchema;
  const origins = tool.definitionOrigins;
  view = {
    defs: defsOf(schema),
    origins,
    recursive: new Set(componentsOf(tool).flatMap((component) => component.filter((name) => name !== ROOT).map((name) => origins.get(name) ?? name))),
  };
  views.set(tool, view);
  return view;
}

/**
 * The nodes a selector sees at a position: through `$ref`s, arrays and unions, as every
 * selector walk does (iterative; a definition is entered once). `types`: the types of
 * the definitions entered.
 */
function closure(view: SchemaView, start: readonly JsonSchemaObject[]): { nodes: JsonSchemaObject[]; types: Set<string> } {
  const types = new Set<string>();
  const nodes = transparentClosure(view.defs, start, (name) => types.add(view.origins.get(name) ?? name));
  return { nodes, types };
}

/**
 * The positions one level below: the members of what the position holds. A position
 * holding exactly one recursive type lists that type's members as type selectors
 * (`IssueFilter.and`): a path selector through a recursive type splits it, and what a
 * member costs is what it costs everywhere the type is reached. Names holding selector
 * syntax are spelled quoted (`body."@odata.type"`), as selectors read them.
 */
function childrenOf(view: SchemaView, position: Position): { prefix: string; type: string | undefined; children: Position[] } {
  let { nodes, types } = closure(view, position.nodes);
  let prefix = position.path;
  const type = types.size === 1 ? [...types][0]! : undefined;
  if (type !== undefined && view.recursive.has(type) && position.path !== type) {
    prefix = type;
    const defs = Object.keys(view.defs).filter((name) => (view.origins.get(name) ?? name) === type);
    nodes = closure(view, defs.map((name) => view.defs[name]!)).nodes;
  }
  const members = new Map<string, JsonSchemaObject[]>();
  const required = new Set<string>();
  for (const node of nodes) {
    for (const name of requiredOf(node)) required.add(name);
    const properties = node.properties;
    if (!isSchemaObject(properties)) continue;
    for (const key of Object.keys(properties)) {
      const value = properties[key];
      if (!isSchemaObject(value)) continue;
      let list = members.get(key);
      if (list === undefined) members.set(key, (list = []));
      list.push(value);
    }
  }
  const children = [...members.keys()].sort(compare).map((key) => ({ path: `${prefix}.${selectorSegment(key)}`, nodes: members.get(key)!, ...(required.has(key) ? { required: true } : {}) }));
  return { prefix, type, children };
}

/**
 * A priced tool's argument branches. Visible branches are priced on the tool; what a
 * curated or derived tool withholds beyond its source is placed where it belongs
 * (an argument at the top; `filter.and` below `filter`; a type member `IssueFilter.and`
 * below the branch holding that type) and priced on the source, where it still is.
 * A withheld path with no place within the depth bound is not drawn (the tool's egress
 * counts and the curated section list it).
 */
function toolBranches(tool: Tool<object>, source: Tool<object> | undefined, pricerOf: (tool: Tool<object>) => CachedPricer, depth: number): ReportBranch[] {
  const view = viewOf(tool);
  const pricer = pricerOf(tool);
  const schema = tool.inputSchema;
  const args = isSchemaObject(schema.properties) ? schema.properties : {};
  const top: Position[] = Object.keys(args)
    .filter((key) => isSchemaObject(args[key]))
    .sort(compare)
    .map((key) => ({ path: selectorSegment(key), nodes: [args[key] as JsonSchemaObject], ...(requiredOf(schema).includes(key) ? { required: true } : {}) }));
  const withheld = source === undefined ? [] : ownWithheld(tool, source);
  const sourcePricer = source === undefined ? undefined : pricerOf(source);
  const sourceView = source === undefined ? undefined : viewOf(source);
  /**
   * The selector a withheld path is priced with in the source: the same place as the
   * source's own branches name it, so `filter.and` of a curated tool costs what
   * `IssueFilter.and` costs in its twin (a path selector through a recursive type would
   * split the type and price the split instead).
   */
  const inSource = (path: string): string => {
    const segments = splitSelector(path);
    const sourceArgs = source!.inputSchema.properties;
    if (segments.length < 2 || !isSchemaObject(sourceArgs) || !isSchemaObject(sourceArgs[segments[0]!])) return path;
    let position: Position = { path: selectorSegment(segments[0]!), nodes: [sourceArgs[segments[0]!] as JsonSchemaObject] };
    for (let i = 1; i < segments.length; i++) {
      const { prefix, children } = childrenOf(sourceView!, position);
      const next = children.find((child) => child.path === `${prefix}.${selectorSegment(segments[i]!)}`);
      if (next === undefined) return path;
      position = next;
    }
    return position.path;
  };
  const threshold = Math.max(1, Math.ceil(pricer.total * OPEN_SHARE));

  const visibleBranch = (position: Position): ReportBranch | undefined => {
    const tokens = pricer.cost([position.path]);
    if (tokens === undefined) return undefined;
    const branch: ReportBranch = { path: position.path, tokens, status: "visible", selector: position.path };
    const refused = position.required === true ? pricer.refusal(position.path) : undefined;
    if (refused !== undefined) branch.dropRefused = refused;
    return branch;
  };
  const withheldBranch = (entry: WithheldPath): ReportBranch | undefined => {
    const tokens = sourcePricer!.cost([inSource(entry.path)]);
    if (tokens === undefined) return undefined;
    const status: BranchStatus = entry.reason === "pinned" ? "pinned" : "withheld";
    return { path: entry.path, tokens, status, selector: entry.path, reason: entry.reason };
  };
  const placed = new Set<WithheldPath>();
  const withheldBelow = (prefix: string, type: string | undefined): WithheldPath[] =>
    withheld.filter((entry) => {
      if (placed.has(entry)) return false;
      const cut = entry.path.lastIndexOf(".");
      if (cut < 0) return false;
      const parent = entry.path.slice(0, cut);
      return parent === prefix || parent === type;
    });

  // Breadth-first, level by level; each opened branch gets its children in place.
  const branches = top.map(visibleBranch).filter((branch): branch is ReportBranch => branch !== undefined);
  for (const entry of withheld) {
    if (entry.path.includes(".")) continue;
    const branch = withheldBranch(entry);
    placed.add(entry);
    if (branch !== undefined) branches.push(branch);
  }
  sortBranches(branches);
  const positions = new Map(top.map((position) => [position.path, position]));
  let level: ReportBranch[] = branches;
  for (let d = 1; d < depth; d++) {
    const next: ReportBranch[] = [];
    for (const branch of level) {
      const position = positions.get(branch.path);
      if (branch.status !== "visible" || position === undefined || branch.tokens < threshold) continue;
      const { prefix, type, children } = childrenOf(view, position);
      const priced: ReportBranch[] = [];
      for (const child of children) {
        const priced1 = visibleBranch(child);
        if (priced1 === undefined) continue;
        positions.set(child.path, child);
        priced.push(priced1);
      }
      for (const entry of withheldBelow(prefix, type)) {
        placed.add(entry);
        const priced1 = withheldBranch(entry);
        if (priced1 !== undefined) priced.push(priced1);
      }
      if (priced.length === 0) continue;
      sortBranches(priced);
      // What a projection withholds is always listed (showing it is the point); the cap is on visible members.
      const shown = new Set(priced.filter((b) => b.status !== "visible").concat(priced.filter((b) => b.status === "visible").slice(0, MAX_CHILDREN)));
      branch.children = priced.filter((b) => shown.has(b));
      const left = priced.filter((b) => !shown.has(b));
      if (left.length > 0) branch.rest = { paths: left.length, tokens: left.reduce((sum, b) => sum + b.tokens, 0), selectors: left.map((b) => b.path) };
      next.push(...branch.children);
    }
    level = next;
  }
  // At the depth bound, say what lies below without pricing it.
  for (const branch of level) {
    const position = positions.get(branch.path);
    if (branch.status !== "visible" || position === undefined || branch.children !== undefined) continue;
    const below = childrenOf(view, position).children.length;
    if (below > 0) branch.rest = { paths: below, tokens: branch.tokens };
  }
  return branches;
}

/** The names a schema node requires: `required`, and what `dependentRequired` makes required once a sibling is sent. */
function requiredOf(node: JsonSchemaObject): string[] {
  const names: string[] = [];
  if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === "string") names.push(name);
  const dependent = node.dependentRequired;
  if (isSchemaObject(dependent)) for (const list of Object.values(dependent)) if (Array.isArray(list)) for (const name of list) if (typeof name === "string") names.push(name);
  return names;
}

/** What a tool withholds beyond its source: its own projection's entries (a source's entries come first, `Tool.project`). */
function ownWithheld(tool: Tool<object>, source: Tool<object>): WithheldPath[] {
  const inherited = new Set(source.withheld.map((entry) => `${entry.reason}\u0000${entry.path}`));
  return tool.withheld.filter((entry) => !inherited.has(`${entry.reason}\u0000${entry.path}`));
}

function sortBranches(branches: ReportBranch[]): void {
  branches.sort((a, b) => b.tokens - a.tokens || compare(a.path, b.path));
}

/**
 * Cycles: each tool's strongly connected components of definitions, by type (split
 * copies named after their type), merged across tools when they hold the same types.
 * The cuts are the `recursionCuts` of the tool that fall in the component (by type);
 * tokensSaved sums, over the tools reaching it, what dropping those cuts at once saves
 * in that tool (a real projection, priced like a path).
 */
function cyclesOf(selected: readonly Tool<object>[], pricerOf: (tool: Tool<object>) => CachedPricer): ReportCycle[] {
  const merged = new Map<string, { types: string[]; tools: Set<string>; cuts: Set<string>; saved: number }>();
  for (const tool of selected) {
    const cyclic = componentsOf(tool);
    if (cyclic.length === 0) continue;
    const origins = tool.definitionOrigins;
    const cuts = recursionCuts(tool);
    for (const component of cyclic) {
      const names = new Set(component.filter((name) => name !== ROOT));
      if (names.size === 0) continue;
      const types = [...new Set([...names].map((name) => origins.get(name) ?? name))].sort(compare);
      const key = types.join("\n");
      let cycle = merged.get(key);
      if (cycle === undefined) merged.set(key, (cycle = { types, tools: new Set(), cuts: new Set(), saved: 0 }));
      cycle.tools.add(tool.name);
      const own = cuts.filter((cut) => names.has(cut.slice(0, cut.lastIndexOf("."))));
      for (const cut of own) {
        const def = cut.slice(0, cut.lastIndexOf("."));
        cycle.cuts.add(`${origins.get(def) ?? def}${cut.slice(def.length)}`);
      }
      if (own.length > 0) cycle.saved += pricerOf(tool).cost(own) ?? 0;
    }
  }
  return [...merged.values()]
    .map((cycle) => ({ types: cycle.types, tools: [...cycle.tools].sort(compare), cuts: [...cycle.cuts].sort(compare), tokensSaved: cycle.saved }))
    .sort((a, b) => b.tokensSaved - a.tokensSaved || compare(a.types[0]!, b.types[0]!));
}

/**
 * Definitions (by name) carried by at least two tools. A name can stand for different
 * bodies (a curated tool carries a narrowed copy under the same name): each name counts
 * the body most tools carry (ties: the larger, then the first by text), and only the
 * tools carrying exactly that body. tokensEach counts the definition's entry as the
 * `$defs` text holds it (`"Name":{...}`).
 */
function sharedTypesOf(selected: readonly Tool<object>[], counter: PieceCounter): ReportSharedType[] {
  const texts = new WeakMap<object, string>();
  const variants = new Map<string, Map<string, Set<string>>>();
  for (const tool of selected) {
    const defs = defsOf(tool.inputSchema);
    for (const name of Object.keys(defs)) {
      const body = defs[name]!;
      let text = texts.get(body);
      if (text === undefined) texts.set(body, (text = canonicalJson(body)));
      let byText = variants.get(name);
      if (byText === undefined) variants.set(name, (byText = new Map()));
      let tools = byText.get(text);
      if (tools === undefined) byText.set(text, (tools = new Set()));
      tools.add(tool.name);
    }
  }
  const out: ReportSharedType[] = [];
  for (const [name, byText] of variants) {
    let best: { text: string; tools: Set<string>; tokens: number } | undefined;
    for (const [text, tools] of byText) {
      if (tools.size < 2 || (best !== undefined && tools.size < best.tools.size)) continue;
      const tokens = counter.count(`${JSON.stringify(name)}:${text}`);
      if (best === undefined || tools.size > best.tools.size || tokens > best.tokens || (tokens === best.tokens && text < best.text)) best = { text, tools, tokens };
    }
    if (best === undefined) continue;
    out.push({ name, tools: [...best.tools].sort(compare), tokensEach: best.tokens, tokensTotal: best.tokens * best.tools.size });
  }
  return out.sort((a, b) => b.tokensTotal - a.tokensTotal || compare(a.name, b.name));
}

/** `sluice suggest` for every tool above the budget; a tool nothing fits records the floor and the code. */
async function suggestionsFor(tools: readonly Tool<object>[], budget: number, encoding: Encoding): Promise<ReportSuggestion[]> {
  const out: ReportSuggestion[] = [];
  for (const tool of tools) {
    try {
      const found = await suggestProjection(tool, { budget, encoding });
      out.push({ tool: found.tool, budget: found.budget, tokens: found.tokens, drop: [...found.drop], keep: [...found.keep], steps: found.steps.map((step) => ({ selector: step.selector, saved: step.saved })) });
    } catch (error) {
      if (!(error instanceof BudgetUnreachableError)) throw error;
      // What the tool comes down to at most: its floor, and the drops that reach it, as the search measured them.
      const floor = error.floor;
      out.push({ tool: tool.name, budget, tokens: floor.tokens, drop: [...floor.drop], keep: [], steps: [], floor: floor.tokens, error: "BUDGET_UNREACHABLE" });
    }
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
