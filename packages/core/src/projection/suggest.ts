import { hasOwn, isSchemaObject, SluiceError, unescapePointerSegment, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { recursionCuts } from "./recursion-cuts.ts";
import { BRANCH_KEYWORDS, SchemaWorkspace, type Located } from "./schema-workspace.ts";
import { locate, parseBranchSegment, parseSelector, selectorText, splitSelector, withSegments, type Location, type Selector } from "./selectors.ts";
import type { Encoding } from "../tokens.ts";
import type { Tool } from "../tool.ts";

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
/** Rounds of the floor over nested unions, the outermost first. */
const MAX_UNION_PASSES = 8;
/**
 * How long (ms) the search holds the event loop before it hands it a turn. A search of a
 * large tool counts tokens for seconds; a server answering other requests meanwhile (and a
 * test runner's own messages) waits no longer than this. Only when the turn comes changes.
 */
const HOLD_MS = 50;

/**
 * The smallest projection that keeps what must stay: every required argument, the --keep
 * selectors (and what contains them), the pagination arguments. Smallest within what the
 * search can drop: every other argument, every cycle cut, every optional member three
 * levels down that saves tokens, and, of each union (`anyOf`/`oneOf`) at the places that
 * stay, every branch but one: the one that leaves the tool smallest, measured by dropping
 * the others at once (branches holding a kept selector all stay; branches of a pagination
 * argument are never dropped). `tokens` is `schemaTokens(tool.derived({ drop }))`.
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
 *     members, and theirs) and the union branches at those places (`body.anyOf[Modal]`, a
 *     whole alternative shape withheld): when one drop brings the tool under budget, the
 *     cheapest such drop (a branch whose members can go instead is not dropped whole);
 *     otherwise the most expensive, and the next ones from the same pricing while none
 *     would fit alone, each measured as it is applied (members first: union branches only
 *     when no member is left to drop);
 *  3. drops other than cycle cuts (the tool stays acyclic) given back while the tool still
 *     fits, smallest first; drops a later one made moot are left out.
 * Members reached through a definition are dropped with a type selector (`IssueFilter.dueDate`):
 * it never splits a shared definition, so the drops commute, and the tool derived with all
 * of them at once is the tool the steps reached one by one (checked at the end; if they
 * ever differ, steps are measured on prefixes of the drop list, so they still add up).
 * Never dropped: required arguments, pagination arguments (the declared ones and
 * PAGINATION_ARGUMENTS at the top level) and their union branches, the `keep` selectors,
 * what contains them and the union branches they lie in, and the last branch of a union
 * (decided before each drop, on the tool as it stands; a required argument keeps at least
 * one of its shapes). A union branch named by position (`oneOf[2]`) is taken only where
 * that position names the same branch in the tool and in the tool the earlier steps left.
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
  /** Property steps below the root of the place it hangs from (0: an argument, or a branch of an argument's union). */
  level: number;
  /** For a union branch (`body.anyOf[Modal]`): the union, named by its place and keyword, and the selectors of the branch's own members. */
  branch?: { union: string; members: string[] };
}

type Count = (tool: Tool<object>) => number;
type Price = (tool: Tool<object>, paths: readonly string[]) => Array<{ path: string; tokens: number }>;
/** A pricer of one tool: what dropping several selectors at once saves (one projection, not a sum). */
type PriceTogether = (tool: Tool<object>) => (paths: readonly string[]) => number;

class Search {
  /** Arguments never dropped: required, pagination, and the first segment of a kept path. */
  readonly topProtected: Set<string>;
  /** Selectors never dropped: the kept ones, what contains them, and their type spellings. */
  readonly protectedSelectors = new Set<string>();
  readonly required: string[];
  /** Arguments a sent body must carry (`dependentRequired`), never dropped either. */
  readonly bodyRequired: string[];
  readonly pagination: string[];
  /** The union branches the last `floor()` kept where it chose one of several, for the message saying what holds the floor up. */
  floorBranches: string[] = [];
  private heldSince = performance.now();

  private constructor(
    readonly tool: Tool<object>,
    readonly options: Checked,
    readonly count: Count,
    readonly price: Price,
    readonly priceTogether: PriceTogether,
    readonly textTokens: (text: string) => number,
  ) {
    const schema = tool.inputSchema;
    const args = isSchemaObject(schema.properties) ? Object.keys(schema.properties) : [];
    this.required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string" && args.includes(name)).sort() : [];
    const size = tool.pagination !== undefined && "pageSizeArg" in tool.pagination ? tool.pagination.pageSizeArg : undefined;
    const declared = tool.pagination === undefined ? [] : [tool.pagination.arg, ...(size === undefined ? [] : [size])];
    this.pagination = args.filter((name) => declared.includes(name) || PAGINATION_ARGUMENTS.includes(name)).sort();
    // What a sent body must carry (an optional body's required members) is kept like a required argument.
    const needed = isSchemaObject(schema.dependentRequired) ? Object.values(schema.dependentRequired).flatMap((names) => (Array.isArray(names) ? names : [])) : [];
    this.bodyRequired = [...new Set(needed.filter((name): name is string => typeof name === "string" && args.includes(name) && !this.required.includes(name)))].sort();
    this.topProtected = new Set([...this.required, ...this.bodyRequired, ...this.pagination]);
    if (options.keep.length > 0) this.protectKept(args);
  }

  static async start(tool: Tool<object>, options: Checked): Promise<Search> {
    // Loaded here: counting needs the tokenizer, which the core's root entry never loads.
    const tokens = await import("../tokens.ts");
    const { pathCosts, ToolPricer } = await import("../cost/path-costs.ts");
    const encoding = options.encoding;
    const count: Count = (t) => tokens.schemaTokens(t, { encoding });
    count(tool); // an unknown encoding fails here, before any search
    const together: PriceTogether = (t) => {
      const pricer = new ToolPricer(t as unknown as Tool, encoding);
      return (paths) => pricer.cost(paths);
    };
    return new Search(tool, options, count, (t, paths) => pathCosts(t as unknown as Tool, paths, encoding), together, (text) => tokens.textTokens(text, { encoding }));
  }

  /** Every kept selector must exist; it, every selector containing it, and the type spellings of those places are protected. */
  private protectKept(args: readonly string[]): void {
    const ws = new SchemaWorkspace(this.tool.inputSchema, this.tool.definitionOrigins);
    for (const raw of this.options.keep) {
      const selector = parseSelector(ws, raw);
      locate(ws, selector, false); // an unknown selector is an error listing the candidates
      if (selector.kind === "path" && args.includes(selector.segments[0]!)) this.topProtected.add(selector.segments[0]!);
      for (let i = 1; i <= selector.segments.length; i++) {
        const partial: Selector = withSegments(ws, selector, selector.segments.slice(0, i));
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

  /**
   * `tool` without `drop`, or undefined when the projection is refused or loses a kept
   * selector. LAST_BRANCH is not a refusal: the search decides up front never to ask for a
   * union's last branch (`sparesABranch`), so that error is its own bug and surfaces.
   */
  derive(tool: Tool<object>, drop: readonly string[]): Tool<object> | undefined {
    let next: Tool<object>;
    try {
      next = tool.derived({ drop });
    } catch (error) {
      if (error instanceof SluiceError && error.code !== "LAST_BRANCH") return undefined;
      throw error;
    }
    return this.keepsHold(next) ? next : undefined;
  }

  /** Whether a candidate may be dropped at all (a branch also needs `branchMayGo` on the tool at hand). */
  droppable(candidate: Candidate): boolean {
    if (candidate.required) return false;
    if (candidate.top && this.topProtected.has(candidate.selector)) return false;
    return !this.protectedSelectors.has(candidate.selector);
  }

  /**
   * Whether a union branch may go from the tool `ws` holds: its union keeps another branch,
   * it is not below a pagination argument (a cursor that can no longer take its type reads
   * one page only), and no kept selector lies in it.
   */
  branchMayGo(ws: SchemaWorkspace, candidate: Candidate): boolean {
    return !this.branchHeld(ws, candidate) && sparesABranch(ws, [candidate.selector]);
  }

  /** Whether a union branch stays whatever the budget: protected, below a pagination argument, or holding a kept selector. */
  branchHeld(ws: SchemaWorkspace, candidate: Candidate): boolean {
    if (!this.droppable(candidate)) return true;
    if (candidate.type === undefined && this.pagination.includes(splitSelector(candidate.selector)[0]!)) return true;
    return this.holdsKept(ws, candidate.selector);
  }

  /**
   * Whether a kept selector lies in the branch `branch` names: it passes through the place
   * holding the union and continues inside that branch (or names the branch itself, by any
   * label). Decided on the places selectors name, so path and type spellings meet.
   */
  holdsKept(ws: SchemaWorkspace, branch: string): boolean {
    if (this.options.keep.length === 0) return false;
    let selector: Selector;
    try {
      selector = parseSelector(ws, branch);
    } catch (error) {
      if (error instanceof SluiceError) return false;
      throw error;
    }
    const prefix = selector.segments.slice(0, -1);
    const atUnion = locations(ws, withSegments(ws, selector, prefix));
    const branchSlots = locations(ws, selector).filter((place) => place.branch !== undefined);
    for (const raw of this.options.keep) {
      let kept: Selector;
      try {
        kept = parseSelector(ws, raw);
      } catch (error) {
        if (error instanceof SluiceError) continue;
        throw error;
      }
      for (let i = 1; i < kept.segments.length; i++) {
        const head = kept.segments.slice(0, i);
        const here = locations(ws, withSegments(ws, kept, head));
        if (!here.some((place) => place.branch === undefined && atUnion.some((other) => other.branch === undefined && other.holder.node === place.holder.node && other.key === place.key))) continue;
        const rest = kept.segments.slice(i);
        if (parseBranchSegment(rest[0]!) !== undefined) {
          const segments = kept.segments.slice(0, i + 1);
          const named = locations(ws, withSegments(ws, kept, segments));
          if (named.some((place) => branchSlots.some((slot) => sameSlot(place, slot)))) return true;
          continue;
        }
        const segments = [...selector.segments, ...rest];
        if (locations(ws, withSegments(ws, selector, segments)).length > 0) return true;
      }
    }
    return false;
  }

  /** Prices selectors on `tool`; one that cannot be priced is left out (it cannot be dropped either). */
  priced(tool: Tool<object>, selectors: readonly string[]): Array<{ path: string; tokens: number }> {
    if (selectors.length === 0) return [];
    let rows: Array<{ path: string; tokens: number }>;
    try {
      rows = this.price(tool, selectors);
    } catch (error) {
      if (!(error instanceof SluiceError) || error.code === "LAST_BRANCH") throw error; // see derive()
      rows = [];
      for (const path of selectors) {
        try {
          rows.push(...this.price(tool, [path]));
        } catch (inner) {
          if (!(inner instanceof SluiceError) || inner.code === "LAST_BRANCH") throw inner;
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

  /** Lets the event loop run once the search has held it for HOLD_MS. */
  async breathe(): Promise<void> {
    if (performance.now() - this.heldSince < HOLD_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.heldSince = performance.now();
  }

  async floor(): Promise<{ tokens: number; drop: string[] }> {
    const drop: string[] = [];
    let current = this.tool;
    const add = async (selectors: readonly string[]) => {
      await this.breathe();
      if (selectors.length === 0) return;
      const all = this.derive(current, selectors);
      if (all !== undefined) {
        drop.push(...selectors);
        current = all;
        return;
      }
      // One by one, leaving out what is refused.
      for (const selector of selectors.slice(0, MAX_STEPS)) {
        await this.breathe();
        const next = this.derive(current, [selector]);
        if (next === undefined) continue;
        drop.push(selector);
        current = next;
      }
    };
    const top = candidatesOf(workspaceOf(current), 1).filter((c) => c.top && this.droppable(c)).map((c) => c.selector);
    await add(top);
    await add(this.cycleCuts(current));
    const inner = candidatesOf(workspaceOf(current), LEVELS).filter((c) => !c.top && c.branch === undefined && this.droppable(c)).map((c) => c.selector);
    await add(this.priced(current, inner).map((row) => row.path).sort());

    // Unions at the places that stay keep one branch each: the one that leaves the tool
    // smallest, measured by dropping all the others at once. The outermost unions first:
    // what a dropped branch held needs no choosing.
    this.floorBranches = [];
    const settled = new Set<string>();
    for (let pass = 0; pass < MAX_UNION_PASSES; pass++) {
      const ws = workspaceOf(current);
      const unions = new Map<string, Candidate[]>();
      for (const c of candidatesOf(ws, LEVELS)) {
        if (c.branch === undefined || settled.has(c.branch.union)) continue;
        unions.set(c.branch.union, [...(unions.get(c.branch.union) ?? []), c]);
      }
      if (unions.size === 0) break;
      const outermost = Math.min(...[...unions.values()].map((branches) => branches[0]!.level));
      for (const union of [...unions.keys()].sort(compareText)) {
        await this.breathe();
        const branches = unions.get(union)!;
        if (branches[0]!.level !== outermost) continue;
        settled.add(union);
        if (branches.length < 2) continue;
        const unionWs = workspaceOf(current);
        const stays = branches.filter((c) => this.branchHeld(unionWs, c));
        let keptBranch: string | undefined;
        let goes: Candidate[];
        if (stays.length > 0) {
          goes = branches.filter((c) => !stays.includes(c));
        } else {
          const priceTogether = this.priceTogether(current);
          let best: { selector: string; saved: number } | undefined;
          for (const keep of branches) {
            const others = branches.filter((c) => c !== keep).map((c) => c.selector);
            // Keeping a null-only branch alone is not keeping the argument (sparesABranch).
            if (!sparesABranch(unionWs, others)) continue;
            let saved: number;
            try {
              saved = priceTogether(others);
            } catch (error) {
              if (!(error instanceof SluiceError) || error.code === "LAST_BRANCH") throw error;
              continue;
            }
            if (best === undefined || saved > best.saved || (saved === best.saved && keep.selector < best.selector)) best = { selector: keep.selector, saved };
          }
          if (best === undefined) continue;
          keptBranch = best.selector;
          goes = branches.filter((c) => c.selector !== keptBranch);
        }
        const selectors = inDropOrder(goes.map((c) => c.selector));
        if (selectors.length === 0 || !sparesABranch(unionWs, selectors)) continue;
        const next = this.derive(current, selectors);
        if (next === undefined || !this.sameAsAtOnce(next, [...drop, ...selectors])) continue;
        drop.push(...selectors);
        current = next;
        if (keptBranch !== undefined) this.floorBranches.push(keptBranch);
      }
    }
    const tokens = this.count(this.tool.derived({ drop }));
    return { tokens, drop };
  }

  /**
   * Whether `tool`, reached step by step, is the tool derived from the start with `drop` at
   * once. Only a branch named by position can tell them apart (a position means the tool
   * the drop applies to), so only such drops are checked.
   */
  sameAsAtOnce(tool: Tool<object>, drop: readonly string[]): boolean {
    if (!drop.some(isPositional)) return true;
    let atOnce: Tool<object>;
    try {
      atOnce = this.tool.derived({ drop });
    } catch (error) {
      if (error instanceof SluiceError) return false;
      throw error;
    }
    return atOnce.canonical() === tool.canonical();
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
      // A union may have lost its other branches since this one was listed: decided again on the tool as it stands.
      if (lastBranchSegment(selector) !== undefined && !sparesABranch(workspaceOf(current), [selector])) {
        banned.add(selector);
        return false;
      }
      let next = this.derive(current, [selector]);
      if (next !== undefined && !this.sameAsAtOnce(next, [...steps.map((step) => step.selector), selector])) next = undefined;
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
      await this.breathe();
      if (apply(row.path)) cuts.add(row.path);
    }

    // 2. Optional branches.
    for (let round = 0; round < MAX_ROUNDS && tokens > budget && steps.length < MAX_STEPS; round++) {
      await this.breathe();
      const ws = workspaceOf(current);
      const candidates = candidatesOf(ws, LEVELS).filter((c) => this.droppable(c) && !banned.has(c.selector) && (c.branch === undefined || this.branchMayGo(ws, c)));
      const rows = this.priced(current, candidates.map((c) => c.selector));
      if (rows.length === 0) break;
      // A branch with droppable members inside is not dropped whole while those members can
      // be dropped instead: dropping them costliest first until one fits keeps more of it.
      // A union branch counts as holding the members it declares; the place holding a union
      // does not count as holding its branches (an optional argument may go whole).
      const parents = new Set<string>();
      const listed = new Set(candidates.map((c) => c.selector));
      for (const c of candidates) {
        if (c.branch === undefined) {
          if (c.parent !== undefined) parents.add(c.parent);
        } else if (c.branch.members.some((member) => listed.has(member))) {
          parents.add(c.selector);
        }
      }
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
      // Members before union branches: a branch is a whole request shape the model loses,
      // while the members it holds can often go instead and leave the shape usable.
      const members = open.filter((row) => lastBranchSegment(row.path) === undefined);
      for (const row of members.length > 0 ? members : open) {
        if (applied.length >= MAX_PER_ROUND || steps.length >= MAX_STEPS) break;
        if (tokens - row.tokens <= budget) break; // close enough to price again
        if (applied.some((done) => row.path.startsWith(done + ".")) || !stillReached(row.path, candidates, reached)) continue;
        await this.breathe();
        if (apply(row.path)) applied.push(row.path);
      }
      if (applied.length === 0 && open.every((row) => banned.has(row.path))) break;
    }

    let drop = steps.map((step) => step.selector);
    let finalSteps = steps;
    if (tokens > budget) {
      // The search did not get there (its bounds, or drops that interact); the floor fits.
      drop = floor.drop;
      finalSteps = await this.stepsOf(drop);
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
      await this.breathe();
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
    if (gaveBack) finalSteps = await this.stepsOf(drop);

    // The figure is the tool derived with exactly this drop list.
    const finalTokens = drop.length === 0 ? before : this.count(tool.derived({ drop }));
    const stepsTotal = finalSteps.reduce((sum, step) => sum + step.saved, 0);
    if (before - stepsTotal !== finalTokens) finalSteps = await this.prefixStepsOf(drop, before);
    if (finalTokens > budget) {
      // Only if one-shot and step-by-step derivations disagree; the floor is measured one-shot.
      return result(floor.drop, floor.tokens, await this.prefixStepsOf(floor.drop, before));
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
      if (drop.some((other) => other !== selector && selector.startsWith(other + "."))) return true;
      const first = selector.slice(0, selector.includes(".") ? selector.indexOf(".") : undefined);
      if (hasOwn(args, first)) return false;
      return selector.includes(".") && !reached.has(first);
    });
  }

  /** Steps of a drop list applied one by one, each measured on the tool the previous ones left. */
  async stepsOf(drop: readonly string[]): Promise<Suggestion["steps"]> {
    const steps: Suggestion["steps"] = [];
    let current = this.tool;
    let tokens = this.count(current);
    for (const selector of drop) {
      await this.breathe();
      current = current.derived({ drop: [selector] });
      const after = this.count(current);
      steps.push({ selector, saved: tokens - after });
      tokens = after;
    }
    return steps;
  }

  /** Steps measured as prefixes of the drop list, each derived from the tool at once (they add up to the final figure exactly). */
  async prefixStepsOf(drop: readonly string[], before: number): Promise<Suggestion["steps"]> {
    const steps: Suggestion["steps"] = [];
    let tokens = before;
    for (const [i, selector] of drop.entries()) {
      await this.breathe();
      const after = this.count(this.tool.derived({ drop: drop.slice(0, i + 1) }));
      steps.push({ selector, saved: tokens - after });
      tokens = after;
    }
    return steps;
  }

  unreachable(budget: number, floor: { tokens: number; drop: string[] }): BudgetUnreachableError {
    const holds: string[] = [];
    if (this.required.length > 0) holds.push(`required argument${this.required.length === 1 ? "" : "s"} ${this.required.join(", ")}`);
    if (this.bodyRequired.length > 0) holds.push(`body member${this.bodyRequired.length === 1 ? "" : "s"} a sent body requires ${this.bodyRequired.join(", ")}`);
    if (this.pagination.length > 0) holds.push(`pagination argument${this.pagination.length === 1 ? "" : "s"} ${this.pagination.join(", ")}`);
    if (this.options.keep.length > 0) holds.push(`kept ${this.options.keep.join(", ")}`);
    if (this.floorBranches.length > 0) {
      const shown = this.floorBranches.slice(0, 4).join(", ");
      const more = this.floorBranches.length > 4 ? ` and ${this.floorBranches.length - 4} more` : "";
      holds.push(`of each union among them one branch, the one that costs least (${shown}${more})`);
    }
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
 * selector of the place they hang from, extended; and the branches of every union
 * (`anyOf`/`oneOf`) at those places, as branch selectors (`body.anyOf[Modal]`,
 * `Type.member.oneOf[1]`). Every branch is listed, a union's last one too: whether it may
 * go is decided by `sparesABranch`, not here. A member that repeats a cycle is not listed
 * again; listing stops after MAX_CANDIDATES.
 */
function candidatesOf(ws: SchemaWorkspace, levels: number): Candidate[] {
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
      const def = member.via[member.via.length - 1];
      const type = def === undefined ? frame.type : ws.originOf(def);
      const spelled = def === undefined ? [...frame.spelled, member.key] : [type!, member.key];
      const selector = spell(ws, type, spelled);
      const required = Array.isArray(member.holder.node.required) && member.holder.node.required.includes(member.key);
      const known = found.get(selector);
      if (known === undefined) {
        const candidate: Candidate = { selector, top: frame.level === 0 && type === undefined, required, level: frame.level };
        if (type !== undefined) candidate.type = type;
        if (frame.level > 0) candidate.parent = spell(ws, frame.type, frame.spelled);
        found.set(selector, candidate);
        const at = { node: member.child, pointer: member.pointer };
        for (const branch of unionBranches(ws, at, spelled, type, frame.level)) if (!found.has(branch.selector)) found.set(branch.selector, branch);
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

/**
 * The branches of the unions at one place (the schema of the member spelled `spelled`),
 * reached as selectors reach them: through refs, array items and other unions. Each
 * carries the selectors of its own members, spelled as `candidatesOf` spells them.
 */
function unionBranches(ws: SchemaWorkspace, at: Located, spelled: readonly string[], type: string | undefined, level: number): Candidate[] {
  const out: Candidate[] = [];
  const place = spell(ws, type, spelled);
  for (const container of ws.findNodes(at, hasUnion, false)) {
    for (const keyword of BRANCH_KEYWORDS) {
      const list = container.node[keyword];
      if (!Array.isArray(list)) continue;
      list.forEach((element, index) => {
        const label = ws.branchLabel(element, index);
        if (/[[\]]/.test(label)) return; // not expressible as a branch segment
        const members = new Set<string>();
        if (isSchemaObject(element)) {
          for (const member of ws.membersOf({ node: element, pointer: `${container.pointer}/${keyword}/${index}` })) {
            const def = member.via[member.via.length - 1];
            const memberType = def === undefined ? type : ws.originOf(def);
            members.add(def === undefined ? spell(ws, type, [...spelled, member.key]) : spell(ws, memberType, [memberType!, member.key]));
          }
        }
        const candidate: Candidate = {
          selector: `${place}.${keyword}[${label}]`,
          top: false,
          required: false,
          level,
          parent: place,
          branch: { union: `${place}|${keyword}`, members: [...members] },
        };
        if (type !== undefined) candidate.type = type;
        out.push(candidate);
      });
    }
  }
  return out;
}

function hasUnion(node: JsonSchemaObject): boolean {
  return BRANCH_KEYWORDS.some((keyword) => Array.isArray(node[keyword]));
}

/**
 * Whether dropping `selectors` together leaves every union they reach at least one
 * branch: the one check that keeps the search from ever asking for a union's last branch
 * (the projection would refuse it with LAST_BRANCH, which the search treats as its own bug).
 * A branch that admits only null does not count: `anyOf: [boolean, null]` without its
 * boolean is an argument the model can only send empty, so the member goes whole instead.
 */
function sparesABranch(ws: SchemaWorkspace, selectors: readonly string[]): boolean {
  const taken = new Map<unknown[], Set<number>>();
  for (const raw of selectors) {
    for (const place of placesOf(ws, raw)) {
      if (place.branch === undefined) continue;
      const list = place.branch.container[place.branch.keyword] as unknown[];
      const indexes = taken.get(list) ?? new Set<number>();
      indexes.add(place.branch.index);
      taken.set(list, indexes);
    }
  }
  for (const [list, indexes] of taken) {
    if (!list.some((branch, index) => !indexes.has(index) && !onlyNull(branch))) return false;
  }
  return true;
}

/** A branch whose only value is null (`type: "null"`, `const: null`, `enum: [null]`). */
function onlyNull(branch: unknown): boolean {
  if (!isSchemaObject(branch)) return false;
  if (branch.type === "null") return true;
  if (hasOwn(branch, "const") && branch.const === null) return true;
  return Array.isArray(branch.enum) && branch.enum.length > 0 && branch.enum.every((value) => value === null);
}

/** The places a selector names in `ws`, none when it names nothing (a drop of it is refused as unknown). */
function placesOf(ws: SchemaWorkspace, raw: string): Location[] {
  let selector: Selector;
  try {
    selector = parseSelector(ws, raw);
  } catch (error) {
    if (error instanceof SluiceError) return [];
    throw error;
  }
  return locations(ws, selector);
}

/** Branch drops in an order where each names, in the tool the previous ones left, what it names in the tool they start from: by position, the highest first. */
function inDropOrder(selectors: readonly string[]): string[] {
  const position = (selector: string): number => (isPositional(selector) ? Number(lastBranchSegment(selector)!.label) : -1);
  return [...selectors].sort((a, b) => position(b) - position(a) || compareText(a, b));
}

function workspaceOf(tool: Tool<object>): SchemaWorkspace {
  return new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
}

/** The places a parsed selector names, none when it names nothing. */
function locations(ws: SchemaWorkspace, selector: Selector): Location[] {
  try {
    return locate(ws, selector, false);
  } catch (error) {
    if (error instanceof SluiceError) return [];
    throw error;
  }
}

function sameSlot(a: Location, b: Location): boolean {
  return a.branch !== undefined && b.branch !== undefined && a.branch.container === b.branch.container && a.branch.keyword === b.branch.keyword && a.branch.index === b.branch.index;
}

/** The branch segment a selector ends in, if any. */
function lastBranchSegment(selector: string): { keyword: string; label: string } | undefined {
  const segments = splitSelector(selector);
  try {
    return parseBranchSegment(segments[segments.length - 1]!);
  } catch {
    return undefined;
  }
}

/** A branch named by its position (`oneOf[2]`): positions mean the tool the drop is applied to, so the search checks what it names. */
function isPositional(selector: string): boolean {
  const segment = lastBranchSegment(selector);
  return segment !== undefined && /^[0-9]+$/.test(segment.label);
}

/** A candidate's spelling: `spelled` starts with its type when it has one. */
function spell(ws: SchemaWorkspace, type: string | undefined, spelled: readonly string[]): string {
  return type === undefined ? selectorText(ws, "path", undefined, spelled) : selectorText(ws, "type", type, spelled.slice(1));
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
  return start === 2 ? selectorText(ws, "type", names[0], [...names.slice(1), key]) : selectorText(ws, "path", undefined, [...names, key]);
}

function costliestFirst(a: { path: string; tokens: number }, b: { path: string; tokens: number }): number {
  return b.tokens - a.tokens || compareText(a.path, b.path);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
