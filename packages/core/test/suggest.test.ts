/**
 * suggestProjection on real pack tools: the result fits the budget, its figure is the
 * tool derived with exactly its drop list and counted, each step's saving is the real
 * difference, and nothing that must stay (required and pagination arguments, --keep
 * selectors) is dropped. Below the floor it is a coded error naming the floor.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BudgetUnreachableError, isSluiceError, projectionFloor, suggestProjection, type Suggestion, type Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { tools as linearTools } from "@sluice/pack-linear";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { tools as gsheetsTools } from "@sluice/pack-gsheets";

const SLOW = 240_000;
/** Pagination argument names the search protects at the top level (a sample of its list). */
const PAGINATION = ["first", "after", "last", "before", "limit", "starting_after", "ending_before", "cursor", "page", "per_page"];
const PACKS = { "github-rest": githubRestTools, stripe: stripeTools, gsheets: gsheetsTools } as const;

function named(tools: readonly Tool<object>[], name: string): Tool<object> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

/** The fattest tool of a pack by schemaTokens (ties by name). */
function fattest(tools: readonly Tool<object>[]): Tool<object> {
  let best: { tool: Tool<object>; tokens: number } | undefined;
  for (const tool of tools) {
    const tokens = schemaTokens(tool);
    if (best === undefined || tokens > best.tokens || (tokens === best.tokens && tool.name < best.tool.name)) best = { tool, tokens };
  }
  return best!.tool;
}

function argumentsOf(tool: Tool<object>): string[] {
  const properties = tool.inputSchema.properties;
  return properties !== null && typeof properties === "object" ? Object.keys(properties) : [];
}

function requiredOf(tool: Tool<object>): string[] {
  const required = tool.inputSchema.required;
  return Array.isArray(required) ? (required as string[]) : [];
}

/**
 * Everything a suggestion promises, checked by deriving and counting again: within budget,
 * the figure is the tool derived with exactly drop and keep, each step's saving is the
 * difference its drop makes on the tool the previous steps left, the steps add up, and
 * every required argument (and the given ones) are still arguments.
 */
function expectHonest(tool: Tool<object>, suggestion: Suggestion, budget: number, mustStay: readonly string[] = []): Tool<object> {
  expect(suggestion.tool).toBe(tool.name);
  expect(suggestion.budget).toBe(budget);
  expect(suggestion.tokens).toBeLessThanOrEqual(budget);
  const derived = tool.derived({ drop: suggestion.drop, keep: suggestion.keep });
  expect(suggestion.tokens).toBe(schemaTokens(derived));
  expect(suggestion.steps.map((step) => step.selector)).toEqual(suggestion.drop);
  let current = tool;
  let tokens = schemaTokens(tool);
  for (const step of suggestion.steps) {
    const next = current.derived({ drop: [step.selector] });
    const after = schemaTokens(next);
    expect({ selector: step.selector, saved: step.saved }).toEqual({ selector: step.selector, saved: tokens - after });
    expect(step.saved).toBeGreaterThan(0);
    current = next;
    tokens = after;
  }
  expect(tokens).toBe(suggestion.tokens);
  const args = argumentsOf(derived);
  for (const arg of [...requiredOf(tool), ...mustStay]) expect(args).toContain(arg);
  return derived;
}

describe("suggestProjection on real tools", () => {
  it(
    "Linear issues_list_full at 1000 tokens: fits, keeps first/after/last/before, figures measured",
    async () => {
      const tool = named(linearTools, "issues_list_full");
      const before = schemaTokens(tool);
      expect(before).toBeGreaterThan(20_000);
      const suggestion = await suggestProjection(tool, { budget: 1000 });
      const derived = expectHonest(tool, suggestion, 1000, ["first", "after", "last", "before"]);
      expect(suggestion.keep).toEqual([]);
      // It keeps part of the filter rather than dropping it whole: the cycles are cut, members go.
      expect(suggestion.drop).not.toContain("filter");
      expect(argumentsOf(derived)).toContain("filter");
      expect(suggestion.drop).toContain("IssueFilter.and");
      // Close to the budget: what it keeps is most of what the budget allows.
      expect(suggestion.tokens).toBeGreaterThan(900);
    },
    SLOW,
  );

  it.each(["github-rest", "stripe", "gsheets"] as const)(
    "the fattest %s tool at 40% of its tokens",
    async (pack) => {
      const tool = fattest(PACKS[pack]);
      const before = schemaTokens(tool);
      const budget = Math.floor(before * 0.4);
      const suggestion = await suggestProjection(tool, { budget });
      expectHonest(tool, suggestion, budget);
      expect(suggestion.steps.length).toBeGreaterThan(0);
      expect(suggestion.tokens).toBeLessThan(before);
    },
    SLOW,
  );

  it("a tool already within the budget: nothing dropped, its own figure", async () => {
    const tool = named(linearTools, "issues_list");
    const tokens = schemaTokens(tool);
    expect(await suggestProjection(tool, { budget: tokens })).toEqual({ tool: "issues_list", budget: tokens, tokens, drop: [], keep: [], steps: [] });
  });

  it(
    "--keep: a kept selector and what contains it stay, even when that costs a cycle cut",
    async () => {
      const tool = named(linearTools, "issues_list_full");
      const keep = ["filter.assignee", "IssueFilter.and"];
      const suggestion = await suggestProjection(tool, { budget: 1500, keep });
      const derived = expectHonest(tool, suggestion, 1500, ["filter"]);
      for (const selector of ["filter", "filter.assignee", "IssueFilter.and", "IssueFilter.assignee"]) expect(suggestion.drop).not.toContain(selector);
      const paths = (await derived.paths("filter")).map((row) => row.path);
      expect(paths).toContain("filter.assignee");
      expect(paths).toContain("filter.and");
    },
    SLOW,
  );
});

describe("the floor", () => {
  it(
    "below it: BUDGET_UNREACHABLE naming the tool, the budget and the floor; at it: a fit",
    async () => {
      const tool = named(linearTools, "issues_list_full");
      const floor = await projectionFloor(tool, {});
      expect(floor.tokens).toBe(schemaTokens(tool.derived({ drop: floor.drop })));
      // What must stay is still there.
      const args = argumentsOf(tool.derived({ drop: floor.drop }));
      for (const arg of ["first", "after", "last", "before"]) expect(args).toContain(arg);
      const error = await suggestProjection(tool, { budget: floor.tokens - 1 }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(isSluiceError(error, "BUDGET_UNREACHABLE")).toBe(true);
      // The error carries the floor it measured: the same projection projectionFloor gives.
      expect(error).toBeInstanceOf(BudgetUnreachableError);
      expect((error as BudgetUnreachableError).floor).toEqual(floor);
      const message = (error as Error).message;
      expect(message).toContain("issues_list_full");
      expect(message).toContain(`${floor.tokens - 1} tokens`);
      expect(message).toContain(`is ${floor.tokens} tokens`);
      expect(message).toContain("pagination arguments after, before, first, last");
      const atFloor = await suggestProjection(tool, { budget: floor.tokens });
      expectHonest(tool, atFloor, floor.tokens, ["first", "after"]);
    },
    SLOW,
  );

  it("a required argument holds it up and is named", async () => {
    const tool = fattest(stripeTools);
    const required = requiredOf(tool);
    expect(required.length).toBeGreaterThan(0);
    const floor = await projectionFloor(tool, {});
    const derived = tool.derived({ drop: floor.drop });
    expect(floor.tokens).toBe(schemaTokens(derived));
    for (const arg of required) expect(argumentsOf(derived)).toContain(arg);
    const error = await suggestProjection(tool, { budget: floor.tokens - 1 }).catch((thrown: unknown) => thrown);
    expect(isSluiceError(error, "BUDGET_UNREACHABLE")).toBe(true);
    expect((error as Error).message).toContain(`required arguments ${[...required].sort().join(", ")}`);
  });
});

describe("options", () => {
  it.each([
    ["zero", 0],
    ["negative", -5],
    ["fractional", 10.5],
    ["not a number", Number.NaN],
  ])("a %s budget is INVALID_OPTION", async (_name, budget) => {
    const error = await suggestProjection(named(linearTools, "issues_list"), { budget }).catch((thrown: unknown) => thrown);
    expect(isSluiceError(error, "INVALID_OPTION")).toBe(true);
  });

  it("an unknown --keep selector is UNKNOWN_SELECTOR with candidates, never ignored", async () => {
    const error = await suggestProjection(named(linearTools, "issues_list_full"), { budget: 1000, keep: ["filter.asignee"] }).catch((thrown: unknown) => thrown);
    expect(isSluiceError(error, "UNKNOWN_SELECTOR")).toBe(true);
    expect((error as { candidates?: string[] }).candidates).toContain("filter.assignee");
  });

  it("the same input gives the same suggestion", async () => {
    const tool = fattest(githubRestTools);
    const budget = Math.floor(schemaTokens(tool) / 2);
    expect(await suggestProjection(tool, { budget })).toEqual(await suggestProjection(tool, { budget }));
  });

  it("cl100k_base counts in that encoding", async () => {
    const tool = fattest(githubRestTools);
    const budget = Math.floor(schemaTokens(tool, { encoding: "cl100k_base" }) / 2);
    const suggestion = await suggestProjection(tool, { budget, encoding: "cl100k_base" });
    expect(suggestion.tokens).toBe(schemaTokens(tool.derived({ drop: suggestion.drop }), { encoding: "cl100k_base" }));
    expect(suggestion.tokens).toBeLessThanOrEqual(budget);
  });
});

describe("any budget (seeded property)", () => {
  it(
    "the result fits and drops no required argument, or the budget is below the floor",
    async () => {
      const tools = [
        fattest(githubRestTools),
        fattest(stripeTools),
        named(linearTools, "issues_list"),
        named(stripeTools, "get_customers"),
        named(gsheetsTools, "sheets_spreadsheets_values_batch_update_by_data_filter_full"),
      ];
      const floors = new Map<Tool<object>, number>();
      for (const tool of tools) floors.set(tool, (await projectionFloor(tool, {})).tokens);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: tools.length - 1 }), fc.double({ min: 0.01, max: 1.1, noNaN: true }), async (index, share) => {
          const tool = tools[index]!;
          const budget = Math.max(1, Math.round(schemaTokens(tool) * share));
          const floor = floors.get(tool)!;
          let suggestion: Suggestion;
          try {
            suggestion = await suggestProjection(tool, { budget });
          } catch (error) {
            expect(isSluiceError(error, "BUDGET_UNREACHABLE")).toBe(true);
            expect(budget).toBeLessThan(floor);
            return;
          }
          expect(budget).toBeGreaterThanOrEqual(floor);
          expect(suggestion.tokens).toBeLessThanOrEqual(budget);
          const derived = tool.derived({ drop: suggestion.drop });
          expect(suggestion.tokens).toBe(schemaTokens(derived));
          const paging = argumentsOf(tool).filter((arg) => PAGINATION.includes(arg));
          for (const arg of [...requiredOf(tool), ...paging]) expect(argumentsOf(derived)).toContain(arg);
          expect(suggestion.tokens + suggestion.steps.reduce((sum, step) => sum + step.saved, 0)).toBe(schemaTokens(tool));
        }),
        { seed: 20261130, numRuns: 24 },
      );
    },
    SLOW,
  );
});
