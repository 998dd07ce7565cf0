/**
 * `paths --by-cost` against one `schemaTokens` of the same tool, and what importing a pack
 * costs. Writes bench/PATHS.md.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-paths.ts [--out bench/PATHS.md] [--rounds 5]
 *
 * Pricing is timed in process (one child process per case, so that the packs the other
 * cases load do not share its heap): per round, one `schemaTokens(tool)`, one
 * `tool.paths(prefix, { byCost: true })` (the stand-in pricing) and the reference
 * (derive the tool without each path and count it whole: the algorithm `paths` used
 * before), interleaved, garbage collected before each (children run with --expose-gc),
 * medians over the rounds. The first `paths` call of the process
 * (what the CLI runs once) is reported beside them. The CLI itself is run too, as a
 * whole process, and its JSON output is checked against the in-process result.
 * Pack imports: a fresh process per import, medians over the rounds.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NODE_SOURCE = ["--expose-gc", "--conditions=@sluice/source", "--import", "tsx"];
/** Collects the previous step's garbage before a timed step (children run with --expose-gc), so no step pays for another's. */
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface Case {
  pack: "linear" | "github" | "stripe";
  /** A tool name, or undefined for the pack's fattest tool by schemaTokens. */
  tool?: string;
  /** A prefix, or undefined for the tool's fattest argument. */
  prefix?: string;
}
const CASES: Case[] = [
  { pack: "linear", tool: "issues_list_full", prefix: "filter" },
  { pack: "github" },
  { pack: "stripe" },
];
const PACKS = ["linear", "github", "stripe", "github-rest", "slack", "gmail", "gdocs", "gsheets", "notion"];

interface PricingResult {
  pack: string;
  tool: string;
  prefix: string;
  paths: number;
  tokens: number;
  schemaTokensMs: number[];
  firstPathsMs: number;
  pathsMs: number[];
  referenceMs: number[];
  /** The same steps in CPU time of the process (user + system). */
  schemaTokensCpu: number[];
  pathsCpu: number[];
  referenceCpu: number[];
  identical: boolean;
  result: Array<{ path: string; tokens?: number }>;
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length % 2 === 1 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function pricingChild(spec: Case, rounds: number): Promise<PricingResult> {
  const { schemaTokens } = await import("@sluice/core/tokens");
  const { referencePathCost } = await import("../packages/core/src/cost/path-costs.ts");
  // allTools: the cases include *_full twins (the fattest tool of a pack is often one).
  const { allTools: tools } = (await import(`@sluice/pack-${spec.pack}`)) as { allTools: readonly import("@sluice/core").Tool[] };
  const tool =
    spec.tool === undefined
      ? [...tools].sort((a, b) => schemaTokens(b) - schemaTokens(a) || (a.name < b.name ? -1 : 1))[0]!
      : tools.find((t) => t.name === spec.tool)!;
  const tokens = schemaTokens(tool);
  collect();
  let prefix = spec.prefix;
  let firstPathsMs = Number.NaN;
  let result: Array<{ path: string; tokens?: number }>;
  if (prefix === undefined) {
    // The first priced call of the process prices the top level and names the fattest argument.
    const start = performance.now();
    const top = await tool.paths({ byCost: true });
    firstPathsMs = performance.now() - start;
    prefix = top[0]!.path;
    result = await tool.paths(prefix, { byCost: true });
  } else {
    const start = performance.now();
    result = await tool.paths(prefix, { byCost: true });
    firstPathsMs = performance.now() - start;
  }
  const paths = result.map((p) => p.path);
  const reference = () => {
    const total = schemaTokens(tool);
    return paths
      .map((path) => ({ path, tokens: referencePathCost(tool, path, "o200k_base", total) }))
      .sort((a, b) => b.tokens - a.tokens || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  };
  const identical = JSON.stringify(reference()) === JSON.stringify(result);
  const schemaTokensMs: number[] = [];
  const pathsMs: number[] = [];
  const referenceMs: number[] = [];
  const schemaTokensCpu: number[] = [];
  const pathsCpu: number[] = [];
  const referenceCpu: number[] = [];
  const timed = async (run: () => unknown, wall: number[], cpu: number[]) => {
    collect();
    const cpuStart = cpuMs();
    const start = performance.now();
    await run();
    wall.push(performance.now() - start);
    cpu.push(cpuMs() - cpuStart);
  };
  for (let round = 0; round < rounds; round++) {
    await timed(() => schemaTokens(tool), schemaTokensMs, schemaTokensCpu);
    await timed(() => tool.paths(prefix, { byCost: true }), pathsMs, pathsCpu);
    await timed(reference, referenceMs, referenceCpu);
  }
  return { pack: spec.pack, tool: tool.name, prefix, paths: paths.length, tokens, schemaTokensMs, firstPathsMs, pathsMs, referenceMs, schemaTokensCpu, pathsCpu, referenceCpu, identical, result };
}

async function importChild(pack: string): Promise<{ ms: number; tools: number; narrowing: number; tokenizer: boolean }> {
  const { createRequire } = await import("node:module");
  const core = await import("@sluice/core");
  let narrowing = 0;
  const project = core.Tool.prototype.project;
  core.Tool.prototype.project = function (this: import("@sluice/core").Tool, options, projectOptions) {
    if (options.drop !== undefined || options.keep !== undefined || options.pin !== undefined) narrowing++;
    return project.call(this, options, projectOptions);
  } as typeof project;
  const start = performance.now();
  const { tools } = (await import(`@sluice/pack-${pack}`)) as { tools: ReadonlyArray<{ name: string }> };
  const names = tools.map((tool) => tool.name);
  const elapsed = performance.now() - start;
  const tokenizer = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("gpt-tokenizer"));
  return { ms: elapsed, tools: names.length, narrowing, tokenizer };
}

function child<T>(args: string[]): T {
  const run = spawnSync(process.execPath, [...NODE_SOURCE, SELF, ...args], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`child ${args.join(" ")} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as T;
}

function cliRun(pack: string, tool: string, prefix: string): { ms: number; output: Array<{ path: string; tokens?: number }> } {
  const start = performance.now();
  const run = spawnSync(process.execPath, ["--conditions=@sluice/source", "packages/cli/bin/sluice.mjs", "paths", pack, tool, prefix, "--by-cost", "--json"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const elapsed = performance.now() - start;
  if (run.status !== 0) throw new Error(`sluice paths failed:\n${run.stderr}`);
  return { ms: elapsed, output: JSON.parse(run.stdout) as Array<{ path: string; tokens?: number }> };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: "string", default: "bench/PATHS.md" }, rounds: { type: "string", default: "5" }, child: { type: "string" }, arg: { type: "string" } } });
  const rounds = Number(values.rounds);
  if (values.child === "pricing") {
    process.stdout.write(JSON.stringify(await pricingChild(JSON.parse(values.arg!) as Case, rounds)) + "\n");
    return;
  }
  if (values.child === "import") {
    process.stdout.write(JSON.stringify(await importChild(values.arg!)) + "\n");
    return;
  }

  const load = loadavg()[0]!;
  const pricing = CASES.map((spec) => child<PricingResult>(["--child", "pricing", "--arg", JSON.stringify(spec), "--rounds", String(rounds)]));
  const cli = pricing.map((p) => {
    const times: number[] = [];
    let same = true;
    for (let round = 0; round < rounds; round++) {
      const run = cliRun(p.pack, p.tool, p.prefix);
      times.push(run.ms);
      same &&= JSON.stringify(run.output) === JSON.stringify(p.result);
    }
    return { ms: median(times), same };
  });
  const imports = PACKS.map((pack) => {
    const runs = Array.from({ length: rounds }, () => child<{ ms: number; tools: number; narrowing: number; tokenizer: boolean }>(["--child", "import", "--arg", pack]));
    return { pack, ms: median(runs.map((r) => r.ms)), tools: runs[0]!.tools, narrowing: Math.max(...runs.map((r) => r.narrowing)), tokenizer: runs.some((r) => r.tokenizer) };
  });

  const lines: string[] = [];
  lines.push("# paths --by-cost against one schemaTokens; pack import", "");
  lines.push("```sh", "node --conditions=@sluice/source --import tsx scripts/bench-paths.ts   # writes bench/PATHS.md", "```", "");
  lines.push(
    `Generated on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus()[0]?.model.trim() ?? "unknown CPU"} (${cpus().length} threads), ` +
      `load average ${load.toFixed(1)} at the start (the machine is shared; ratios are taken within one process, so both sides see the same load). Do not edit by hand; rerun the command.`,
    "",
  );
  lines.push(
    "In-process timing, one child process per tool, medians of " + rounds + " interleaved rounds (wall clock, garbage collected before each step): `schemaTokens(tool)` once; " +
      "`tool.paths(prefix, { byCost: true })` (stand-in pricing, packages/core/src/cost); the reference, which derives the tool without each path " +
      "and counts it whole (what `paths` did before). *first call* is the first priced `paths` call of the process, what one CLI run pays. " +
      "*identical*: the two give the same numbers in the same order. The CLI line is the whole process `sluice paths <pack> <tool> <prefix> --by-cost --json` " +
      "from source (tsx), median of " + rounds + ", its output checked against the in-process result.",
    "",
  );
  lines.push("| tool | prefix | paths | tool tokens | schemaTokens | paths --by-cost | ratio | first call (ratio) | reference (before) | ratio before | identical | CLI process | CLI output same |");
  lines.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |");
  pricing.forEach((p, i) => {
    const st = median(p.schemaTokensMs);
    const fast = median(p.pathsMs);
    const reference = median(p.referenceMs);
    lines.push(
      `| ${p.pack} \`${p.tool}\` | \`${p.prefix}\` | ${p.paths} | ${p.tokens} | ${ms(st)} ms | ${ms(fast)} ms | **${(fast / st).toFixed(1)}x** | ${ms(p.firstPathsMs)} ms (${(p.firstPathsMs / st).toFixed(1)}x) | ${ms(reference)} ms | ${(reference / st).toFixed(1)}x | ${p.identical ? "yes" : "**no**"} | ${ms(cli[i]!.ms)} ms | ${cli[i]!.same ? "yes" : "**no**"} |`,
    );
  });
  lines.push("");
  lines.push(
    "The same steps in CPU time of the process (user + system of all its threads, background garbage collection included; medians). " +
      "A cross-check when other processes hold the cores and wall clock wanders:",
    "",
  );
  lines.push("| tool | schemaTokens | paths --by-cost | ratio | reference (before) | ratio before |");
  lines.push("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const p of pricing) {
    const st = median(p.schemaTokensCpu);
    const fast = median(p.pathsCpu);
    const reference = median(p.referenceCpu);
    lines.push(`| ${p.pack} \`${p.tool}\` | ${ms(st)} ms | ${ms(fast)} ms | **${(fast / st).toFixed(1)}x** | ${ms(reference)} ms | ${(reference / st).toFixed(1)}x |`);
  }
  lines.push("");
  lines.push(
    "The GitHub and Stripe rows take the pack's fattest tool by `schemaTokens` and its fattest argument by cost; for those the *first call* also prices the top level " +
      "(to find that argument), so it covers two `paths` calls.",
    "",
  );
  lines.push("## Importing a pack", "");
  lines.push(
    "A fresh process per import (`import(\"@sluice/pack-<name>\")` and listing the tool names), from source through tsx, median of " + rounds + ". " +
      "*narrowing projections* counts `project` calls with drop, keep or pin during import and listing (curated tools are deferred: `curate` builds on first use); " +
      "*tokenizer loaded* says whether any token-count module was loaded. The import path (define-pack.ts, curate.ts, with-curated.ts, tool.ts) is unchanged by the " +
      "pricing work, so before and after are the same code; the numbers are today's.",
    "",
  );
  lines.push("| pack | tools | import + list | narrowing projections | tokenizer loaded |");
  lines.push("| --- | ---: | ---: | ---: | --- |");
  for (const row of imports) lines.push(`| ${row.pack} | ${row.tools} | ${ms(row.ms)} ms | ${row.narrowing} | ${row.tokenizer ? "yes" : "no"} |`);
  lines.push("");
  writeFileSync(values.out!, lines.join("\n"));
  process.stdout.write(lines.join("\n") + "\n");
}

await main();
