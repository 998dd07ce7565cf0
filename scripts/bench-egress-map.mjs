/**
 * The egress map of every tool of a spec, cold, one process per run: this tree's built
 * @sluice/core against another built tree's (a copy of the base commit with its dist), on
 * the same IR. Prints CPU and wall per run, interleaved, and whether the maps are the same.
 *
 *   node scripts/bench-egress-map.mjs --base /tmp/base-tree [--rounds 3] spec.json...
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = fileURLToPath(new URL("..", import.meta.url));

if (process.env.EGRESS_MAP_CHILD === "1") {
  const [spec, tree] = process.argv.slice(2);
  // The IR from this tree's generator in both runs: only the map differs.
  const openapi = await import(pathToFileURL(join(HERE, "generators/openapi/dist/index.js")).href);
  const core = await import(pathToFileURL(join(tree, "packages/core/dist/index.js")).href);
  const document = openapi.loadDocument(readFileSync(spec), basename(spec));
  const ir = openapi.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256: "0".repeat(64) }, {});
  const tools = core.definePack({ name: ir.name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools }).tools;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const text = core.formatEgressMap(core.egressMap(tools));
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  process.stdout.write(JSON.stringify({ cpu: (used.user + used.system) / 1000, wall, sha256: createHash("sha256").update(text).digest("hex") }));
} else {
  const { values, positionals } = parseArgs({ options: { base: { type: "string" }, rounds: { type: "string", default: "3" } }, allowPositionals: true });
  if (values.base === undefined || positionals.length === 0) throw new Error("usage: --base <built tree> [--rounds N] spec...");
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const spec of positionals) {
    const runs = { base: [], this: [] };
    const sums = new Set();
    for (let round = 0; round < Number(values.rounds); round += 1) {
      for (const which of round % 2 === 0 ? ["base", "this"] : ["this", "base"]) {
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), spec, which === "base" ? values.base : HERE], { env: { ...process.env, EGRESS_MAP_CHILD: "1" }, encoding: "utf8" });
        if (child.status !== 0) throw new Error(child.stderr);
        const run = JSON.parse(child.stdout);
        runs[which].push(run);
        sums.add(run.sha256);
      }
    }
    const cpu = (which) => runs[which].map((run) => run.cpu);
    const ratios = runs.this.map((run, i) => (run.cpu / runs.base[i].cpu).toFixed(2));
    console.log(`${basename(spec)}: CPU base ${cpu("base").map((ms) => ms.toFixed(0)).join(", ")} ms, this ${cpu("this").map((ms) => ms.toFixed(0)).join(", ")} ms; per-round this/base ${ratios.join(", ")}; medians ${median(cpu("base")).toFixed(0)} / ${median(cpu("this")).toFixed(0)} ms; ${sums.size === 1 ? "same map" : "MAPS DIFFER"}`);
  }
}
