/**
 * Start-up of the installed CLI, side by side with its floors, in one run:
 *
 *  - `sluice --help` and `sluice --version` (the bin, which answers both from static files)
 *    against `node -e 0`: whole processes, spawn to exit;
 *  - `sluice serve` of 500 GitHub REST tools (bench/startup/github-rest-500.mjs) from the
 *    compiled dist/ on plain node, against a bare MCP SDK server (bench/startup/
 *    bare-mcp-server.mjs) listing the same 500 definitions: spawn, initialize and one full
 *    tools/list (one page of 500 on both), timed at the MCP SDK client;
 *  - where `serve`'s time goes: its steps timed inside one process (the same dist/ modules,
 *    imported one step after the other), medians over the rounds.
 *
 * Rounds are interleaved (each round runs every row once, in a rotating order); the table
 * gives medians and the median of the per-round ratios.
 *
 *   node --import tsx scripts/bench-startup.ts [--rounds N] [--no-build] [--out bench/STARTUP.md]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { listToolPages } from "../test/support/list-tool-pages.ts";

/**
 * The steps of `sluice serve` start-up in one process, each timed: written to a temporary
 * file and run on plain node; module paths are resolved here and passed in absolute.
 */
const STAGES_SCRIPT = `
const [sdkServer, sdkTypes, schema, core, catalog, mcp, cliMain, cliServe, module] = process.argv.slice(2);
const times = {};
let last = performance.now();
const lap = (label) => { const now = performance.now(); times[label] = now - last; last = now; };
await import(sdkServer); await import(sdkTypes); lap("sdk");
// Loading the SDK starts an incremental major GC that finishes at the next yield, whatever
// runs then (~15-20 ms): let it finish outside the laps, or the next row would carry it.
await new Promise((done) => setTimeout(done, 100)); last = performance.now();
await import(schema); await import(core); await import(catalog); const served = await import(mcp); await import(cliMain); await import(cliServe); lap("sluice");
const { tools } = await import(module); lap("pack");
const catalogOf = new served.ServedCatalog(tools, { serverName: "sluice" });
served.describeCredentialEnv(tools, process.env); lap("catalog");
const definitions = catalogOf.tools.map((tool) => catalogOf.definition(tool)); lap("definitions");
JSON.stringify({ tools: definitions }); lap("json");
process.stdout.write(JSON.stringify(times));
`;
const STAGES: ReadonlyArray<{ key: string; label: string }> = [
  { key: "sdk", label: "MCP SDK `Server` and types (the bare server loads them too)" },
  { key: "sluice", label: "sluice modules: @sluice/schema, core/pack, catalog/serve, mcp/serve, the CLI's main and serve" },
  { key: "pack", label: "the pack module: tools.gen.js (1.2 MB), definePack, withCurated, the first 500" },
  { key: "catalog", label: "ServedCatalog and the credential report" },
  { key: "definitions", label: "500 tools/list definitions (schemas assembled and frozen, curated projections)" },
  { key: "json", label: "JSON text of the page" },
];

const { values: options } = parseArgs({
  options: { rounds: { type: "string", default: "9" }, "no-build": { type: "boolean", default: false }, out: { type: "string", default: "bench/STARTUP.md" } },
});
const ROUNDS = Number(options.rounds);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const DIST_CLI = join(ROOT, "bench/startup/sluice-dist.mjs");
const MODULE = join(ROOT, "bench/startup/github-rest-500.mjs");
const BARE = join(ROOT, "bench/startup/bare-mcp-server.mjs");
// No inherited loader or export condition: the children run as they would in a user's project.
const ENV = { PATH: process.env["PATH"] ?? "", GITHUB_TOKEN: "bench-token" };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function processMs(args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { env: ENV, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/** Spawn a stdio MCP server, initialize, list every tool; the milliseconds and the definitions listed. */
async function serveAndList(args: readonly string[]): Promise<{ ms: number; tools: unknown[] }> {
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [...args], cwd: ROOT, env: ENV, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "bench-startup", version: "0" });
  try {
    await client.connect(transport);
    const tools: unknown[] = (await listToolPages(client)).flatMap((page) => page.tools);
    return { ms: performance.now() - start, tools };
  } catch (error) {
    throw new Error(`${args.join(" ")}: ${String(error)}\n${stderr}`);
  } finally {
    await client.close();
  }
}

/** What CPU profiles (`node --cpu-prof`) of `serve` showed when the table above was last read; update with the code. */
const NOTES = [
  "What the CPU profile shows is left (`node --cpu-prof` and a module-count hook, 2026-12-02, after the bundled build):",
  "beyond the bare server, loading and first-list work, all sluice's own. Each package's dist/ is an esbuild bundle",
  "(scripts/build-package.mjs), so serve loads 167 modules, 28 of them sluice's (237 and 95 before the bundle; 256 before",
  "@sluice/core/pack, 515 before the serve entries); the bare server loads 138. Of the pack module, about a third is",
  "compiling tools.gen.js (its 1.2 MB template literal), a quarter the JSON.parse of it, the rest definePack (771 Tool",
  "objects, GitHub's pagination rule per tool: about half of it the code's first, cold run) and the exports. The first",
  "list's time is the two curated GitHub projections, mostly the projection code's first, cold run (~9 ms under load; 2 ms",
  "warm), then the 500 schemas: since serve-13 one walk per tool freezes it and looks for a $ref (18 of the 500 reach a",
  "definition; refsFrom runs only for those), and the MCP entries share the frozen schema (toMCPShared). Loading the MCP",
  "SDK leaves an incremental major GC of ~15-20 ms to finish at the next yield; the steps above let it finish between the",
  "rows, the whole-process rows pay it on both sides.",
];

async function main(): Promise<void> {
  if (!options["no-build"]) {
    const built = spawnSync("npx", ["--yes", "pnpm@10.34.8", "-r", "build"], { cwd: ROOT, stdio: "inherit" });
    if (built.status !== 0) throw new Error("pnpm -r build failed");
  }
  const sluiceServe = [DIST_CLI, "serve", MODULE, "--page-size", "500"];
  // The bare server lists exactly what sluice lists.
  const listed = await serveAndList(sluiceServe);
  if (listed.tools.length !== 500) throw new Error(`sluice listed ${listed.tools.length} tools, expected 500`);
  const work = mkdtempSync(join(tmpdir(), "sluice-bench-startup-"));
  const toolsFile = join(work, "tools.json");
  writeFileSync(toolsFile, JSON.stringify(listed.tools));
  const bareServe = [BARE, toolsFile];
  const check = await serveAndList(bareServe);
  if (JSON.stringify(check.tools) !== JSON.stringify(listed.tools)) throw new Error("the bare server lists different definitions");

  const rows = {
    nodeE0: [] as number[],
    help: [] as number[],
    version: [] as number[],
    serve: [] as number[],
    bare: [] as number[],
  };
  const ratios = { help: [] as number[], version: [] as number[], serve: [] as number[] };
  const stagesFile = join(work, "serve-stages.mjs");
  writeFileSync(stagesFile, STAGES_SCRIPT);
  const here = (path: string) => pathToFileURL(join(ROOT, path)).href;
  const stageArgs = [
    stagesFile,
    import.meta.resolve("@modelcontextprotocol/sdk/server/index.js"),
    import.meta.resolve("@modelcontextprotocol/sdk/types.js"),
    here("packages/schema/dist/index.js"),
    // What packs and serve import of core: its pack entry (the root entry loads the egress map and the rest besides).
    here("packages/core/dist/pack/pack.js"),
    // What serve imports: the serve entries, without the MCP proxy and the catalog's other areas.
    here("packages/catalog/dist/serve-entry.js"),
    here("packages/mcp/dist/serve-entry.js"),
    here("packages/cli/dist/main.js"),
    here("packages/cli/dist/serve.js"),
    pathToFileURL(MODULE).href,
  ];
  const stages = new Map<string, number[]>(STAGES.map((stage) => [stage.key, []]));
  const stageRun = () => {
    const run = spawnSync(process.execPath, stageArgs, { cwd: ROOT, env: ENV, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`serve stages exited ${run.status}: ${run.stderr}`);
    const times = JSON.parse(run.stdout) as Record<string, number>;
    for (const [key, values] of stages) values.push(times[key]!);
  };
  // One warm-up of each (file system cache), untimed.
  processMs(["-e", "0"]);
  processMs([BIN, "--help"]);
  await serveAndList(bareServe);
  for (let round = 0; round < ROUNDS; round++) {
    const jobs: Array<() => Promise<void>> = [
      async () => void rows.nodeE0.push(processMs(["-e", "0"])),
      async () => void rows.help.push(processMs([BIN, "--help"])),
      async () => void rows.version.push(processMs([BIN, "--version"])),
      async () => void rows.serve.push((await serveAndList(sluiceServe)).ms),
      async () => void rows.bare.push((await serveAndList(bareServe)).ms),
      async () => stageRun(),
    ];
    for (let i = 0; i < jobs.length; i++) await jobs[(i + round) % jobs.length]!();
    ratios.help.push(rows.help.at(-1)! / rows.nodeE0.at(-1)!);
    ratios.version.push(rows.version.at(-1)! / rows.nodeE0.at(-1)!);
    ratios.serve.push(rows.serve.at(-1)! / rows.bare.at(-1)!);
    process.stderr.write(`round ${round + 1}/${ROUNDS}: help ${ratios.help.at(-1)!.toFixed(2)}x, serve ${ratios.serve.at(-1)!.toFixed(2)}x\n`);
  }
  rmSync(work, { recursive: true, force: true });

  const ms = (values: readonly number[]) => median(values).toFixed(0);
  const x = (values: readonly number[]) => `${median(values).toFixed(2)}x`;
  const cpu = cpus()[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
  const text = [
    "# Start-up: the CLI and `sluice serve` against their floors",
    "",
    "```sh",
    "node --import tsx scripts/bench-startup.ts   # builds dist/ first (pnpm -r build); writes bench/STARTUP.md",
    "```",
    "",
    `Generated on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpu} (${cpus().length} threads). Do not edit by hand; rerun the command.`,
    "",
    `Whole processes on plain node (no loader, no export condition), ${ROUNDS} interleaved rounds; medians, and the`,
    "median of the per-round ratios. `sluice --help`/`--version` run the bin (packages/cli/bin/sluice.mjs), which",
    "answers both from static files. `sluice serve` runs the compiled CLI (dist/) on bench/startup/github-rest-500.mjs,",
    "the first 500 tools GitHub REST serves by default, with `--page-size 500`; the bare server is the MCP SDK's",
    "`Server` answering tools/list with the same 500 definitions read from a JSON file (checked identical). Both are",
    "timed at the SDK client from spawn to the end of the first full tools/list.",
    "",
    "| measure | sluice ms | floor | floor ms | ratio | goal |",
    "| --- | ---: | --- | ---: | ---: | ---: |",
    `| \`sluice --help\` | ${ms(rows.help)} | \`node -e 0\` | ${ms(rows.nodeE0)} | ${x(ratios.help)} | 1.5x |`,
    `| \`sluice --version\` | ${ms(rows.version)} | \`node -e 0\` | ${ms(rows.nodeE0)} | ${x(ratios.version)} | 1.5x |`,
    `| \`sluice serve\`, 500 tools, start-up to full tools/list | ${ms(rows.serve)} | bare MCP SDK server | ${ms(rows.bare)} | ${x(ratios.serve)} | 1.2x |`,
    "",
    "## Where `serve`'s time goes",
    "",
    "The same steps in one process on plain node, one after the other (each import finds the earlier ones",
    "loaded), medians of the rounds. Everything but the first row is what the bare server does not do.",
    "",
    "| step | ms |",
    "| --- | ---: |",
    ...STAGES.map((stage) => `| ${stage.label} | ${median(stages.get(stage.key)!).toFixed(1)} |`),
    "",
    ...NOTES,
    "",
  ].join("\n");
  writeFileSync(resolve(ROOT, options.out), text);
  process.stdout.write(text);
}

await main();
