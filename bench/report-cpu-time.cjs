// Preload for benchmark children (`node --require bench/report-cpu-time.cjs ...`): on exit,
// writes the CPU time this process used (user + system, every thread, in ms) to the file
// named by SLUICE_BENCH_CPU_FILE. On a shared machine a wall time says how busy the others
// were; the CPU time says what the command itself costs.
"use strict";
const { writeFileSync } = require("node:fs");

const file = process.env.SLUICE_BENCH_CPU_FILE;
if (file) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String((user + system) / 1000));
  });
}
