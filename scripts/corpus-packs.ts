/**
 * Every OpenAPI and GraphQL document of ../shared/specs through `sluice generate`, as a
 * user would run it, with no hand-written file: each pack is generated into a project
 * outside the repository, then the whole project type-checks (tsc, strict) and every
 * pack's index imports and lists its tools. Prints, per spec, what generate reported:
 * tools, skipped operations with their reasons, base URL or endpoint variable, credentials
 * and their variables, pagination found.
 *
 *   node --conditions=@sluice/source --import tsx scripts/corpus-packs.ts [--keep] [--out FILE.md] [--only DIR,DIR]
 *
 * `--only` takes corpus folder names (`petstore,linear`): a quick check of a few specs.
 *
 * Exit 1 when a spec that has operations yields no pack, tsc fails, or a pack does not load.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SPECS = join(ROOT, "..", "shared", "specs");
const BIN = join(ROOT, "packages", "cli", "bin", "sluice.mjs");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const args = process.argv.slice(2);
const keep = args.includes("--keep");
const outFile = args.includes("--out") ? args[args.indexOf("--out") + 1] : undefined;
const only = args.includes("--only") ? new Set(args[args.indexOf("--only") + 1]!.split(",")) : undefined;
const SPEC_FILE = /\.(json|ya?ml|graphql)$/;

interface Report {
  name: string;
  kind: string;
  tools: number;
  skipped: Array<{ operation: string; reason: string }>;
  baseUrl?: string;
  endpointEnv?: string;
  credentials: Array<{ scheme: string; type: string; env: string }>;
  paginated: number;
  credentialArguments: Record<string, string>;
  warnings: string[];
}

const project = mkdtempSync(join(tmpdir(), "sluice-corpus-packs-"));
const failures: string[] = [];
const rows: Array<{ spec: string; report?: Report; error?: string; ms: number }> = [];
try {
  mkdirSync(join(project, "node_modules", "@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages", "core"), join(project, "node_modules", "@sluice", "core"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "corpus", private: true, type: "module" }));
  mkdirSync(join(project, "specs"));

  // Pack names: the folder's name, or folder and file when a folder holds several specs.
  const specs: Array<{ spec: string; path: string; name: string }> = [];
  for (const dir of readdirSync(SPECS, { withFileTypes: true }).filter((entry) => entry.isDirectory() && (only === undefined || only.has(entry.name))).map((entry) => entry.name).sort()) {
    const files = readdirSync(join(SPECS, dir)).filter((file) => SPEC_FILE.test(file) || file.endsWith(".json.gz")).sort();
    for (const file of files) {
      const name = (files.length === 1 ? dir : `${dir}-${file.replace(/\.[a-z]+(\.gz)?$/, "")}`).replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-+|-+$/g, "").toLowerCase();
      let path = join(SPECS, dir, file);
      if (file.endsWith(".gz")) {
        // Shopify's Admin schema is vendored compressed: a user would unpack it first.
        path = join(project, "specs", file.replace(/\.gz$/, ""));
        writeFileSync(path, gunzipSync(readFileSync(join(SPECS, dir, file))));
      }
      specs.push({ spec: join(dir, file), path, name });
    }
  }
  for (const { spec, path, name } of specs) {
    const started = Date.now();
    const run = spawnSync(process.execPath, [BIN, "generate", path, "--name", name, "--out", `packs/${name}`, "--json"], { cwd: project, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    const ms = Date.now() - started;
    if (run.status === 0) {
      rows.push({ spec, report: (JSON.parse(run.stdout) as { packs: Report[] }).packs[0]!, ms });
    } else {
      const error = run.stderr.trim().split("\n").pop() ?? `exit ${run.status}`;
      rows.push({ spec, error, ms });
      // A document without operations (a webhooks-only example) is the one honest NO_TOOLS.
      if (!/NO_TOOLS: .*the spec declares no operation/.test(error)) failures.push(`${spec}: ${error}`);
    }
    process.stderr.write(`${spec}: ${run.status === 0 ? `${rows.at(-1)!.report!.tools} tools` : rows.at(-1)!.error} (${ms} ms)\n`);
  }

  // Type-check every generated pack together, as a user's strict project would, and the
  // generated files' own statements too: their `@ts-nocheck` (which spares a user's tsc
  // the pack's data) is taken out here.
  for (const row of rows) {
    if (row.report === undefined) continue;
    const src = join(project, "packs", row.report.name, "src");
    for (const file of readdirSync(src).filter((name) => name.endsWith(".gen.ts"))) {
      writeFileSync(join(src, file), readFileSync(join(src, file), "utf8").replace(/^\/\/ @ts-nocheck.*\n/m, ""));
    }
  }
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        // sluice's own sources stand in for the built @sluice/core.
        customConditions: ["@sluice/source"],
        // What @sluice/core's sources need (its built declarations need neither DOM nor these).
        lib: ["es2023"],
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules", "@types")],
      },
      include: ["packs/*/src/*.ts"],
    }),
  );
  const started = Date.now();
  const tsc = spawnSync(process.execPath, ["--max-old-space-size=8192", TSC, "-p", "tsconfig.json"], { cwd: project, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  process.stderr.write(`tsc: exit ${tsc.status} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (tsc.status !== 0) failures.push(`tsc: ${tsc.stdout.split("\n").slice(0, 20).join("\n")}`);

  // Every pack imports on node (through tsx, as sluice loads a TypeScript pack) and lists its tools.
  const packs = rows.filter((row) => row.report !== undefined).map((row) => row.report!.name);
  const loader = [
    `const counts = {};`,
    `for (const name of ${JSON.stringify(packs)}) {`,
    `  const mod = await import("./packs/" + name + "/src/index.ts");`,
    `  counts[name] = mod.tools.length;`,
    `}`,
    `console.log(JSON.stringify(counts));`,
  ].join("\n");
  writeFileSync(join(project, "load.mts"), loader);
  const tsx = pathToFileURL(createRequire(join(ROOT, "package.json")).resolve("tsx/esm")).href;
  const load = spawnSync(process.execPath, ["--conditions=@sluice/source", "--import", tsx, "load.mts"], { cwd: project, encoding: "utf8", maxBuffer: 64 * 1024 * 1024});
  if (load.status !== 0) failures.push(`loading the packs: ${load.stderr.split("\n").slice(0, 10).join("\n")}`);
  else {
    const counts = JSON.parse(load.stdout.trim().split("\n").pop()!) as Record<string, number>;
    for (const row of rows) {
      if (row.report !== undefined && counts[row.report.name] !== row.report.tools) failures.push(`${row.spec}: the pack lists ${counts[row.report.name]} tools, generate reported ${row.report.tools}`);
    }
    process.stderr.write(`loaded ${Object.keys(counts).length} packs\n`);
  }
} finally {
  const table = [
    "| spec | tools | skipped (reasons) | base URL / endpoint | credentials (variables) | credential args | paginated | warnings | ms |",
    "| --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: |",
    ...rows.map(({ spec, report, error, ms }) => {
      if (report === undefined) return `| ${spec} | 0 | ${error} | | | | | | ${ms} |`;
      const reasons = new Map<string, number>();
      for (const skip of report.skipped) reasons.set(skip.reason, (reasons.get(skip.reason) ?? 0) + 1);
      const skipped = report.skipped.length === 0 ? "0" : `${report.skipped.length} (${[...reasons].map(([reason, n]) => `${n}x ${reason.slice(0, 60)}`).join("; ")})`;
      const where = report.baseUrl ?? (report.endpointEnv === undefined ? "-" : `endpoint from ${report.endpointEnv}`);
      const credentials = report.credentials.map((c) => `${c.scheme} ${c.type} (${c.env})`).join(", ") || "-";
      const credentialArgs = Object.entries(report.credentialArguments).map(([arg, scheme]) => `${arg}->${scheme}`).join(", ") || "-";
      return `| ${spec} | ${report.tools} | ${skipped} | ${where} | ${credentials} | ${credentialArgs} | ${report.paginated} | ${report.warnings.length} | ${ms} |`;
    }),
  ].join("\n");
  process.stdout.write(`${table}\n`);
  if (outFile !== undefined) writeFileSync(outFile, `# Packs generated from every corpus spec\n\nCommand: \`node --conditions=@sluice/source --import tsx scripts/corpus-packs.ts\`\n\n${table}\n`);
  if (keep) process.stderr.write(`kept ${project}\n`);
  else rmSync(project, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stderr.write(`\ncorpus packs FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}\n`);
  process.exitCode = 1;
} else if (!existsSync(SPECS)) {
  process.exitCode = 1;
}
