import { hasOwn, isSchemaObject, SluiceError } from "@sluice/schema";
import { BudgetUnreachableError } from "./budget-unreachable-error.ts";
import { candidatesOf, compareText, costliestFirst, inDropOrder, isPositional, lastBranchSegment, locations, sameSlot, sparesABranch, spellingAt, stillReached, typesOf, workspaceOf, type Candidate } from "./drop-candidates.ts";
import { recursionCuts } from "./recursion-cuts.ts";
import { SchemaWorkspace } from "./schema-workspace.ts";
import { locate, parseBranchSegment, parseSelector, splitSelector, withSegments, type Selector } from "./selectors.ts";
import type { Suggestion } from "./suggestion.ts";
import type { Encoding } from "../tokens.ts";
import type { Tool } from "../tool.ts";

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
/** Bounds on the work: pricing rounds, drops applied per round and in all, drops given back. */
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

/** suggestProjection's options once checked (suggest.ts), with the defaults filled in. */
export interface Checked {
  budget: number;
  keep: string[];
  encoding: Encoding;
}

type Count = (tool: Tool<object>) => number;
type Price = (tool: Tool<object>, paths: readonly string[]) => Array<{ path: string; tokens: number }>;
/** A pricer of one tool: what dropping several selectors at once saves (one projection, not a sum). */
type PriceTogether = (tool: Tool<object>) => (paths: readonly string[]) => number;

/** One tool's search: `floor()` for projectionFloor, `suggest(budget)` for suggestProjection (suggest.ts says how it searches). */
export class Search {
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
