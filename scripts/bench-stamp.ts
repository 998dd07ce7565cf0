/**
 * The stamp's cost, before and after (bench/EMIT-SPEED.md): `writeStamp` of generate-stamp.ts
 * at a base commit and in the working tree, each compiled beside the built CLI (in
 * packages/cli/dist/, so that its fingerprint hashes the same modules, and removed after),
 * run in alternating fresh processes on a Kubernetes pack generated once. Each process calls
 * writeStamp three times with the texts as the CLI holds them: the first call includes the
 * fingerprint of the sluice modules (once per process), the later ones only the pack's files.
 * Needs the built CLI (`npx pnpm -r build`).
 *
 *   node --import tsx scripts/bench-stamp.ts --base <commit> [--rounds 5] [--spec <path>]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "packages/cli/dist");
const { values } = parseArgs({ options: { base: { type: "string" }, rounds: { type: "string", default: "5" }, spec: { type: "string" } } });
if (values.base === undefined) throw new Error("--base <commit> is required");
if (!existsSync(join(DIST, "main.js"))) throw new Error("packages/cli/dist/main.js is missing: run `npx pnpm -r build` first");
const rounds = Number(values.rounds);
const spec = values.spec ?? resolve(ROOT, "../shared/specs/kubernetes/swagger.json");

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const compile = (text: string) =>
  ts.transpileModule(text, { fileName: "generate-stamp.ts", compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true } }).outputText;
const variants = { base: join(DIST, ".bench-stamp-base.js"), new: join(DIST, ".bench-stamp-new.js") };
const work = mkdtempSync(join(tmpdir(), "sluice-bench-stamp-"));
try {
  writeFileSync(variants.base, compile(git("show", `${values.base}:packages/cli/src/generate-stamp.ts`)));
  writeFileSync(variants.new, compile(readFileSync(join(ROOT, "packages/cli/src/generate-stamp.ts"), "utf8")));
  // A pack as a user's project holds it: its @sluice/core resolves to the built one.
  mkdirSync(join(work, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(work, "node_modules/@sluice/core"), "dir");
  const launcher = join(work, "sluice.mjs");
  writeFileSync(launcher, `import { main } from ${JSON.stringify(pathToFileURL(join(DIST, "main.js")).href)};\nprocess.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });\n`);
  const out = join(work, "pack");
  const generated = spawnSync(process.execPath, [launcher, "generate", spec, "--name", "bench", "--out", out], { cwd: work, encoding: "utf8" });
  if (generated.status !== 0) throw new Error(generated.stderr);
  const child = join(work, "stamp.mjs");
  writeFileSync(
    child,
    [
      'import { readFileSync } from "node:fs";',
      "const [module, out, spec, specFile] = process.argv.slice(2);",
      "const { writeStamp } = await import(module);",
      // What generate.ts hands the stamp: the texts it wrote (strings), the spec's bytes, the egress map.
      "const written = new Map();",
      'for (const path of ["src/pack-data.gen.ts", "src/defs.gen.ts", "src/tools.gen.ts", "src/types.gen.ts", "src/runtime.gen.ts", ".gitattributes", "egress_map.txt"]) written.set(path, readFileSync(`${out}/${path}`, "utf8"));',
      "const bytes = readFileSync(spec);",
      "written.set(`spec/${specFile}`, bytes);",
      "const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };",
      "const times = [];",
      "for (let i = 0; i < 3; i += 1) { const start = cpu(); await writeStamp({ name: 'bench', spec, out }, bytes, { tools: 0 }, written); times.push(cpu() - start); }",
      "process.stdout.write(JSON.stringify(times));",
    ].join("\n"),
  );
  const runs: Record<keyof typeof variants, number[][]> = { base: [], new: [] };
  const loads = [loadavg()[0]!.toFixed(1)];
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of round % 2 === 0 ? (["base", "new"] as const) : (["new", "base"] as const)) {
      const run = spawnSync(process.execPath, [child, pathToFileURL(variants[variant]).href, out, spec, basename(spec)], { cwd: work, encoding: "utf8" });
      if (run.status !== 0) throw new Error(`${variant}: ${run.stderr}`);
      runs[variant].push(JSON.parse(run.stdout) as number[]);
    }
  }
  loads.push(loadavg()[0]!.toFixed(1));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const cell = (pick: (times: number[]) => number) => {
    const [base, now] = [median(runs.base.map(pick)), median(runs.new.map(pick))];
    return `${base.toFixed(1)} | ${now.toFixed(1)} | ${(now / base).toFixed(2)}x`;
  };
  console.log(
    [
      `writeStamp of a ${basename(spec)} pack, CPU milliseconds, medians of ${rounds} alternating processes; load average (1 min) ${loads.join(" -> ")}.`,
      "",
      "| call | base | new | new/base |",
      "|---|---:|---:|---:|",
      `| first (with the fingerprint of the sluice modules) | ${cell((times) => times[0]!)} |`,
      `| later (fingerprint cached: the pack's files only) | ${cell((times) => (times[1]! + times[2]!) / 2)} |`,
    ].join("\n"),
  );
} finally {
  rmSync(variants.base, { force: true });
  rmSync(variants.new, { force: true });
  rmSync(work, { recursive: true, force: true });
}
