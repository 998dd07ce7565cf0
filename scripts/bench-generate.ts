/**
 * `sluice generate openapi` against openapi-mcp-generator 4.0.1 and against the floor, side
 * by side in one run, as whole processes (spawn to exit; peak RSS from the child itself via
 * bench/spawn-measured.cjs), on GitHub REST, Stripe and Kubernetes:
 *
 *  - sluice: the CLI's compiled dist/main.js on plain node (no tsx, no source condition),
 *    as installed users run it;
 *  - sluice generator only: generators/openapi/dist/index.js called
 *    directly, i.e. the same work without the CLI and what it imports (shows what loading
 *    costs on this path);
 *  - openapi-mcp-generator: its CLI, writing its project to a fresh directory;
 *  - floor: start node, read and JSON.parse the spec, write the bytes sluice writes.
 *
 * Rounds are interleaved (each round runs every row once, in a rotating order); the
 * table gives medians and per-round ratios. Then, in the same run: YAML parse time of the
 * corpus's YAML specs with `yaml` (what sluice uses) and `js-yaml`, and the scaling of
 * sluice's generation time and peak RSS with spec size (least-squares fit on operations).
 *
 *   npx pnpm -r build    # the dist/ this measures
 *   node --import tsx scripts/bench-generate.ts [--rounds 5] [--scaling-rounds 3] [--out bench/GENERATE.md]
 *
 * GitHub REST is measured on a copy without its 6 URL `$ref`s (inside examples), which
 * openapi-mcp-generator would otherwise try to fetch; every row reads the same copy.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median, fit } from "./bench-stats.ts";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    "scaling-rounds": { type: "string", default: "3" },
    out: { type: "string", default: "bench/GENERATE.md" },
  },
});
const ROUNDS = Number(options.rounds);
const SCALING_ROUNDS = Number(options["scaling-rounds"]);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SPECS = join(ROOT, "../shared/specs");
const SPAWN_MEASURED = join(ROOT, "bench/spawn-measured.cjs");
const CLI_DIST = join(ROOT, "packages/cli/dist/main.js");
const GENERATOR_DIST = join(ROOT, "generators/openapi/dist/index.js");
const OMG_BIN = join(ROOT, "node_modules/openapi-mcp-generator/bin/openapi-mcp-generator.js");
// Children run as in a user's project: no inherited loader, no source condition.
const ENV = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" };

for (const required of [CLI_DIST, GENERATOR_DIST, OMG_BIN]) {
  if (!existsSync(required)) throw new Error(`${required} is missing: run \`npx pnpm -r build\` and \`npx pnpm install\` first`);
}

/** Load average at the start and the end: other work on the machine shows up in every row. */
const loadAtStart = loadavg();
const work = mkdtempSync(join(tmpdir(), "sluice-bench-generate-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
// A full check maps the pack from disk: its @sluice/core resolves as in a user's project (here: the built one).
mkdirSync(join(work, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(work, "node_modules/@sluice/core"), "dir");

// ---------------------------------------------------------------------------------------
// Children.

const SLUICE_LAUNCHER = join(work, "sluice-dist.mjs");
/** What bin/sluice.mjs does before it loads main.js for generate (keeps V8's young generation small). */
const GENERATE_HEAP = pathToFileURL(join(ROOT, "packages/cli/bin/generate-heap.mjs")).href;
writeFileSync(
  SLUICE_LAUNCHER,
  `if (process.argv[2] === "generate") (await import(${JSON.stringify(GENERATE_HEAP)})).keepYoungGenerationSmall();\n` +
    `const { main } = await import(${JSON.stringify(pathToFileURL(CLI_DIST).href)});\n` +
    "process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });\n",
);
const GENERATOR_LAUNCHER = join(work, "generator-dist.mjs");
writeFileSync(
  GENERATOR_LAUNCHER,
  `import { generateOpenAPIPack } from ${JSON.stringify(pathToFileURL(GENERATOR_DIST).href)};\n` +
    "const [spec, out] = process.argv.slice(2);\n" +
    'const result = await generateOpenAPIPack(spec, { name: "bench", out });\n' +
    "process.stdout.write(`generated ${result.tools} tools, skipped ${result.skipped} operations\\n`);\n",
);
/** The floor: what any generator must do at least (start, read, parse, write the output's bytes). */
const FLOOR = join(work, "floor.cjs");
writeFileSync(
  FLOOR,
  [
    '"use strict";',
    'const { readFileSync, writeFileSync, mkdirSync, readdirSync } = require("node:fs");',
    'const { join } = require("node:path");',
    "const [spec, reference, out] = process.argv.slice(2);",
    'JSON.parse(readFileSync(spec, "utf8"));',
    'mkdirSync(join(out, "src"), { recursive: true });',
    'for (const name of readdirSync(join(reference, "src"))) writeFileSync(join(out, "src", name), readFileSync(join(reference, "src", name)));',
    "",
  ].join("\n"),
);

/**
 * Where one whole CLI run's time goes: the same `generate openapi` as the sluice row, from
 * dist, in one process, cut at the CLI's own progress steps (a terminal's stderr is faked
 * and drawn from the first millisecond: SLUICE_PROGRESS_DELAY_MS=0), wall and CPU time of
 * each. The first mark is node's start (performance's time origin), the last is main()'s
 * return; the parent adds what is left until the process has exited.
 */
const PHASES = join(work, "phases.mjs");
writeFileSync(
  PHASES,
  [
    "const cpu = () => { const used = process.cpuUsage(); return (used.user + used.system) / 1000; };",
    "const marks = [{ name: \"node start-up (to the launcher's first line)\", wall: 0, cpu: 0 }];",
    "const mark = (name) => marks.push({ name, wall: performance.now(), cpu: cpu() });",
    `(await import(${JSON.stringify(GENERATE_HEAP)})).keepYoungGenerationSmall();`,
    'mark("loading main.js (the entry: argument parsing, @sluice/schema)");',
    `const { main } = await import(${JSON.stringify(pathToFileURL(CLI_DIST).href)});`,
    'mark("main: the command, options, and what generate imports (@sluice/core, @sluice/emit)");',
    "const [spec, out] = process.argv.slice(2);",
    'const file = spec.split("/").pop();',
    'process.env.SLUICE_PROGRESS_DELAY_MS = "0";',
    // Each step is drawn as `\r\x1b[Ksluice: generating bench: <step> (0.3 s)`.
    "const stderr = { isTTY: true, columns: 1000, write(text) {",
    "  const step = /sluice: generating bench: (.*) \\(\\d+\\.\\d s\\)$/.exec(text);",
    '  if (step !== null) mark(step[1].replace(file, "the spec"));',
    "} };",
    'const stdout = { write() { mark("printing the result"); } };',
    'const code = await main(["generate", "openapi", spec, "--name", "bench", "--out", out], { stdout, stderr, cwd: process.cwd() });',
    'if (code !== 0) throw new Error(`generate exited ${code}`);',
    'mark("end");',
    "process.stdout.write(JSON.stringify(marks));",
    "",
  ].join("\n"),
);

interface Measured {
  ms: number;
  maxRssKiB: number;
  stdout: string;
}

let runCounter = 0;
function freshDir(): string {
  runCounter += 1;
  return join(work, `out-${runCounter}`);
}

function measure(args: readonly string[]): Measured {
  const result = join(work, "measured.json");
  const run = spawnSync(process.execPath, [SPAWN_MEASURED, result, ...args], { env: ENV, cwd: work, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const { ms, maxRssKiB, status } = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number | null; status: number | null };
  if (status !== 0 || maxRssKiB === null) throw new Error(`node ${args.join(" ")} exited ${status}:\n${run.stdout}\n${run.stderr}`);
  return { ms, maxRssKiB, stdout: run.stdout };
}

/** A check row counts only when it found the pack up to date (a check that finds drift does other work). */
function checked(measured: Measured): Measured {
  if (!measured.stdout.includes("up to date")) throw new Error(`the check found the pack out of date:\n${measured.stdout}`);
  return measured;
}

function clean(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

type RowName = "sluice" | "sluice generator only" | "openapi-mcp-generator" | "floor" | "sluice --check, stamped" | "sluice --check, no stamp";
const ROWS: readonly RowName[] = ["sluice", "sluice generator only", "openapi-mcp-generator", "floor", "sluice --check, stamped", "sluice --check, no stamp"];
/** The packs the check rows read: a fresh pack of each spec, with its stamp and (a copy) without. */
const stamped = (spec: string) => join(work, `reference-${basename(spec)}`);
const unstamped = (spec: string) => join(work, `unstamped-${basename(spec)}`);

function runRow(row: RowName, spec: string, reference: string): Measured {
  const out = freshDir();
  try {
    switch (row) {
      case "sluice":
        return measure([SLUICE_LAUNCHER, "generate", "openapi", spec, "--name", "bench", "--out", out]);
      case "sluice generator only":
        return measure([GENERATOR_LAUNCHER, spec, out]);
      case "openapi-mcp-generator":
        // A base URL is given so that specs with several servers do not stop it.
        return measure([OMG_BIN, "--input", spec, "--output", out, "--base-url", "https://api.example.invalid"]);
      case "floor":
        return measure([FLOOR, spec, reference, out]);
      case "sluice --check, stamped":
        return checked(measure([SLUICE_LAUNCHER, "generate", "openapi", spec, "--name", "bench", "--out", stamped(spec), "--check"]));
      case "sluice --check, no stamp":
        return checked(measure([SLUICE_LAUNCHER, "generate", "openapi", spec, "--name", "bench", "--out", unstamped(spec), "--check"]));
    }
  } finally {
    clean(out);
  }
}

// ---------------------------------------------------------------------------------------
// Statistics.

function mib(kib: number): string {
  return `${(kib / 1024).toFixed(0)} MiB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

// ---------------------------------------------------------------------------------------
// 1. Side by side.

/** GitHub REST without its URL `$ref`s (they sit in examples; openapi-mcp-generator would fetch them). */
function withoutUrlRefs(source: string, target: string): number {
  const document = JSON.parse(readFileSync(source, "utf8")) as unknown;
  let removed = 0;
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    if (typeof record["$ref"] === "string" && !(record["$ref"] as string).startsWith("#")) {
      delete record["$ref"];
      removed += 1;
    }
    for (const value of Object.values(record)) stack.push(value);
  }
  writeFileSync(target, JSON.stringify(document));
  return removed;
}

const specsDir = join(work, "specs");
mkdirSync(specsDir);
const githubCopy = join(specsDir, "api.github.com.json");
const removedRefs = withoutUrlRefs(join(ROOT, "packs/github-rest/spec/api.github.com.json"), githubCopy);
const SIDE_BY_SIDE: readonly { name: string; spec: string }[] = [
  { name: `GitHub REST (copy without ${removedRefs} URL refs)`, spec: githubCopy },
  { name: "Stripe", spec: join(ROOT, "packs/stripe/spec/spec3.json") },
  { name: "Kubernetes", spec: join(SPECS, "kubernetes/swagger.json") },
];

function countsFrom(stdout: string): { tools: number; skipped: number } {
  // `<name>: N tools (openapi) -> <out>`, then `  skipped K:` when any operation was skipped.
  const match = /: (\d+) tools \((?:openapi|graphql)\)/.exec(stdout);
  if (match === null) throw new Error(`unexpected output: ${stdout}`);
  const skipped = /^ {2}skipped (\d+):/m.exec(stdout);
  return { tools: Number(match[1]), skipped: skipped === null ? 0 : Number(skipped[1]) };
}

interface SideBySide {
  name: string;
  operations: number;
  outputBytes: number;
  runs: Map<RowName, Measured[]>;
  ratios: { wall: number; rss: number }[];
  /** --check wall time / the floor's, per round. */
  checkRatios: { stamped: number; full: number }[];
}

const sideBySide: SideBySide[] = [];
for (const { name, spec } of SIDE_BY_SIDE) {
  // One warm-up sluice run writes the reference output the floor copies.
  const reference = join(work, `reference-${basename(spec)}`);
  const warm = measure([SLUICE_LAUNCHER, "generate", "openapi", spec, "--name", "bench", "--out", reference]);
  const { tools, skipped } = countsFrom(warm.stdout);
  const outputBytes = readdirSync(join(reference, "src")).reduce((sum, file) => sum + statSync(join(reference, "src", file)).size, 0);
  if (!existsSync(join(reference, ".sluice-stamp.json"))) throw new Error(`${reference}: generate left no stamp`);
  cpSync(reference, unstamped(spec), { recursive: true });
  rmSync(join(unstamped(spec), ".sluice-stamp.json"));
  sideBySide.push({ name, operations: tools + skipped, outputBytes, runs: new Map(ROWS.map((row) => [row, []])), ratios: [], checkRatios: [] });
}

console.log(`side by side: ${ROUNDS} interleaved rounds`);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [index, entry] of sideBySide.entries()) {
    const spec = SIDE_BY_SIDE[index]!.spec;
    const reference = join(work, `reference-${basename(spec)}`);
    const order = ROWS.map((_, i) => ROWS[(i + round) % ROWS.length]!);
    const thisRound = new Map<RowName, Measured>();
    for (const row of order) {
      const measured = runRow(row, spec, reference);
      thisRound.set(row, measured);
      entry.runs.get(row)!.push(measured);
    }
    const sluice = thisRound.get("sluice")!;
    const omg = thisRound.get("openapi-mcp-generator")!;
    const floor = thisRound.get("floor")!;
    const ratio = { wall: sluice.ms / omg.ms, rss: sluice.maxRssKiB / omg.maxRssKiB };
    entry.ratios.push(ratio);
    entry.checkRatios.push({ stamped: thisRound.get("sluice --check, stamped")!.ms / floor.ms, full: thisRound.get("sluice --check, no stamp")!.ms / floor.ms });
    console.log(
      `  round ${round + 1} ${entry.name}: sluice ${seconds(sluice.ms)} ${mib(sluice.maxRssKiB)}, ` +
        `openapi-mcp-generator ${seconds(omg.ms)} ${mib(omg.maxRssKiB)}, floor ${seconds(floor.ms)}: ` +
        `wall ${ratio.wall.toFixed(2)}x, rss ${ratio.rss.toFixed(2)}x`,
    );
  }
}

// Phases of one whole CLI run on each spec, median of ROUNDS interleaved rounds.
interface PhaseRun {
  /** Wall and CPU ms of each phase, in the order the run went through them. */
  phases: Map<string, { wall: number; cpu: number }>;
  /** Spawn to exit, as the parent saw it. */
  total: number;
  /** CPU ms of the process until main() returned. */
  cpu: number;
}
const EXIT_PHASE = "after main() returned: exit, and spawning the process";
const phaseRuns = new Map<string, PhaseRun[]>(SIDE_BY_SIDE.map(({ name }) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (let i = 0; i < SIDE_BY_SIDE.length; i += 1) {
    const { name, spec } = SIDE_BY_SIDE[(i + round) % SIDE_BY_SIDE.length]!;
    const out = freshDir();
    const measured = measure([PHASES, spec, out]);
    clean(out);
    const marks = JSON.parse(measured.stdout) as { name: string; wall: number; cpu: number }[];
    const phases = new Map<string, { wall: number; cpu: number }>();
    for (let m = 0; m + 1 < marks.length; m += 1) {
      const previous = phases.get(marks[m]!.name) ?? { wall: 0, cpu: 0 };
      phases.set(marks[m]!.name, { wall: previous.wall + marks[m + 1]!.wall - marks[m]!.wall, cpu: previous.cpu + marks[m + 1]!.cpu - marks[m]!.cpu });
    }
    const end = marks[marks.length - 1]!;
    phases.set(EXIT_PHASE, { wall: measured.ms - end.wall, cpu: Number.NaN });
    phaseRuns.get(name)!.push({ phases, total: measured.ms, cpu: end.cpu });
  }
}
const phaseNames = [...new Set([...phaseRuns.values()].flatMap((runs) => runs.flatMap((run) => [...run.phases.keys()])))];
const phaseMedian = (name: string, phase: string, what: "wall" | "cpu"): string => {
  const values = phaseRuns.get(name)!.flatMap((run) => (run.phases.has(phase) ? [run.phases.get(phase)![what]] : []));
  return values.length === 0 || Number.isNaN(values[0]!) ? "" : median(values).toFixed(0);
};
for (const { name } of SIDE_BY_SIDE) {
  const runs = phaseRuns.get(name)!;
  console.log(`phases (${name}): ${phaseNames.map((phase) => `${phase} ${phaseMedian(name, phase, "wall")} ms`).join(", ")}; whole ${median(runs.map((run) => run.total)).toFixed(0)} ms`);
}

// ---------------------------------------------------------------------------------------
// 2. YAML parsers on the corpus's YAML specs (in this process; parse only).

const require = createRequire(import.meta.url);
const yaml = require("yaml") as typeof import("yaml");
const YAML_VERSION = (require("yaml/package.json") as { version: string }).version;
/** js-yaml is not a dependency of sluice; the versions the workspace already holds are measured. */
function jsYamlVersions(): { version: string; load: (text: string) => unknown }[] {
  const store = join(ROOT, "node_modules/.pnpm");
  return readdirSync(store)
    .filter((name) => /^js-yaml@\d/.test(name))
    .map((name) => {
      const dir = join(store, name, "node_modules/js-yaml");
      const module = createRequire(join(dir, "package.json"))(dir) as { load: (text: string) => unknown };
      return { version: name.slice("js-yaml@".length), load: module.load };
    });
}
const jsYaml = jsYamlVersions();

function timeMs(run: () => unknown, repeat: number): number {
  const times: number[] = [];
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return median(times);
}

const yamlFiles: string[] = [];
for (const dir of readdirSync(SPECS).sort()) {
  const path = join(SPECS, dir);
  if (!statSync(path).isDirectory()) continue;
  for (const file of readdirSync(path).sort()) if (/\.ya?ml$/.test(file)) yamlFiles.push(`${dir}/${file}`);
}

interface YamlRow {
  file: string;
  bytes: number;
  yamlMs: number;
  jsYamlMs: number[];
  jsonMs: number;
  same: boolean[];
}
const yamlRows: YamlRow[] = [];
console.log("YAML parsers:");
for (const file of yamlFiles) {
  const text = readFileSync(join(SPECS, file), "utf8");
  const viaYaml = yaml.parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS() as unknown;
  const json = JSON.stringify(viaYaml);
  const row: YamlRow = {
    file,
    bytes: Buffer.byteLength(text),
    yamlMs: timeMs(() => yaml.parseDocument(text, { uniqueKeys: false, prettyErrors: false }).toJS(), 5),
    jsYamlMs: jsYaml.map(({ load }) => timeMs(() => load(text), 5)),
    jsonMs: timeMs(() => JSON.parse(json), 5),
    same: jsYaml.map(({ load }) => JSON.stringify(load(text)) === json),
  };
  yamlRows.push(row);
  console.log(`  ${file}: yaml ${row.yamlMs.toFixed(0)} ms, ${jsYaml.map(({ version }, i) => `js-yaml ${version} ${row.jsYamlMs[i]!.toFixed(0)} ms`).join(", ")}, JSON.parse ${row.jsonMs.toFixed(1)} ms`);
}

/** Error positions and the alias-expansion ("billion laughs") guard, probed, not assumed. */
function probeYaml(): string[] {
  const malformed = "openapi: 3.0.0\ninfo:\n  title: x\n  version: [1, 2\npaths: {}\n";
  const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let level = 1; level <= 9; level += 1) {
    const previous = String.fromCharCode(96 + level);
    const next = String.fromCharCode(97 + level);
    laughs.push(`${next}: &${next} [${Array(10).fill(`*${previous}`).join(", ")}]`);
  }
  const bomb = laughs.join("\n");
  const lines: string[] = [];
  const yamlError = yaml.parseDocument(malformed).errors[0];
  lines.push(`- \`yaml\` ${YAML_VERSION} syntax error: line ${yamlError?.linePos?.[0]?.line}, column ${yamlError?.linePos?.[0]?.col} (\`${yamlError?.message.split("\n")[0]}\`).`);
  try {
    yaml.parseDocument(bomb).toJS();
    lines.push("- `yaml` alias guard: none triggered on a 10^10-node alias bomb (!)");
  } catch (error) {
    lines.push(`- \`yaml\` alias guard: \`toJS()\` refuses a 10^10-node alias bomb (\`${(error as Error).message.split("\n")[0]}\`; \`maxAliasCount\`, default 100).`);
  }
  for (const { version, load } of jsYaml) {
    try {
      load(malformed);
      lines.push(`- js-yaml ${version}: accepted the malformed document`);
    } catch (error) {
      const mark = (error as { mark?: { line: number; column: number } }).mark;
      lines.push(`- js-yaml ${version} syntax error: \`mark\` line ${mark === undefined ? "?" : mark.line + 1}, column ${mark === undefined ? "?" : mark.column + 1} (0-based in the API), message \`${(error as Error).message.split("\n")[0]}\`.`);
    }
    const started = performance.now();
    try {
      const value = load(bomb) as Record<string, unknown>;
      lines.push(
        `- js-yaml ${version} alias guard: none; the bomb loads in ${(performance.now() - started).toFixed(1)} ms as shared references ` +
          `(\`j\` ${Array.isArray(value["j"]) ? "is an array of 10 references to one array" : "?"}), so any later tree walk (sluice's nesting check, ` +
          "the converters) would visit 10^10 nodes; a guard would have to be written (count distinct alias uses, or walk with a node budget).",
      );
    } catch (error) {
      lines.push(`- js-yaml ${version} alias guard: refused (${(error as Error).message.split("\n")[0]}).`);
    }
  }
  return lines;
}
const yamlProbe = probeYaml();
for (const line of yamlProbe) console.log(`  ${line}`);

// ---------------------------------------------------------------------------------------
// 3. Scaling with spec size (sluice CLI from dist, whole process).

const SCALING: readonly string[] = [
  "petstore/petstore-expanded-3.0.json",
  "notion/notion-openapi.json",
  "google/gmail-v1.yaml",
  "slack/slack_web_openapi_v2_without_examples.json",
  "twilio/twilio_api_v2010.json",
  "sendgrid/oai_v3_stoplight.json",
  "stripe/spec3.json",
  "jira/jira-openapi.yaml",
  "github-rest/api.github.com.json",
  "kubernetes/swagger.json",
];
interface ScalingRow {
  file: string;
  bytes: number;
  operations: number;
  ms: number[];
  rss: number[];
}
const scaling: ScalingRow[] = SCALING.map((file) => ({ file, bytes: statSync(join(SPECS, file)).size, operations: 0, ms: [], rss: [] }));
console.log(`scaling: ${SCALING_ROUNDS} interleaved rounds over ${SCALING.length} specs`);
for (let round = 0; round < SCALING_ROUNDS; round += 1) {
  for (let i = 0; i < scaling.length; i += 1) {
    const row = scaling[(i + round) % scaling.length]!;
    const out = freshDir();
    const measured = measure([SLUICE_LAUNCHER, "generate", "openapi", join(SPECS, row.file), "--name", "bench", "--out", out]);
    clean(out);
    const { tools, skipped } = countsFrom(measured.stdout);
    row.operations = tools + skipped;
    row.ms.push(measured.ms);
    row.rss.push(measured.maxRssKiB);
  }
}

// ---------------------------------------------------------------------------------------
// 4. Emit alone, in this process: the ts-morph emitter (kept as the test oracle in
//    generators/emit/test/support) against the string emitter, on the committed packs' IR.

interface EmitRow {
  pack: string;
  tools: number;
  bytes: number;
  tsMorphMs: number;
  stringMs: number;
  identical: boolean;
}
// The nine packs as this repository generates them (sluice.config.ts).
const { default: repositoryConfig } = (await import("../sluice.config.ts")) as typeof import("../sluice.config.ts");
// This repository's packs all come from spec files (none from an MCP server).
const EMIT_PACKS = repositoryConfig.packs.flatMap((pack) => (pack.spec === undefined ? [] : [{ ...pack, spec: pack.spec }])).map((pack) => ({
  name: pack.name,
  kind: pack.spec.endsWith(".graphql") ? ("graphql" as const) : ("openapi" as const),
  spec: pack.spec.split("/").pop()!,
  ...(pack.credentialArguments === undefined ? {} : { credentialParameters: pack.credentialArguments }),
}));
const openapiSource = (await import("../generators/openapi/src/index.ts")) as typeof import("../generators/openapi/src/index.ts");
const graphqlSource = (await import("../generators/graphql/src/index.ts")) as typeof import("../generators/graphql/src/index.ts");
const { emitPackSources: emitStrings } = (await import("../generators/emit/src/pack-sources.ts")) as typeof import("../generators/emit/src/pack-sources.ts");
const { emitPackSources: emitTsMorph } = (await import("../generators/emit/test/support/ts-morph-emit/pack-sources.ts")) as typeof import("../generators/emit/test/support/ts-morph-emit/pack-sources.ts");
const emitRows: EmitRow[] = [];
console.log("emit alone (ts-morph vs strings):");
for (const entry of EMIT_PACKS) {
  const bytes = readFileSync(join(ROOT, "packs", entry.name, "spec", entry.spec));
  const source = { name: entry.name, file: entry.spec, sha256: "0".repeat(64) };
  const ir =
    entry.kind === "openapi"
      ? openapiSource.buildOpenAPIPackIR(openapiSource.loadDocument(bytes, entry.spec), source, entry.credentialParameters === undefined ? {} : { credentialParameters: entry.credentialParameters })
      : graphqlSource.buildGraphQLPackIR(graphqlSource.loadGraphQLSchema(bytes, { fileName: entry.spec }), source);
  const generator = { name: "bench", version: "0" };
  const emitOptions = { runtimeModule: "./runtime.ts" };
  const tsMorph: number[] = [];
  const strings: number[] = [];
  let identical = true;
  let outputBytes = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    let start = performance.now();
    const a = emitTsMorph(ir, generator, emitOptions);
    tsMorph.push(performance.now() - start);
    start = performance.now();
    const b = emitStrings(ir, generator, emitOptions);
    strings.push(performance.now() - start);
    identical &&= a.length === b.length && a.every((file, i) => file.text === b[i]!.text);
    outputBytes = b.reduce((sum, file) => sum + Buffer.byteLength(file.text), 0);
  }
  const row = { pack: entry.name, tools: ir.tools.length, bytes: outputBytes, tsMorphMs: median(tsMorph), stringMs: median(strings), identical };
  emitRows.push(row);
  console.log(`  ${row.pack}: ts-morph ${row.tsMorphMs.toFixed(0)} ms, strings ${row.stringMs.toFixed(1)} ms (${(row.tsMorphMs / row.stringMs).toFixed(1)}x), identical ${row.identical}`);
}

// ---------------------------------------------------------------------------------------
// Report.

const cpu = cpus();
const machine = `${cpu.length} x ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform} ${process.arch}`;
const lines: string[] = [
  "# Generation speed: sluice vs openapi-mcp-generator",
  "",
  `Measured ${new Date().toISOString()} on ${machine}; load average (1 min) ${loadAtStart[0]!.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`,
  "(above the core count, other processes shared the CPU: compare rows within a round, not with other runs).",
  "",
  "```",
  `npx pnpm -r build && node --import tsx scripts/bench-generate.ts --rounds ${ROUNDS} --scaling-rounds ${SCALING_ROUNDS}`,
  "```",
  "",
  "Whole processes, spawn to exit; peak RSS is the child's own `maxRSS` (bench/spawn-measured.cjs).",
  `Medians of ${ROUNDS} interleaved rounds (each round runs every row once, in a rotating order);`,
  "the ratio columns are medians of the per-round ratios sluice / openapi-mcp-generator.",
  "",
  "- **sluice**: `sluice generate openapi <spec> --name bench --out <dir>` from the CLI's compiled `dist/` on plain node.",
  "- **sluice generator only**: `generateOpenAPIPack` from `generators/openapi/dist/index.js`, without the CLI (what loading the CLI and `@sluice/core` adds).",
  "- **openapi-mcp-generator** 4.0.1: its CLI (`--input --output --base-url`), writing its project to a fresh directory.",
  "- **floor**: node starts, reads and `JSON.parse`s the spec, writes the bytes sluice writes.",
  "- **sluice --check, stamped**: `sluice generate openapi <spec> --name bench --out <pack> --check` on the pack the warm-up run wrote, unchanged: the stamp (`.sluice-stamp.json`) answers.",
  "- **sluice --check, no stamp**: the same on a copy of that pack without its stamp: the full check (generate in memory, compare, map the pack: in memory, since its scaffolds are untouched; a pack with an edited curated.ts is imported from disk).",
  "",
  "| spec | operations | sluice output | row | wall (median) | peak RSS (median) | wall / omg | RSS / omg |",
  "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
];
for (const entry of sideBySide) {
  const omg = entry.runs.get("openapi-mcp-generator")!;
  for (const row of ROWS) {
    const runs = entry.runs.get(row)!;
    const ms = median(runs.map((run) => run.ms));
    const rss = median(runs.map((run) => run.maxRssKiB));
    const wallRatio = row === "sluice" ? median(entry.ratios.map((ratio) => ratio.wall)) : ms / median(omg.map((run) => run.ms));
    const rssRatio = row === "sluice" ? median(entry.ratios.map((ratio) => ratio.rss)) : rss / median(omg.map((run) => run.maxRssKiB));
    lines.push(
      `| ${row === "sluice" ? entry.name : ""} | ${row === "sluice" ? entry.operations : ""} | ${row === "sluice" ? `${(entry.outputBytes / 1024 ** 2).toFixed(1)} MiB` : ""} | ${row} | ${seconds(ms)} | ${mib(rss)} | ${wallRatio.toFixed(2)}x | ${rssRatio.toFixed(2)}x |`,
    );
  }
}
lines.push("", "Per-round ratios (sluice / openapi-mcp-generator, wall and RSS):", "");
for (const entry of sideBySide) {
  lines.push(`- ${entry.name}: ${entry.ratios.map((ratio) => `${ratio.wall.toFixed(2)}x / ${ratio.rss.toFixed(2)}x`).join(", ")}`);
}
lines.push("", "`generate --check` of the unchanged pack against the floor, per round (wall, check / floor; stamped, then without the stamp):", "");
for (const entry of sideBySide) {
  lines.push(`- ${entry.name}: ${entry.checkRatios.map((ratio) => `${ratio.stamped.toFixed(2)}x / ${ratio.full.toFixed(2)}x`).join(", ")}; medians ${median(entry.checkRatios.map((r) => r.stamped)).toFixed(2)}x / ${median(entry.checkRatios.map((r) => r.full)).toFixed(2)}x`);
}

lines.push(
  "",
  `Where the time goes: one whole \`sluice generate openapi <spec> --name bench --out <dir>\` from dist, in one process, cut at the CLI's progress steps`,
  `(its stderr a faked terminal, drawn from the first millisecond); wall and CPU ms, medians of ${ROUNDS} interleaved rounds. Each step runs until the next one starts,`,
  "so a step's row holds everything between: `parsing` loads the generator module too, `egress map` writes the map. The last row is what the parent",
  "measured after main() returned (the process's exit, and its spawn before node's time origin). The totals are whole processes, spawn to exit, and CPU until main() returned.",
  "",
  `| phase | ${SIDE_BY_SIDE.map(({ name }) => `${name.replace(/ \(.*\)$/, "")} wall | CPU`).join(" | ")} |`,
  `| --- | ${SIDE_BY_SIDE.map(() => "---: | ---:").join(" | ")} |`,
  ...phaseNames.map((phase) => `| ${phase} | ${SIDE_BY_SIDE.map(({ name }) => `${phaseMedian(name, phase, "wall")} | ${phaseMedian(name, phase, "cpu")}`).join(" | ")} |`),
  `| **whole process** | ${SIDE_BY_SIDE.map(({ name }) => `${median(phaseRuns.get(name)!.map((run) => run.total)).toFixed(0)} | ${median(phaseRuns.get(name)!.map((run) => run.cpu)).toFixed(0)}`).join(" | ")} |`,
);

lines.push(
  "",
  "## YAML: `yaml` (used) vs `js-yaml` (measured only)",
  "",
  "Parse to plain data, in one process, median of 5; `JSON.parse` of the same data as JSON for scale.",
  "",
  `| spec | bytes | yaml ${YAML_VERSION} parseDocument + toJS | ${jsYaml.map(({ version }) => `js-yaml ${version} load`).join(" | ")} | JSON.parse | ${jsYaml.map(({ version }) => `same data (js-yaml ${version})`).join(" | ")} |`,
  `| --- | ---: | ---: | ${jsYaml.map(() => "---:").join(" | ")} | ---: | ${jsYaml.map(() => "---").join(" | ")} |`,
);
for (const row of yamlRows) {
  lines.push(
    `| ${row.file} | ${row.bytes} | ${row.yamlMs.toFixed(0)} ms | ${row.jsYamlMs.map((ms) => `${ms.toFixed(0)} ms (${(row.yamlMs / ms).toFixed(1)}x faster)`).join(" | ")} | ${row.jsonMs.toFixed(1)} ms | ${row.same.map((same) => (same ? "yes" : "no")).join(" | ")} |`,
  );
}
lines.push("", "Probed in the same run:", "", ...yamlProbe);

lines.push(
  "",
  "## Emit alone: ts-morph vs strings",
  "",
  `The pack sources of the committed packs from their IR, in one process, median of ${ROUNDS} interleaved runs`,
  "(the ts-morph emitter is the one this change replaced, kept as the test oracle in generators/emit/test/support).",
  "",
  "| pack | tools | output | ts-morph emit | string emit | speed-up | byte-identical |",
  "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
  ...emitRows.map(
    (row) =>
      `| ${row.pack} | ${row.tools} | ${(row.bytes / 1024 ** 2).toFixed(1)} MiB | ${row.tsMorphMs.toFixed(0)} ms | ${row.stringMs.toFixed(1)} ms | ${(row.tsMorphMs / row.stringMs).toFixed(1)}x | ${row.identical ? "yes" : "NO"} |`,
  ),
);

const opsX = scaling.map((row) => row.operations);
const msY = scaling.map((row) => median(row.ms));
const rssY = scaling.map((row) => median(row.rss) / 1024);
const timeFit = fit(opsX, msY);
const rssFit = fit(opsX, rssY);
const bytesFit = fit(scaling.map((row) => row.bytes / 1024 ** 2), msY);
// YAML parsing is a cost per byte, not per operation: the JSON specs alone show the per-operation cost.
const jsonRows = scaling.map((row, i) => ({ row, i })).filter(({ row }) => row.file.endsWith(".json"));
const jsonTimeFit = fit(jsonRows.map(({ row }) => row.operations), jsonRows.map(({ i }) => msY[i]!));
const jsonRssFit = fit(jsonRows.map(({ row }) => row.operations), jsonRows.map(({ i }) => rssY[i]!));
lines.push(
  "",
  "## Scaling with spec size",
  "",
  `sluice \`generate openapi\` from dist, whole process, median of ${SCALING_ROUNDS} interleaved rounds per spec.`,
  "",
  "| spec | bytes | operations | wall | peak RSS |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...scaling.map((row) => `| ${row.file} | ${row.bytes} | ${row.operations} | ${seconds(median(row.ms))} | ${mib(median(row.rss))} |`),
  "",
  `Least-squares fits against operations (n = ${scaling.length}):`,
  "",
  `- wall = ${timeFit.a.toFixed(0)} ms + ${timeFit.b.toFixed(2)} ms x operations (R² = ${timeFit.r2.toFixed(3)})`,
  `- peak RSS = ${rssFit.a.toFixed(0)} MiB + ${(rssFit.b * 1024).toFixed(0)} KiB x operations (R² = ${rssFit.r2.toFixed(3)})`,
  `- JSON specs only (n = ${jsonRows.length}; YAML parsing costs per byte, see above): wall = ${jsonTimeFit.a.toFixed(0)} ms + ${jsonTimeFit.b.toFixed(2)} ms x operations (R² = ${jsonTimeFit.r2.toFixed(3)}); peak RSS = ${jsonRssFit.a.toFixed(0)} MiB + ${(jsonRssFit.b * 1024).toFixed(0)} KiB x operations (R² = ${jsonRssFit.r2.toFixed(3)})`,
  `- for comparison, wall against spec size: ${bytesFit.a.toFixed(0)} ms + ${bytesFit.b.toFixed(0)} ms x MiB (R² = ${bytesFit.r2.toFixed(3)})`,
  "",
);

const report = lines.join("\n");
console.log(`\n${report}`);
writeFileSync(resolve(ROOT, options.out), report);
console.log(`written to ${options.out}`);
