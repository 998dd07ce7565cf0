/**
 * The OpenAPI generator's phases on dist (what an installed `sluice generate` runs), a base
 * tree against this one, each measurement a fresh process, rounds interleaved (the order
 * flips every round). Per phase: CPU (user + system) of the process during it; medians of
 * both and the median of the per-round ratios; peak RSS; and a sha256 of everything built
 * (IR, runtime facts, response hints), which must agree between the two trees.
 *
 *   node scripts/bench-generate-ir-dist.mjs --base <tree> [--rounds 7] <spec>...
 *
 * <tree> is a copy of the repository at the base commit with its dist built and its
 * node_modules in place (e.g. `tar --exclude=.git -c . | tar -x -C <tree>` before the
 * change, then `npx pnpm@10.34.8 -r build` there, or copied after building). Both trees
 * run with the young generation sized as the bin sizes it for generate
 * (packages/cli/bin/generate-heap.mjs).
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";

const { values: options, positionals } = parseArgs({ allowPositionals: true, options: { base: { type: "string" }, rounds: { type: "string", default: "7" }, child: { type: "string" } } });

if (options.child !== undefined) {
  setFlagsFromString("--semi-space-growth-factor=1");
  const spec = positionals[0];
  const generator = await import(pathToFileURL(`${options.child}/generators/openapi/dist/index.js`).href);
  const measured = {};
  const cpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  let cpuAt = cpuMs();
  const phase = (name) => {
    const cpu = cpuMs();
    measured[name] = cpu - cpuAt;
    cpuAt = cpu;
  };
  const bytes = readFileSync(spec);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const document = generator.loadDocument(bytes, basename(spec));
  phase("read+parse");
  const ir = generator.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256 }, { detectCredentialParameters: true });
  phase("ir");
  const facts = generator.openapiRuntimeFacts(document, ir, {});
  phase("facts");
  const tools = {};
  for (const tool of ir.tools) {
    const pagination = Object.hasOwn(facts.pagination, tool.name) ? facts.pagination[tool.name] : undefined;
    const hints = generator.openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination });
    if (Object.keys(hints).length > 0) Object.defineProperty(tools, tool.name, { value: hints, enumerable: true });
  }
  const shared = generator.openapiPackResponseHints(document);
  phase("hints");
  const digest = createHash("sha256").update(JSON.stringify({ ir, facts, tools, shared })).digest("hex");
  console.log(JSON.stringify({ ...measured, rssMiB: process.resourceUsage().maxRSS / 1024, digest }));
} else {
  if (options.base === undefined || positionals.length === 0) throw new Error("usage: bench-generate-ir-dist.mjs --base <tree> [--rounds 7] <spec>...");
  const trees = { base: resolve(options.base), tree: fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "") };
  const runs = {};
  const loads = [loadavg()[0]];
  for (let round = 0; round < Number(options.rounds); round += 1) {
    for (const spec of positionals) {
      for (const version of round % 2 === 0 ? ["base", "tree"] : ["tree", "base"]) {
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", trees[version], resolve(spec)], { encoding: "utf8" });
        if (child.status !== 0) throw new Error(`${version} on ${spec}: ${child.stderr}`);
        ((runs[spec] ??= {})[version] ??= []).push(JSON.parse(child.stdout));
      }
    }
    loads.push(loadavg()[0]);
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  console.log("| spec | phase | base CPU | this tree CPU | per-round ratio |\n| --- | --- | ---: | ---: | ---: |");
  for (const spec of positionals) {
    const { base, tree } = runs[spec];
    const same = [...base, ...tree].every((run) => run.digest === base[0].digest);
    if (!same) throw new Error(`${spec}: the two trees built different output`);
    ["read+parse", "ir", "facts", "hints", "rssMiB"].forEach((phase, index) => {
      const unit = phase === "rssMiB" ? " MiB" : " ms";
      const name = phase === "rssMiB" ? "peak RSS" : phase;
      console.log(`| ${index === 0 ? basename(spec) : ""} | ${name} | ${median(base.map((r) => r[phase])).toFixed(0)}${unit} | ${median(tree.map((r) => r[phase])).toFixed(0)}${unit} | ${median(base.map((r, i) => tree[i][phase] / r[phase])).toFixed(2)}x |`);
    });
  }
  console.log(`\nSame output from both trees on every spec. Load average (1 min) after each round: ${loads.map((l) => l.toFixed(1)).join(", ")}.`);
}
