/**
 * YAML parsers for specs, measured to choose one (bench/YAML-PARSE.md): each candidate parses a
 * file to plain data in a process of its own (bench/yaml-parse-child.mjs through
 * bench/spawn-measured.cjs: parse time inside the child, peak RSS of the whole child), in
 * interleaved rounds (each round runs every candidate once, in a rotating order), on the spec
 * of issue 37 (eight disjoint copies of Kubernetes as 27 MB of YAML, scripts/build-kubernetes-copies.ts)
 * and on Kubernetes itself as YAML. Ratios are per round against js-yaml 4 (the anchor, the issue's), then
 * the median. In the same run: whether sluice's loadDocument gives the data the `yaml` package
 * gave, on those files and on every YAML spec of the corpus; how far below the expansion
 * budget the corpus's specs are; where errors are reported.
 *
 *   npx pnpm@10.34.8 -r build     # sluice's row loads generators/openapi/dist
 *   node --conditions=@sluice/source --import tsx scripts/bench-yaml-parse.ts [--rounds 5] [--out bench/YAML-PARSE.md]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseDocument } from "yaml";
import { isSluiceError } from "@sluice/core";
import { expansionBudget, loadDocument } from "../generators/openapi/src/load-document.ts";
import { writeKubernetesCopies } from "./build-kubernetes-copies.ts";
import { median } from "./bench-stats.ts";

const { values: options } = parseArgs({ options: { rounds: { type: "string", default: "5" }, out: { type: "string", default: "bench/YAML-PARSE.md" } } });
const ROUNDS = Number(options.rounds);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SPECS = join(ROOT, "../shared/specs");
const CHILD = join(ROOT, "bench/yaml-parse-child.mjs");
const SPAWN_MEASURED = join(ROOT, "bench/spawn-measured.cjs");
if (!existsSync(join(ROOT, "generators/openapi/dist/index.js"))) throw new Error("run `npx pnpm@10.34.8 -r build` first (sluice's row loads generators/openapi/dist)");

const version = (dir: string): string => (JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { version: string }).version;
const CANDIDATES: { id: string; label: string }[] = [
  { id: "read", label: "read the file only (floor)" },
  { id: "yaml-document", label: `yaml ${version("node_modules/yaml")} parseDocument + toJS (sluice before)` },
  { id: "yaml-cst", label: `yaml ${version("node_modules/yaml")} Parser: CST tokens only, no data` },
  { id: "js-yaml-5", label: `js-yaml ${version("node_modules/.pnpm/js-yaml@5.5.0/node_modules/js-yaml")} load` },
  { id: "js-yaml-4", label: `js-yaml ${version("node_modules/js-yaml")} load (the anchor)` },
  { id: "sluice", label: "sluice loadDocument: js-yaml 4 (core schema) + depth and expansion walk (chosen)" },
];
const ANCHOR = "js-yaml-4";

const loadAtStart = loadavg()[0]!;
const uptimeAtStart = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
const work = mkdtempSync(join(tmpdir(), "sluice-bench-yaml-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const [x1, x8] = writeKubernetesCopies(work, [1, 8]);
const FILES = [
  { name: `Kubernetes x8 (${x8!.operations} operations)`, path: x8!.yaml },
  { name: `Kubernetes x1 (${x1!.operations} operations)`, path: x1!.yaml },
];

function runChild(args: string[]): { ms: number; maxRssKiB: number; stdout: string } {
  const result = join(work, "result.json");
  const run = spawnSync(process.execPath, [SPAWN_MEASURED, result, CHILD, ...args], { encoding: "utf8", maxBuffer: 1 << 24, env: { PATH: process.env["PATH"] ?? "" } });
  if (run.status !== 0) throw new Error(`${args.join(" ")} failed: ${run.stderr}`);
  const measured = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number };
  return { ...measured, stdout: run.stdout };
}

type Sample = { parseMs: number; rssMiB: number };
const samples = new Map<string, Sample[][]>(); // file -> candidate index -> rounds
for (const file of FILES) {
  const perCandidate: Sample[][] = CANDIDATES.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < CANDIDATES.length; i += 1) {
      const c = (i + round) % CANDIDATES.length;
      const measured = runChild([CANDIDATES[c]!.id, file.path]);
      perCandidate[c]!.push({ parseMs: (JSON.parse(measured.stdout) as { parseMs: number }).parseMs, rssMiB: measured.maxRssKiB / 1024 });
    }
    console.log(`${file.name} round ${round + 1}: ${CANDIDATES.map((c, i) => `${c.id} ${perCandidate[i]![round]!.parseMs.toFixed(0)} ms ${perCandidate[i]![round]!.rssMiB.toFixed(0)} MiB`).join(", ")}`);
  }
  samples.set(file.name, perCandidate);
}

// Same data as the `yaml` package gave, on the large files (in children: the `yaml` side needs ~1 GB).
const sameLarge = FILES.map((file) => ({ name: file.name, same: (JSON.parse(runChild(["same", file.path]).stdout) as { same: boolean }).same }));

// The corpus: same data, and members walked against the budget.
function yamlFiles(): string[] {
  const found: string[] = [];
  const dirs = readdirSync(SPECS, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  for (const dir of dirs) for (const f of readdirSync(join(SPECS, dir)).sort()) if (/\.ya?ml$/.test(f)) found.push(join(SPECS, dir, f));
  const outside = join(ROOT, "test/fixtures/outside");
  for (const f of readdirSync(outside).sort()) if (/\.ya?ml$/.test(f)) found.push(join(outside, f));
  return found;
}
function members(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let count = children.length;
  for (const child of children) count += members(child);
  return count;
}
const corpus = yamlFiles().map((path) => {
  const text = readFileSync(path, "utf8");
  const before = parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS() as unknown;
  const after = loadDocument(text, path);
  const walked = members(after);
  return { file: relative(join(ROOT, ".."), path).replace(/^shared\/specs\//, "").replace(/^speed-generate\//, ""), bytes: text.length, same: JSON.stringify(before) === JSON.stringify(after), walked, budget: expansionBudget(text.length) };
});

// Error locations: the cases bad-input.test.ts holds, before (yaml) and now.
const ERROR_CASES = [
  ["unclosed flow sequence", "openapi: 3.0.0\npaths:\n  /x:\n    get: [1, 2\n"],
  ["a key indented less than its siblings", "openapi: 3.0.0\ninfo:\n  title: t\n version: 1\n"],
  ["a tab in indentation", "openapi: 3.0.0\ninfo:\n\ttitle: t\n"],
  ["an unterminated quoted string", 'openapi: 3.0.0\ninfo:\n  title: "t\n  version: 1\n'],
] as const;
const errorRows = ERROR_CASES.map(([name, text]) => {
  // As sluice read it: the first error's line and column (prettyErrors adds them).
  const yamlError = parseDocument(text, { uniqueKeys: false }).errors[0];
  const at = yamlError?.linePos?.[0];
  const before = yamlError === undefined ? "accepted" : `${at?.line ?? "?"}:${at?.col ?? "?"} ${yamlError.message.split("\n")[0]}`;
  let now = "accepted";
  try {
    loadDocument(text, "spec");
  } catch (error) {
    now = isSluiceError(error) ? `${error.code} ${error.line ?? "?"}:${error.column ?? "?"} ${error.message}` : `uncoded: ${String(error)}`;
  }
  return { name, before, now };
});

// ---------------------------------------------------------------------------------------
const loadAtEnd = loadavg()[0]!;
const uptimeAtEnd = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const lines: string[] = [
  "# YAML parsing: which parser reads specs",
  "",
  `Measured ${new Date().toISOString()} on ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}.`,
  `Load: \`${uptimeAtStart}\` at the start, \`${uptimeAtEnd}\` at the end (1-minute averages ${loadAtStart.toFixed(1)} and ${loadAtEnd.toFixed(1)} on 2 cores: other sessions shared the CPU, so read the ratios, which are taken within each round).`,
  "",
  "```",
  "npx pnpm@10.34.8 -r build",
  `node --conditions=@sluice/source --import tsx scripts/bench-yaml-parse.ts --rounds ${ROUNDS}`,
  "```",
  "",
  `Each cell is the median of ${ROUNDS} interleaved rounds; a ratio is the median of the per-round ratios to js-yaml 4 (the anchor) in the same round. ` +
    "`parse` is the parse alone, timed in the child after its module is loaded and the file read; `peak RSS` is the whole child's (`process.resourceUsage().maxRSS`, bench/spawn-measured.cjs).",
  "",
];
for (const file of FILES) {
  const per = samples.get(file.name)!;
  const anchor = CANDIDATES.findIndex((c) => c.id === ANCHOR);
  lines.push(`## ${file.name}, ${mib(statSync(file.path).size)} MiB of YAML`, "", "| parser | parse | peak RSS | parse / js-yaml 4 | RSS / js-yaml 4 |", "| --- | ---: | ---: | ---: | ---: |");
  CANDIDATES.forEach((candidate, i) => {
    const rounds = per[i]!;
    const timeRatio = median(rounds.map((s, r) => s.parseMs / per[anchor]![r]!.parseMs));
    const rssRatio = median(rounds.map((s, r) => s.rssMiB / per[anchor]![r]!.rssMiB));
    lines.push(`| ${candidate.label} | ${median(rounds.map((s) => s.parseMs)).toFixed(0)} ms | ${median(rounds.map((s) => s.rssMiB)).toFixed(0)} MiB | ${timeRatio.toFixed(2)}x | ${rssRatio.toFixed(2)}x |`);
  });
  lines.push("");
}
lines.push(
  "## Same data, expansion budget, error locations",
  "",
  `Same data as \`yaml\`'s parseDocument + toJS (isDeepStrictEqual): ${sameLarge.map((s) => `${s.name} ${s.same ? "yes" : "NO"}`).join("; ")}.`,
  "",
  "Every YAML spec of the corpus and of test/fixtures/outside: same data (as JSON text), and the members the load's walk counts against its budget (`expansionBudget`: ten times the text's length, at least a million).",
  "",
  "| spec | bytes | same data | members walked | budget | walked / budget |",
  "| --- | ---: | --- | ---: | ---: | ---: |",
  ...corpus.map((row) => `| ${row.file} | ${row.bytes} | ${row.same ? "yes" : "NO"} | ${row.walked} | ${row.budget} | ${(row.walked / row.budget).toFixed(3)} |`),
  "",
  "Errors (line:column, 1-based), `yaml` before and sluice now:",
  "",
  "| case | yaml (before) | sluice now |",
  "| --- | --- | --- |",
  ...errorRows.map((row) => `| ${row.name} | ${row.before.replace(/\|/g, "\\|")} | ${row.now.replace(/\|/g, "\\|")} |`),
  "",
);
writeFileSync(join(ROOT, options.out), `${lines.join("\n")}\n`);
console.log(`wrote ${options.out}`);
