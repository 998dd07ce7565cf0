// Launcher for benchmark children: node bench/spawn-measured.cjs <result.json> <node args...>
// Runs `node --require bench/report-max-rss.cjs <node args...>` (stdio passed through) and
// writes {"ms", "maxRssKiB", "status"} to <result.json>. It exists because on Linux a child's
// maxRSS starts at the RSS of the process that forked it: forked straight from the benchmark
// (hundreds of MiB), every child would report at least that. This launcher is a bare node
// process, below any node child's own footprint, so the child's figure is its own.
"use strict";
const { spawnSync } = require("node:child_process");
const { readFileSync, rmSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { performance } = require("node:perf_hooks");

const [resultFile, ...args] = process.argv.slice(2);
const rssFile = `${resultFile}.maxrss`;
rmSync(rssFile, { force: true });
const started = performance.now();
const run = spawnSync(process.execPath, ["--require", join(__dirname, "report-max-rss.cjs"), ...args], {
  stdio: "inherit",
  env: { ...process.env, SLUICE_BENCH_MAX_RSS_FILE: rssFile },
});
const ms = performance.now() - started;
let maxRssKiB = null;
try {
  maxRssKiB = Number(readFileSync(rssFile, "utf8"));
} catch {
  // the child died before its exit handler ran
}
writeFileSync(resultFile, JSON.stringify({ ms, maxRssKiB, status: run.status }));
process.exitCode = run.status ?? 1;
