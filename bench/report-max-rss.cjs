// Preload for benchmark children (`node --require bench/report-max-rss.cjs ...`): on exit,
// writes this process's peak resident set size in KiB (process.resourceUsage().maxRSS)
// to the file named by SLUICE_BENCH_MAX_RSS_FILE. Portable, unlike /usr/bin/time -v.
"use strict";
const { writeFileSync } = require("node:fs");

const file = process.env.SLUICE_BENCH_MAX_RSS_FILE;
if (file) {
  process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
}
