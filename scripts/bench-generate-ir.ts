/**
 * The OpenAPI generator's own phases (read + sha256, parse, IR, runtime facts and
 * pagination, response hints: what `sluice generate` asks of generators/openapi, emit and
 * the egress map left out), this tree's source against a baseline commit's, side by side in
 * one run, on GitHub REST, Stripe and Kubernetes.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-generate-ir.ts [--rounds 5] [--baseline <commit>] [--corpus] [--out bench/GENERATE-IR.md]
 *
 * The baseline's generators/openapi/src is extracted with `git archive` next to this tree's
 * (so it imports the same @sluice/schema, core and emit). Each measurement is its own
 * process (scripts/bench-generate-ir-child.ts); rounds are interleaved, each running every
 * (spec, version) pair once in a rotating order. Per phase: CPU time (user + system) of
 * the process during that phase, and wall time; peak RSS is the child's own maxRSS. The
 * child also hashes what it built, and the run stops if baseline and tree disagree; with
 * `--corpus`, so does every spec of the corpus, outside fixtures and packs
 * (scripts/bench-generate-ir-digests.ts), IR, facts in both pagination modes and hints.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    baseline: { type: "string", default: "47da724" },
    out: { type: "string", default: "bench/GENERATE-IR.md" },
    /** Also compare what both versions build from every spec of the corpus, outside fixtures and packs. */
    corpus: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(options.rounds);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CHILD = join(ROOT, "scripts/bench-generate-ir-child.ts");
const DIGESTS = join(ROOT, "scripts/bench-generate-ir-digests.ts");
const SPECS = [
  { name: "GitHub REST", spec: join(ROOT, "packs/github-rest/spec/api.github.com.json") },
  { name: "Stripe", spec: join(ROOT, "packs/stripe/spec/spec3.json") },
  { name: "Kubernetes", spec: join(ROOT, "../shared/specs/kubernetes/swagger.json") },
];
const NOTES_HEADING = "## Notes (hand-written";
const PHASES = ["read+sha256", "parse", "ir", "facts", "hints"] as const;

const baselineCommit = execFileSync("git", ["rev-parse", "--short", options.baseline], { cwd: ROOT, encoding: "utf8" }).trim();
const treeCommit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
// Inside generators/openapi, so that its imports resolve to this tree's workspace packages.
const baselineDir = mkdtempSync(join(ROOT, "generators/openapi/.bench-baseline-"));
process.on("exit", () => rmSync(baselineDir, { recursive: true, force: true }));
const archive = execFileSync("git", ["archive", baselineCommit, "generators/openapi/src", "generators/openapi/package.json"], { cwd: ROOT });
execFileSync("tar", ["-x", "--strip-components=2", "-C", baselineDir], { input: archive });
const VERSIONS = [
  { name: `baseline ${baselineCommit}`, entry: join(baselineDir, "src/index.ts") },
  { name: `this tree ${treeCommit}`, entry: join(ROOT, "generators/openapi/src/index.ts") },
];

type Run = Record<string, number> & { digest?: string };
const runs = new Map<string, Run[]>();
const loadAtStart = loadavg()[0]!;
const pairs = SPECS.flatMap((spec) => VERSIONS.map((version) => ({ spec, version })));
for (let round = 0; round < ROUNDS; round += 1) {
  const order = pairs.map((_, i) => pairs[(i + round) % pairs.length]!);
  for (const { spec, version } of order) {
    const child = spawnSync(process.execPath, ["--conditions=@sluice/source", "--import", "tsx", CHILD, version.entry, spec.spec, "digest"], { cwd: ROOT, encoding: "utf8" });
    if (child.status !== 0) throw new Error(`${version.name} on ${spec.name}: ${child.stderr}`);
    const run = JSON.parse(child.stdout) as Run;
    const key = `${spec.name}\u0000${version.name}`;
    runs.set(key, [...(runs.get(key) ?? []), run]);
  }
  console.log(`round ${round + 1} of ${ROUNDS} done (load ${loadavg()[0]!.toFixed(1)})`);
}
const loadAtEnd = loadavg()[0]!;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
for (const spec of SPECS) {
  const digests = new Set(VERSIONS.flatMap((version) => runs.get(`${spec.name}\u0000${version.name}`)!.map((run) => run.digest)));
  if (digests.size !== 1) throw new Error(`${spec.name}: baseline and this tree built different output (${[...digests].join(", ")})`);
}

/** Per version: one `digest path` line per spec. */
let corpusCheck: string | undefined;
if (options.corpus) {
  const [before, after] = VERSIONS.map((version) => {
    const child = spawnSync(process.execPath, ["--conditions=@sluice/source", "--import", "tsx", DIGESTS, version.entry], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26 });
    if (child.status !== 0) throw new Error(`${version.name}, corpus digests: ${child.stderr}`);
    return child.stdout.trim().split("\n");
  }) as [string[], string[]];
  const differing = before.filter((line, i) => line !== after[i]);
  if (differing.length > 0 || before.length !== after.length) throw new Error(`baseline and this tree built different output from: ${differing.map((line) => line.slice(line.indexOf(" ") + 1)).join(", ")}`);
  const refused = before.filter((line) => line.startsWith("refused ")).length;
  corpusCheck = `With \`--corpus\`, both versions also built identical output (IR, runtime facts in both pagination modes, response hints with and without pagination; scripts/bench-generate-ir-digests.ts) from all ${before.length} OpenAPI/Swagger specs of the corpus, test/fixtures/outside and packs/*/spec${refused > 0 ? ` (${refused} refused by both alike: not an OpenAPI document)` : ""}.`;
  console.log(corpusCheck);
}

const lines: string[] = [];
const when = new Date().toISOString();
lines.push("# The OpenAPI generator's own phases: before and after (issue 24, gen-ir)", "");
lines.push(`Measured ${when} on ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}; load average (1 min) ${loadAtStart.toFixed(1)} at the start, ${loadAtEnd.toFixed(1)} at the end.`, "");
lines.push("```", `node --conditions=@sluice/source --import tsx scripts/bench-generate-ir.ts --rounds ${ROUNDS} --baseline ${options.baseline}${options.corpus ? " --corpus" : ""}`, "```", "");
lines.push(
  `Medians of ${ROUNDS} interleaved rounds, each process running one version on one spec from source (tsx): read and sha256 the spec, parse it, ` +
    "`buildOpenAPIPackIR` (with `detectCredentialParameters`, as the CLI calls it), `openapiRuntimeFacts`, then `openapiResponseHints` of every tool " +
    "and `openapiPackResponseHints`, which is what `sluice generate` asks of the generator before emitting. CPU is the process's user + system time " +
    "during the phase (less disturbed by other sessions than wall time); the ratio column is this tree / baseline of the per-round CPU. " +
    "Both versions built byte-identical output in every run (a sha256 of the IR, facts and hints, compared by the script).",
  "",
);
if (corpusCheck !== undefined) lines.push(corpusCheck, "");
lines.push("| spec | phase | baseline CPU | this tree CPU | ratio | baseline wall | this tree wall |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
for (const spec of SPECS) {
  const [before, after] = VERSIONS.map((version) => runs.get(`${spec.name}\u0000${version.name}`)!) as [Run[], Run[]];
  const total = (run: Run) => PHASES.reduce((sum, phase) => sum + run[`${phase} cpu`]!, 0);
  const totalWall = (run: Run) => PHASES.reduce((sum, phase) => sum + run[phase]!, 0);
  for (const phase of [...PHASES, "all phases"] as const) {
    const cpuOf = phase === "all phases" ? total : (run: Run) => run[`${phase} cpu`]!;
    const wallOf = phase === "all phases" ? totalWall : (run: Run) => run[phase]!;
    const ratio = median(before.map((run, i) => cpuOf(after[i]!) / cpuOf(run)));
    lines.push(
      `| ${phase === "read+sha256" ? spec.name : ""} | ${phase} | ${median(before.map(cpuOf)).toFixed(0)} ms | ${median(after.map(cpuOf)).toFixed(0)} ms | ${ratio.toFixed(2)}x | ${median(before.map(wallOf)).toFixed(0)} ms | ${median(after.map(wallOf)).toFixed(0)} ms |`,
    );
  }
  lines.push(`|  | peak RSS (process) | ${median(before.map((run) => run.rssMiB!)).toFixed(0)} MiB | ${median(after.map((run) => run.rssMiB!)).toFixed(0)} MiB | ${median(before.map((run, i) => after[i]!.rssMiB! / run.rssMiB!)).toFixed(2)}x |  |  |`);
}
lines.push("");
// A hand-written section (from its heading on) survives a rerun.
const outFile = resolve(ROOT, options.out);
const previous = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
const notes = previous.indexOf(NOTES_HEADING);
writeFileSync(outFile, `${lines.join("\n")}\n${notes < 0 ? "" : `\n${previous.slice(notes)}`}`);
console.log(lines.join("\n"));
