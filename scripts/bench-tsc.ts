/**
 * Type-checking a project that imports a generated pack, against the same project importing
 * openapi-typescript's types of the same spec (issue 24). Writes bench/TSC.md.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-tsc.ts [--rounds 3] [--only stripe,kubernetes] [--out bench/TSC.md] [--work DIR]
 *
 * For each spec (Stripe, GitHub REST, Kubernetes) it sets up, in a temporary folder outside
 * the repository:
 *  - `sluice-source`: a project with the pack as `sluice generate` writes it into a user's
 *    repository (src/*.ts beside the user's code), @sluice/core installed as built (dist +
 *    .d.ts, a symlink to packages/core, resolved without the @sluice/source condition);
 *  - `sluice-dist`: the same pack built (`tsc` with the repository's build settings) and
 *    imported as an installed package: what a user's tsc reads is its dist/*.d.ts;
 *  - `openapi-typescript`: openapi-typescript 7.x's `.d.ts` of the same spec (Swagger 2.0
 *    converted to OpenAPI 3 by swagger2openapi first, as openapi-typescript reads 3.x only).
 * Each project's main.ts does the same with its types: the sluice ones derive a tool with a pin
 * and call it, the anchor types a value of the same operation's query parameters; each has a
 * `@ts-expect-error` a wrong type must trigger, so a project that stopped checking fails.
 * One tsconfig for all (strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes,
 * skipLibCheck, no @types/node). Rounds are interleaved: every round runs every project of a
 * spec in a rotating order, so load on the machine falls on all alike. Wall time, CPU time
 * (user + system: on a shared machine the steadier figure) and peak RSS are the tsc process's
 * own (measured as bench/spawn-measured.cjs does); `--extendedDiagnostics` of one extra,
 * untimed run per project says where the time goes. `--work DIR` sets the projects up in DIR,
 * or reuses the ones a run with `--keep` left there.
 *
 * Before and after in one run: `--before DIR` adds `sluice-source-before`, the `sluice-source`
 * project a run of another revision left in DIR (`--keep --work DIR` there): the same main.ts
 * over the pack as that revision's generator wrote it, timed in the same interleaved rounds.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const OPENAPI_TS = join(ROOT, "node_modules/openapi-typescript/bin/cli.js");
const SLUICE = join(ROOT, "packages/cli/bin/sluice.mjs");

const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    only: { type: "string" },
    out: { type: "string", default: "bench/TSC.md" },
    keep: { type: "boolean", default: false },
    work: { type: "string" },
    before: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds);

interface Target {
  name: string;
  spec: string;
  /** The generated tool's export and its Args, an argument to pin and one to call with, and a wrong pin. */
  tool: string;
  pin: string;
  call: string;
  wrongPin: string;
  /** The same operation in openapi-typescript's `operations`, and a query value and a wrong one. */
  operation: string;
  query: string;
  wrongQuery: string;
}

const TARGETS: Target[] = [
  {
    name: "stripe",
    spec: "packs/stripe/spec/spec3.json",
    tool: "getCustomers",
    pin: "{ limit: 10 }",
    call: '{ email: "someone@example.com" }',
    wrongPin: '{ limit: "ten" }',
    operation: "GetCustomers",
    query: '{ limit: 10, email: "someone@example.com" }',
    wrongQuery: '{ limit: "ten" }',
  },
  {
    name: "github-rest",
    spec: "packs/github-rest/spec/api.github.com.json",
    tool: "reposListForOrg",
    pin: '{ type: "public" }',
    call: '{ org: "octo-org", per_page: 50 }',
    wrongPin: '{ type: "everything" }',
    operation: "repos/list-for-org",
    query: '{ type: "public", per_page: 50 }',
    wrongQuery: '{ type: "everything" }',
  },
  {
    name: "kubernetes",
    spec: "../shared/specs/kubernetes/swagger.json",
    tool: "listCoreV1NamespacedPod",
    pin: '{ namespace: "default" }',
    call: '{ limit: 20, labelSelector: "app=web" }',
    wrongPin: "{ namespace: 7 }",
    operation: "listCoreV1NamespacedPod",
    query: '{ limit: 20, labelSelector: "app=web" }',
    wrongQuery: '{ limit: "twenty" }',
  },
];
const targets = flags.only === undefined ? TARGETS : TARGETS.filter((t) => flags.only!.split(",").includes(t.name));

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    // Generated packs import their modules as `./tools.gen.ts`, as the repository's packs do.
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: [],
  },
  files: ["main.ts"],
};

type Variant = "sluice-source" | "sluice-source-before" | "sluice-dist" | "openapi-typescript";
const VARIANTS: readonly Variant[] =
  flags.before === undefined ? ["sluice-source", "sluice-dist", "openapi-typescript"] : ["sluice-source", "sluice-source-before", "sluice-dist", "openapi-typescript"];

function run(command: string, args: readonly string[], cwd = ROOT): void {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
}

function writeProject(dir: string, main: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "bench-project", private: true, type: "module" }, null, 2)}\n`);
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  writeFileSync(join(dir, "main.ts"), main);
}

function sluiceMain(target: Target, from: string): string {
  return [
    `import { generatedTools } from "${from}";`,
    `const tool = generatedTools.${target.tool};`,
    `export const pinned = tool.derived({ name: "pinned", pin: ${target.pin} });`,
    `export const answer = pinned.call(${target.call});`,
    `// @ts-expect-error a pin of the wrong type is refused at compile time`,
    `tool.derived({ name: "wrong", pin: ${target.wrongPin} });`,
    "",
  ].join("\n");
}

function anchorMain(target: Target): string {
  return [
    `import type { operations } from "./schema.js";`,
    `type Query = NonNullable<operations[${JSON.stringify(target.operation)}]["parameters"]["query"]>;`,
    `export const query: Query = ${target.query};`,
    `// @ts-expect-error a value of the wrong type is refused at compile time`,
    `export const wrong: Query = ${target.wrongQuery};`,
    "",
  ].join("\n");
}

/** @sluice/schema and @sluice/core's declarations as users install them (tsc needs no JavaScript; esbuild bundles that, scripts/build-package.mjs). */
function buildCore(): void {
  for (const pkg of ["schema", "core"]) run(process.execPath, [TSC, "-p", join(ROOT, "packages", pkg, "tsconfig.build.json"), "--emitDeclarationOnly"]);
}

async function openapi3(spec: string, out: string): Promise<string> {
  const document = JSON.parse(readFileSync(join(ROOT, spec), "utf8")) as Record<string, unknown>;
  if (!("swagger" in document)) return join(ROOT, spec);
  // swagger2openapi ships no types; the one function used, typed.
  const swagger2openapi = createRequire(import.meta.url)("swagger2openapi") as { convertObj(doc: unknown, options: object): Promise<{ openapi: unknown }> };
  const { openapi } = await swagger2openapi.convertObj(document, { patch: true, warnOnly: true });
  writeFileSync(out, JSON.stringify(openapi));
  return out;
}

function setUp(work: string, target: Target): Promise<Record<Exclude<Variant, "sluice-source-before">, string>> {
  const base = join(work, target.name);
  const pack = join(base, "pack");
  const ready = { "sluice-source": join(base, "sluice-source"), "sluice-dist": join(base, "sluice-dist"), "openapi-typescript": join(base, "openapi-typescript") };
  if (existsSync(join(ready["openapi-typescript"], "schema.d.ts"))) {
    if (existsSync(join(base, "build-ms"))) builds.set(target.name, Number(readFileSync(join(base, "build-ms"), "utf8")));
    return Promise.resolve(ready);
  }
  process.stderr.write(`setting up ${target.name}\n`);
  run(process.execPath, ["--conditions=@sluice/source", SLUICE, "generate", join(ROOT, target.spec), "--name", target.name, "--out", pack]);

  const source = join(base, "sluice-source");
  writeProject(source, sluiceMain(target, "../pack/src/index.ts"));

  // The same pack built and installed as a package: dist/ with .d.ts, exports with types first.
  const built = join(base, "installed");
  cpSync(join(pack, "src"), join(built, "src"), { recursive: true });
  writeFileSync(
    join(built, "package.json"),
    `${JSON.stringify({ name: `sluice-pack-${target.name}`, type: "module", exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } } }, null, 2)}\n`,
  );
  writeFileSync(
    join(built, "tsconfig.json"),
    `${JSON.stringify({ extends: join(ROOT, "tsconfig.build.json"), compilerOptions: { types: [], inlineSources: false, sourceMap: false } }, null, 2)}\n`,
  );
  const buildStarted = Date.now();
  run(process.execPath, [TSC, "-p", join(built, "tsconfig.json")]);
  builds.set(target.name, Date.now() - buildStarted);
  writeFileSync(join(base, "build-ms"), String(builds.get(target.name)));
  const dist = join(base, "sluice-dist");
  writeProject(dist, sluiceMain(target, `sluice-pack-${target.name}`));
  mkdirSync(join(dist, "node_modules"), { recursive: true });
  symlinkSync(built, join(dist, "node_modules", `sluice-pack-${target.name}`), "dir");

  const anchor = join(base, "openapi-typescript");
  writeProject(anchor, anchorMain(target));
  return openapi3(target.spec, join(base, "openapi3.json")).then((spec) => {
    run(process.execPath, [OPENAPI_TS, spec, "-o", join(anchor, "schema.d.ts")]);
    return { "sluice-source": source, "sluice-dist": dist, "openapi-typescript": anchor };
  });
}

interface Measured {
  ms: number;
  cpuMs: number;
  maxRssKiB: number;
}

/**
 * A bare launcher (as bench/spawn-measured.cjs: a child forked straight from this process
 * would start its maxRSS at this process's) and a preload that writes the child's own peak
 * RSS and CPU time at exit.
 */
const LAUNCHER = `"use strict";
const { spawnSync } = require("node:child_process");
const { readFileSync, writeFileSync } = require("node:fs");
const [result, ...args] = process.argv.slice(2);
const started = performance.now();
const run = spawnSync(process.execPath, ["--require", __dirname + "/usage.cjs", ...args], { stdio: "inherit", env: { ...process.env, BENCH_USAGE_FILE: result + ".usage" } });
const ms = performance.now() - started;
const usage = JSON.parse(readFileSync(result + ".usage", "utf8"));
writeFileSync(result, JSON.stringify({ ms, ...usage }));
process.exitCode = run.status ?? 1;
`;
const USAGE = `"use strict";
process.on("exit", () => {
  const u = process.resourceUsage();
  require("node:fs").writeFileSync(process.env.BENCH_USAGE_FILE, JSON.stringify({ maxRssKiB: u.maxRSS, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));
});
`;

function measure(project: string): Measured {
  const result = join(project, "..", "result.json");
  const child = spawnSync(process.execPath, [join(work, "launcher.cjs"), result, TSC, "-p", project], { stdio: ["ignore", "inherit", "inherit"] });
  if (child.status !== 0) throw new Error(`tsc -p ${project} failed (exit ${child.status ?? child.signal})`);
  return JSON.parse(readFileSync(result, "utf8")) as Measured;
}

/** Parse/bind/check times and counts of one untimed run. */
function diagnostics(project: string): Record<string, string> {
  const text = execFileSync(process.execPath, [TSC, "-p", project, "--extendedDiagnostics"], { encoding: "utf8" });
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z ]+):\s+(\S+)/.exec(line);
    if (match !== null) out[match[1]!.trim()] = match[2]!;
  }
  return out;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const mib = (kib: number) => (kib / 1024).toFixed(0);

const builds = new Map<string, number>();
const work = flags.work ?? mkdtempSync(join(tmpdir(), "sluice-bench-tsc-"));
if (!relative(ROOT, work).startsWith("..")) throw new Error(`the temporary folder ${work} is inside the repository; set TMPDIR elsewhere`);
mkdirSync(work, { recursive: true });
writeFileSync(join(work, "launcher.cjs"), LAUNCHER);
writeFileSync(join(work, "usage.cjs"), USAGE);

if (!existsSync(join(work, "node_modules"))) {
  buildCore();
  // One node_modules above every project: @sluice/core (and @sluice/schema beside it, through
  // pnpm's links in packages/core) as built.
  mkdirSync(join(work, "node_modules", "@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(work, "node_modules/@sluice/core"), "dir");
}

const projects = new Map<string, Partial<Record<Variant, string>>>();
for (const target of targets) {
  const ready: Partial<Record<Variant, string>> = await setUp(work, target);
  if (flags.before !== undefined) {
    const before = join(flags.before, target.name, "sluice-source");
    if (!existsSync(join(before, "main.ts"))) throw new Error(`--before ${flags.before}: no ${target.name}/sluice-source project there (run the other revision with --keep --work ${flags.before})`);
    ready["sluice-source-before"] = before;
  }
  projects.set(target.name, ready);
}

const results = new Map<string, Record<Variant, Measured[]>>();
for (const target of targets) results.set(target.name, { "sluice-source": [], "sluice-source-before": [], "sluice-dist": [], "openapi-typescript": [] });
for (let round = 0; round < ROUNDS; round += 1) {
  for (const target of targets) {
    // A rotating order: no variant always runs first (or right after the heaviest).
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
    for (const variant of order) {
      const measured = measure(projects.get(target.name)![variant]!);
      results.get(target.name)![variant].push(measured);
      process.stderr.write(`round ${round + 1} ${target.name} ${variant}: ${seconds(measured.ms)} s (CPU ${seconds(measured.cpuMs)} s), ${mib(measured.maxRssKiB)} MiB\n`);
    }
  }
}
const details = new Map<string, Partial<Record<Variant, Record<string, string>>>>();
for (const target of targets) {
  const p = projects.get(target.name)!;
  const d: Partial<Record<Variant, Record<string, string>>> = {};
  for (const variant of VARIANTS) d[variant] = diagnostics(p[variant]!);
  details.set(target.name, d);
}

const lines: string[] = [];
const command = `node --conditions=@sluice/source --import tsx scripts/bench-tsc.ts --rounds ${ROUNDS}${flags.only === undefined ? "" : ` --only ${flags.only}`}${flags.before === undefined ? "" : " --before DIR"}`;
lines.push(
  "# Type-checking a project that imports a generated pack",
  "",
  `Produced by \`${command}\` (scripts/bench-tsc.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, TypeScript ${readVersion("typescript")}, openapi-typescript ${readVersion("openapi-typescript")}, ${cpus().length} cores.`,
  "",
  "`tsc -p` (noEmit) of a one-file project, strict with noUncheckedIndexedAccess, exactOptionalPropertyTypes and skipLibCheck, no @types/node:",
  "`sluice-source` imports the pack as `sluice generate` writes it into a user's repository (src/*.ts) with @sluice/core installed as built;",
  "`sluice-dist` imports the same pack built and installed (its dist/*.d.ts); `openapi-typescript` imports openapi-typescript's `.d.ts` of the same spec.",
  ...(flags.before === undefined ? [] : ["`sluice-source-before` is the `sluice-source` project of a run of the previous revision (`--keep --work DIR` there, then `--before DIR` here): the pack as the earlier generator wrote it."]),
  "The sluice projects derive a tool with a pin and call it; the anchor types the same operation's query parameters; each has a `@ts-expect-error` on a wrong type.",
  "Rounds are interleaved (every variant of a spec in each round, in a rotating order). Wall time, CPU time (user + system) and peak RSS of the tsc process, measured as bench/spawn-measured.cjs does.",
  "",
);
for (const target of targets) {
  const r = results.get(target.name)!;
  lines.push(`## ${target.name} (\`${target.spec}\`)`, "");
  lines.push("| round | " + VARIANTS.map((v) => `${v} wall s / CPU s / MiB`).join(" | ") + " |", "|---|" + VARIANTS.map(() => "---|").join(""));
  for (let round = 0; round < ROUNDS; round += 1) {
    lines.push(`| ${round + 1} | ` + VARIANTS.map((v) => `${seconds(r[v][round]!.ms)} / ${seconds(r[v][round]!.cpuMs)} / ${mib(r[v][round]!.maxRssKiB)}`).join(" | ") + " |");
  }
  const med = (v: Variant) => ({ ms: median(r[v].map((m) => m.ms)), cpu: median(r[v].map((m) => m.cpuMs)), rss: median(r[v].map((m) => m.maxRssKiB)) });
  const anchor = med("openapi-typescript");
  lines.push("| median | " + VARIANTS.map((v) => `${seconds(med(v).ms)} / ${seconds(med(v).cpu)} / ${mib(med(v).rss)}`).join(" | ") + " |");
  lines.push(
    "| ratio to openapi-typescript (medians) | " + VARIANTS.map((v) => `${(med(v).ms / anchor.ms).toFixed(2)}x / ${(med(v).cpu / anchor.cpu).toFixed(2)}x / ${(med(v).rss / anchor.rss).toFixed(2)}x`).join(" | ") + " |",
    "",
  );
  const perRound = (v: Variant, key: "ms" | "cpuMs") => r[v].map((m, i) => (m[key] / r["openapi-typescript"][i]![key]).toFixed(2)).join(", ");
  const compared = VARIANTS.filter((v) => v !== "openapi-typescript");
  lines.push(`Per-round ratios to openapi-typescript, wall (CPU): ${compared.map((v) => `${v} ${perRound(v, "ms")} (${perRound(v, "cpuMs")})`).join("; ")}.`, "");
  if (flags.before !== undefined) {
    const ratio = (key: "ms" | "cpuMs") => r["sluice-source"].map((m, i) => (m[key] / r["sluice-source-before"][i]![key]).toFixed(2)).join(", ");
    lines.push(`Per-round ratios of sluice-source to sluice-source-before, wall (CPU): ${ratio("ms")} (${ratio("cpuMs")}).`, "");
  }
  const d = details.get(target.name)!;
  const keys = ["Files", "Lines of TypeScript", "Lines of Definitions", "Types", "Instantiations", "Memory used", "Parse time", "Bind time", "Check time", "Total time"];
  lines.push("One more, untimed run with `--extendedDiagnostics`:", "");
  lines.push("| | " + VARIANTS.join(" | ") + " |", "|---|" + VARIANTS.map(() => "---|").join(""));
  for (const key of keys) lines.push(`| ${key} | ` + VARIANTS.map((v) => d[v]?.[key] ?? "").join(" | ") + " |");
  const build = builds.get(target.name);
  lines.push("", `Building the pack (tsc with declarations, outside the timed rounds): ${build === undefined ? "not recorded (projects reused)" : `${seconds(build)} s wall`}.`, "");
}
process.stdout.write(lines.join("\n"));
if (flags.out !== "-") {
  const previous = existsSync(resolve(ROOT, flags.out)) ? readFileSync(resolve(ROOT, flags.out), "utf8") : "";
  // Notes written by hand below the generated part are kept.
  const notesAt = previous.indexOf("\n## Notes");
  writeFileSync(resolve(ROOT, flags.out), `${lines.join("\n")}${notesAt === -1 ? "" : previous.slice(notesAt)}`);
}
if (!flags.keep) rmSync(work, { recursive: true, force: true });
else process.stderr.write(`projects kept in ${work}\n`);

function readVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}
