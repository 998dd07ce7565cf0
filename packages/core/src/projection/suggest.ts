import { hasOwn, SluiceError, withinLimits } from "@sluice/schema";
import { Search, type Checked } from "./search.ts";
import type { SuggestOptions, Suggestion } from "./suggestion.ts";
import type { Tool } from "../tool.ts";

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
