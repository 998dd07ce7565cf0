/**
 * `sluice report` against `sluice survey` of the same pack, for the nine packs of this
 * repository, side by side in one run; writes bench/REPORT.md (overwritten).
 *
 * Both are whole CLI processes from source (the same loader, the same pack import), so
 * the ratio is what the report adds on top of loading and counting the pack. Rounds are
 * interleaved: each round runs every row once, and the table gives the medians and the
 * median of the per-round ratios. Nothing here asserts on time.
 *
 *   node --import tsx scripts/bench-report.ts [--rounds N] [--out bench/REPORT.md]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: options } = parseArgs({
  options: { rounds: { type: "string", default: "5" }, out: { type: "string", default: "bench/REPORT.md" } },
});
const ROUNDS = Number(options.rounds);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const PACKS = readdirSync(join(ROOT, "packs")).filter((name) => statSync(join(ROOT, "packs", name)).isDirectory()).sort();
const scratch = mkdtempSync(join(tmpdir(), "sluice-bench-report-"));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function sluiceMs(args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, ["--conditions=@sluice/source", BIN, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`sluice ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return ms;
}

interface Row {
  pack: string;
  survey: number[];
  report: number[];
  ratios: number[];
  htmlBytes: number;
}

const rows: Row[] = PACKS.map((pack) => ({ pack, survey: [], report: [], ratios: [], htmlBytes: 0 }));
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which of the two goes first, so neither always runs on a warmer disk cache.
    for (const row of rows) {
      const html = join(scratch, `${row.pack}.html`);
      const runSurvey = (): number => sluiceMs(["survey", row.pack]);
      const runReport = (): number => sluiceMs(["report", row.pack, "--out", html]);
      let survey: number;
      let report: number;
      if (round % 2 === 0) {
        survey = runSurvey();
        report = runReport();
      } else {
        report = runReport();
        survey = runSurvey();
      }
      row.survey.push(survey);
      row.report.push(report);
      row.ratios.push(report / survey);
      row.htmlBytes = statSync(html).size;
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const lines = [
  "# `sluice report` vs `sluice survey`",
  "",
  "Command: `node --import tsx scripts/bench-report.ts` (from the repository root, sources run through the CLI's loader).",
  "",
  `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}. ${ROUNDS} interleaved rounds; medians; the ratio is the median of the per-round ratios. Goal (issue 15): report at most 3x survey per pack; the Linear page under 5 MB.`,
  "",
  "| pack | survey (ms) | report --out page.html (ms) | report / survey | page size |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (row) =>
      `| ${row.pack} | ${median(row.survey).toFixed(0)} | ${median(row.report).toFixed(0)} | ${median(row.ratios).toFixed(2)}x | ${(row.htmlBytes / 1024 / 1024).toFixed(2)} MB |`,
  ),
  "",
];
writeFileSync(resolve(ROOT, options.out!), lines.join("\n"));
process.stdout.write(lines.join("\n"));
