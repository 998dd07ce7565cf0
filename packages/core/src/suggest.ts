import { hasOwn, isSchemaObject, SluiceError, unescapePointerSegment, withinLimits } from "@sluice/schema";
import { recursionCuts } from "./recursion-cuts.ts";
import { SchemaWorkspace, type Located } from "./schema-workspace.ts";
import { locate, parseSelector, type Selector } from "./selectors.ts";
import type { Encoding } from "./tokens.ts";
import type { Tool } from "./tool.ts";

export interface SuggestOptions {
  /** Tokens: `schemaTokens` of the suggested projection is at most this. */
  budget: number;
  /** Selectors to keep: never dropped, nor anything containing them. */
  keep?: readonly string[];
  /** Default `o200k_base`. */
  encoding?: Encoding;
}

export interface Suggestion {
  tool: string;
  budget: number;
  /** `schemaTokens(tool.derived({ drop, keep }))`, counted on that tool. */
  tokens: number;
  drop: string[];
  /** `derived({ keep })` selectors; the search only drops, so this is empty. */
  keep: string[];
  /** In the order applied: the tokens each drop saved on the tool derived with the drops before it. */
  steps: Array<{ selector: string; saved: number }>;
}

/**
 * Argument names protected as pagination arguments when present at the top level, beside
 * the ones the tool's pagination declares: a projection that drops the page size or the
 * cursor leaves a list tool that can read one page only.
 */
export const PAGINATION_ARGUMENTS: readonly string[] = [
  "first", "after", "last", "before", "cursor", "page", "per_page", "page_size", "limit",
  "starting_after", "ending_before", "page_token", "pageToken", "offset",
];

/** Levels below the root the search prices: arguments, their members, and theirs. */
const LEVELS = 3;
/** Bounds on the work: candidates listed, pricing rounds, drops applied per round and in all, drops given back. */
const MAX_CANDIDATES = 3000;
const MAX_ROUNDS = 60;
const MAX_PER_ROUND = 24;
const MAX_STEPS = 400;
const MAX_GIVE_BACK = 24;

/**
 * The smallest projection that keeps what must stay: every required argument, the --keep
 * selectors (and what contains them), the pagination arguments. Smallest within what the
 * search can drop: every other argument, every cycle cut, and every optional member three
 * levels down that saves tokens. `tokens` is `schemaTokens(tool.derived({ drop }))`.
 */
export async function projectionFloor(tool: Tool<object>, options: Omit<SuggestOptions, "budget">): Promise<{ tokens: number; drop: string[] }> {
  return withinLimits(`projectionFloor() of ${tool.name}`, async () => {
    const search = await Search.start(tool, checkOptions({ ...options, budget: 1 }, true));
    return search.floor();
  });
}

/**
 * The projection of one tool that fits a token budget while keeping as much of the tool
 * as it can. Every figure is measured (the tool derived and counted), never estimated;
 * candidates are priced with the pricing `paths({ byCost })` uses (exact).
 *
 * The search, in order:
 *  1. cycle cuts (`recursionCuts`), the most expensive first, while the tool is over budget;
 *     only the cuts in types the tool still reaches once every cycle is cut (the others
 *     sit in types that then fall away and change nothing);
 *  2. rounds over the optional branches three levels down from the root (arguments, their
 *     members, and theirs): when one drop brings the tool under budget, the cheapest such
 *     drop (a branch whose members can go instead is not dropped whole); otherwise the
 *     most expensive, and the next ones from the same pricing while none would fit alone,
 *     each measured as it is applied;
 *  3. drops other than cycle cuts (the tool stays acyclic) given back while the tool still
 *     fits, smallest first; drops a later one made moot are left out.
 * Members reached through a definition are dropped with a type selector (`IssueFilter.dueDate`):
 * it never splits a shared definition, so the drops commute, and the tool derived with all
 * of them at once is the tool the steps reached one by one (checked at the end; if they
 * ever differ, steps are measured on prefixes of the drop list, so they still add up).
 * Never dropped: required arguments, pagination arguments (the declared ones and
 * PAGINATION_ARGUMENTS at the top level), the `keep` selectors and what contains them.
 * Throws BUDGET_UNREACHABLE (a `BudgetUnreachableError`, carrying the floor) when the
 * budget is below `projectionFloor`.
 */
export async function suggestProjection(tool: Tool<object>, options: SuggestOptions): Promise<Suggestion> {
  return withinLimits(`suggestProjection() of ${tool.name}`, async () => {
    const checked = checkOptions(options, false);
    const search = await Search.start(tool, checked);
    return search.suggest(checked.budget);
  });
}

/**
 * BUDGET_UNREACHABLE with the floor it was measured against, so that a caller that wants
 * the smallest projection next (`sluice report --budget`) does not search for it again.
 */
export class BudgetUnreachableError extends SluiceError {
  readonly floor: { tokens: number; drop: string[] };

  constructor(message: string, floor: { tokens: number; drop: string[] }) {
    super("BUDGET_UNREACHABLE", message);
    this.floor = floor;
  }
}

interface Checked {
  budget: number;
  keep: string[];
  encoding: Encoding;
}

function checkOptions(options: SuggestOptions, floorOnly: boolean): Checked {
  if (options === null || typeof options !== "object") throw new SluiceError("INVALID_OPTION", "suggestProjection(): options must be an object with a budget.");
  const known = ["budget", "keep", "encoding"];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new SluiceError("INVALID_OPTION", `suggestProjection(): unknown option "${key}"; the options are ${known.join(", ")}.`);
  }
  const budget = hasOwn(options, "budget") ? options.budget : undefined;
  if (!floorOnly && (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1)) {
    throw new SluiceError("INVALID_OPTION", `suggestProjection(): budget must be a positive integer (tokens), got ${String(budget)}.`);
  }
  const keep = hasOwn(options, "keep") ? options.keep : undefined;
  if (keep !== undefined && (!Array.isArray(keep) || keep.some((k) => typeof k !== "string"))) {
    throw new SluiceError("INVALID_OPTION", "suggestProjection(): keep must be an array of selectors.");
  }
  const encoding = hasOwn(options, "encoding") ? options.encoding : undefined;
  return { budget: budget ?? 1, keep: [...new Set(keep ?? [])], encoding: encoding ?? "o200k_base" };
}

interface Candidate {
  selector: string;
  /** A top-level argument. */
  top: boolean;
  /** Required where it is declared (a drop would be refused). */
  required: boolean;
  /** For type selectors, the type. */
  type?: string;
  /** The candidate it was first found below. */
  parent?: string;
}

type Count = (tool: Tool<object>) => number;
type Price = (tool: Tool<object>, paths: readonly string[]) => Array<{ path: string; tokens: number }>;

class Search {
  /** Arguments never dropped: required, pagination, and the first segment of a kept path. */
  readonly topProtected: Set<string>;
  /** Selectors never dropped: the kept ones, what contains them, and their type spellings. */
  readonly protectedSelectors = new Set<string>();
  readonly required: string[];
  readonly pagination: string[];

  private constructor(
    readonly tool: Tool<object>,
    readonly options: Checked,
    readonly count: Count,
    readonly price: Price,
    readonly textTokens: (text: string) => number,
  ) {
    const schema = tool.inputSchema;
    const args = isSchemaObject(schema.properties) ? Object.keys(schema.properties) : [];
    this.required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string" && args.includes(name)).sort() : [];
    const declared = tool.pagination === undefined ? [] : [tool.pagination.arg, ...(tool.pagination.style === "page" && tool.pagination.pageSizeArg !== undefined ? [tool.pagination.pageSizeArg] : [])];
    this.pagination = args.filter((name) => declared.includes(name) || PAGINATION_ARGUMENTS.includes(name)).sort();
    this.topProtected = new Set([...this.required, ...this.pagination]);
    if (options.keep.length > 0) this.protectKept(args);
  }

  static async start(tool: Tool<object>, options: Checked): Promise<Search> {
    // Loaded here: counting needs the tokenizer, which the core's root entry never loads.
    const tokens = await import("./tokens.ts");
    const { pathCosts } = await import("./cost/path-costs.ts");
    const encoding = options.encoding;
    const count: Count = (t) => tokens.schemaTokens(t, { encoding });
    count(tool); // an unknown encoding fails here, before any search
    return new Search(tool, options, count, (t, paths) => pathCosts(t as unknown as Tool, paths, encoding), (text) => tokens.textTokens(text, { encoding }));
  }

  /** Every kept selector must exist; it, every selector containing it, and the type spellings of those places are protected. */
  private protectKept(args: readonly string[]): void {
    const ws = new SchemaWorkspace(this.tool.inputSchema, this.tool.definitionOrigins);
    for (const raw of this.options.keep) {
      const selector = parseSelector(ws, raw);
      locate(ws, selector, false); // an unknown selector is an error listing the candidates
      if (selector.kind === "path" && args.includes(selector.segments[0]!)) this.topProtected.add(selector.segments[0]!);
      const head = selector.kind === "type" ? [selector.type!] : [];
      for (let i = 1; i <= selector.segments.length; i++) {
        const segments = selector.segments.slice(0, i);
        const partial: Selector = { ...selector, segments, text: [...head, ...segments].join(".") };
        this.protectedSelectors.add(partial.text);
        let places: ReturnType<typeof locate> = [];
        try {
          places = locate(ws, partial, false);
        } catch {
          continue; // a branch segment on the way: the check after each drop still guards it
        }
        for (const place of places) {
          if (place.branch !== undefined) continue;
          const spelled = spellingAt(ws, place.holder.pointer, place.key);
          if (spelled !== undefined) this.protectedSelectors.add(spelled);
        }
      }
    }
  }

  /** Whether every kept selector still names something in `tool`. */
  keepsHold(tool: Tool<object>): boolean {
    if (this.options.keep.length === 0) return true;
    const ws = new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
    return this.options.keep.every((raw) => {
      try {
        return locate(ws, parseSelector(ws, raw), false).length > 0;
      } catch {
        return false;
      }
    });
  }

  /** `tool` without `drop`, or undefined when the projection is refused or loses a kept selector. */
  derive(tool: Tool<object>, drop: readonly string[]): Tool<object> | undefined {
    let next: Tool<object>;
    try {
      next = tool.derived({ drop });
    } catch (error) {
      if (error instanceof SluiceError) return undefined;
      throw error;
    }
    return this.keepsHold(next) ? next : undefined;
  }

  /** Whether a candidate may be dropped at all. */
  droppable(candidate: Candidate): boolean {
    if (candidate.required) return false;
    if (candidate.top && this.topProtected.has(candidate.selector)) return false;
    return !this.protectedSelectors.has(candidate.selector);
  }

  /** Prices selectors on `tool`; one that cannot be priced is left out (it cannot be dropped either). */
  priced(tool: Tool<object>, selectors: readonly string[]): Array<{ path: string; tokens: number }> {
    if (selectors.length === 0) return [];
    let rows: Array<{ path: string; tokens: number }>;
    try {
      rows = this.price(tool, selectors);
    } catch (error) {
      if (!(error instanceof SluiceError)) throw error;
      rows = [];
      for (const path of selectors) {
        try {
          rows.push(...this.price(tool, [path]));
        } catch (inner) {
          if (!(inner instanceof SluiceError)) throw inner;
        }
      }
    }
    return rows.filter((row) => row.tokens > 0).sort(costliestFirst);
  }

  /** Cycle cuts worth making on `tool`: not protected, in types that stay reachable once every cut is made. */
  cycleCuts(tool: Tool<object>): string[] {
    const cuts = recursionCuts(tool).filter((cut) => !this.protectedSelectors.has(cut));
    if (cuts.length === 0) return [];
    let acyclic: Tool<object>;
    try {
      acyclic = tool.derived({ drop: cuts });
    } catch (error) {
      if (error instanceof SluiceError) return cuts;
      throw error;
    }
    const reached = typesOf(acyclic);
    return cuts.filter((cut) => reached.has(cut.slice(0, cut.indexOf("."))));
  }

  async floor(): Promise<{ tokens: number; drop: string[] }> {
    const drop: string[] = [];
    let current = this.tool;
    const add = (selectors: readonly string[]) => {
      if (selectors.length === 0) return;
      const all = this.derive(current, selectors);
      if (all !== undefined) {
        drop.push(...selectors);
        current = all;
        return;
      }
      // One by one, leaving out what is refused.
      for (const selector of selectors.slice(0, MAX_STEPS)) {
        const next = this.derive(current, [selector]);
        if (next === undefined) continue;
        drop.push(selector);
        current = next;
      }
    };
    const top = candidatesOf(current, 1).filter((c) => c.top && this.droppable(c)).map((c) => c.selector);
    add(top);
    add(this.cycleCuts(current));
    const inner = candidatesOf(current, LEVELS).filter((c) => !c.top && this.droppable(c)).map((c) => c.selector);
    add(this.priced(current, inner).map((row) => row.path).sort());
    const tokens = this.count(this.tool.derived({ drop }));
    return { tokens, drop };
  }

  async suggest(budget: number): Promise<Suggestion> {
    const tool = this.tool;
    const before = this.count(tool);
    const result = (drop: string[], tokens: number, steps: Suggestion["steps"]): Suggestion => ({ tool: tool.name, budget, tokens, drop, keep: [], steps });
    if (before <= budget) return result([], before, []);

    const floor = await this.floor();
    if (budget < floor.tokens) throw this.unreachable(budget, floor);

    let current = tool;
    let tokens = before;
    const steps: Suggestion["steps"] = [];
    const cuts = new Set<string>();
    const banned = new Set<string>();
    let reached = typesOf(current);
    const apply = (selector: string): boolean => {
      const next = this.derive(current, [selector]);
      const after = next === undefined ? tokens : this.count(next);
      if (next === undefined || after >= tokens) {
        banned.add(selector);
        return false;
      }
      steps.push({ selector, saved: tokens - after });
      current = next;
      tokens = after;
      reached = typesOf(current);
      return true;
    };

    // 1. Cycle cuts, the most expensive first.
    const cycle = this.cycleCuts(current);
    for (const row of this.priced(current, cycle)) {
      if (tokens <= budget || steps.length >= MAX_STEPS) break;
      if (apply(row.path)) cuts.add(row.path);
    }

    // 2. Optional branches.
    for (let round = 0; round < MAX_ROUNDS && tokens > budget && steps.length < MAX_STEPS; round++) {
      const candidates = candidatesOf(current, LEVELS).filter((c) => this.droppable(c) && !banned.has(c.selector));
      const rows = this.priced(current, candidates.map((c) => c.selector));
      if (rows.length === 0) break;
      // A branch with droppable members inside is not dropped whole while those members can
      // be dropped instead: dropping them costliest first until one fits keeps more of it.
      const parents = new Set<string>();
      for (const c of candidates) if (c.parent !== undefined) parents.add(c.parent);
      const fitting = rows.filter((row) => tokens - row.tokens <= budget && !parents.has(row.path));
      if (fitting.length > 0) {
        // Keeps the most: the cheapest drop that fits.
        const cheapest = fitting.reduce((best, row) => (row.tokens < best.tokens || (row.tokens === best.tokens && row.path < best.path) ? row : best));
        apply(cheapest.path);
        continue;
      }
      const open = rows.filter((row) => tokens - row.tokens > budget);
      if (open.length === 0) {
        // Only whole branches fit: the cheapest of them.
        apply(rows.reduce((best, row) => (row.tokens < best.tokens || (row.tokens === best.tokens && row.path < best.path) ? row : best)).path);
        continue;
      }
      // Several from one pricing while none would fit alone; each one measured as applied.
      const applied: string[] = [];
      for (const row of open) {
        if (applied.length >= MAX_PER_ROUND || steps.length >= MAX_STEPS) break;
        if (tokens - row.tokens <= budget) break; // close enough to price again
        if (applied.some((done) => row.path.startsWith(done + ".")) || !stillReached(row.path, candidates, reached)) continue;
        if (apply(row.path)) applied.push(row.path);
      }
      if (applied.length === 0 && open.every((row) => banned.has(row.path))) break;
    }

    let drop = steps.map((step) => step.selector);
    let finalSteps = steps;
    if (tokens > budget) {
      // The search did not get there (its bounds, or drops that interact); the floor fits.
      drop = floor.drop;
      finalSteps = this.stepsOf(drop);
      tokens = floor.tokens;
      const cycle = new Set(recursionCuts(tool));
      for (const selector of drop) if (cycle.has(selector)) cuts.add(selector);
    }

    // 3. Give back what still fits, the smallest first (cycle cuts stay: the tool stays acyclic).
    const slack = budget - tokens;
    const giveBack = finalSteps
      .filter((step) => !cuts.has(step.selector) && step.saved <= slack)
      .sort((a, b) => a.saved - b.saved || compareText(a.selector, b.selector))
      .slice(0, MAX_GIVE_BACK);
    let gaveBack = false;
    for (const step of giveBack) {
      const without = drop.filter((selector) => selector !== step.selector);
      const next = this.derive(tool, without);
      if (next === undefined) continue;
      const after = this.count(next);
      if (after > budget) continue;
      drop = without;
      tokens = after;
      gaveBack = true;
    }
    // Drops that a later one made moot (a cut in a type no longer reached, a path below a dropped one) go, if the tool stays the same.
    const moot = this.mootDrops(drop);
    if (moot.length > 0) {
      const kept = drop.filter((selector) => !moot.includes(selector));
      const now = this.derive(tool, drop);
      const without = this.derive(tool, kept);
      if (now !== undefined && without !== undefined && now.canonical() === without.canonical()) {
        drop = kept;
        gaveBack = true;
      }
    }
    if (gaveBack) finalSteps = this.stepsOf(drop);

    // The figure is the tool derived with exactly this drop list.
    const finalTokens = drop.length === 0 ? before : this.count(tool.derived({ drop }));
    const stepsTotal = finalSteps.reduce((sum, step) => sum + step.saved, 0);
    if (before - stepsTotal !== finalTokens) finalSteps = this.prefixStepsOf(drop, before);
    if (finalTokens > budget) {
      // Only if one-shot and step-by-step derivations disagree; the floor is measured one-shot.
      return result(floor.drop, floor.tokens, this.prefixStepsOf(floor.drop, before));
    }
    return result(drop, finalTokens, finalSteps);
  }

  /** Drops that name nothing in the tool derived with the others: type selectors of types no longer reached, paths below a dropped path. */
  mootDrops(drop: readonly string[]): string[] {
    if (drop.length < 2) return [];
    let derived: Tool<object>;
    try {
      derived = this.tool.derived({ drop });
    } catch (error) {
      if (error instanceof SluiceError) return [];
      throw error;
    }
    const reached = typesOf(derived);
    const args = isSchemaObject(this.tool.inputSchema.properties) ? this.tool.inputSchema.properties : {};
    return drop.filter((selector) => {
      const first = selector.slice(0, selector.includes(".") ? selector.indexOf(".") : undefined);
      if (hasOwn(args, first)) return drop.some((other) => other !== selector && selector.startsWith(other + "."));
      return selector.includes(".") && !reached.has(first);
    });
  }

  /** Steps of a drop list applied one by one, each measured on the tool the previous ones left. */
  stepsOf(drop: readonly string[]): Suggestion["steps"] {
    const steps: Suggestion["steps"] = [];
    let current = this.tool;
    let tokens = this.count(current);
    for (const selector of drop) {
      current = current.derived({ drop: [selector] });
      const after = this.count(current);
      steps.push({ selector, saved: tokens - after });
      tokens = after;
    }
    return steps;
  }

  /** Steps measured as prefixes of the drop list, each derived from the tool at once (they add up to the final figure exactly). */
  prefixStepsOf(drop: readonly string[], before: number): Suggestion["steps"] {
    const steps: Suggestion["steps"] = [];
    let tokens = before;
    drop.forEach((selector, i) => {
      const after = this.count(this.tool.derived({ drop: drop.slice(0, i + 1) }));
      steps.push({ selector, saved: tokens - after });
      tokens = after;
    });
    return steps;
  }

  unreachable(budget: number, floor: { tokens: number; drop: string[] }): BudgetUnreachableError {
    const holds: string[] = [];
    if (this.required.length > 0) holds.push(`required argument${this.required.length === 1 ? "" : "s"} ${this.required.join(", ")}`);
    if (this.pagination.length > 0) holds.push(`pagination argument${this.pagination.length === 1 ? "" : "s"} ${this.pagination.join(", ")}`);
    if (this.options.keep.length > 0) holds.push(`kept ${this.options.keep.join(", ")}`);
    const description = this.textTokens(this.tool.description);
    return new BudgetUnreachableError(
      `${this.tool.name} cannot fit ${budget} tokens: its smallest projection is ${floor.tokens} tokens, held up by ${holds.length > 0 ? holds.join("; ") : "its name and description"} ` +
        `(the description alone is ${description} tokens). Raise the budget to at least ${floor.tokens}, or shorten the description with derived({ description }).`,
      floor,
    );
  }
}

/** Whether a type selector's type is still reached (a path selector is checked by derive). */
function stillReached(selector: string, candidates: readonly Candidate[], reached: ReadonlySet<string>): boolean {
  const candidate = candidates.find((c) => c.selector === selector);
  return candidate?.type === undefined || reached.has(candidate.type);
}

/** The types a tool's definitions stand for (split copies count as their type). */
function typesOf(tool: Tool<object>): Set<string> {
  const defs = tool.inputSchema.$defs;
  const names = isSchemaObject(defs) ? Object.keys(defs) : [];
  return new Set(names.map((name) => tool.definitionOrigins.get(name) ?? name));
}

/**
 * The branches a search may drop, `levels` property steps below the root: top-level
 * arguments by name; members reached through a definition as type selectors
 * (`Type.member`, every place the type is reached); members of inline objects as the
 * selector of the place they hang from, extended. A member that repeats a cycle is not
 * listed again; listing stops after MAX_CANDIDATES.
 */
function candidatesOf(tool: Tool<object>, levels: number): Candidate[] {
  const ws = new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
  const found = new Map<string, Candidate>();
  const stack: Array<{ node: Located; spelled: string[]; type: string | undefined; level: number; onPath: ReadonlySet<string> }> = [
    { node: { node: ws.root, pointer: "" }, spelled: [], type: undefined, level: 0, onPath: new Set() },
  ];
  let visits = 0;
  while (stack.length > 0 && found.size < MAX_CANDIDATES && visits < MAX_CANDIDATES * 20) {
    const frame = stack.pop()!;
    const next: typeof stack = [];
    for (const member of ws.membersOf(frame.node)) {
      visits++;
      if (member.via.some((def) => frame.onPath.has(def))) continue;
      if (/[.[\]]/.test(member.key)) continue; // not expressible as a selector segment
      const def = member.via[member.via.length - 1];
      const type = def === undefined ? frame.type : ws.originOf(def);
      if (type !== undefined && type.includes(".")) continue;
      const spelled = def === undefined ? [...frame.spelled, member.key] : [type!, member.key];
      const selector = spelled.join(".");
      const required = Array.isArray(member.holder.node.required) && member.holder.node.required.includes(member.key);
      const known = found.get(selector);
      if (known === undefined) {
        const candidate: Candidate = { selector, top: frame.level === 0 && type === undefined, required };
        if (type !== undefined) candidate.type = type;
        if (frame.level > 0) candidate.parent = frame.spelled.join(".");
        found.set(selector, candidate);
      } else if (required) {
        known.required = true;
      }
      if (frame.level + 1 < levels) {
        next.push({ node: { node: member.child, pointer: member.pointer }, spelled, type, level: frame.level + 1, onPath: new Set([...frame.onPath, ...member.via]) });
      }
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return [...found.values()];
}

/** The type selector (or path) naming property `key` of the node at `pointer`. */
function spellingAt(ws: SchemaWorkspace, pointer: string, key: string): string | undefined {
  const tokens = pointer.split("/").slice(1).map(unescapePointerSegment);
  const names: string[] = [];
  let start = 0;
  if (tokens[0] === "$defs" && tokens.length >= 2) {
    names.push(ws.originOf(tokens[1]!));
    start = 2;
  }
  for (let i = start; i < tokens.length; i++) {
    if (tokens[i] === "properties" && i + 1 < tokens.length) names.push(tokens[++i]!);
  }
  return [...names, key].join(".");
}

function costliestFirst(a: { path: string; tokens: number }, b: { path: string; tokens: number }): number {
  return b.tokens - a.tokens || compareText(a.path, b.path);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
