/**
 * Import time and memory of a built pack on plain node, this tree's generated files against
 * another revision's (issue 24: the pack's data moved from object literals to JSON text; a
 * user's tsc got faster, and importing the pack must not get slower or heavier).
 *
 *   node --import tsx scripts/bench-pack-import.ts --before <rev> [--pack stripe] [--rounds 9]
 *
 * Both versions of packs/<pack>/src (the working tree's and `git archive <rev>`'s) are built
 * with the repository's build settings into a temporary folder, with @sluice/core as built
 * (packages/core/dist, which bench-tsc.ts or `pnpm -r build` makes). Each round imports each
 * version's dist/index.js in a fresh `node --expose-gc` process, in a rotating order, and
 * reports the import's wall time, then heap used after a full GC and the peak RSS.
 * Prints a markdown table (medians and per-round figures).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const { values: flags } = parseArgs({ options: { before: { type: "string" }, pack: { type: "string", default: "stripe" }, rounds: { type: "string", default: "9" } } });
if (flags.before === undefined) throw new Error("--before <rev> is required");
const rounds = Number(flags.rounds);
const pack = flags.pack;

const work = mkdtempSync(join(tmpdir(), "sluice-bench-import-"));
mkdirSync(join(work, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(work, "node_modules/@sluice/core"), "dir");

function build(label: string, fill: (dir: string) => void): string {
  const dir = join(work, label);
  mkdirSync(dir, { recursive: true });
  fill(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `bench-${label}`, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(ROOT, "tsconfig.build.json"), compilerOptions: { types: [], sourceMap: false, inlineSources: false, declaration: false } }));
  execFileSync(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
  return join(dir, "dist/index.js");
}

const versions: Record<string, string> = {
  [`before (${flags.before})`]: build("before", (dir) => {
    execFileSync("sh", ["-c", `git -C "${ROOT}" archive "${flags.before}" "packs/${pack}/src" | tar -x -C "${dir}" --strip-components=2`]);
  }),
  "after (this tree)": build("after", (dir) => {
    execFileSync("cp", ["-r", join(ROOT, "packs", pack, "src"), dir]);
  }),
};

const PROBE = `
const started = performance.now();
const m = await import(process.argv[1]);
const ms = performance.now() - started;
if (m.tools.length === 0) throw new Error("no tools");
globalThis.gc(); globalThis.gc();
process.stdout.write(JSON.stringify({ ms, heapMiB: process.memoryUsage().heapUsed / 2 ** 20, rssMiB: process.resourceUsage().maxRSS / 1024 }));
`;

interface Sample {
  ms: number;
  heapMiB: number;
  rssMiB: number;
}
const labels = Object.keys(versions);
const samples: Record<string, Sample[]> = Object.fromEntries(labels.map((label) => [label, []]));
for (let round = 0; round < rounds; round += 1) {
  for (let i = 0; i < labels.length; i += 1) {
    const label = labels[(i + round) % labels.length]!;
    const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", PROBE, pathToFileURL(versions[label]!).href], { encoding: "utf8" });
    if (child.status !== 0) throw new Error(`${label}: ${child.stderr}`);
    samples[label]!.push(JSON.parse(child.stdout) as Sample);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const lines = [
  `| ${pack} pack, dist/index.js on plain node | import ms (median) | heap after GC MiB | peak RSS MiB | import ms per round |`,
  "| --- | ---: | ---: | ---: | --- |",
  ...labels.map((label) => {
    const s = samples[label]!;
    return `| ${label} | ${median(s.map((x) => x.ms)).toFixed(0)} | ${median(s.map((x) => x.heapMiB)).toFixed(1)} | ${median(s.map((x) => x.rssMiB)).toFixed(0)} | ${s.map((x) => x.ms.toFixed(0)).join(", ")} |`;
  }),
];
process.stdout.write(`${lines.join("\n")}\n`);
rmSync(work, { recursive: true, force: true });
