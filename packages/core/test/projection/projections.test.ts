/**
 * Projection rules (DESIGN.md, "Projections") on real Linear tools from the vendored
 * pack. Each rule and each error code is exercised on the tools users will narrow.
 */
import { describe, expect, it } from "vitest";
import { isSluiceError, type Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { canonicalJson, cyclicComponents, defsOf, refGraph, resolvedDepth } from "@sluice/schema";
import { generatedTools as linear } from "@sluice/pack-linear";
import { errorOf } from "../../../../test/support/error-of.ts";

const issues = linear.issuesList as Tool<object>;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
  return undefined;
}

function properties(node: unknown): Record<string, unknown> {
  return ((node as { properties?: Record<string, unknown> }).properties ?? {}) as Record<string, unknown>;
}

/** Every visible argument path of a tool, cycles cut, to a bounded depth. */
async function visiblePaths(tool: Tool<object>, depth = 4): Promise<Set<string>> {
  return new Set((await tool.paths({ depth })).map((p) => p.path));
}

describe("derived() on Linear issues_list", () => {
  it("derived({}) is the identity", () => {
    const same = issues.derived({});
    expect(same.canonical()).toBe(issues.canonical());
    expect(same.binding).toEqual(issues.binding);
    expect(same.withheld).toEqual(issues.withheld);
  });

  it("drop removes a branch, collects its definitions, and the document stops declaring it", () => {
    const narrowed = issues.derived({ name: "issues_without_filter", drop: ["filter"] });
    expect(properties(narrowed.inputSchema)).not.toHaveProperty("filter");
    expect(Object.keys(defsOf(narrowed.inputSchema)).some((name) => name.includes("Filter"))).toBe(false);
    expect(narrowed.binding.kind === "graphql" && narrowed.binding.document).not.toMatch(/\$filter\b/);
    expect(narrowed.binding.kind === "graphql" && narrowed.binding.variables).not.toHaveProperty("filter");
    expect(narrowed.withheld).toContainEqual({ path: "filter", reason: "projection" });
    expect(schemaTokens(narrowed) * 100).toBeLessThanOrEqual(schemaTokens(issues));
  });

  it("inputs Linear documents as [INTERNAL] are withheld by the generator, and say so", () => {
    expect(properties(issues.inputSchema)).not.toHaveProperty("sort");
    expect(issues.withheld).toContainEqual({ path: "sort", reason: "internal" });
    expect(issues.withheld).toContainEqual({ path: "IssueFilter.ageTime", reason: "internal" });
  });

  it("paths --by-cost attributes at least 95% of the tokens to the filter branch", async () => {
    const costs = await issues.paths({ byCost: true });
    expect(costs[0]!.path).toBe("filter");
    expect(costs[0]!.tokens! / schemaTokens(issues)).toBeGreaterThanOrEqual(0.95);
    const sorted = [...costs].sort((a, b) => b.tokens! - a.tokens!);
    expect(costs.map((c) => c.tokens)).toEqual(sorted.map((c) => c.tokens));
  });

  it("paths below a recursive type are priced as type selectors, and cost tokens rather than save them as paths", async () => {
    const byType = await issues.paths("IssueFilter", { byCost: true });
    expect(byType.map((p) => p.path)).toContain("IssueFilter.and");
    expect(byType.every((p) => p.path.startsWith("IssueFilter.") && p.tokens! > 0)).toBe(true);
    const byPath = await issues.paths("filter", { byCost: true });
    expect(byPath.find((p) => p.path === "filter.and")!.tokens).toBeLessThan(0); // split copy-on-write
  });

  it("a type selector removes the combinators at every depth, including in split copies", () => {
    const narrowed = issues.derived({ drop: ["filter.assignee.name", "IssueFilter.and", "IssueFilter.or"] });
    const defs = defsOf(narrowed.inputSchema);
    const issueFilters = Object.keys(defs).filter((name) => narrowed.definitionOrigins.get(name) === "IssueFilter" || name === "IssueFilter");
    expect(issueFilters.length).toBeGreaterThanOrEqual(2); // the original and the copy split at filter.assignee
    for (const name of issueFilters) {
      expect(properties(defs[name])).not.toHaveProperty("and");
      expect(properties(defs[name])).not.toHaveProperty("or");
    }
  });

  it("type selectors on a self-recursive filter leave an acyclic schema", () => {
    const tool = linear.releaseStagesList as Tool<object>;
    expect(resolvedDepth(tool.inputSchema)).toBe(Infinity);
    const narrowed = tool.derived({ drop: ["ReleaseStageFilter.and", "ReleaseStageFilter.or"] });
    expect(cyclicComponents(refGraph(narrowed.inputSchema))).toEqual([]);
    expect(resolvedDepth(narrowed.inputSchema)).toBeLessThan(Infinity);
  });

  it("a path through a shared definition splits it copy-on-write: only that location changes", async () => {
    const narrowed = issues.derived({ drop: ["filter.assignee.name"] });
    const paths = await visiblePaths(narrowed, 4);
    expect(paths.has("filter.assignee.name")).toBe(false);
    expect(paths.has("filter.assignee.email")).toBe(true);
    expect(paths.has("filter.creator.name")).toBe(true); // same type, other location
    expect(paths.has("filter.and.assignee.name")).toBe(true); // same type one level down the cycle
    // Splitting copies shared definitions, so this projection makes the tool larger.
    expect(schemaTokens(narrowed)).toBeGreaterThan(schemaTokens(issues));
    const again = issues.derived({ drop: ["filter.assignee.name"] });
    expect(again.canonical()).toBe(narrowed.canonical());
  });

  it("keep narrows each named sibling group and leaves other groups alone", () => {
    const narrowed = issues.derived({ keep: ["first", "filter.title", "filter.team", "filter.team.key"] });
    const root = properties(narrowed.inputSchema);
    expect(Object.keys(root).sort()).toEqual(["filter", "first"]);
    const defs = defsOf(narrowed.inputSchema);
    const filter = defs[(root.filter as { $ref: string }).$ref.split("/").pop()!];
    expect(Object.keys(properties(filter)).sort()).toEqual(["team", "title"]);
    expect(cyclicComponents(refGraph(narrowed.inputSchema))).toEqual([]);
    expect(narrowed.withheld.filter((w) => w.path === "filter.and")).toHaveLength(1);
  });

  it("compositions only narrow: a child never shows a path its parent withheld", async () => {
    const parent = issues.derived({ drop: ["orderBy", "IssueFilter.and", "IssueFilter.or"] });
    const child = parent.derived({ keep: ["first", "filter"], pin: { first: 25 } });
    const parentPaths = await visiblePaths(parent, 3);
    for (const path of await visiblePaths(child, 3)) expect(parentPaths.has(path)).toBe(true);
    expect(codeOf(() => parent.derived({ keep: ["orderBy"] }))).toBe("UNKNOWN_SELECTOR");
    expect(codeOf(() => child.derived({ pin: { first: 10 } as never }))).toBe("UNKNOWN_SELECTOR");
    expect(child.withheld.map((w) => w.path)).toEqual(expect.arrayContaining(["orderBy", "IssueFilter.and", "first"]));
    expect(schemaTokens(child)).toBeLessThanOrEqual(schemaTokens(parent));
  });

  it("pin validates the value, removes the argument, records it, and keeps sending it", () => {
    const pinned = issues.derived({ pin: { first: 20, orderBy: "updatedAt" } });
    expect(properties(pinned.inputSchema)).not.toHaveProperty("first");
    expect(pinned.pins).toEqual({ first: 20, orderBy: "updatedAt" });
    expect(pinned.withheld).toContainEqual({ path: "first", reason: "pinned", value: 20 });
    expect(pinned.binding.kind === "graphql" && pinned.binding.document).toMatch(/\$first: Int/);
    const invalid = errorOf(() => issues.derived({ pin: { first: "ten" } as never }));
    expect(invalid.code).toBe("PIN_INVALID");
    expect(codeOf(() => issues.derived({ pin: { orderBy: "sideways" } as never }))).toBe("PIN_INVALID");
  });
});

describe("selector errors never fail open", () => {
  it.each([
    ["a typo at the top level", "filtr", "UNKNOWN_SELECTOR", "filter"],
    ["a typo below", "filter.titel", "UNKNOWN_SELECTOR", "filter.title"],
    ["a typo in a type selector", "IssueFilter.andd", "UNKNOWN_SELECTOR", "IssueFilter.and"],
    ["a path below a leaf", "first.x", "UNKNOWN_SELECTOR", undefined],
    ["a malformed selector", "filter..and", "UNKNOWN_SELECTOR", undefined],
    ["a bare name found in many places", "eq", "AMBIGUOUS_SELECTOR", undefined],
  ])("%s: %s -> %s", (_name, selector, code, candidate) => {
    const error = errorOf(() => issues.derived({ drop: [selector] }));
    expect(error.code).toBe(code);
    if (candidate !== undefined) expect(error.candidates).toContain(candidate);
    if (code === "AMBIGUOUS_SELECTOR") expect(error.candidates!.length).toBeGreaterThan(1);
  });

  it("a bare name that names exactly one path is accepted", () => {
    const create = linear.issueCreate as Tool<object>;
    const bare = create.derived({ drop: ["subscriberIds"] });
    const full = create.derived({ drop: ["input.subscriberIds"] });
    expect(bare.canonical()).toBe(full.canonical());
    expect(bare.withheld).toContainEqual({ path: "input.subscriberIds", reason: "projection" });
  });

  it("required fields cannot be withheld, only pinned (top level)", () => {
    const create = linear.issueCreate as Tool<object>;
    expect(errorOf(() => create.derived({ drop: ["input"] })).code).toBe("REQUIRED_DROPPED");
    expect(errorOf(() => create.derived({ drop: ["input.teamId"] })).code).toBe("REQUIRED_DROPPED");
    expect(errorOf(() => create.derived({ keep: ["input.title"] })).code).toBe("REQUIRED_DROPPED");
    const pinned = create.derived({ pin: { input: { teamId: "team-1", title: "Pinned" } } as never });
    expect(properties(pinned.inputSchema)).toEqual({});
  });

  it("rejects bad names and options with codes", () => {
    expect(codeOf(() => issues.derived({ name: "has spaces" }))).toBe("INVALID_NAME");
    expect(codeOf(() => issues.derived({ name: "x".repeat(65) }))).toBe("INVALID_NAME");
    expect(codeOf(() => issues.derived({ drop: "filter" as never }))).toBe("INVALID_OPTION");
    expect(codeOf(() => issues.derived({ drop: ["first"], pin: { first: 1 } }))).toBe("INVALID_OPTION");
    expect(codeOf(() => issues.derived({ pin: { nope: 1 } as never }))).toBe("UNKNOWN_SELECTOR");
  });
});

describe("projection invariants", () => {
  it("tokens after a drop never exceed tokens before unless a definition was split", async () => {
    const total = schemaTokens(issues);
    for (const { path } of await issues.paths({ depth: 1 })) {
      const narrowed = issues.derived({ drop: [path] });
      expect(schemaTokens(narrowed)).toBeLessThan(total);
    }
  });

  it("projected schemas are byte-stable", () => {
    const a = issues.derived({ keep: ["filter.title", "filter.team.key", "filter.team"] });
    const b = issues.derived({ keep: ["filter.team", "filter.team.key", "filter.title"] });
    expect(canonicalJson(a.inputSchema)).toBe(canonicalJson(b.inputSchema));
  });
});
