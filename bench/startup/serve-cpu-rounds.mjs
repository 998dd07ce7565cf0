// CPU time of `sluice serve` start-up, read inside each server process at its exit
// (process.cpuUsage: microseconds, every thread, GC included), beside the bare SDK server,
// in interleaved rounds; finer than serve-cpu.sh's /usr/bin/time (10 ms steps) and steadier
// than wall time on a loaded machine. Each process gets initialize and one tools/list on
// stdin; stdin is closed once the list is answered, and the process exits.
//   node bench/startup/serve-cpu-rounds.mjs ROUNDS TOOLS_JSON LABEL=DIR ...
// DIR is a checkout or a copy of its built tree (built-copy.mjs); the first LABEL is the one
// the others are compared with, round by round. TOOLS_JSON: the 500 definitions the bare
// server lists (a saved tools/list result array).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const [rounds, toolsJson, ...specs] = process.argv.slice(2);
if (rounds === undefined || toolsJson === undefined || specs.length === 0) throw new Error("usage: node bench/startup/serve-cpu-rounds.mjs ROUNDS TOOLS_JSON LABEL=DIR ...");
const AT_EXIT = `data:text/javascript,${encodeURIComponent('process.on("exit", () => { const c = process.cpuUsage(); process.stderr.write("\\nCPU_MS " + (c.user + c.system) / 1000 + "\\n"); });')}`;
const BARE = fileURLToPath(new URL("bare-mcp-server.mjs", import.meta.url));
const variants = specs.map((spec) => {
  const [label, dir] = spec.split("=");
  return { label, dir, args: ["--import", AT_EXIT, "bench/startup/sluice-dist.mjs", "serve", "bench/startup/github-rest-500.mjs", "--page-size", "500"] };
});
variants.push({ label: "bare", dir: variants[0].dir, args: ["--import", AT_EXIT, BARE, toolsJson] });
const REQUESTS = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "serve-cpu-rounds", version: "0" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
].map((message) => JSON.stringify(message) + "\n").join("");

function run(variant) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let wall;
    let out = "";
    let err = "";
    const child = spawn(process.execPath, variant.args, { cwd: variant.dir, env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "bench-token" } });
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (wall === undefined && /"id":2[,}]/.test(out) && out.endsWith("\n")) {
        wall = performance.now() - start;
        child.stdin.end();
      }
    });
    child.stderr.on("data", (chunk) => (err += chunk));
    child.stdin.write(REQUESTS);
    child.on("exit", (code) => {
      const cpu = /CPU_MS ([\d.]+)/.exec(err);
      if (cpu === null || wall === undefined) reject(new Error(`${variant.label} exited ${code}: ${err}`));
      else resolve({ cpu: Number(cpu[1]), wall });
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const results = new Map(variants.map((variant) => [variant.label, { cpu: [], wall: [] }]));
for (let round = 0; round < Number(rounds); round++) {
  for (let i = 0; i < variants.length; i++) {
    const variant = variants[(i + round) % variants.length];
    const { cpu, wall } = await run(variant);
    results.get(variant.label).cpu.push(cpu);
    results.get(variant.label).wall.push(wall);
  }
}
const bare = results.get("bare");
const first = results.get(variants[0].label);
const ratio = (a, b) => median(a.map((value, i) => value / b[i])).toFixed(2);
process.stdout.write("| variant | CPU ms | CPU vs bare | CPU vs " + variants[0].label + " | wall ms | wall vs bare |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
for (const [label, { cpu, wall }] of results) {
  process.stdout.write(`| ${label} | ${median(cpu).toFixed(0)} | ${ratio(cpu, bare.cpu)}x | ${label === "bare" ? "" : `${ratio(cpu, first.cpu)}x`} | ${median(wall).toFixed(0)} | ${ratio(wall, bare.wall)}x |\n`);
}
