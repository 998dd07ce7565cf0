/**
 * Emit speed, before and after (bench/EMIT-SPEED.md): the emit module of a base commit and
 * of the working tree, each compiled as its dist is (TypeScript's transpiler, ES2022, no
 * type information needed), are run in alternating fresh processes (scripts/bench-emit-child.ts)
 * on the same specs; each process builds the IR and runtime facts as `sluice generate`
 * does, then emits once, cold, as the CLI does. Reported: medians of CPU and wall
 * milliseconds per spec and variant (and of CPU per big file), and whether every emitted
 * file is byte-identical between the two (sha256 of each).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-emit.ts --base <commit> [--rounds 5] [--spec <path>]...
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EMIT = "generators/emit";
const { values } = parseArgs({
  options: { base: { type: "string" }, rounds: { type: "string", default: "5" }, spec: { type: "string", multiple: true } },
});
if (values.base === undefined) throw new Error("--base <commit> is required (the commit to compare the working tree with)");
const rounds = Number(values.rounds);
const specs = values.spec ?? ["github-rest/api.github.com.json", "stripe/spec3.json", "kubernetes/swagger.json"].map((file) => resolve(ROOT, "../shared/specs", file));

const work = mkdtempSync(join(tmpdir(), "sluice-bench-emit-"));
/** Transpiles emit's src/*.ts (read by `read`) into `<work>/<label>/`, importable as `<dir>/index.js`. */
function compile(label: string, names: readonly string[], read: (name: string) => string): string {
  const dir = join(work, label);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  // Its bare imports (@sluice/schema) resolve as emit's own do.
  symlinkSync(join(ROOT, EMIT, "node_modules"), join(dir, "node_modules"), "dir");
  for (const name of names) {
    const { outputText } = ts.transpileModule(read(name), {
      fileName: name,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true },
    });
    writeFileSync(join(dir, name.replace(/\.ts$/, ".js")), outputText);
  }
  return dir;
}
const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const baseNames = git("ls-tree", "--name-only", `${values.base}:${EMIT}/src`).split("\n").filter((name) => name.endsWith(".ts"));
const variants = {
  base: compile("base", baseNames, (name) => git("show", `${values.base}:${EMIT}/src/${name}`)),
  new: compile("new", readdirSync(join(ROOT, EMIT, "src")).filter((name) => name.endsWith(".ts")), (name) => readFileSync(join(ROOT, EMIT, "src", name), "utf8")),
};

interface Run {
  emitCpu: number;
  emitWall: number;
  perFile: Record<string, number>;
  size: number;
  digests: Record<string, string>;
}
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const child = fileURLToPath(new URL("bench-emit-child.ts", import.meta.url));
const rows: string[] = [];
const loads: string[] = [`${loadavg()[0]!.toFixed(1)} at the start`];
let identical = true;
for (const spec of specs) {
  const runs: Record<keyof typeof variants, Run[]> = { base: [], new: [] };
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which goes first, so neither always meets the warmer machine.
    const order = round % 2 === 0 ? (["base", "new"] as const) : (["new", "base"] as const);
    for (const variant of order) {
      const run = spawnSync(process.execPath, ["--conditions=@sluice/source", "--import", "tsx", child, variants[variant], spec], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      if (run.status !== 0) throw new Error(`${variant} on ${spec}: ${run.stderr}`);
      runs[variant].push(JSON.parse(run.stdout) as Run);
    }
  }
  const same = JSON.stringify(runs.base[0]!.digests) === JSON.stringify(runs.new[0]!.digests);
  identical &&= same;
  const m = (variant: keyof typeof variants, value: (run: Run) => number) => median(runs[variant].map(value));
  const cell = (value: (run: Run) => number) => `${m("base", value).toFixed(0)} | ${m("new", value).toFixed(0)} | ${(m("new", value) / m("base", value)).toFixed(2)}x`;
  const name = spec.split("/").slice(-2).join("/");
  const file = (path: string) => (run: Run) => run.perFile[path] ?? 0;
  rows.push(
    `| ${name} | ${(runs.new[0]!.size / 1048576).toFixed(1)} MiB | ${cell((run) => run.emitCpu)} | ${cell((run) => run.emitWall)} | ${cell(file("src/tools.gen.ts"))} | ${cell(file("src/types.gen.ts"))} | ${same ? "yes" : "**no**"} |`,
  );
  loads.push(`${loadavg()[0]!.toFixed(1)} after ${name}`);
  console.error(rows.at(-1));
}
rmSync(work, { recursive: true, force: true });
console.log(
  [
    `Medians of ${rounds} alternating rounds, one fresh process per run; milliseconds. Load average (1 min): ${loads.join(", ")}.`,
    "",
    "| spec | emitted | emit CPU base | new | new/base | emit wall base | new | new/base | tools.gen.ts CPU base | new | new/base | types.gen.ts CPU base | new | new/base | bytes identical |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
  ].join("\n"),
);
if (!identical) process.exitCode = 1;
