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
 * checkEgressMap. Medians over the rounds; ratios of medians.
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

interface Run {
  steady: number;
  schemas: number;
  egressMap: number;
  format: number;
  map: number;
  check: number;
}

const bundles: string[] = [];
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
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

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
    for (const [i, tree] of trees.entries()) {
      const m = (key: keyof Run) => median(runs[i]!.map((run) => run[key])).toFixed(0);
      say(`| ${label} | ${tree.label} | ${m("schemas")} | ${m("egressMap")} | ${m("format")} | ${m("map")} | ${m("steady")} | ${m("check")} | ${load} |`);
    }
    if (trees.length === 2) {
      const ratio = (key: keyof Run) => (median(runs[1]!.map((run) => run[key])) / median(runs[0]!.map((run) => run[key]))).toFixed(2);
      say(`| ${label} | ratio | ${ratio("schemas")} | ${ratio("egressMap")} | ${ratio("format")} | ${ratio("map")} | ${ratio("steady")} | ${ratio("check")} | maps byte-identical |`);
    }
  }
} finally {
  for (const tree of trees) rmSync(join(tree.root, "packages/core/.bench-egress-map"), { recursive: true, force: true });
}
