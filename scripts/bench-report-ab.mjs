// `sluice report` of N disjoint copies of Kubernetes (scripts/kubernetes-copies.mjs) on two
// built checkouts, interleaved: a baseline (--base, a checkout of the commit compared against,
// built with `npx pnpm@10.34.8 -r build`) and this one. Prints a Markdown table of the CPU time
// (user + system, every thread: bench/report-cpu-time.cjs), wall time and peak RSS of each, the
// per-round ratios this / base, and checks that both wrote the same page byte for byte.
//
//   node scripts/bench-report-ab.mjs --base /path/to/built/main [--copies 1,8] [--rounds 3]
//
// On a shared machine compare the ratios, not the absolute times: both sides run in the same
// rounds, in alternating order, after one unmeasured run each (tsx compiles the pack then).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { base: { type: "string" }, copies: { type: "string", default: "1,8" }, rounds: { type: "string", default: "3" } } });
if (values.base === undefined) throw new Error("--base <a built checkout to compare against> is required");
const HERE = fileURLToPath(new URL("../", import.meta.url));
const trees = [
  { label: "base", root: resolve(values.base) },
  { label: "this", root: HERE },
];
const ROUNDS = Number(values.rounds);
const COPIES = values.copies.split(",").map(Number);
const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function node(args, cwd, env) {
  const done = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8", maxBuffer: 1024 ** 3 });
  if (done.status !== 0) throw new Error(`node ${args.join(" ")} exited ${done.status}: ${done.stderr.slice(-2000)}`);
  return done.stdout;
}

/** One report by `tree`'s built CLI, the pack's @sluice/core pointed at the same tree (the CLI refuses tools of another core). */
function report(tree, dir, env, out) {
  const link = join(dir, "node_modules/@sluice/core");
  rmSync(link, { force: true });
  symlinkSync(join(tree.root, "packages/core"), link, "dir");
  const result = join(dir, "measured.json");
  const cpuFile = join(dir, "cpu.txt");
  rmSync(cpuFile, { force: true });
  node(
    [join(HERE, "bench/spawn-measured.cjs"), result, "--require", join(HERE, "bench/report-cpu-time.cjs"), join(tree.root, "bench/startup/sluice-dist.mjs"), "report", "packs/k8s", "--out", out],
    dir,
    { ...env, SLUICE_BENCH_CPU_FILE: cpuFile },
  );
  const { ms, maxRssKiB } = JSON.parse(readFileSync(result, "utf8"));
  return { ms, cpuMs: Number(readFileSync(cpuFile, "utf8")), rssMiB: maxRssKiB / 1024 };
}

const rows = [];
const startLoad = loadavg()[0].toFixed(1);
for (const copies of COPIES) {
  const dir = mkdtempSync(join(tmpdir(), `sluice-report-ab-${copies}x-`));
  try {
    mkdirSync(join(dir, "node_modules/@sluice"), { recursive: true });
    mkdirSync(join(dir, "tmp"));
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", TMPDIR: join(dir, "tmp") };
    node([join(HERE, "scripts/kubernetes-copies.mjs"), String(copies), "spec.json"], dir, env);
    symlinkSync(join(HERE, "packages/core"), join(dir, "node_modules/@sluice/core"), "dir");
    node([join(HERE, "bench/startup/sluice-dist.mjs"), "generate", "spec.json", "--name", "k8s", "--out", "packs/k8s"], dir, env);
    rmSync(join(dir, "node_modules/@sluice/core"));
    for (const tree of trees) report(tree, dir, env, `${tree.label}.html`);
    const samples = { base: [], this: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? trees : [...trees].reverse();
      for (const tree of order) samples[tree.label].push(report(tree, dir, env, `${tree.label}.html`));
      if (readFileSync(join(dir, "base.html"), "utf8") !== readFileSync(join(dir, "this.html"), "utf8")) throw new Error(`${copies}x: the two pages differ`);
      process.stderr.write(`${copies}x round ${round + 1}/${ROUNDS}: base CPU ${samples.base.at(-1).cpuMs.toFixed(0)} ms, this CPU ${samples.this.at(-1).cpuMs.toFixed(0)} ms (load ${loadavg()[0].toFixed(1)})\n`);
    }
    const cell = (list, key, unit) => `${median(list.map((s) => s[key])).toFixed(0)}${unit}`;
    const ratio = (key) => median(samples.this.map((s, i) => s[key] / samples.base[i][key])).toFixed(2);
    rows.push(
      `| ${copies}x | ${cell(samples.base, "cpuMs", " ms")} | ${cell(samples.this, "cpuMs", " ms")} | ${ratio("cpuMs")}x | ${cell(samples.base, "ms", " ms")} | ${cell(samples.this, "ms", " ms")} | ${ratio("ms")}x | ${Math.max(...samples.base.map((s) => s.rssMiB)).toFixed(0)} | ${Math.max(...samples.this.map((s) => s.rssMiB)).toFixed(0)} |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(
  [
    `\`node scripts/bench-report-ab.mjs --base <built baseline> --copies ${COPIES.join(",")} --rounds ${ROUNDS}\`, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, load ${startLoad} at the start and ${loadavg()[0].toFixed(1)} at the end; medians of ${ROUNDS} interleaved rounds, ratios the median of the per-round ratios; both pages identical byte for byte in every round.`,
    "",
    "| pack | base CPU | this CPU | CPU this / base | base wall | this wall | wall this / base | base peak MiB | this peak MiB |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
  ].join("\n"),
);
