/**
 * Whole `sluice generate openapi <spec>` runs from dist, a base tree against this one, each a
 * fresh process under /usr/bin/time into a fresh directory, rounds interleaved (the order
 * flips every round): user + system CPU, peak RSS and wall, medians and the median of the
 * per-round CPU ratios. The young generation is sized as the bin sizes it for generate.
 *
 *   node scripts/bench-generate-cli-dist.mjs --base <tree> [--rounds 9] <spec>...
 *
 * <tree>: as for scripts/bench-generate-ir-dist.mjs (a built copy of the base commit).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

if (process.argv[2] === "--launch") {
  // `--launch <tree> <sluice args>`: as packages/cli/bin/sluice.mjs runs an installed sluice (dist, and the young generation kept small for generate).
  const [tree, ...argv] = process.argv.slice(3);
  if (argv[0] === "generate") (await import(pathToFileURL(`${tree}/packages/cli/bin/generate-heap.mjs`).href)).keepYoungGenerationSmall();
  const { main } = await import(pathToFileURL(`${tree}/packages/cli/dist/main.js`).href);
  process.exitCode = await main(argv, { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
} else {
  const { values: options, positionals } = parseArgs({ allowPositionals: true, options: { base: { type: "string" }, rounds: { type: "string", default: "9" } } });
  if (options.base === undefined || positionals.length === 0) throw new Error("usage: bench-generate-cli-dist.mjs --base <tree> [--rounds 9] <spec>...");
  const trees = { base: resolve(options.base), tree: fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "") };
  const runs = {};
  const loads = [loadavg()[0]];
  for (let round = 0; round < Number(options.rounds); round += 1) {
    for (const spec of positionals) {
      for (const version of round % 2 === 0 ? ["base", "tree"] : ["tree", "base"]) {
        const out = mkdtempSync(join(tmpdir(), "sluice-bench-cli-"));
        const child = spawnSync("/usr/bin/time", ["-f", "TIME %U %S %M %e", process.execPath, fileURLToPath(import.meta.url), "--launch", trees[version], "generate", "openapi", resolve(spec), "--name", "bench", "--out", out], { encoding: "utf8" });
        rmSync(out, { recursive: true, force: true });
        const time = /TIME ([\d.]+) ([\d.]+) (\d+) ([\d.]+)/.exec(child.stderr);
        if (child.status !== 0 || time === null) throw new Error(`${version} on ${spec}: ${child.stderr}`);
        ((runs[spec] ??= {})[version] ??= []).push({ cpu: Number(time[1]) + Number(time[2]), rss: Number(time[3]) / 1024, wall: Number(time[4]) });
      }
    }
    loads.push(loadavg()[0]);
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  console.log("| spec | base CPU | this tree CPU | per-round CPU ratio | base RSS | this tree RSS | base wall | this tree wall |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const spec of positionals) {
    const { base, tree } = runs[spec];
    const m = (list, key) => median(list.map((run) => run[key]));
    console.log(`| ${basename(spec)} | ${m(base, "cpu").toFixed(2)} s | ${m(tree, "cpu").toFixed(2)} s | ${median(base.map((run, i) => tree[i].cpu / run.cpu)).toFixed(2)}x | ${m(base, "rss").toFixed(0)} MiB | ${m(tree, "rss").toFixed(0)} MiB | ${m(base, "wall").toFixed(2)} s | ${m(tree, "wall").toFixed(2)} s |`);
  }
  console.log(`\nLoad average (1 min) after each round: ${loads.map((l) => l.toFixed(1)).join(", ")}.`);
}
