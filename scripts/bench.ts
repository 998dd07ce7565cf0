/**
 * Benchmarks, compared side by side in one run; writes bench/RESULTS.md (overwritten).
 *   pnpm bench   (= node --import tsx scripts/bench.ts)
 * Not a test: nothing here asserts on wall-clock time. It exits 1 only when the two
 * tokenizers disagree on a count, since then the throughput comparison means nothing.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { clearMergeCache, encode as gptTokenizerEncode } from "gpt-tokenizer/encoding/o200k_base";
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";
import { buildGraphQLPackIR, emitPackSources, loadGraphQLSchema } from "../generators/graphql/src/index.ts";
import { definePack, type PackIR } from "../packages/core/src/index.ts";
import { canonicalJson } from "../packages/schema/src/index.ts";

const COMMAND = "pnpm bench   (node --import tsx scripts/bench.ts)";
const repoRoot = fileURLToPath(new URL("../", import.meta.url));
// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);
const resultsFile = new URL("../bench/RESULTS.md", import.meta.url);

// ---------------------------------------------------------------- helpers

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds taken by `run`, and what it returned. */
async function timed<T>(run: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

async function timesOf(runs: number, run: () => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(run)).ms);
  return times;
}

const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1)) + " ms";
const ratio = (value: number): string => value.toFixed(2) + "x";
const int = (value: number): string => value.toLocaleString("en-US");

function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Problems that make the run invalid (exit 1), collected so RESULTS.md still records them. */
const failures: string[] = [];

// ---------------------------------------------------------------- generation

const SPECS = [
  { pack: "linear", file: "linear/schema.graphql" },
  { pack: "github", file: "github-graphql/schema.graphql" },
] as const;
const GENERATION_RUNS = 5;

async function generation(): Promise<{ markdown: string; linearIR: PackIR }> {
  const rows: string[][] = [];
  const totals = new Map<string, number>();
  let linearIR: PackIR | undefined;
  for (const { pack, file } of SPECS) {
    const bytes = await readFile(new URL(file, specsDir));
    const phases = { load: [] as number[], ir: [] as number[], emit: [] as number[], total: [] as number[] };
    let tools = 0;
    let emittedBytes = 0;
    for (let i = 0; i < GENERATION_RUNS; i++) {
      const load = await timed(() => loadGraphQLSchema(bytes, { fileName: "schema.graphql" }));
      const ir = await timed(() => buildGraphQLPackIR(load.value, { name: pack, file: "schema.graphql", sha256: "bench" }));
      const emit = await timed(() => emitPackSources(ir.value));
      phases.load.push(load.ms);
      phases.ir.push(ir.ms);
      phases.emit.push(emit.ms);
      phases.total.push(load.ms + ir.ms + emit.ms);
      tools = ir.value.tools.length;
      emittedBytes = emit.value.reduce((sum, f) => sum + Buffer.byteLength(f.text), 0);
      if (pack === "linear") linearIR = ir.value;
    }
    totals.set(pack, median(phases.total));
    rows.push([
      pack,
      `${(bytes.length / 1024).toFixed(0)} KiB`,
      int(tools),
      `${(emittedBytes / 1024).toFixed(0)} KiB`,
      ms(median(phases.load)),
      ms(median(phases.ir)),
      ms(median(phases.emit)),
      ms(median(phases.total)),
      ms(phases.total[0]!),
    ]);
  }
  const markdown = [
    "## Generation (load SDL + build IR + emit sources, in memory)",
    "",
    `Median of ${GENERATION_RUNS} runs in one process; "first run" includes JIT warm-up.`,
    "",
    table(["spec", "SDL size", "tools", "emitted", "load", "build IR", "emit", "total (median)", "first run"], rows),
    "",
    `GitHub / Linear total: ${ratio(totals.get("github")! / totals.get("linear")!)}.`,
  ].join("\n");
  return { markdown, linearIR: linearIR! };
}

// ---------------------------------------------------------------- token counting

const TOKEN_RUNS = 10;

/** One-time cost in a fresh process: load the o200k_base ranks, build the encoder, encode one string. */
const CONSTRUCTION_SCRIPTS = {
  "js-tiktoken": `
    const t0 = performance.now();
    const { Tiktoken } = await import("js-tiktoken/lite");
    const { default: ranks } = await import("js-tiktoken/ranks/o200k_base");
    new Tiktoken(ranks).encode("warm up", [], []);
    process.stdout.write(String(performance.now() - t0));`,
  "gpt-tokenizer": `
    const t0 = performance.now();
    const { encode } = await import("gpt-tokenizer/encoding/o200k_base");
    encode("warm up", { disallowedSpecial: new Set() });
    process.stdout.write(String(performance.now() - t0));`,
} as const;
const CONSTRUCTION_RUNS = 5;

function constructionMs(script: string): number {
  const times: number[] = [];
  for (let i = 0; i < CONSTRUCTION_RUNS; i++) {
    times.push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" })));
  }
  return median(times);
}

async function tokenCounting(linearIR: PackIR): Promise<string> {
  const texts = definePack(linearIR).tools.map((tool) => ({ name: tool.name, text: canonicalJson(tool.toJSON()) }));
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t.text), 0);

  // Both count special-token markers found in specs as plain text, as sluice does.
  const tiktoken = new Tiktoken(o200k_base);
  const counters = {
    "js-tiktoken": (text: string) => tiktoken.encode(text, [], []).length,
    "gpt-tokenizer": (text: string) => gptTokenizerEncode(text, { disallowedSpecial: new Set() }).length,
  } as const;
  type Counter = keyof typeof counters;
  const countAll = (counter: Counter) => texts.map(({ text }) => counters[counter](text));

  // The first pass is also the one whose counts are compared.
  const first = { "js-tiktoken": await timed(() => countAll("js-tiktoken")), "gpt-tokenizer": await timed(() => countAll("gpt-tokenizer")) };
  const perTool = { "js-tiktoken": first["js-tiktoken"].value, "gpt-tokenizer": first["gpt-tokenizer"].value };
  const total = (counter: Counter) => perTool[counter].reduce((a, b) => a + b, 0);
  const mismatches = texts.filter((_t, i) => perTool["js-tiktoken"][i] !== perTool["gpt-tokenizer"][i]);
  if (total("js-tiktoken") !== total("gpt-tokenizer") || mismatches.length > 0) {
    failures.push(
      `token counts differ: totals ${total("js-tiktoken")} (js-tiktoken) vs ${total("gpt-tokenizer")} (gpt-tokenizer); ` +
        `${mismatches.length} tools differ, first: ${mismatches[0]?.name ?? "none"}`,
    );
  }

  // Interleaved so drift (thermal, GC) hits both alike. gpt-tokenizer keeps an LRU merge
  // cache across calls and js-tiktoken has none, so it is also measured with the cache cleared.
  const warm: Record<Counter | "gpt-tokenizer (cache cleared)", number[]> = { "js-tiktoken": [], "gpt-tokenizer": [], "gpt-tokenizer (cache cleared)": [] };
  for (let i = 0; i < TOKEN_RUNS; i++) {
    warm["js-tiktoken"].push((await timed(() => countAll("js-tiktoken"))).ms);
    warm["gpt-tokenizer"].push((await timed(() => countAll("gpt-tokenizer"))).ms);
    clearMergeCache();
    warm["gpt-tokenizer (cache cleared)"].push((await timed(() => countAll("gpt-tokenizer"))).ms);
  }

  const tokens = total("js-tiktoken");
  const construction = { "js-tiktoken": constructionMs(CONSTRUCTION_SCRIPTS["js-tiktoken"]), "gpt-tokenizer": constructionMs(CONSTRUCTION_SCRIPTS["gpt-tokenizer"]) };
  const throughput = (timeMs: number) => [`${(bytes / 1e6 / (timeMs / 1000)).toFixed(2)} MB/s`, `${int(Math.round(tokens / (timeMs / 1000)))} tok/s`];
  const rows = (Object.keys(warm) as Array<keyof typeof warm>).map((name) => {
    const counter: Counter = name === "js-tiktoken" ? "js-tiktoken" : "gpt-tokenizer";
    const medianMs = median(warm[name]);
    return [
      name,
      int(total(counter)),
      name === "gpt-tokenizer (cache cleared)" ? "(same)" : ms(first[counter].ms),
      ms(medianMs),
      `${ms(Math.min(...warm[name]))} – ${ms(Math.max(...warm[name]))}`,
      ...throughput(medianMs),
      name === "gpt-tokenizer (cache cleared)" ? "" : ms(construction[counter]),
    ];
  });
  const jt = median(warm["js-tiktoken"]);
  const describeRatio = (label: string, other: number) =>
    other < jt ? `${label} is ${ratio(jt / other)} faster than js-tiktoken` : `js-tiktoken is ${ratio(other / jt)} faster than ${label}`;
  return [
    "## Token counting (o200k_base, offline)",
    "",
    `Input: canonical JSON of every Linear tool definition (\`{name, description, inputSchema}\`): ${int(texts.length)} tools, ` +
      `${(bytes / 1e6).toFixed(2)} MB, ${int(tokens)} tokens. Per-tool and total counts: ` +
      (mismatches.length === 0 && total("js-tiktoken") === total("gpt-tokenizer") ? "**identical** for both." : `**DIFFER** (${mismatches.length} tools).`),
    "",
    `Median of ${TOKEN_RUNS} interleaved passes over all tools; "first pass" right after construction. ` +
      `Construction = fresh process: import ranks + build encoder + encode one string (median of ${CONSTRUCTION_RUNS} processes).`,
    "",
    table(["counter", "total tokens", "first pass", "median pass", "min – max", "MB/s", "tokens/s", "construction"], rows),
    "",
    `Warm: ${describeRatio("gpt-tokenizer", median(warm["gpt-tokenizer"]))}. ` +
      `Merge cache cleared each pass: ${describeRatio("gpt-tokenizer", median(warm["gpt-tokenizer (cache cleared)"]))}. ` +
      `Construction: ${construction["gpt-tokenizer"] < construction["js-tiktoken"] ? `gpt-tokenizer ${ratio(construction["js-tiktoken"] / construction["gpt-tokenizer"])} faster` : `js-tiktoken ${ratio(construction["gpt-tokenizer"] / construction["js-tiktoken"])} faster`}.`,
  ].join("\n");
}

// ---------------------------------------------------------------- paths --by-cost

const PATHS_RUNS = 5;

async function pathsByCost(linearIR: PackIR): Promise<string> {
  const tool = definePack(linearIR).tool("issues_list");
  const topLevel = await timesOf(PATHS_RUNS, () => tool.paths({ byCost: true }));
  const topPaths = await tool.paths({ byCost: true });
  const underFilter = await timed(() => tool.paths("filter", { byCost: true }));
  const top = (costs: ReadonlyArray<{ path: string; tokens?: number }>) =>
    costs.slice(0, 3).map((c) => `\`${c.path}\` ${int(c.tokens ?? 0)}`).join(", ");
  const negative = underFilter.value.filter((c) => (c.tokens ?? 0) < 0).length;
  return [
    "## paths --by-cost (Linear `issues_list`)",
    "",
    table(
      ["call", "paths measured", "time", "most expensive"],
      [
        [`\`tool.paths({ byCost: true })\` (median of ${PATHS_RUNS}; first ${ms(topLevel[0]!)})`, int(topPaths.length), ms(median(topLevel)), top(topPaths)],
        ['`tool.paths("filter", { byCost: true })` (once)', int(underFilter.value.length), ms(underFilter.ms), top(underFilter.value)],
      ],
    ),
    "",
    `Costs are tokens saved by dropping the path. ${negative} of ${underFilter.value.length} paths under \`filter\` cost a negative amount: ` +
      "dropping one splits the shared recursive filter definition copy-on-write, so the tool grows (as DESIGN.md specifies).",
  ].join("\n");
}

// ---------------------------------------------------------------- end to end

const CLI = fileURLToPath(new URL("../packages/cli/bin/sluice.mjs", import.meta.url));
const CLI_RUNS = 5;

async function endToEnd(): Promise<string> {
  const heading = "## End to end (`node packages/cli/bin/sluice.mjs survey linear`, child process)";
  if (!existsSync(CLI)) return [heading, "", "skipped: CLI not present"].join("\n");
  const times: number[] = [];
  let outputBytes = 0;
  for (let i = 0; i < CLI_RUNS; i++) {
    const run = await timed(() => spawnSync(process.execPath, [CLI, "survey", "linear"], { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
    if (run.value.status !== 0) {
      const reason = run.value.error?.message ?? run.value.stderr.split("\n").find((l) => l.trim() !== "") ?? "";
      return [heading, "", `failed: exit ${String(run.value.status)}: ${reason}`].join("\n");
    }
    times.push(run.ms);
    outputBytes = Buffer.byteLength(run.value.stdout);
  }
  return [
    heading,
    "",
    table(["runs", "median wall time", "min", "max", "stdout"], [[String(CLI_RUNS), ms(median(times)), ms(Math.min(...times)), ms(Math.max(...times)), `${int(outputBytes)} bytes`]]),
  ].join("\n");
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const sections: string[] = [];
  const { markdown, linearIR } = await generation();
  sections.push(markdown);
  console.log(markdown + "\n");
  for (const section of [() => tokenCounting(linearIR), () => pathsByCost(linearIR), endToEnd]) {
    const text = await section();
    sections.push(text);
    console.log(text + "\n");
  }
  const header = [
    "# sluice benchmarks",
    "",
    `- command: \`${COMMAND}\``,
    `- date: ${new Date().toISOString()}`,
    `- node: ${process.version}`,
    `- CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} logical cores)`,
    ...(failures.length > 0 ? ["", "**INVALID RUN:**", ...failures.map((f) => `- ${f}`)] : []),
  ].join("\n");
  await mkdir(new URL("./", resultsFile), { recursive: true });
  await writeFile(resultsFile, [header, ...sections].join("\n\n") + "\n");
  console.log(`wrote ${fileURLToPath(resultsFile)}`);
  for (const failure of failures) console.error(`bench: ${failure}`);
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = await main();
