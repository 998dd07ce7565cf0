// The steps of `sluice serve` start-up in one process, timed in CPU time (process.cpuUsage,
// GC threads included), for one or more built trees side by side in interleaved rounds:
// what each step costs and how two builds differ step by step, steadier than whole-process
// wall time on a loaded machine. Each step imports what serve imports, in serve's order.
//   node bench/startup/serve-stages.mjs ROUNDS DIR ...
// DIR is a checkout or a copy of its built tree (built-copy.mjs) with a built dist/.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

if (process.argv[2] === "--child") {
  const root = process.argv[3];
  const at = (path) => new URL(path, `file://${root}/`).href;
  const { createRequire } = await import("node:module");
  // The SDK's ESM build, as the CLI's dist resolves it (require.resolve would give the CJS one).
  const sdk = createRequire(`${root}/packages/mcp/package.json`).resolve("@modelcontextprotocol/sdk/server/index.js").replace("/dist/cjs/", "/dist/esm/");
  const times = {};
  let last = process.cpuUsage();
  const lap = (label) => {
    const now = process.cpuUsage();
    times[label] = (now.user + now.system - last.user - last.system) / 1000;
    last = now;
  };
  await import(sdk);
  await import(sdk.replace("server/index.js", "types.js"));
  lap("MCP SDK Server and types");
  // The SDK's load leaves an incremental major GC to finish at the next yield: outside the laps.
  await new Promise((done) => setTimeout(done, 100));
  last = process.cpuUsage();
  await import(at("packages/cli/dist/main.js"));
  lap("the CLI's main");
  await import(at("packages/cli/dist/serve.js"));
  lap("the CLI's serve and what it imports");
  const served = await import(at("packages/mcp/dist/serve-entry.js"));
  const { tools } = await import(at("bench/startup/github-rest-500.mjs"));
  lap("the pack (GitHub REST, the first 500)");
  const catalog = new served.ServedCatalog(tools, { serverName: "sluice" });
  served.describeCredentialEnv(tools, process.env);
  lap("ServedCatalog and the credential report");
  const definitions = catalog.tools.map((tool) => catalog.definition(tool));
  lap("500 definitions");
  JSON.stringify({ tools: definitions });
  lap("the page's JSON");
  process.stdout.write(JSON.stringify(times));
} else {
  const [rounds, ...dirs] = process.argv.slice(2);
  if (rounds === undefined || dirs.length === 0) throw new Error("usage: node bench/startup/serve-stages.mjs ROUNDS DIR ...");
  const self = fileURLToPath(import.meta.url);
  const runs = dirs.map(() => new Map());
  for (let round = 0; round < Number(rounds); round++) {
    for (let i = 0; i < dirs.length; i++) {
      const k = (i + round) % dirs.length;
      const run = spawnSync(process.execPath, [self, "--child", dirs[k]], { cwd: dirs[k], encoding: "utf8", env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "bench-token" } });
      if (run.status !== 0) throw new Error(`${dirs[k]}: ${run.stderr}`);
      for (const [step, ms] of Object.entries(JSON.parse(run.stdout))) runs[k].set(step, [...(runs[k].get(step) ?? []), ms]);
    }
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  process.stdout.write(`| step (CPU ms, median of ${rounds}) | ${dirs.join(" | ")} |\n| --- |${" ---: |".repeat(dirs.length)}\n`);
  for (const step of runs[0].keys()) process.stdout.write(`| ${step} | ${runs.map((steps) => median(steps.get(step)).toFixed(1)).join(" | ")} |\n`);
  const sluice = (steps) => [...steps].filter(([step]) => !step.startsWith("MCP SDK")).reduce((sum, [, values]) => sum + median(values), 0);
  process.stdout.write(`| sluice's steps (all but the SDK) | ${runs.map((steps) => sluice(steps).toFixed(1)).join(" | ")} |\n`);
}
