/**
 * The MCP proxy, measured (writes bench/MCP-PROXY.md):
 * 1. tokens (o200k) of tools/list of four real servers (snapshots committed under
 *    test/fixtures/mcp), as the server sends it and as sluice serves the whole pack and a
 *    curated projection of it;
 * 2. one tools/call through `sluice serve` beside the same call straight to the upstream
 *    (server-filesystem, interleaved rounds, medians);
 * 3. start-up to the first full tools/list, proxy beside the upstream alone.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-mcp-proxy.ts [--rounds N] [--starts N]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { definePack, type Tool } from "@sluice/core";
import { textTokens } from "@sluice/core/tokens";
import { parseSnapshot, type McpSnapshot } from "@sluice/mcp-client";
import { ServedCatalog } from "@sluice/mcp";
import { buildMcpPackIR } from "../generators/mcp/src/build-pack-ir.ts";
import { spawnSync } from "node:child_process";
import { BIN, ROOT, serverBin } from "../test/support/mcp-pack.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  return at < 0 ? fallback : Number(argv[at + 1]);
};
const ROUNDS = option("--rounds", 200);
const STARTS = option("--starts", 7);
/** `--cpu-prof DIR`: the from-source proxy writes a V8 CPU profile there (open it in Chrome's DevTools). */
const PROFILE = argv.includes("--cpu-prof") ? argv[argv.indexOf("--cpu-prof") + 1] : undefined;
/** The built CLI (serve-startup's launcher of packages/cli/dist), measured when it has been built (pnpm -r build). */
const DIST_CLI = join(ROOT, "bench/startup/sluice-dist.mjs");
const BUILT = existsSync(join(ROOT, "packages/cli/dist/main.js")) && !argv.includes("--no-built");

type Projection = (tool: (name: string) => Tool<object>) => Tool<object>[];

/** The curated projections: what a user who wants the read side of each server would serve. */
const SERVERS: Array<{ name: string; file: string; origin: string; curated: Projection; why: string }> = [
  {
    name: "Notion",
    file: "notion.snapshot.json",
    origin: "@notionhq/notion-mcp-server 2.5.2 (MIT)",
    why: "search, read pages, blocks, databases and comments; the write tools left out; search without its sort and filter objects",
    curated: (t) => [
      t("API-post-search").derived({ name: "API-post-search", drop: ["sort", "filter"] }),
      t("API-retrieve-a-page"),
      t("API-retrieve-page-markdown"),
      t("API-get-block-children"),
      t("API-retrieve-a-database"),
      t("API-query-data-source"),
      t("API-retrieve-a-comment"),
    ],
  },
  {
    name: "Playwright",
    file: "playwright.snapshot.json",
    origin: "@playwright/mcp 0.0.83 (Apache-2.0)",
    why: "navigate, read the page, click, type, wait, close; no code evaluation, uploads or network inspection",
    curated: (t) => ["browser_navigate", "browser_navigate_back", "browser_snapshot", "browser_click", "browser_type", "browser_press_key", "browser_wait_for", "browser_close"].map(t),
  },
  {
    name: "GitHub",
    file: "github.snapshot.json",
    origin: "@modelcontextprotocol/server-github 2025.4.8 (MIT)",
    why: "read issues, pull requests and files; every write tool left out",
    curated: (t) => ["search_repositories", "get_file_contents", "list_issues", "get_issue", "search_issues", "list_pull_requests", "get_pull_request", "get_pull_request_files"].map(t),
  },
  {
    name: "filesystem",
    file: "server-filesystem.snapshot.json",
    origin: "@modelcontextprotocol/server-filesystem 2026.8.31 (SEE LICENSE IN LICENSE: the servers repository's)",
    why: "the read tools only; read_text_file cut to its head (tail dropped), directory_tree and search_files without excludePatterns",
    curated: (t) => [
      t("read_text_file").derived({ name: "read_text_file", drop: ["tail"] }),
      t("list_directory"),
      t("get_file_info"),
      t("directory_tree").derived({ name: "directory_tree", drop: ["excludePatterns"] }),
      t("search_files").derived({ name: "search_files", drop: ["excludePatterns"] }),
    ],
  },
];

/** Every server whose tools/list is committed: the whole pack, unprojected, must never be larger than what the server sends. */
const UNPROJECTED: Array<{ name: string; file: string; origin: string }> = [
  ...SERVERS.map(({ name, file, origin }) => ({ name, file, origin })),
  { name: "everything", file: "server-everything.snapshot.json", origin: "@modelcontextprotocol/server-everything 2026.8.31" },
  { name: "memory", file: "server-memory.snapshot.json", origin: "@modelcontextprotocol/server-memory 2026.8.31" },
  { name: "sequential-thinking", file: "sequential-thinking.snapshot.json", origin: "@modelcontextprotocol/server-sequential-thinking 2026.8.31" },
  { name: "postgres", file: "postgres.snapshot.json", origin: "@modelcontextprotocol/server-postgres 0.6.2" },
  { name: "google-maps", file: "google-maps.snapshot.json", origin: "@modelcontextprotocol/server-google-maps 0.6.2" },
  { name: "tavily", file: "tavily.snapshot.json", origin: "tavily-mcp 0.2.22" },
  { name: "circleci", file: "circleci.snapshot.json", origin: "@circleci/mcp-server-circleci 0.20.0" },
  { name: "slack", file: "slack.snapshot.json", origin: "@modelcontextprotocol/server-slack 2025.4.25" },
];

function packOf(snapshot: McpSnapshot): (name: string) => Tool<object> {
  const pack = definePack(buildMcpPackIR(snapshot, { name: "bench", file: "tools.snapshot.json", sha256: "" }));
  return (name) => pack.tool(name) as Tool<object>;
}

/** Tokens of a tools/list answer's `tools`, compact JSON as a server sends it. */
const listTokens = (tools: readonly unknown[]) => textTokens(JSON.stringify(tools));
const served = (tools: readonly Tool<object>[]) => {
  const catalog = new ServedCatalog(tools);
  return catalog.tools.map((tool) => catalog.definition(tool));
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The client, and the pid of the process it started (the proxy itself, for a proxy path). */
const pids = new WeakMap<Client, number>();
async function connect(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const transport = new StdioClientTransport({ command, args, env, stderr: "ignore" });
  await client.connect(transport);
  if (transport.pid !== null) pids.set(client, transport.pid);
  return client;
}

/** CPU time (user + system, ms) a process has used so far, from /proc; undefined off Linux. */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const lines: string[] = [];
const say = (line = "") => {
  lines.push(line);
  console.log(line);
};

say("# The MCP proxy: tokens, call overhead, start-up");
say();
say(`Made by \`node --conditions=@sluice/source --import tsx scripts/bench-mcp-proxy.ts${argv.length > 0 ? ` ${argv.join(" ")}` : ""}\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${process.platform}, a 2-core machine shared with other work, load average ${loadavg()[0]!.toFixed(1)} at the start: timings are noisy, ratios of interleaved rounds less so).`);
say();
say("## Tokens of tools/list (o200k_base)");
say();
say("The servers' own `tools/list` (committed snapshots under test/fixtures/mcp, see its SOURCE.md), as each server sends it");
say("(compact JSON of the tools), then as `sluice serve` serves the pack generated from it (every tool, the definitions");
say("normalised to 2020-12) and a curated projection of it. Notion's server sends its whole `$defs` table (about 550");
say("tokens) with every tool, used or not; a pack keeps per tool only the definitions it reaches, hence most of the");
say("drop before any projection. The curated column is what a client loads on every turn once the projection is served.");
say();
say("| server | tools | upstream tools/list | sluice, whole pack | curated | tokens | of upstream | curated projection |");
say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const server of SERVERS) {
  const snapshot = parseSnapshot(readFileSync(join(ROOT, "test/fixtures/mcp", server.file), "utf8"));
  const tool = packOf(snapshot);
  const all = snapshot.tools.map((t) => tool(t.name.replace(/[^a-zA-Z0-9_-]/g, "_")));
  const curated = server.curated(tool);
  const upstream = listTokens(snapshot.tools);
  const whole = listTokens(served(all));
  const narrow = listTokens(served(curated));
  say(`| ${server.name} (${server.origin}) | ${snapshot.tools.length} | ${upstream.toLocaleString("en-US")} | ${whole.toLocaleString("en-US")} | ${curated.length} tools | ${narrow.toLocaleString("en-US")} | ${((100 * narrow) / upstream).toFixed(0)} % | ${server.why} |`);
}
say();
say("Since issue 34 a served definition carries what its server declared and nothing else: its `title` and `outputSchema`");
say("as listed (the filesystem server declares an output schema for each read tool, so its curated set counts them: 553");
say("tokens before, when they were left out) and its annotations as listed (before, a tool the server listed without any was");
say("served with an invented `{\"readOnlyHint\":false,\"destructiveHint\":true}`, about 14 tokens a tool).");
say();
say("### Unprojected: never larger than the server");
say();
say("Every tool of each server, served as generated (no projection): what sluice adds to a definition is only what the");
say("server declared (its title, output schema and annotations as listed, none invented), and what the conversion to");
say("2020-12 changes (`$schema` and the root's `additionalProperties: false` dropped, since screening closes the root anyway;");
say("refs into a tool's own properties written out in place) may not make it larger.");
say();
say("| server | tools | upstream tools/list | sluice serves | of upstream |");
say("| --- | ---: | ---: | ---: | ---: |");
let larger = 0;
for (const server of UNPROJECTED) {
  const snapshot = parseSnapshot(readFileSync(join(ROOT, "test/fixtures/mcp", server.file), "utf8"));
  const tool = packOf(snapshot);
  const upstream = listTokens(snapshot.tools);
  const whole = listTokens(served(snapshot.tools.map((t) => tool(t.name.replace(/[^a-zA-Z0-9_-]/g, "_")))));
  if (whole > upstream) larger++;
  say(`| ${server.name} (${server.origin}) | ${snapshot.tools.length} | ${upstream.toLocaleString("en-US")} | ${whole.toLocaleString("en-US")} | ${((100 * whole) / upstream).toFixed(1)} % |`);
}
say();
say(larger === 0 ? `None of the ${UNPROJECTED.length} is larger through sluice than straight.` : `**${larger} of the ${UNPROJECTED.length} are larger through sluice than straight.**`);
say();

// A pack of server-filesystem in a temporary folder, served by the CLI in front of the real server.
const dir = mkdtempSync(join(tmpdir(), "sluice-bench-proxy-"));
let packDir: string | undefined;
try {
  const files = join(dir, "files");
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, "notes.txt"), "one\ntwo\nthree\n");
  const upstream = [process.execPath, serverBin("server-filesystem"), files];
  // A pack as a user has it: generated by the CLI, a curated projection in curated.ts. It
  // lives under the repository so that its imports of @sluice/core resolve.
  const pack = mkdtempSync(join(ROOT, "bench", ".proxy-pack-"));
  packDir = pack;
  const generate = spawnSync(process.execPath, [BIN, "generate", "mcp", "--name", "fsbench", "--out", pack, "--", ...upstream], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "--conditions=@sluice/source" } });
  if (generate.status !== 0) throw new Error(`sluice generate mcp failed: ${generate.stderr}`);
  writeFileSync(
    join(pack, "src/curated.ts"),
    `import { curate, type Tool } from "@sluice/core";\nimport * as generated from "./tools.gen.ts";\n\nexport const curated: readonly Tool<object>[] = [curate(generated.readTextFile, { drop: ["tail"] })];\n\nexport const derived: readonly Tool<object>[] = [];\n`,
  );
  const env = { ...getDefaultEnvironment(), NODE_OPTIONS: "--conditions=@sluice/source" };
  // The four ways to reach the same server, each its own process tree.
  const PATHS = {
    direct: { label: "straight to the upstream", command: upstream },
    bare: { label: "a bare forwarding proxy (the SDK's Server + Client, no screening; scripts/bench-bare-mcp-proxy.mjs)", command: [process.execPath, join(ROOT, "scripts/bench-bare-mcp-proxy.mjs"), ...upstream] },
    source: { label: "sluice serve, the CLI from source (tsx)", command: [process.execPath, ...(PROFILE === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE}`]), BIN, "serve", pack] },
    built: { label: "sluice serve, the built CLI (dist/ on plain node)", command: [process.execPath, DIST_CLI, "serve", pack] },
  } as const;
  type Path = keyof typeof PATHS;
  const paths = (Object.keys(PATHS) as Path[]).filter((path) => path !== "built" || BUILT);
  const spawn = (path: Path) => {
    const [command, ...args] = PATHS[path].command;
    // The built CLI must not resolve sluice's packages to their sources.
    return connect(command!, args, path === "built" ? getDefaultEnvironment() : env);
  };
  /** Interleaved rounds, the order rotated every round, so that every path sees the same machine load. */
  const rotated = (round: number) => paths.map((_, i) => paths[(i + round) % paths.length]!);

  say("## tools/call round trip: through the proxy beside straight to the upstream");
  say();
  const clients = Object.fromEntries(await Promise.all(paths.map(async (path) => [path, await spawn(path)] as const))) as Record<Path, Client>;
  const call = { name: "read_text_file", arguments: { path: join(files, "notes.txt"), head: 2 } };
  for (let i = 0; i < 50; i++) for (const path of paths) await clients[path].callTool(call);
  const times = Object.fromEntries(paths.map((path) => [path, [] as number[]])) as Record<Path, number[]>;
  const cpu = loadavg()[0]!;
  const cpuBefore = Object.fromEntries(paths.map((path) => [path, cpuMs(pids.get(clients[path]))])) as Record<Path, number | undefined>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of rotated(round)) {
      const started = performance.now();
      await clients[path].callTool(call);
      times[path].push(performance.now() - started);
    }
  }
  const cpuPerCall = Object.fromEntries(
    paths.map((path) => {
      const after = cpuMs(pids.get(clients[path]));
      const before = cpuBefore[path];
      return [path, after === undefined || before === undefined ? undefined : (after - before) / ROUNDS];
    }),
  ) as Record<Path, number | undefined>;
  for (const path of paths) await clients[path].close();
  const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;
  const m = Object.fromEntries(paths.map((path) => [path, median(times[path])])) as Record<Path, number>;
  say(`server-filesystem \`read_text_file\` (a 3-line file, head 2), ${ROUNDS} interleaved rounds after 50 warm-up calls each, SDK client over stdio (load average ${cpu.toFixed(1)} before the rounds, ${loadavg()[0]!.toFixed(1)} after):`);
  say();
  say("| path | median | p90 | of straight | of the bare proxy | CPU of its process a call |");
  say("| --- | ---: | ---: | ---: | ---: | ---: |");
  const cpuCell = (path: Path) => (cpuPerCall[path] === undefined ? "n/a" : `${cpuPerCall[path]!.toFixed(2)} ms`);
  for (const path of paths) say(`| ${PATHS[path].label} | ${m[path].toFixed(2)} ms | ${p90(times[path]).toFixed(2)} ms | ${(m[path] / m.direct).toFixed(2)}x | ${(m[path] / m.bare).toFixed(2)}x | ${cpuCell(path)} |`);
  say();
  say("The last column is the CPU time (user + system, /proc) the process the client talks to used over the rounds, per call:");
  say("for straight, the server's own work; for a proxy, the proxy's alone (its upstream is another process). Unlike wall");
  say("time it hardly depends on what else the machine runs (ticks of 10 ms, over all the rounds).");
  say();
  const sluice = BUILT ? m.built : m.source;
  say(`Through sluice${BUILT ? " (built)" : ""}: **${(sluice / m.direct).toFixed(2)}x** straight (goal: at most 1.1x${sluice / m.direct <= 1.1 ? ", met" : ", not met"}), **${(sluice / m.bare).toFixed(2)}x** the bare proxy; sluice's own work is ${(sluice - m.bare).toFixed(2)} ms a call, the second process hop ${(m.bare - m.direct).toFixed(2)} ms.`);
  say();
  say("The goal of 1.1x straight is out of reach for any proxy that is a second process on stdio, however little it does: the bare");
  say("proxy, which only forwards, already costs the second hop (one more pipe write and read each way, two more JSON-RPC");
  say("parses and serialisations, and a wake-up of one more process, which is most of it on a loaded machine), and that hop");
  say("alone is more than a tenth of a call that takes a millisecond or two. The fair measure of sluice is against the bare");
  say("proxy: what sluice adds on top is its screening (argument validation against the projection and its parent, the");
  say("withheld check, pins), the lock's gate and the default response handler. Against an upstream that does real work (a");
  say("network API: tens to hundreds of milliseconds a call) the hop and the screening are both within the goal.");
  say();
  say("What was cut from sluice's own work (commits of the proxy-speed branch): stdin messages are checked by a hand-written");
  say("reading of the SDK's JSON-RPC schema (the same verdict, property-tested) instead of its zod union, on both sides of the");
  say("proxy; each message goes straight to the SDK Protocol's handler for its kind (the SDK tried both response schemas on");
  say("every request first, two failed zod parses); the upstream call is a plain request, not the SDK's callTool (which parsed");
  say("the result with zod and checked structuredContent against the output schema, which core checks again); the call's");
  say("deadline and cancellation share one AbortController instead of AbortSignal.any. What stays is every check that keeps");
  say("a withheld value off the wire. Before those cuts (the same script, 2026-12-01, load average 14.8): bare proxy 2.50 ms,");
  say("sluice built 2.92 ms, 1.17x the bare proxy, 0.41 ms of its own a call. In CPU time of the proxy process (the same");
  say("measure as the last column, from source, 2,000 calls, the sources of 47da724 checked out for \"before\", three");
  say("interleaved before/after runs at load average 24-26): before, 1.39, 1.38 and 1.50 ms a call against");
  say("the bare proxy's 0.72, 1.03 and 0.77 ms (1.35x-1.94x); after, 1.00, 0.97 and 0.88 ms against 0.88, 1.00 and 0.89 ms");
  say("(0.97x-1.13x): sluice's proxy now costs about what the bare SDK proxy costs, screening included.");
  say();

  say("## Start-up to the first full tools/list");
  say();
  const starts = Object.fromEntries(paths.map((path) => [path, [] as number[]])) as Record<Path, number[]>;
  const before = loadavg()[0]!;
  for (let round = 0; round < STARTS; round++) {
    for (const path of rotated(round)) {
      const started = performance.now();
      const client = await spawn(path);
      await client.listTools();
      starts[path].push(performance.now() - started);
      await client.close();
    }
  }
  say(`From spawning the command to the answer of the first tools/list, ${STARTS} interleaved rounds (load average ${before.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after); a proxy starts the upstream itself:`);
  say();
  say("| path | median | of the upstream alone |");
  say("| --- | ---: | ---: |");
  const s = Object.fromEntries(paths.map((path) => [path, median(starts[path])])) as Record<Path, number>;
  for (const path of paths) say(`| ${path === "direct" ? "the upstream alone (`node server-filesystem`)" : PATHS[path].label} | ${s[path].toFixed(0)} ms | ${(s[path] / s.direct).toFixed(2)}x |`);
  say();
  say("A proxy's start-up is its own loading, the upstream's start and the lock's listing (initialize, then tools/list of");
  say("every page, compared with the committed snapshot), which it cannot skip: no tool is served before the lock has looked");
  say("at it. sluice now starts the upstream before it imports the pack when it can name it without running it (`-- <command>`,");
  say("`--upstream-url`, or a generated pack's runtime.gen.ts facts), answers the client's initialize while the upstream");
  say("starts, builds its catalog meanwhile, and holds tools/list until the lock's first verdict; it lists the upstream with");
  say("plain requests (the SDK's listTools parsed every definition with zod and compiled a validator per output schema, which");
  say("nothing used). On this machine that overlap hardly shows: both processes want the same two cores, which other work");
  say("shares. What is left is loading: the CLI's modules (serve-startup's part of issue 24) and tsx for the pack's TypeScript");
  say("sources (a generated pack is TypeScript). Before these changes, the same script (load average 14.3): upstream alone");
  say("573 ms, bare proxy 1,474 ms, sluice built 2,647 ms (4.62x the upstream alone, 1.80x the bare proxy), from source");
  say("3,362 ms. From source, before and after side by side (the sources of 47da724 checked out for before, 14 interleaved");
  say("starts at load average 7-16): medians 3,131 ms before, 3,074 ms after, within the noise.");
  say();
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (packDir !== undefined) rmSync(packDir, { recursive: true, force: true });
}

writeFileSync(join(ROOT, "bench/MCP-PROXY.md"), lines.join("\n") + "\n");
