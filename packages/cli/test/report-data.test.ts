/**
 * What `sluice report` knows about a pack (buildReport), checked against the numbers
 * the rest of sluice gives for the same thing: `paths({ byCost })` for branches,
 * `recursionCuts` and a real projection for cycles, `schemaTokens` for tools.
 */
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { LONG, sweep } from "../../../test/support/tier.ts";
import { recursionCuts, Tool, withCurated, type HttpBinding, type JsonSchemaObject } from "@sluice/core";
import { PieceCounter, ToolPricer } from "@sluice/core/cost";
import { schemaTokens, textTokens } from "@sluice/core/tokens";
import { canonicalJson, defsOf } from "@sluice/schema";
import { loadTools, workspacePacks } from "../src/load-tools.ts";
import { buildReport } from "../src/report/build-report.ts";
import type { ReportBranch, ReportData, ReportTool } from "../src/report/report-data.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function toolOf(data: ReportData, name: string): ReportTool {
  const tool = data.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no ${name} in the report`);
  return tool;
}

/** Every branch of a tool, depth first. */
function allBranches(branches: readonly ReportBranch[]): ReportBranch[] {
  const out: ReportBranch[] = [];
  const stack = [...branches];
  while (stack.length > 0) {
    const branch = stack.pop()!;
    out.push(branch);
    stack.push(...(branch.children ?? []));
  }
  return out;
}

/** The contract's order: tokens descending, then path. */
function isBranchOrder(branches: readonly ReportBranch[]): boolean {
  return branches.every((b, i) => i === 0 || branches[i - 1]!.tokens > b.tokens || (branches[i - 1]!.tokens === b.tokens && branches[i - 1]!.path < b.path));
}

describe("the Linear report", () => {
  let tools: Tool<object>[];
  let data: ReportData;
  beforeAll(async () => {
    tools = await loadTools("linear", ROOT);
    data = await buildReport(tools, { pack: "linear" });
  });
  const tool = (name: string) => tools.find((t) => t.name === name)!;
  /** The report of issues_list_full alone (with its curated twin): built once, for two tests. */
  let oneTool: Promise<ReportData> | undefined;
  const issuesListFullReport = () => (oneTool ??= buildReport(tools, { pack: "linear", tool: "issues_list_full" }));

  it("lists every tool with its schemaTokens, the *_full filter tools fattest", () => {
    expect(data.version).toBe(1);
    expect(data.totals.tools).toBe(tools.length);
    expect(data.tools).toHaveLength(tools.length);
    for (const name of ["issues_list_full", "issues_list", "viewer"]) {
      if (tools.some((t) => t.name === name)) expect(toolOf(data, name).tokens).toBe(schemaTokens(tool(name)));
    }
    expect(data.totals.tokens).toBe(data.tools.reduce((sum, t) => sum + t.tokens, 0));
    const top = data.tools.slice(0, 10);
    for (const t of top) {
      expect(t.name).toMatch(/_full$/);
      expect(t.kind).toBe("full");
    }
    for (let i = 1; i < data.tools.length; i++) expect(data.tools[i - 1]!.tokens).toBeGreaterThanOrEqual(data.tools[i]!.tokens);
  });

  it("prices issues_list_full's arguments as paths --by-cost does, filter the largest", async () => {
    const report = toolOf(data, "issues_list_full");
    expect(report.priced).toBe(true);
    expect(report.endpoint).toBe("POST graphql query issues");
    expect(report.branches[0]!.path).toBe("filter");
    const byCost = await tool("issues_list_full").paths({ byCost: true });
    expect(report.branches.map((b) => ({ path: b.path, tokens: b.tokens }))).toEqual(byCost);
    expect(report.frame).toBe(report.tokens - byCost.reduce((sum, p) => sum + p.tokens!, 0));
  });

  it("opens filter into IssueFilter's members as type selectors, at paths --by-cost prices, the rest summed", async () => {
    const filter = toolOf(data, "issues_list_full").branches[0]!;
    const members = await tool("issues_list_full").paths("IssueFilter", { byCost: true });
    expect(filter.children!.map((b) => ({ path: b.path, tokens: b.tokens }))).toEqual(members.slice(0, filter.children!.length));
    expect(filter.rest).toEqual({
      paths: members.length - filter.children!.length,
      tokens: members.slice(filter.children!.length).reduce((sum, p) => sum + p.tokens!, 0),
      // Named, so that the page's search finds what paths() lists past the per-level limit (IssueFilter.team, filter.team).
      selectors: members.slice(filter.children!.length).map((p) => p.path),
    });
    expect(filter.rest!.selectors).toContain("IssueFilter.team");
    expect(filter.children!.every((b) => b.selector === b.path && b.status === "visible")).toBe(true);
  });

  it("marks exactly the visible branches derived({ drop }) refuses, with its message, and no other", () => {
    let marked = 0;
    for (const entry of data.tools) {
      for (const branch of allBranches(entry.branches)) {
        if (branch.status !== "visible") continue;
        let refusal: string | undefined;
        if (branch.dropRefused !== undefined || branch.path === "input") {
          try {
            tool(entry.name).derived({ drop: [branch.selector] });
          } catch (error) {
            if ((error as { code?: string }).code === "REQUIRED_DROPPED") refusal = (error as Error).message;
          }
          expect(branch.dropRefused, `${entry.name} ${branch.path}`).toBe(refusal);
        }
        if (branch.dropRefused !== undefined) marked++;
      }
    }
    expect(marked).toBeGreaterThan(10);
    const create = allBranches(toolOf(data, "custom_view_create_full").branches).find((b) => b.path === "input")!;
    expect(create.dropRefused).toBe('Cannot withhold "input": it is required; pin it to a value instead.');
  });

  it("shows a curated tool's withheld branches, priced on its *_full twin", async () => {
    const report = toolOf(data, "comments_list");
    expect(report.kind).toBe("curated");
    expect(report.source).toBe("comments_list_full");
    const withheld = allBranches(report.branches).filter((b) => b.status === "withheld");
    expect(withheld.length).toBeGreaterThan(0);
    const twinPrices = new Map((await tool("comments_list_full").paths("CommentFilter", { byCost: true })).map((p) => [p.path, p.tokens]));
    for (const branch of withheld) {
      expect(branch.reason).toBe("projection");
      expect(tool("comments_list").withheld.some((w) => w.path === branch.path)).toBe(true);
      expect(branch.tokens).toBe(twinPrices.get(branch.path));
    }
    // The visible ones are priced on the curated tool itself.
    const top = await tool("comments_list").paths({ byCost: true });
    expect(report.branches.filter((b) => b.status === "visible").map((b) => ({ path: b.path, tokens: b.tokens }))).toEqual(top);
  });

  it("lists every filter member issues_list withholds, at what the member costs in issues_list_full", async () => {
    const filter = toolOf(data, "issues_list").branches.find((b) => b.path === "filter")!;
    const withheld = filter.children!.filter((b) => b.status === "withheld");
    const expected = tool("issues_list")
      .withheld.map((w) => w.path)
      .filter((path) => /^filter\.[^.]+$/.test(path));
    expect(withheld.map((b) => b.path).sort()).toEqual([...expected].sort());
    // A path selector through the twin's recursive IssueFilter would price a split; the member is priced as the type's.
    const twin = new Map((await tool("issues_list_full").paths("IssueFilter", { byCost: true })).map((p) => [p.path, p.tokens]));
    for (const branch of withheld) expect(branch.tokens).toBe(twin.get(branch.path.replace(/^filter\./, "IssueFilter.")));
    expect(filter.children!.filter((b) => b.status === "visible").length).toBeLessThanOrEqual(12);
  });

  it("lists each curated tool beside its twin with the egress map's withheld lines", () => {
    const curated = data.curated.find((c) => c.name === "issues_list")!;
    expect(curated.full).toBe("issues_list_full");
    expect(curated.tokens).toBe(schemaTokens(tool("issues_list")));
    expect(curated.fullTokens).toBe(schemaTokens(tool("issues_list_full")));
    expect(curated.saved).toBe(curated.fullTokens - curated.tokens);
    expect(curated.withheldLines).toContain("- filter.and: projection");
    expect(curated.withheldLines).toHaveLength(tool("issues_list").withheld.length);
    for (let i = 1; i < data.curated.length; i++) expect(data.curated[i - 1]!.saved).toBeGreaterThanOrEqual(data.curated[i]!.saved);
  });

  it("finds IssueFilter's cycle, cut by recursionCuts, reached by the *_full tools", () => {
    const cycle = data.cycles.find((c) => c.types.includes("IssueFilter"))!;
    expect(cycle.types).toEqual([...cycle.types].sort());
    const full = tool("issues_list_full");
    const types = new Set(cycle.types);
    expect(cycle.cuts).toEqual(recursionCuts(full).filter((cut) => types.has(cut.slice(0, cut.lastIndexOf(".")))));
    expect(cycle.tools).toContain("issues_list_full");
    expect(cycle.tools).not.toContain("issues_list");
    expect(cycle.tools.every((name) => name.endsWith("_full"))).toBe(true);
    expect(cycle.tokensSaved).toBeGreaterThan(0);
    expect(data.cycles[0]).toBe(cycle); // the 47-type cycle saves the most
  });

  it("sums a cycle's savings by real projections", async () => {
    // One tool and its curated twin: the cycle's saving is that tool's alone.
    const one = await issuesListFullReport();
    expect(one.tools.map((t) => t.name).sort()).toEqual(["issues_list", "issues_list_full"]);
    const full = tool("issues_list_full");
    for (const cycle of one.cycles) {
      const types = new Set(cycle.types);
      const cuts = recursionCuts(full).filter((cut) => types.has(cut.slice(0, cut.lastIndexOf("."))));
      expect(cycle.tokensSaved).toBe(schemaTokens(full) - schemaTokens(full.derived({ drop: cuts })));
    }
    expect(one.cycles.length).toBeGreaterThan(1);
  });

  it("counts definitions shared by several tools, one copy times the tools", () => {
    expect(data.sharedTypes.length).toBeGreaterThan(0);
    for (const shared of data.sharedTypes.slice(0, 20)) {
      expect(shared.tools.length).toBeGreaterThanOrEqual(2);
      expect(shared.tokensTotal).toBe(shared.tokensEach * shared.tools.length);
      const body = defsOf(tool(shared.tools[0]!).inputSchema)[shared.name]!;
      expect(shared.tokensEach).toBe(textTokens(`${JSON.stringify(shared.name)}:${canonicalJson(body)}`));
      for (const name of shared.tools) expect(canonicalJson(defsOf(tool(name).inputSchema)[shared.name])).toBe(canonicalJson(body));
    }
    for (let i = 1; i < data.sharedTypes.length; i++) expect(data.sharedTypes[i - 1]!.tokensTotal).toBeGreaterThanOrEqual(data.sharedTypes[i]!.tokensTotal);
  });

  it("keeps every branch list in the contract's order", () => {
    for (const t of data.tools) {
      expect(isBranchOrder(t.branches)).toBe(true);
      for (const branch of allBranches(t.branches)) if (branch.children !== undefined) expect(isBranchOrder(branch.children)).toBe(true);
      if (!t.priced) expect(t.branches).toEqual([]);
    }
  });

  it("is deterministic: a second build gives the same JSON", async () => {
    // A build of the Linear report takes seconds: vitest's RPC gets a turn before this one.
    await new Promise((resolve) => setImmediate(resolve));
    if (LONG) {
      const again = await buildReport(tools, { pack: "linear" });
      expect(JSON.stringify(again)).toBe(JSON.stringify(data));
      return;
    }
    // The quick tier builds again the one-tool report of the test above, not the whole pack's:
    // the same parts in play (a curated tool beside its twin, branches opened into types,
    // withheld ones priced on the twin, several cycles with their savings) for a part of the CPU.
    const again = await buildReport(tools, { pack: "linear", tool: "issues_list_full" });
    expect(JSON.stringify(again)).toBe(JSON.stringify(await issuesListFullReport()));
  });

  it("with a budget, suggests a projection for every tool above it, or records the floor", async () => {
    // A curated tool and its twin, both above the budget. The quick tier takes notifications_list
    // (about 1,400 tokens each): the same two searches as issues_list's (3,600 and 29,500
    // tokens, the long tier's), each a part of the CPU.
    const curated = LONG ? "issues_list" : "notifications_list";
    const fits = await buildReport(tools, { pack: "linear", tool: curated, budget: 1000 });
    expect(fits.budget).toBe(1000);
    expect(fits.suggestions.map((s) => s.tool)).toEqual([`${curated}_full`, curated]);
    for (const suggestion of fits.suggestions) {
      expect(suggestion.error).toBeUndefined();
      expect(suggestion.tokens).toBeLessThanOrEqual(1000);
      expect(suggestion.tokens).toBe(schemaTokens(tool(suggestion.tool).derived({ drop: suggestion.drop, keep: suggestion.keep })));
    }
    const below = await buildReport(tools, { pack: "linear", tool: "viewer", budget: 1 });
    expect(below.suggestions).toHaveLength(1);
    const [floor] = below.suggestions;
    expect(floor).toMatchObject({ tool: "viewer", budget: 1, error: "BUDGET_UNREACHABLE", steps: [] });
    expect(floor!.floor).toBe(floor!.tokens);
    expect(floor!.tokens).toBeGreaterThan(1);
    expect(floor!.tokens).toBe(schemaTokens(tool("viewer").derived({ drop: floor!.drop })));
    // Without a budget there is none.
    expect(data.budget).toBeUndefined();
    expect(data.suggestions).toEqual([]);
  });

  it("names an unknown tool with TOOL_NOT_FOUND", async () => {
    await expect(buildReport(tools, { pack: "linear", tool: "isues_list" })).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
  });
});

describe("pricing several drops at once (cycle savings)", () => {
  /** The definition: derive the tool without every path and count it whole. */
  const reference = (tool: Tool<object>, paths: readonly string[]): number | string => {
    try {
      return schemaTokens(tool) - schemaTokens(tool.project({ drop: paths }, { allowRequiredDrop: true }));
    } catch (error) {
      return (error as Error).message;
    }
  };
  const priced = (pricer: ToolPricer, paths: readonly string[]): number | string => {
    try {
      return pricer.cost(paths);
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each([
    ["linear", "issues_list_full", "IssueFilter"],
    ["linear", "issues_list", "filter"],
    ["stripe", "post_issuing_cardholders_full", "spending_controls"],
  ])("%s %s: any set of its arguments and %s's members costs what the projection saves", async (pack, name, below) => {
    const tools = await loadTools(pack, ROOT);
    const tool = tools.find((t) => t.name === name)!;
    const candidates = [...(await tool.paths()).map((p) => p.path), ...(await tool.paths(below)).map((p) => p.path)];
    const counter = new PieceCounter("o200k_base");
    const pricer = new ToolPricer(tool as unknown as Tool, "o200k_base", counter);
    const stats = { fast: 0, reference: 0 };
    await fc.assert(
      fc.asyncProperty(fc.subarray(candidates, { minLength: 2, maxLength: 5 }), async (paths) => {
        expect(priced(pricer, paths)).toEqual(reference(tool, paths));
        pricer.cost([paths[0]!], stats);
      }),
      // The same seed: the quick tier's runs are the first of the long tier's (each run
      // derives the tool whole for the reference, most of the file's time on linear).
      { seed: 15, numRuns: LONG ? 20 : 6 },
    );
    expect(stats.fast).toBeGreaterThan(0); // the stand-in priced them, not the reference
  });
});

describe("a small pack with a pinned and a derived tool", () => {
  const binding: HttpBinding = { kind: "http", method: "POST", path: "/items", parameters: [], body: { mediaType: "application/json", encoding: "json", fields: { team: "team", title: "title", notes: "notes" } } };
  const schema: JsonSchemaObject = {
    type: "object",
    properties: { team: { type: "string", description: "The team that owns the item." }, title: { type: "string" }, notes: { $ref: "#/$defs/Notes" } },
    required: ["team", "title"],
    $defs: { Notes: { type: "object", properties: { text: { type: "string" }, tags: { type: "array", items: { type: "string" } } } } },
  };
  const generated = Tool.create({ name: "items_create", description: "Create an item.", inputSchema: schema, binding });
  const curated = generated.derived({ pin: { team: "T1" } });
  const derived = generated.derived({ name: "items_create_short", drop: ["notes"] });
  const tools = [...withCurated([generated], [curated]), derived];

  it("marks the pin, prices it on the twin, and finds the derived tool's source", async () => {
    const data = await buildReport(tools, { pack: "small" });
    const report = toolOf(data, "items_create");
    expect(report.kind).toBe("curated");
    expect(report.source).toBe("items_create_full");
    const pinned = report.branches.find((b) => b.path === "team")!;
    expect(pinned.status).toBe("pinned");
    expect(pinned.reason).toBe("pinned");
    const twin = tools.find((t) => t.name === "items_create_full")!;
    expect(pinned.tokens).toBe((await twin.paths({ byCost: true })).find((p) => p.path === "team")!.tokens);
    expect(report.egress).toEqual({ visible: 4, withheld: 0, pinned: 1 });
    expect(toolOf(data, "items_create_full").kind).toBe("full");
    const short = toolOf(data, "items_create_short");
    expect(short).toMatchObject({ kind: "derived", source: "items_create_full" });
    expect(short.branches.find((b) => b.path === "notes")).toMatchObject({ status: "withheld", reason: "projection" });
    expect(data.curated).toEqual([
      { name: "items_create", full: "items_create_full", tokens: schemaTokens(curated), fullTokens: schemaTokens(twin), saved: schemaTokens(twin) - schemaTokens(curated), withheldLines: ['= team: "T1"'] },
    ]);
  });
});

describe("every pack of the repository", () => {
  // The quick tier builds one GraphQL pack's (GitHub) and one OpenAPI pack's (Gmail, with its
  // curated twins): the same code for every pack (Linear's is built above, a pinned tool's in
  // the small pack); the long tier builds every pack's, Notion's among them.
  const QUICK = new Set(["github", "gmail"]);
  it.each(sweep(workspacePacks(), (pack) => QUICK.has(pack)))("%s builds a report", async (pack) => {
    const tools = await loadTools(pack, ROOT);
    const data = await buildReport(tools, { pack, depth: 1 });
    expect(data.tools).toHaveLength(tools.length);
    expect(data.tools.some((t) => t.priced)).toBe(true);
    expect(() => JSON.stringify(data)).not.toThrow();
  });
});
