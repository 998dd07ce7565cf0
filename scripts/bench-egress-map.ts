/**
 * CPU time of the egress map of every tool, as `sluice generate` computes it (definePack of
 * the generated IR, then egressMap and formatEgressMap), and of checkEgressMap on a map that
 * differs by one visible line (what `generate --check` and `egress --check` do when the map
 * changed; on an unchanged map the check is a string comparison). Each measurement is one
 * fresh process, in rounds that interleave the trees measured, and the maps the trees write
 * are compared byte for byte.
 *
 *   node --import tsx scripts/bench-egress-map.ts [--rounds 5] [--base <worktree of another commit>]
 *
 * Columns: schemas (definePack and every tool's inputSchema), egressMap, formatEgressMap, the
 * three together (what generate pays, cold: this code runs once per process), egressMap again
 * on fresh tools four times in the same process (best of four: the algorithm, warm), and
 * checkEgressMap. Medians over the rounds; ratios of medians. Then checkEgressMap alone, in a
 * fresh process per measurement, on three changes a pull request makes (a visible line of a
 * tool, a line of the most used shared section, a whole tool), the trees' findings compared
 * byte for byte (text, lines and diff: the whole result).
 *
 * The code is bundled with esbuild (source condition, no name-keeping helpers), so that the
 * profile is the code's and not the TypeScript loader's. A `--base` worktree needs its own
 * node_modules (a link to this one's does, with its packages' node_modules copied).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SPECS = join(ROOT, "../shared/specs");
const SPEC_FILES: Record<string, string> = {
  "GitHub REST": "github-rest/api.github.com.json",
  Stripe: "stripe/spec3.json",
  Kubernetes: "kubernetes/swagger.json",
};

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const rounds = Number(option("--rounds") ?? 5);
const base = option("--base");
const trees = [...(base === undefined ? [] : [{ label: "base", root: resolve(base) }]), { label: "this tree", root: ROOT }];

const CHILD = (root: string) => `
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import * as core from ${JSON.stringify(join(root, "packages/core/src/index.ts"))};
import * as openapi from ${JSON.stringify(join(root, "generators/openapi/src/index.ts"))};
const [spec, out] = process.argv.slice(2);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const document = openapi.loadDocument(readFileSync(spec), basename(spec));
const pack = openapi.buildOpenAPIPackIR(document, { name: "bench", file: basename(spec), sha256: "0" }, {});
const t0 = cpu();
const tools = core.definePack({ name: pack.name, defs: pack.defs, ...(pack.withheldMembers === undefined ? {} : { withheldMembers: pack.withheldMembers }), tools: pack.tools }).tools;
for (const tool of tools) tool.inputSchema;
const t1 = cpu();
const entries = core.egressMap(tools);
const t2 = cpu();
const text = core.formatEgressMap(entries);
const t3 = cpu();
const lines = text.split("\\n");
lines.splice(lines.findIndex((line) => line.startsWith("  + ")), 1);
const older = lines.join("\\n");
const t4 = cpu();
const check = core.checkEgressMap(older, text);
const t5 = cpu();
if (check.widened.length === 0) throw new Error("the check missed the line taken out");
writeFileSync(out, text);
// The same work again on fresh tools, warm: what the algorithm costs once the code is compiled.
let steady = Infinity;
for (let i = 0; i < 4; i++) {
  const again = core.definePack({ name: pack.name, defs: pack.defs, ...(pack.withheldMembers === undefined ? {} : { withheldMembers: pack.withheldMembers }), tools: pack.tools }).tools;
  for (const tool of again) tool.inputSchema;
  const s0 = cpu();
  core.egressMap(again);
  steady = Math.min(steady, cpu() - s0);
}
process.stdout.write(JSON.stringify({ schemas: t1 - t0, egressMap: t2 - t1, format: t3 - t2, map: t3 - t0, check: t5 - t4, steady }));
`;

// What `egress --check` does with a changed map, alone in a fresh process: read both texts, check once.
const CHECK_CHILD = (root: string) => `
import { readFileSync, writeFileSync } from "node:fs";
import * as core from ${JSON.stringify(join(root, "packages/core/src/index.ts"))};
const [committedFile, currentFile, out] = process.argv.slice(2);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const committed = readFileSync(committedFile, "utf8");
const current = readFileSync(currentFile, "utf8");
const t0 = cpu();
const check = core.checkEgressMap(committed, current);
const t1 = cpu();
if (check.widened.length === 0) throw new Error("the check missed the change");
writeFileSync(out, JSON.stringify(check));
process.stdout.write(JSON.stringify({ check: t1 - t0 }));
`;

/**
 * Committed maps that differ from the current one as a pull request would: one visible line
 * of a tool (the first), one line of the shared section the map mentions most (a change
 * every tool using it sees; none on a map without shared sections), one whole tool (the
 * middle one, new in the current map).
 */
function scenarios(map: string): Record<string, string | undefined> {
  const lines = map.split("\n");
  const oneLine = [...lines];
  oneLine.splice(oneLine.findIndex((line) => line.startsWith("  + ")), 1);
  const counts = new Map<string, number>();
  for (const word of map.match(/[^\s()|&:[\],.]+/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  let best: [number, number] | undefined;
  lines.forEach((line, index) => {
    const name = /^type (\S+)/.exec(line)?.[1];
    if (name !== undefined && lines[index + 1]?.startsWith("  + ") && (best === undefined || counts.get(name)! > best[1])) best = [index, counts.get(name)!];
  });
  const shared = best === undefined ? undefined : [...lines.slice(0, best[0] + 1), ...lines.slice(best[0] + 2)].join("\n");
  const blocks = map.split("\n\n");
  const tools = blocks.flatMap((block, index) => (block.startsWith("tool ") ? [index] : []));
  const middle = tools[Math.floor(tools.length / 2)]!;
  const newTool = [...blocks.slice(0, middle), ...blocks.slice(middle + 1)].join("\n\n");
  return { "one line": oneLine.join("\n"), "shared section": shared, "new tool": newTool };
}

interface Run {
  steady: number;
  schemas: number;
  egressMap: number;
  format: number;
  map: number;
  check: number;
}

const bundles: string[] = [];
const checkBundles: string[] = [];
for (const [i, tree] of trees.entries()) {
  // Inside packages/core, so that what core requires at run time (diff) resolves as it does from core.
  const dir = join(tree.root, "packages/core/.bench-egress-map");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "child.ts"), CHILD(tree.root));
  const outfile = join(dir, `child-${i}.mjs`);
  await build({
    entryPoints: [join(dir, "child.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    conditions: ["@sluice/source"],
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  bundles.push(outfile);
  writeFileSync(join(dir, "check-child.ts"), CHECK_CHILD(tree.root));
  const checkOut = join(dir, `check-child-${i}.mjs`);
  await build({
    entryPoints: [join(dir, "check-child.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    conditions: ["@sluice/source"],
    outfile: checkOut,
    logLevel: "warning",
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  checkBundles.push(checkOut);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const checks: string[] = [];

/** The check of each scenario against the current map, rounds interleaving the trees; the trees' findings compared byte for byte. */
function checkRows(label: string, current: string, dir: string): string[] {
  const rows: string[] = [];
  const currentFile = join(dir, "current.txt");
  writeFileSync(currentFile, current);
  for (const [change, committed] of Object.entries(scenarios(current))) {
    if (committed === undefined) {
      rows.push(`| ${label} | ${change} | ${trees.map(() => "no shared section").join(" | ")} |${trees.length === 2 ? " |" : ""} |`);
      continue;
    }
    const committedFile = join(dir, "committed.txt");
    writeFileSync(committedFile, committed);
    const times: number[][] = trees.map(() => []);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [...checkBundles.keys()] : [...checkBundles.keys()].reverse();
      for (const i of order) {
        loads.push(loadavg()[0]!);
        const run = spawnSync(process.execPath, [checkBundles[i]!, committedFile, currentFile, join(dir, `check-${i}.json`)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
        if (run.status !== 0) throw new Error(`${trees[i]!.label} checking ${label} (${change}): ${run.stderr}`);
        times[i]!.push((JSON.parse(run.stdout) as { check: number }).check);
      }
    }
    const found = trees.map((_, i) => readFileSync(join(dir, `check-${i}.json`)));
    if (found.some((one) => !one.equals(found[0]!))) throw new Error(`${label} (${change}): the trees' findings differ`);
    const widened = (JSON.parse(found[0]!.toString("utf8")) as { widened: unknown[] }).widened.length;
    const medians = times.map(median);
    const ratio = trees.length === 2 ? ` ${(medians[1]! / medians[0]!).toFixed(3)} |` : "";
    rows.push(`| ${label} | ${change} (${widened} widenings) | ${medians.map((m) => m.toFixed(0)).join(" | ")} |${ratio} ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} |`);
  }
  return rows;
}

const out: string[] = [];
const say = (line: string) => {
  out.push(line);
  console.log(line);
};
say(`${new Date().toISOString()}, ${cpus().length} cores, node ${process.version}, ${rounds} interleaved rounds, medians of CPU ms (user + system) per process`);
say("");
say(`| spec | tree | schemas | egressMap | format | map (all three) | egressMap warm (best of 4 more) | checkEgressMap, one line changed | load |`);
say(`|---|---|---:|---:|---:|---:|---:|---:|---|`);
try {
  for (const [label, file] of Object.entries(SPEC_FILES)) {
    const runs: Run[][] = trees.map(() => []);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Every other round in the other order, so that neither tree always runs first.
      const order = round % 2 === 0 ? [...bundles.keys()] : [...bundles.keys()].reverse();
      for (const i of order) {
        const bundle = bundles[i]!;
        loads.push(loadavg()[0]!);
        const run = spawnSync(process.execPath, [bundle, join(SPECS, file), join(dirname(bundle), `map-${i}.txt`)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
        if (run.status !== 0) throw new Error(`${trees[i]!.label} on ${file}: ${run.stderr}`);
        runs[i]!.push(JSON.parse(run.stdout) as Run);
      }
    }
    const maps = bundles.map((bundle, i) => readFileSync(join(dirname(bundle), `map-${i}.txt`)));
    if (maps.some((map) => !map.equals(maps[0]!))) throw new Error(`${label}: the trees' maps differ`);
    const load = `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
    checks.push(...checkRows(label, maps[0]!.toString("utf8"), dirname(bundles[0]!)));
    for (const [i, tree] of trees.entries()) {
      const m = (key: keyof Run) => median(runs[i]!.map((run) => run[key])).toFixed(0);
      say(`| ${label} | ${tree.label} | ${m("schemas")} | ${m("egressMap")} | ${m("format")} | ${m("map")} | ${m("steady")} | ${m("check")} | ${load} |`);
    }
    if (trees.length === 2) {
      const ratio = (key: keyof Run) => (median(runs[1]!.map((run) => run[key])) / median(runs[0]!.map((run) => run[key]))).toFixed(2);
      say(`| ${label} | ratio | ${ratio("schemas")} | ${ratio("egressMap")} | ${ratio("format")} | ${ratio("map")} | ${ratio("steady")} | ${ratio("check")} | maps byte-identical |`);
    }
  }
  say("");
  say(`checkEgressMap alone, one fresh process per measurement (read both texts, check once), CPU ms, medians:`);
  say("");
  say(`| spec | change | ${trees.map((tree) => tree.label).join(" | ")} |${trees.length === 2 ? " ratio |" : ""} load |`);
  say(`|---|---|${trees.map(() => "---:|").join("")}${trees.length === 2 ? "---:|" : ""}---|`);
  for (const row of checks) say(row);
} finally {
  for (const tree of trees) rmSync(join(tree.root, "packages/core/.bench-egress-map"), { recursive: true, force: true });
}
