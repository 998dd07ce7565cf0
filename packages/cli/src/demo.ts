import { egressMap, formatEgressMap } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { parseCommand, usageError } from "./args.ts";
import { surveyTools, table } from "./inspect.ts";
import { findTool, loadTools } from "./load-tools.ts";
import type { Io } from "./io.ts";

/** Within each sibling group named, only these members stay: two arguments, a filter on team key and state type. */
const NARROW_KEEP = ["first", "after", "filter.team", "filter.team.key", "filter.state", "filter.state.type"];

/** `sluice demo`: takes no arguments. */
export async function demoCommand(args: readonly string[], io: Io): Promise<number> {
  const { positionals } = parseCommand("demo", args);
  if (positionals.length > 0) throw usageError("demo", "demo takes no arguments");
  return runDemo(io);
}

/**
 * The main job on the vendored Linear pack: survey the fattest tools, price the
 * fattest one branch by branch, narrow it in code, and print the egress map of the
 * result. Everything is computed here, offline; nothing is hard-coded.
 */
export async function runDemo(io: Io): Promise<number> {
  const out = (text: string) => io.stdout.write(text);
  const tools = await loadTools("linear", io.cwd);
  const survey = surveyTools(tools);
  const total = survey.reduce((sum, row) => sum + row.tokens, 0);
  out(`== sluice survey linear --top 10   (${tools.length} tools, ${total} schema tokens in all, o200k_base)\n`);
  out(table(["tokens", "tool"], survey.slice(0, 10).map((r) => [String(r.tokens), r.tool])));

  const fattest = findTool(tools, survey[0]!.tool, "linear");
  out(`\n== sluice paths linear ${fattest.name} --by-cost   (tokens saved by removing each argument)\n`);
  const costs = await fattest.paths({ byCost: true });
  out(table(["tokens", "path"], costs.map((c) => [String(c.tokens), c.path])));

  const top = costs[0]!;
  out(`\n${top.path} carries ${((100 * (top.tokens ?? 0)) / survey[0]!.tokens).toFixed(1)}% of ${fattest.name}.\n`);

  // Linear's issues query, the tool agents use most: narrowed in code.
  const issues = findTool(tools, "issues_list_full", "linear");
  const before = schemaTokens(issues);
  const withoutFilter = schemaTokens(issues.derived({ name: "issues_without_filter", drop: ["filter"] }));
  out(`\n== issues_list_full: ${before} tokens; without its filter: ${withoutFilter} tokens (${(before / withoutFilter).toFixed(0)}x fewer)\n`);
  const narrowed = issues.derived({
    name: "issues_by_team",
    description: "List issues of one team, optionally by workflow state type. Paginate with first/after.",
    keep: NARROW_KEEP,
  });
  const narrowedTokens = schemaTokens(narrowed);
  out(`\n== issues_list_full.derived({ name: "issues_by_team", keep: ${JSON.stringify(NARROW_KEEP)} })\n`);
  out(`${before} -> ${narrowedTokens} tokens (${(before / narrowedTokens).toFixed(0)}x fewer); the operation it sends no longer declares what was dropped:\n\n`);
  out(narrowed.binding.kind === "graphql" ? narrowed.binding.document.split("\n").slice(0, 2).join("\n") + "\n  ...\n" : "");

  out(`\n== sluice egress (issues_by_team)\n`);
  const map = formatEgressMap(egressMap([narrowed])).split("\n");
  // Show what the projection withheld first; the generator's own withholdings follow.
  const withheld = map.filter((line) => line.startsWith("  - ")).sort((a, b) => Number(!a.endsWith(": projection")) - Number(!b.endsWith(": projection")));
  out(map.filter((line) => !line.startsWith("  - ")).join("\n"));
  out(`  ... and ${withheld.length} withheld paths (- lines), e.g.\n${withheld.slice(0, 5).join("\n")}\n`);
  return 0;
}
