/**
 * `sluice generate` of an MCP pack from a committed snapshot (offline: the snapshot file is
 * the spec), timed end to end as a user runs it, in one or more checkouts, interleaved
 * round by round so the machine's load falls on each alike. Prints the median wall time
 * (ms) per snapshot and checkout, and whether every checkout wrote the same files.
 *
 *   node --import tsx scripts/bench-mcp-generate.ts <checkout> [<checkout>...] [--rounds 7]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";

const args = process.argv.slice(2);
const at = args.indexOf("--rounds");
const rounds = at === -1 ? 7 : Number(args[at + 1]);
const trees = args.filter((arg, i) => arg !== "--rounds" && i !== at + 1);
const SNAPSHOTS = ["notion", "circleci", "github", "playwright", "server-everything"];

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name !== ".sluice-stamp.json") out.set(relative(dir, path), readFileSync(path, "utf8"));
    }
  };
  walk(dir);
  return out;
}

const rows: string[] = [];
for (const snapshot of SNAPSHOTS) {
  const times = trees.map(() => [] as number[]);
  const outputs: Map<string, string>[] = [];
  for (let round = 0; round < rounds; round++) {
    trees.forEach((tree, t) => {
      const out = mkdtempSync(join(tmpdir(), "bench-mcp-generate-"));
      const started = performance.now();
      const run = spawnSync(process.execPath, ["--conditions=@sluice/source", join(tree, "packages/cli/bin/sluice.mjs"), "generate", join(tree, `test/fixtures/mcp/${snapshot}.snapshot.json`), "--name", "bench", "--out", out], { cwd: tree, encoding: "utf8" });
      times[t]!.push(performance.now() - started);
      if (run.status !== 0) throw new Error(`${tree} ${snapshot}: exit ${run.status}\n${run.stderr}`);
      if (round === 0) outputs[t] = files(out);
      rmSync(out, { recursive: true, force: true });
    });
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  // The regenerate line names the snapshot's path, which differs by checkout: compared without it.
  const masked = outputs.map((map) => [...map].map(([path, text]) => `${path}\n${text.split(trees[outputs.indexOf(map)]!).join("<checkout>")}`).sort().join("\n"));
  const same = masked.every((text) => text === masked[0]);
  rows.push(`| ${snapshot} | ${times.map((list) => median(list).toFixed(0)).join(" | ")} | ${same ? "yes" : "NO"} |`);
}
process.stdout.write([`| snapshot | ${trees.map((tree) => `${tree} (ms)`).join(" | ")} | same files |`, `| --- | ${trees.map(() => "---:").join(" | ")} | --- |`, ...rows, ""].join("\n"));
