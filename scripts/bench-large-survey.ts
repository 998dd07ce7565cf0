/**
 * `sluice survey --json` and `sluice report` on packs of 1,123 to 8,984 tools (1, 2, 4 and 8
 * disjoint copies of Kubernetes, scripts/kubernetes-copies.mjs), on the built CLI (dist/ on
 * plain node, as installed) -> bench/LARGE-SURVEY-REPORT.md.
 *
 * Each size is generated once into a project of its own (its @sluice/core linked in, as a
 * user's project has it), with a fresh TMPDIR so that tsx's cache starts empty: round one is
 * the first run after generating (nothing of the pack compiled yet), then `--rounds` rounds,
 * interleaved, give medians and the largest peak RSS. The anchor, measured in the same
 * rounds: the survey of the same pack with its stored list removed, which compiles and
 * loads the pack as every survey did before (and checks that both give the same bytes).
 * A least-squares line over the sizes gives the cost per tool.
 *
 *   npx pnpm@10.34.8 -r build && node --import tsx scripts/bench-large-survey.ts [--rounds 3] [--copies 1,2,4,8]
 *
 * It measures packages/cli/dist as built: build first (the command above does).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fit, median } from "./bench-stats.ts";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    copies: { type: "string", default: "1,2,4,8" },
  },
});
const ROUNDS = Number(options.rounds);
const COPIES = options.copies.split(",").map(Number);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || COPIES.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("--rounds takes a positive integer, --copies a list of them");
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST_CLI = join(ROOT, "bench/startup/sluice-dist.mjs");
const MEASURED = join(ROOT, "bench/spawn-measured.cjs");
const CPU_TIME = join(ROOT, "bench/report-cpu-time.cjs");
const OUT = join(ROOT, "bench/LARGE-SURVEY-REPORT.md");
const COMMAND = "node --import tsx scripts/bench-large-survey.ts";

interface Sample {
  ms: number;
  /** CPU time of the command (user + system, every thread). */
  cpuMs: number;
  rssMiB: number;
}

const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");
const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** node <args> in `cwd` with only PATH, HOME and TMPDIR (no inherited loader or export condition). */
function run(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const done = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8", maxBuffer: 1024 ** 3 });
  if (done.status !== 0) throw new Error(`node ${args.join(" ")} exited ${done.status}: ${done.stderr.slice(-2000)}`);
  return done.stdout;
}

/** One child under bench/spawn-measured.cjs: wall time, CPU time, peak RSS, and what it wrote to stdout. */
function measured(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Sample & { stdout: string } {
  const result = join(cwd, "measured.json");
  const cpuFile = join(cwd, "cpu.txt");
  rmSync(cpuFile, { force: true });
  const stdout = run([MEASURED, result, "--require", CPU_TIME, DIST_CLI, ...args], cwd, { ...env, SLUICE_BENCH_CPU_FILE: cpuFile });
  const { ms, maxRssKiB } = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number };
  return { ms, cpuMs: Number(readFileSync(cpuFile, "utf8")), rssMiB: maxRssKiB / 1024, stdout };
}

interface SizeResult {
  copies: number;
  tools: number;
  listBytes: number;
  generateMs: number;
  survey: Sample[];
  report: Sample[];
  loaded: Sample[];
  reportBytes: number;
}

function measureSize(copies: number): SizeResult {
  const dir = mkdtempSync(join(tmpdir(), `sluice-bench-large-survey-${copies}x-`));
  try {
    mkdirSync(join(dir, "node_modules/@sluice"), { recursive: true });
    symlinkSync(join(ROOT, "packages/core"), join(dir, "node_modules/@sluice/core"), "dir");
    mkdirSync(join(dir, "tmp"));
    const env = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/root", TMPDIR: join(dir, "tmp") };
    run([join(ROOT, "scripts/kubernetes-copies.mjs"), String(copies), "spec.json"], dir, env);
    const generated = measured(["generate", "spec.json", "--name", "k8s", "--out", "packs/k8s"], dir, env);
    // The same pack without its stored list: survey compiles and loads it, as before the list was read.
    cpSync(join(dir, "packs/k8s"), join(dir, "packs/k8s-loaded"), { recursive: true });
    rmSync(join(dir, "packs/k8s-loaded/src/served-tools.gen.json"));
    const listBytes = statSync(join(dir, "packs/k8s/src/served-tools.gen.json")).size;
    const result: SizeResult = { copies, tools: 0, listBytes, generateMs: generated.ms, survey: [], report: [], loaded: [], reportBytes: 0 };
    // Round 0 is the first run after generating; the order rotates so that no command always follows another.
    const steps: Array<() => void> = [
      () => {
        const sample = measured(["survey", "packs/k8s", "--json"], dir, env);
        result.survey.push(sample);
        result.tools = (JSON.parse(sample.stdout) as unknown[]).length;
        writeFileSync(join(dir, "survey.json"), sample.stdout);
      },
      () => {
        result.report.push(measured(["report", "packs/k8s", "--out", "report.html"], dir, env));
        result.reportBytes = statSync(join(dir, "report.html")).size;
      },
      () => {
        const sample = measured(["survey", "packs/k8s-loaded", "--json"], dir, env);
        result.loaded.push(sample);
        if (sample.stdout !== readFileSync(join(dir, "survey.json"), "utf8")) throw new Error(`${copies}x: the survey from the stored list differs from the survey of the loaded pack`);
      },
    ];
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (let i = 0; i < steps.length; i += 1) steps[(i + round) % steps.length]!();
      const last = (samples: Sample[]) => `${fmt(samples.at(-1)!.ms)} (CPU ${fmt(samples.at(-1)!.cpuMs)})`;
      process.stderr.write(`${copies}x round ${round}/${ROUNDS}: survey ${last(result.survey)}, report ${last(result.report)}, survey of the loaded pack ${last(result.loaded)} (load ${load()})\n`);
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const startLoad = load();
const started = new Date();
const sizes = COPIES.map(measureSize);
const endLoad = load();

const rest = (samples: Sample[]) => samples.slice(1);
const peak = (samples: Sample[]) => Math.max(...samples.map((s) => s.rssMiB)).toFixed(0);
const rows = sizes.map((size) => {
  const cells = [size.survey, size.report, size.loaded].map(
    (samples) => `${fmt(samples[0]!.ms)} (${fmt(samples[0]!.cpuMs)}) | ${fmt(median(rest(samples).map((s) => s.ms)))} (${fmt(median(rest(samples).map((s) => s.cpuMs)))}) | ${peak(samples)}`,
  );
  const ratio = median(rest(size.survey).map((s, i) => s.ms / size.loaded[i + 1]!.ms));
  return `| ${size.copies}x | ${size.tools} | ${mib(size.listBytes)} | ${cells.join(" | ")} | ${ratio.toFixed(2)}x | ${mib(size.reportBytes)} |`;
});
const line = (pick: (size: SizeResult) => Sample[]) => {
  const tools = sizes.map((size) => size.tools);
  const wall = fit(tools, sizes.map((size) => median(rest(pick(size)).map((s) => s.ms))));
  const cpu = fit(tools, sizes.map((size) => median(rest(pick(size)).map((s) => s.cpuMs))));
  return `${Math.round(wall.a)} ms + ${wall.b.toFixed(3)} ms per tool (CPU ${Math.round(cpu.a)} ms + ${cpu.b.toFixed(3)} ms per tool)`;
};
const largest = sizes.at(-1)!;
const text = [
  "# `sluice survey` and `sluice report` on packs of up to 9,000 tools",
  "",
  "```sh",
  `npx pnpm@10.34.8 -r build && ${COMMAND} --rounds ${ROUNDS} --copies ${COPIES.join(",")}`,
  "```",
  "",
  `Generated on ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${cpus().length} threads, load average (1, 5, 15 min) ${startLoad} at the start and ${endLoad} at the end`,
  "(other sessions share the cores: compare the rows of one run, not runs). Do not edit by hand; rerun the command.",
  "",
  "Each pack: N disjoint copies of Kubernetes (scripts/kubernetes-copies.mjs), generated by the built CLI into a project of its own",
  "with a fresh TMPDIR (tsx's cache empty). Commands run by the built CLI on plain node. For each command: the first run after",
  `generating (nothing of the pack compiled yet), the median of the ${ROUNDS} interleaved rounds that follow, and the largest peak RSS (MiB);`,
  "each time is the wall time, then in brackets the CPU time the command used (user + system, all its threads: bench/report-cpu-time.cjs),",
  "which other sessions' load does not inflate the way it inflates the wall time.",
  "`survey --json` answers from the pack's stored list (src/served-tools.gen.json) when its key matches the sources; the anchor is the",
  "same survey of the same pack with the list removed (the pack compiled and loaded, as before), whose output is checked byte for byte",
  "against it; the ratio is the median of the per-round ratios. `report` writes the HTML page.",
  "",
  "| pack | tools | stored list MiB | survey first | survey median | survey MiB | report first | report median | report MiB | survey, pack loaded: first | median | MiB | survey / loaded | report page MiB |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows,
  "",
  `Linear fit over the sizes (medians): survey ${line((s) => s.survey)}; report ${line((s) => s.report)}; survey of the loaded pack ${line((s) => s.loaded)}.`,
  "",
  `Goals (issue 37, ${largest.tools} tools): survey under 3 s (here ${fmt(largest.survey[0]!.ms)} first, ${fmt(median(rest(largest.survey).map((s) => s.ms)))} median, CPU ${fmt(median(rest(largest.survey).map((s) => s.cpuMs)))});`,
  `report under 5 s and 500 MB (here ${fmt(largest.report[0]!.ms)} first, ${fmt(median(rest(largest.report).map((s) => s.ms)))} median, CPU ${fmt(median(rest(largest.report).map((s) => s.cpuMs)))}, ${peak(largest.report)} MiB).`,
  "",
].join("\n");
writeFileSync(OUT, text);
process.stderr.write(text);
