/**
 * Breadth over a public directory of real specs (APIs-guru/openapi-directory, CC0): a seeded,
 * stratified sample of its OpenAPI 3.0 / 3.1 and Swagger 2.0 documents through the generator,
 * and every generated tool called with a minimal valid argument set built from its own input
 * schema (required members only). Writes bench/BREADTH.md.
 *
 *   node --conditions=@sluice/source --import tsx scripts/breadth.ts \
 *     [--git DIR] [--commit SHA] [--seed N] [--count N] [--tsc N] [--cli N] [--out FILE.md]
 *   ... scripts/breadth.ts --only SUBSTRING     the specs whose path has it, progress only
 *   ... scripts/breadth.ts --all-generate       every spec, generator only: the whole-spec failures
 *
 * The directory is read from a local bare git copy (`--git`, or SLUICE_DIRECTORY_GIT): it is
 * never downloaded, and CI never runs this (test/directory-slice.test.ts holds a vendored slice).
 * Per spec: the library path (loadDocument + buildOpenAPIPackIR + definePack); a sub-sample also
 * through the CLI (`sluice generate`) into a temp project that tsc then type-checks (strict).
 * Per tool: `check()` of the minimal arguments finds no issue, and `request()` builds a request;
 * a withheld path that is also a visible argument path is a clash.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { definePack, isSluiceError } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "../generators/openapi/src/index.ts";
import { seededSample } from "../test/support/egress-fuzz.ts";
import { clashes, minimalCall } from "../test/support/minimal-call.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "packages", "cli", "bin", "sluice.mjs");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const GIT = option("--git", process.env["SLUICE_DIRECTORY_GIT"] ?? "/work/.mirror/benkilimnik+openapi-directory-clone/repo");
const COMMIT = option("--commit", "98cd072b62ed10e92f61d3183f3d042c32af1123");
const SEED = Number(option("--seed", "22"));
const COUNT = Number(option("--count", "320"));
const TSC_COUNT = Number(option("--tsc", "30"));
const CLI_COUNT = Number(option("--cli", "30"));
const OUT = option("--out", join(ROOT, "bench", "BREADTH.md"));
const ONLY = args.includes("--only") ? option("--only", "") : undefined;

interface Entry {
  path: string;
  blob: string;
  size: number;
  version: "2.0" | "3.0" | "3.1" | "?";
}

interface SpecResult {
  entry: Entry;
  operations: number;
  tools: number;
  error?: string;
  skipped: Record<string, number>;
  callable: number;
  notCallable: Array<{ tool: string; reason: string; detail: string }>;
  clashes: string[];
  noServer: boolean;
  ms: number;
}

function git(...command: string[]): string {
  return execFileSync("git", ["--git-dir", GIT, ...command], { maxBuffer: 1 << 30, encoding: "utf8" });
}

/** Every openapi/swagger file of the commit with its version, read from its top-level `openapi:`/`swagger:` line. */
function listDirectory(): Entry[] {
  const entries: Entry[] = [];
  for (const line of git("ls-tree", "-r", "-l", COMMIT, "APIs").split("\n")) {
    const match = /^\d+ blob ([0-9a-f]{40})\s+(\d+)\t(.+\/(?:openapi|swagger)\.(?:ya?ml|json))$/.exec(line);
    if (match !== null) entries.push({ blob: match[1]!, size: Number(match[2]), path: match[3]!, version: "?" });
  }
  // One batch read: blobs the copy lacks (its largest files) answer "missing" and are left out.
  const out = spawnSync("git", ["--git-dir", GIT, "cat-file", "--batch"], { input: entries.map((e) => e.blob).join("\n") + "\n", maxBuffer: 1 << 30 });
  const buffer = out.stdout;
  let at = 0;
  const byBlob = new Map(entries.map((e) => [e.blob, e]));
  const kept: Entry[] = [];
  while (at < buffer.length) {
    const headerEnd = buffer.indexOf(10, at);
    const header = buffer.subarray(at, headerEnd).toString("utf8");
    at = headerEnd + 1;
    const [blob, kind, size] = header.split(" ");
    if (kind !== "blob") continue;
    const body = buffer.subarray(at, at + Number(size)).toString("utf8");
    at += Number(size) + 1;
    const entry = byBlob.get(blob!)!;
    const version = /^(?:openapi|swagger):\s*['"]?(\d+\.\d+)/m.exec(body)?.[1];
    entry.version = version === "2.0" ? "2.0" : version === "3.0" ? "3.0" : version === "3.1" ? "3.1" : "?";
    kept.push(entry);
  }
  return kept.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * Stratified: every 3.0 document (the directory has few), up to 60 of 3.1, the rest Swagger 2.0
 * split evenly over four size quartiles, so small and large specs are both in.
 */
function sample(all: readonly Entry[]): Entry[] {
  const of = (version: Entry["version"]) => all.filter((e) => e.version === version);
  const v30 = of("3.0");
  const v31 = seededSample(of("3.1"), 60, SEED);
  const v20 = [...of("2.0")].sort((a, b) => a.size - b.size || (a.path < b.path ? -1 : 1));
  const rest = Math.max(0, COUNT - v30.length - v31.length);
  const picked: Entry[] = [...v30, ...v31];
  for (let q = 0; q < 4; q++) {
    const quartile = v20.slice(Math.floor((q * v20.length) / 4), Math.floor(((q + 1) * v20.length) / 4));
    picked.push(...seededSample(quartile, Math.ceil(rest / 4), SEED + q + 1));
  }
  return picked.sort((a, b) => (a.path < b.path ? -1 : 1));
}

function read(entry: Entry): Buffer {
  return execFileSync("git", ["--git-dir", GIT, "cat-file", "blob", entry.blob], { maxBuffer: 1 << 30 });
}

function countOperations(document: unknown): number {
  const paths = (document as { paths?: Record<string, unknown> }).paths ?? {};
  let n = 0;
  for (const item of Object.values(paths)) {
    if (typeof item !== "object" || item === null) continue;
    for (const method of ["get", "put", "post", "delete", "options", "head", "patch", "trace"]) if (typeof (item as Record<string, unknown>)[method] === "object") n++;
  }
  return n;
}

/** The skip reason's code: the leading `CODE:` of the reason, else its first words. */
function skipCode(reason: string): string {
  const coded = /^([A-Z][A-Z0-9_]+):/.exec(reason);
  return coded !== null ? coded[1]! : reason.split(/[:(]/)[0]!.trim().slice(0, 60);
}

async function runSpec(entry: Entry): Promise<SpecResult> {
  const started = performance.now();
  const result: SpecResult = { entry, operations: 0, tools: 0, skipped: {}, callable: 0, notCallable: [], clashes: [], noServer: false, ms: 0 };
  try {
    const file = entry.path.split("/").pop()!;
    const document = loadDocument(read(entry), file);
    result.operations = countOperations(document);
    const ir = buildOpenAPIPackIR(document, { name: "breadth", file, sha256: entry.blob.padEnd(64, "0") }, { detectCredentialParameters: true });
    for (const skip of ir.skipped) result.skipped[skipCode(skip.reason)] = (result.skipped[skipCode(skip.reason)] ?? 0) + 1;
    const tools = definePack(ir).tools;
    result.tools = tools.length;
    result.clashes = clashes(tools);
    for (const tool of tools) {
      await new Promise((resolve) => setImmediate(resolve));
      const server = tool.server;
      if (server === undefined || !/^https?:\/\//.test(server)) result.noServer = true;
      const outcome = await minimalCall(tool);
      if (outcome.ok) result.callable++;
      else result.notCallable.push({ tool: tool.name, reason: outcome.reason, detail: outcome.detail });
    }
  } catch (error) {
    result.error = isSluiceError(error) ? `${error.code}: ${error.message.slice(0, 300)}` : `uncoded: ${String(error).slice(0, 300)}`;
  }
  result.ms = performance.now() - started;
  return result;
}

/** `sluice generate` as a user runs it, into one project that tsc checks as a whole. */
function cliAndTsc(entries: readonly Entry[], tscCount: number): { generated: number; failed: string[]; tsc: { packs: number; ok: boolean; output: string } } {
  const project = mkdtempSync(join(tmpdir(), "sluice-breadth-"));
  const failed: string[] = [];
  const packs: string[] = [];
  try {
    mkdirSync(join(project, "node_modules", "@sluice"), { recursive: true });
    symlinkSync(join(ROOT, "packages", "core"), join(project, "node_modules", "@sluice", "core"), "dir");
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "breadth", private: true, type: "module" }));
    mkdirSync(join(project, "specs"));
    entries.forEach((entry, i) => {
      const name = `p${i}-${entry.path.split("/")[1]!.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`.slice(0, 50).replace(/-+$/, "");
      const spec = join(project, "specs", `${name}.${entry.path.split(".").pop()}`);
      writeFileSync(spec, read(entry));
      const run = spawnSync(process.execPath, ["--conditions=@sluice/source", BIN, "generate", spec, "--name", name, "--out", join(project, "packs", name)], { encoding: "utf8", cwd: project });
      if (run.status !== 0) failed.push(`${entry.path}: exit ${run.status}: ${(run.stderr || run.stdout).trim().split("\n")[0]}`);
      else packs.push(name);
    });
    const checked = packs.slice(0, tscCount);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        // As scripts/corpus-packs.ts does, plus the repository's own strictest flags.
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          customConditions: ["@sluice/source"],
          lib: ["es2023"],
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        include: checked.map((name) => `packs/${name}/src/**/*.ts`),
      }),
    );
    const tsc = spawnSync(process.execPath, ["--max-old-space-size=4096", TSC, "-p", "tsconfig.json"], { cwd: project, encoding: "utf8", maxBuffer: 1 << 28 });
    return { generated: packs.length, failed, tsc: { packs: checked.length, ok: tsc.status === 0, output: (tsc.stdout + tsc.stderr).split("\n").slice(0, 20).join("\n") } };
  } finally {
    if (!args.includes("--keep")) rmSync(project, { recursive: true, force: true });
  }
}

function tally(values: Iterable<string>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** `--all-generate`: every readable spec of the directory through the generator only; prints the ones that fail whole. */
async function allGenerate(all: readonly Entry[]): Promise<void> {
  let failed = 0;
  for (const [i, entry] of all.entries()) {
    if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    try {
      const file = entry.path.split("/").pop()!;
      buildOpenAPIPackIR(loadDocument(read(entry), file), { name: "breadth", file, sha256: entry.blob.padEnd(64, "0") });
    } catch (error) {
      failed++;
      process.stdout.write(`${entry.path} (${entry.version}, ${entry.size} B): ${isSluiceError(error) ? `${error.code}: ${error.message.slice(0, 300)}` : `uncoded: ${String(error).slice(0, 300)}`}\n`);
    }
  }
  process.stdout.write(`${all.length - failed} of ${all.length} specs generate; ${failed} fail as a whole\n`);
}

async function main(): Promise<void> {
  const all = listDirectory();
  if (args.includes("--all-generate")) return allGenerate(all);
  const picked = ONLY !== undefined ? all.filter((e) => e.path.includes(ONLY)) : sample(all);
  const results: SpecResult[] = [];
  for (const [i, entry] of picked.entries()) {
    const result = await runSpec(entry);
    results.push(result);
    process.stderr.write(`[${i + 1}/${picked.length}] ${entry.path} (${entry.version}, ${entry.size} B): ${result.error ?? `${result.tools} tools, ${result.callable} callable, ${result.clashes.length} clashes`} ${Math.round(result.ms)} ms\n`);
    for (const bad of result.notCallable.slice(0, 3)) process.stderr.write(`    ${bad.tool}: ${bad.reason} ${bad.detail}\n`);
  }
  if (ONLY !== undefined) return;
  const cliSample = seededSample(picked, CLI_COUNT, SEED + 100).sort((a, b) => (a.path < b.path ? -1 : 1));
  const cli = cliAndTsc(cliSample, TSC_COUNT);
  writeFileSync(OUT, report(all, picked, results, cliSample, cli));
  process.stderr.write(`wrote ${OUT}\n`);
}

function report(all: readonly Entry[], picked: readonly Entry[], results: readonly SpecResult[], cliSample: readonly Entry[], cli: ReturnType<typeof cliAndTsc>): string {
  const generated = results.filter((r) => r.error === undefined);
  const sum = (f: (r: SpecResult) => number) => generated.reduce((n, r) => n + f(r), 0);
  const skips = new Map<string, number>();
  for (const r of generated) for (const [code, n] of Object.entries(r.skipped)) skips.set(code, (skips.get(code) ?? 0) + n);
  const notCallable = generated.flatMap((r) => r.notCallable.map((n) => ({ ...n, spec: r.entry.path })));
  const versions = tally(picked.map((e) => e.version));
  const lines = [
    "# Breadth: a sample of APIs-guru/openapi-directory",
    "",
    `Date: ${new Date().toISOString().slice(0, 10)}. Directory: a public copy of APIs-guru/openapi-directory (CC0), commit ${COMMIT}; ${all.length} readable openapi/swagger files (${tally(all.map((e) => e.version)).map(([v, n]) => `${v}: ${n}`).join(", ")}).`,
    "",
    "```",
    `node --conditions=@sluice/source --import tsx scripts/breadth.ts --seed ${SEED} --count ${COUNT} --tsc ${TSC_COUNT} --cli ${CLI_COUNT}`,
    "```",
    "",
    `Sample: seed ${SEED}, ${picked.length} specs (${versions.map(([v, n]) => `${v}: ${n}`).join(", ")}); every 3.0 document, up to 60 of 3.1, the rest Swagger 2.0 evenly over four size quartiles (${Math.min(...picked.map((e) => e.size))} B to ${Math.max(...picked.map((e) => e.size))} B).`,
    "A tool is callable when the minimal argument set built from its input schema (required members only; const/enum first, formats, bounds; test/support/minimal-call.ts) passes `check()` and `request()` builds a request.",
    "",
    "| | |",
    "|---|---|",
    `| specs | ${picked.length} |`,
    `| generated | ${generated.length} |`,
    `| operations | ${sum((r) => r.operations)} |`,
    `| skipped operations | ${sum((r) => Object.values(r.skipped).reduce((a, b) => a + b, 0))} |`,
    `| tools | ${sum((r) => r.tools)} |`,
    `| callable | ${sum((r) => r.callable)} |`,
    `| not callable | ${notCallable.length} |`,
    `| clashes (offered and withheld) | ${sum((r) => r.clashes.length)} |`,
    `| specs without a usable server URL | ${generated.filter((r) => r.noServer).length} |`,
    `| CLI \`sluice generate\` (sub-sample) | ${cli.generated} of ${cliSample.length} |`,
    `| tsc strict over generated packs | ${cli.tsc.packs} packs: ${cli.tsc.ok ? "pass" : "FAIL"} |`,
    "",
  ];
  const failedSpecs = results.filter((r) => r.error !== undefined);
  lines.push("## Specs that did not generate", "", ...(failedSpecs.length === 0 ? ["None."] : failedSpecs.map((r) => `- ${r.entry.path}: ${r.error}`)), "");
  lines.push("## Skipped operations by code", "", ...(skips.size === 0 ? ["None."] : [...skips].sort((a, b) => b[1] - a[1]).map(([code, n]) => `- ${code}: ${n}`)), "");
  lines.push("## Not callable, by reason", "", ...(notCallable.length === 0 ? ["None."] : tally(notCallable.map((n) => n.reason)).map(([reason, n]) => {
    const examples = notCallable.filter((x) => x.reason === reason).slice(0, 2).map((x) => `${x.spec} ${x.tool}: ${x.detail.replace(/\|/g, "\\|")}`);
    return `- ${reason}: ${n}\n${examples.map((e) => `  - ${e}`).join("\n")}`;
  })), "");
  const clashes = generated.flatMap((r) => r.clashes.map((c) => `${r.entry.path} ${c}`));
  lines.push("## Clashes", "", ...(clashes.length === 0 ? ["None."] : clashes.slice(0, 40).map((c) => `- ${c}`)), "");
  if (cli.failed.length > 0 || !cli.tsc.ok) lines.push("## CLI / tsc failures", "", ...cli.failed.map((f) => `- ${f}`), ...(cli.tsc.ok ? [] : ["```", cli.tsc.output, "```"]), "");
  lines.push("## The sample", "", "| spec | version | bytes | operations | tools | skipped | callable | ms |", "|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const skipped = Object.values(r.skipped).reduce((a, b) => a + b, 0);
    lines.push(`| ${r.entry.path} | ${r.entry.version} | ${r.entry.size} | ${r.operations} | ${r.error === undefined ? r.tools : "error"} | ${skipped} | ${r.callable} | ${Math.round(r.ms)} |`);
  }
  lines.push("", `CLI sub-sample (seed ${SEED + 100}): ${cliSample.map((e) => e.path).join(", ")}.`, "");
  return `${lines.join("\n")}\n`;
}

await main();
