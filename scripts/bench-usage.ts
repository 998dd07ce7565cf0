/**
 * The usage report on recorded sessions (bench/USAGE.md).
 *
 * Records: a temporary project whose sluice.config has one pack made from a real MCP server
 * (@modelcontextprotocol/server-filesystem, a devDependency) over a folder of sample files;
 * `sluice generate` snapshots and generates it; then real `sluice serve` processes, each
 * started with SLUICE_USAGE_NOW (the test hook that stamps a session's start) and driven by
 * the MCP SDK's client, run ten sessions over fourteen days (two pairs at once), each calling
 * what a coding agent calls: read, list, search, tree, file info, now and then a write. The
 * sessions land in bench/usage/store/ (committed), with the config in bench/usage/.
 *
 * Reports: `sluice usage` over the committed store, as text and JSON, into bench/USAGE.md.
 * Re-recording changes session ids (random) and nothing the report shows.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-usage.ts            (record, then report)
 *   node --conditions=@sluice/source --import tsx scripts/bench-usage.ts --report   (report only)
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { main } from "../packages/cli/src/main.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const BENCH = join(ROOT, "bench/usage");
const STORE = join(BENCH, "store");
const reportOnly = process.argv.includes("--report");

type Call = [string, (data: string) => Record<string, unknown>];
const read: Call = ["read_text_file", (data) => ({ path: join(data, "src/app.ts") })];
const list: Call = ["list_directory", (data) => ({ path: data })];
const search: Call = ["search_files", (data) => ({ path: data, pattern: "*.ts" })];
const tree: Call = ["directory_tree", (data) => ({ path: join(data, "src") })];
const info: Call = ["get_file_info", (data) => ({ path: join(data, "README.md") })];
const write: Call = ["write_file", (data) => ({ path: join(data, "notes.txt"), content: "checked" })];

/** Day of the session (from 2026-02-02), what it calls; sessions of one batch run at once. */
const PLAN: { day: number; calls: Call[] }[][] = [
  [{ day: 0, calls: [list, read, read, search] }, { day: 0.1, calls: [tree, read] }],
  [{ day: 2, calls: [search, read, info] }],
  [{ day: 3, calls: [list, read, write] }],
  [{ day: 5, calls: [tree, search, read, read] }, { day: 5.2, calls: [read] }],
  [{ day: 8, calls: [list, info, read] }],
  [{ day: 10, calls: [search, read, write] }],
  [{ day: 12, calls: [tree, read] }],
  [{ day: 14, calls: [list, search, read] }],
];

const CONFIG = {
  packs: [{ name: "fs", out: "packs/fs", mcp: { command: "node", args: ["node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "data"] } }],
};

async function session(project: string, day: number, calls: Call[]): Promise<void> {
  const env: Record<string, string> = { SLUICE_USAGE_NOW: new Date(Date.UTC(2026, 1, 2) + day * 86_400_000).toISOString(), SLUICE_USAGE_DIR: STORE };
  for (const name of ["PATH", "HOME", "TMPDIR", "NODE_OPTIONS"]) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", "packs/fs"], cwd: project, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "bench-usage", version: "0" });
  try {
    await client.connect(transport);
    await client.listTools();
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args(join(project, "data")) });
      if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 300)}`);
    }
  } catch (error) {
    throw new Error(`session of day ${day}: ${(error as Error).message}\n${stderr}`);
  } finally {
    await client.close();
  }
}

async function record(): Promise<void> {
  const project = mkdtempSync(join(tmpdir(), "sluice-bench-usage-"));
  try {
    mkdirSync(join(project, "node_modules/@modelcontextprotocol"), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem")), join(project, "node_modules/@modelcontextprotocol/server-filesystem"), "dir");
    mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
    symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
    mkdirSync(join(project, "data/src"), { recursive: true });
    writeFileSync(join(project, "data/README.md"), "# sample\nA small project the sessions read.\n");
    writeFileSync(join(project, "data/src/app.ts"), "export const answer = 42;\n");
    writeFileSync(join(project, "data/src/util.ts"), "export function twice(n: number): number {\n  return 2 * n;\n}\n");
    writeFileSync(join(project, "sluice.config.json"), JSON.stringify(CONFIG, null, 2) + "\n");
    const io = { stdout: { write: (text: string) => process.stderr.write(text) }, stderr: { write: (text: string) => process.stderr.write(text) }, cwd: project };
    if ((await main(["generate"], io as Parameters<typeof main>[1])) !== 0) throw new Error("sluice generate failed");
    rmSync(STORE, { recursive: true, force: true });
    for (const batch of PLAN) await Promise.all(batch.map((s) => session(project, s.day, s.calls)));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  mkdirSync(BENCH, { recursive: true });
  writeFileSync(join(BENCH, "sluice.config.json"), JSON.stringify(CONFIG, null, 2) + "\n");
  writeFileSync(join(BENCH, "prompt.md"), "You are a coding agent. Before anything else, list allowed directories, and stay inside them.\n");
  // The store's own .gitignore keeps records out of a user's git; these are a committed fixture.
  rmSync(join(STORE, ".gitignore"), { force: true });
}

async function usage(args: string[]): Promise<string> {
  let out = "";
  let err = "";
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) }, cwd: ROOT };
  const code = await main(["usage", ...args], io as Parameters<typeof main>[1]);
  if (code !== 0) throw new Error(`sluice usage ${args.join(" ")}: ${err}`);
  return out;
}

if (!reportOnly) await record();
const base = ["bench/usage/sluice.config.json", "--usage-dir", "bench/usage/store"];
const text = await usage([...base, "--prompt", "bench/usage/prompt.md"]);
const openai = await usage([...base, "--prompt", "bench/usage/prompt.md", "--provider", "openai"]);
const json = JSON.parse(await usage([...base, "--prompt", "bench/usage/prompt.md", "--json"])) as {
  packs: { tools: { name: string; tokens: number; sessionsInvoked: number }[]; latest: { tokens: number } }[];
};
const pack = json.packs[0]!;
const unused = pack.tools.filter((tool) => tool.sessionsInvoked === 0);
const unusedTokens = unused.reduce((sum, tool) => sum + tool.tokens, 0);
const sessions = readdirSync(join(STORE, "sessions")).length;

const md = [
  "# Usage inventory: the report on recorded sessions",
  "",
  `${sessions} sessions of \`sluice serve\` over a pack made from @modelcontextprotocol/server-filesystem`,
  "(14 tools), recorded by real serve processes driven by the MCP SDK's client over 14 days (two pairs",
  "of sessions at once), each calling what a coding agent calls. The records are committed in",
  "`bench/usage/store/sessions/` (names and counts only), the config in `bench/usage/sluice.config.json`,",
  "the system prompt in `bench/usage/prompt.md`.",
  "",
  `Tools never invoked in any session: ${unused.length} of ${pack.tools.length}, ${unusedTokens.toLocaleString("en-US")} of ${pack.latest.tokens.toLocaleString("en-US")} declared tokens ` +
    `(${((100 * unusedTokens) / pack.latest.tokens).toFixed(1)}%; o200k_base, each definition as tools/list sent it).`,
  "",
  "Recorded with (36 s of CPU, about three minutes on two shared cores; re-recording changes session ids, not the report):",
  "",
  "    node --conditions=@sluice/source --import tsx scripts/bench-usage.ts",
  "",
  "The report (Anthropic cache prices, the defaults: 5 sessions over 7 days, 20 turns a session):",
  "",
  "    pnpm sluice usage bench/usage/sluice.config.json --usage-dir bench/usage/store --prompt bench/usage/prompt.md",
  "",
  "```",
  text.trimEnd(),
  "```",
  "",
  "The same with OpenAI's prices (`--provider openai`: reads 0.1x, no write surcharge), suggestions only:",
  "",
  "```",
  openai
    .split("\n")
    .filter((line) => /^ {2}(remove|all|kept)|^ {4}\S/.test(line))
    .join("\n"),
  "```",
  "",
  "Assumptions (see `usageReport` in packages/catalog/src/usage/usage-report.ts): figures are input-token",
  "equivalents (multiply by the model's input price); a session sends the tools on each of its turns, the",
  "first writing them to the prompt cache and the others reading them (CACHE_MULTIPLIERS of",
  "packages/catalog/src/dispatch/recommend-level.ts); sessions a week are the pack's sessions over its",
  "recorded span; removing tools re-anchors a warm cached prefix once ((write - read) x the prefix left,",
  "cacheBreakEven), and payback is that over the weekly saving. The tools array alone is priced: a system",
  "prompt after it in the cache would add to the re-anchoring cost.",
  "",
].join("\n");
writeFileSync(join(ROOT, "bench/USAGE.md"), md);
process.stderr.write(`wrote bench/USAGE.md (${sessions} sessions)\n`);
