/**
 * Where `sluice generate openapi` spends its time, by phase, from V8's CPU profile of the built
 * CLI (node --cpu-prof; bench/GENERATE-SPEED.md). A sample belongs to the innermost phase
 * function on its stack (parse = loadDocument, IR = buildOpenAPIPackIR, ...); a garbage
 * collector sample is charged to the phase of the sample before it (the phase that was
 * allocating), and also counted apart; module loading is any sample under Node's module loader.
 *
 *   npx pnpm@10.34.8 -r build
 *   node --import tsx scripts/profile-generate.ts <spec> [<spec> ...]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PHASES: readonly [string, readonly string[]][] = [
  ["parse", ["loadDocument"]],
  ["IR", ["buildOpenAPIPackIR"]],
  ["runtime facts", ["openapiRuntimeFacts"]],
  ["response hints", ["openapiResponseHints", "openapiPackResponseHints"]],
  ["emit", ["emitPackSources", "emitRuntimeFactsSource"]],
  ["egress map", ["generatedEgressMap"]],
  ["stamp", ["writeStamp"]],
  ["writing files", ["writePackFiles"]],
];
const LOADING = "module loading";
const OTHER = "start-up and the rest";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

function phaseShares(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): { phase: string; own: number; gc: number }[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = phaseOf.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    let phase: string | null;
    if (functionName === "(garbage collector)") phase = "GC";
    else if (functionName === "(idle)" || functionName === "(program)" || functionName === "(root)") phase = null;
    else {
      const named = PHASES.find(([, names]) => names.includes(functionName));
      const above = parent.get(id);
      const outer = above === undefined ? null : classify(above);
      // Innermost phase wins, so the map inside writePackFiles is the map's.
      phase = named !== undefined ? named[0] : outer !== null && outer !== OTHER ? outer : url.startsWith("node:internal/modules") ? LOADING : OTHER;
    }
    phaseOf.set(id, phase);
    return phase;
  };
  const own = new Map<string, number>();
  const gc = new Map<string, number>();
  let last = OTHER;
  profile.samples.forEach((id, i) => {
    const phase = classify(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (phase === null) return;
    if (phase === "GC") gc.set(last, (gc.get(last) ?? 0) + us);
    else {
      own.set(phase, (own.get(phase) ?? 0) + us);
      last = phase;
    }
  });
  const order = [OTHER, LOADING, ...PHASES.map(([name]) => name)];
  return order.map((phase) => ({ phase, own: own.get(phase) ?? 0, gc: gc.get(phase) ?? 0 }));
}

const work = mkdtempSync(join(tmpdir(), "sluice-profile-generate-"));
const launcher = join(work, "sluice-dist.mjs");
writeFileSync(
  launcher,
  `(await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/cli/bin/generate-heap.mjs")).href)})).keepYoungGenerationSmall();\n` +
    `const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/cli/dist/main.js")).href)});\n` +
    "process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });\n",
);
const rows: string[] = [];
for (const spec of process.argv.slice(2)) {
  const profiles = join(work, `profiles-${rows.length}`);
  const run = spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", profiles, launcher, "generate", "openapi", spec, "--name", "bench", "--out", join(work, "out")], { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } });
  rmSync(join(work, "out"), { recursive: true, force: true });
  if (run.status !== 0) throw new Error(`generate ${spec} failed: ${run.stderr}`);
  const file = readdirSync(profiles).find((name) => name.endsWith(".cpuprofile"))!;
  const shares = phaseShares(JSON.parse(readFileSync(join(profiles, file), "utf8")));
  const total = shares.reduce((sum, s) => sum + s.own + s.gc, 0);
  const pct = (us: number) => `${((100 * us) / total).toFixed(0)}%`;
  if (rows.length === 0) rows.push(`| spec | ${shares.map((s) => s.phase).join(" | ")} | of which GC |`, `| --- | ${shares.map(() => "---:").join(" | ")} | ---: |`);
  const gcTotal = shares.reduce((sum, s) => sum + s.gc, 0);
  rows.push(`| ${basename(spec)} (${(total / 1000).toFixed(0)} ms sampled) | ${shares.map((s) => `${pct(s.own + s.gc)} (GC ${pct(s.gc)})`).join(" | ")} | ${pct(gcTotal)} |`);
  console.error(`profiled ${spec}`);
}
rmSync(work, { recursive: true, force: true });
console.log(rows.join("\n"));
