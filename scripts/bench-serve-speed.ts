/**
 * `sluice serve` to its first full tools/list, and the large-pack commands, on the built CLI
 * (dist/ on plain node, as installed), each beside its anchor measured in the same run:
 *
 *  - bench/SERVE-SPEED.md: a pack of 500 tools (the first 500 operations of GitHub REST,
 *    generated into a project of its own, TypeScript sources as a user has them) served
 *    from its stored list, and the same pack without the list (serve compiles and loads it
 *    first, as before the list existed), against a bare MCP SDK server listing the same 500
 *    definitions (bench/startup/bare-mcp-server.mjs); `sluice --help` against `node -e 0`.
 *  - bench/LARGE-PACKS.md: 8 disjoint copies of Kubernetes (scripts/kubernetes-copies.mjs,
 *    8,984 operations) generated, then served to the first full list against the bare
 *    server listing the same definitions; the first round is the first run after generating
 *    (nothing of the pack compiled or cached yet). Survey and report of the same pack are
 *    scripts/bench-large-survey.ts's (bench/LARGE-SURVEY-REPORT.md).
 *
 * Each server is timed twice per round: at the MCP SDK client (which validates every page
 * with its zod schemas, seconds for 112 MiB), and at a raw JSON-RPC client (newline-delimited
 * JSON over stdio, JSON.parse only), which leaves the server's own time to the last page.
 *
 * Rounds are interleaved (each round runs every row once, the order rotating); tables give
 * medians and the median of per-round ratios, since other processes share the machine.
 *
 *   node --import tsx scripts/bench-serve-speed.ts [--rounds 9] [--large-rounds 2] [--no-build] [--skip-large] [--skip-serve]
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { listToolPages } from "../test/support/list-tool-pages.ts";
import { median } from "./bench-stats.ts";

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    "large-rounds": { type: "string", default: "2" },
    "no-build": { type: "boolean", default: false },
    "skip-large": { type: "boolean", default: false },
    "skip-serve": { type: "boolean", default: false },
  },
});
const ROUNDS = Number(options.rounds);
const LARGE_ROUNDS = Number(options["large-rounds"]);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const DIST_CLI = join(ROOT, "bench/startup/sluice-dist.mjs");
const BARE = join(ROOT, "bench/startup/bare-mcp-server.mjs");
const MEASURED = join(ROOT, "bench/spawn-measured.cjs");
// No inherited loader or export condition: the children run as in a user's project.
const ENV = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/root" };
const COMMAND = "node --import tsx scripts/bench-serve-speed.ts";
const LARGE_PAGE = 100;

const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");
const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

function run(args: readonly string[], cwd: string): void {
  const done = spawnSync(process.execPath, args, { cwd, env: ENV, encoding: "utf8", maxBuffer: 1024 ** 3 });
  if (done.status !== 0) throw new Error(`node ${args.join(" ")} exited ${done.status}: ${done.stderr.slice(-2000)}`);
}

/** A child under bench/spawn-measured.cjs: its wall time and peak RSS. */
function measured(args: readonly string[], cwd: string, work: string): { ms: number; rssMiB: number } {
  const result = join(work, "measured.json");
  run([MEASURED, result, ...args], cwd);
  const { ms, maxRssKiB } = JSON.parse(readFileSync(result, "utf8")) as { ms: number; maxRssKiB: number };
  return { ms, rssMiB: maxRssKiB / 1024 };
}

function processMs(args: readonly string[]): number {
  const start = performance.now();
  const done = spawnSync(process.execPath, args, { env: ENV, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (done.status !== 0) throw new Error(`node ${args.join(" ")} exited ${done.status}: ${done.stderr}`);
  return performance.now() - start;
}

/** Spawn a stdio MCP server (through spawn-measured, for its RSS), initialize, list every page; ms to the last page, and the definitions. */
async function serveAndList(args: readonly string[], cwd: string, work: string): Promise<{ ms: number; rssMiB: number; tools: unknown[]; stderr: string }> {
  const result = join(work, "served.json");
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [MEASURED, result, ...args], cwd, env: ENV, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "bench-serve-speed", version: "0" });
  let ms = 0;
  const tools: unknown[] = [];
  try {
    await client.connect(transport);
    for (const page of await listToolPages(client)) tools.push(...page.tools);
    ms = performance.now() - start;
  } catch (error) {
    throw new Error(`${args.join(" ")}: ${String(error)}\n${stderr}`);
  } finally {
    await client.close();
  }
  // The launcher writes the child's peak RSS once the child has exited.
  for (let i = 0; i < 1200; i += 1) {
    try {
      const { maxRssKiB } = JSON.parse(readFileSync(result, "utf8")) as { maxRssKiB: number };
      rmSync(result);
      return { ms, rssMiB: maxRssKiB / 1024, tools, stderr };
    } catch {
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  return { ms, rssMiB: Number.NaN, tools, stderr };
}

/**
 * The same as serveAndList at a raw JSON-RPC client: initialize, initialized, then every
 * tools/list page, each line only JSON.parse'd. ms to the last page, and the definitions.
 */
async function rawList(args: readonly string[], cwd: string, work: string, record?: Buffer[]): Promise<{ ms: number; rssMiB: number; tools: unknown[]; stderr: string }> {
  const result = join(work, "raw.json");
  const start = performance.now();
  const child = spawn(process.execPath, [MEASURED, result, ...args], { cwd, env: ENV, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const waiting = new Map<number, (message: { result?: { tools: unknown[]; nextCursor?: string }; error?: unknown }) => void>();
  let held: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10)) {
      const line = held.length === 0 ? chunk.subarray(0, at) : Buffer.concat([...held, chunk.subarray(0, at)]);
      held = [];
      chunk = chunk.subarray(at + 1);
      const message = JSON.parse(line.toString("utf8")) as { id?: number; result?: { tools: unknown[]; nextCursor?: string }; error?: unknown };
      if (typeof message.id === "number") {
        record?.push(Buffer.from(JSON.stringify(message.result)));
        waiting.get(message.id)?.(message);
      }
    }
    if (chunk.length > 0) held.push(chunk);
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  let id = 0;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<{ result?: { tools: unknown[]; nextCursor?: string }; error?: unknown }>((done, fail) => {
      id += 1;
      waiting.set(id, done);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      void exited.then(() => fail(new Error(`${args.join(" ")} exited before answering ${method}:\n${stderr}`)));
    });
  const tools: unknown[] = [];
  await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-serve-speed-raw", version: "0" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  let cursor: string | undefined;
  do {
    const answer = await request("tools/list", cursor === undefined ? {} : { cursor });
    if (answer.result === undefined) throw new Error(`${args.join(" ")}: tools/list answered ${JSON.stringify(answer.error)}`);
    tools.push(...answer.result.tools);
    cursor = answer.result.nextCursor;
  } while (cursor !== undefined);
  const ms = performance.now() - start;
  child.stdin.end();
  await exited;
  const { maxRssKiB } = JSON.parse(readFileSync(result, "utf8")) as { maxRssKiB: number };
  rmSync(result);
  return { ms, rssMiB: maxRssKiB / 1024, tools, stderr };
}

/** The first `count` operations of GitHub REST (path order, methods in order), as a spec of their own. */
function githubFirst(count: number, out: string): void {
  const spec = JSON.parse(readFileSync(join(ROOT, "packs/github-rest/spec/api.github.com.json"), "utf8")) as { paths: Record<string, Record<string, unknown>> };
  const paths: Record<string, Record<string, unknown>> = {};
  let taken = 0;
  for (const [path, item] of Object.entries(spec.paths)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(item)) {
      const method = ["get", "put", "post", "delete", "patch", "head", "options"].includes(key);
      if (!method || taken < count) kept[key] = value;
      if (method && taken < count) taken += 1;
    }
    if (Object.keys(kept).some((key) => ["get", "put", "post", "delete", "patch", "head", "options"].includes(key))) paths[path] = kept;
    if (taken >= count) break;
  }
  writeFileSync(out, JSON.stringify({ ...spec, paths }));
}

/** A project of its own: @sluice/core resolved from it, as a user's pack resolves it (the built dist/ on plain node). */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bench-serve-"));
  mkdirSync(join(dir, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(dir, "node_modules/@sluice/core"), "dir");
  return dir;
}

const sameList = (a: unknown[], b: unknown[]) => JSON.stringify(a) === JSON.stringify(b);

async function serveSpeed(): Promise<string> {
  const dir = project();
  githubFirst(500, join(dir, "gh500.json"));
  run([DIST_CLI, "generate", "gh500.json", "--name", "gh500", "--out", "packs/gh500"], dir);
  // The same pack without its stored list: serve compiles and loads it before listing (what every serve did before the list).
  cpSync(join(dir, "packs/gh500"), join(dir, "packs/gh500-loaded"), { recursive: true });
  rmSync(join(dir, "packs/gh500-loaded/src/served-tools.gen.json"));
  const stored = [DIST_CLI, "serve", "packs/gh500", "--page-size", "500"];
  const loaded = [DIST_CLI, "serve", "packs/gh500-loaded", "--page-size", "500"];
  const first = await serveAndList(stored, dir, dir);
  if (!first.stderr.includes("listed from")) throw new Error(`serve did not answer from the stored list:\n${first.stderr}`);
  const toolsFile = join(dir, "tools.json");
  writeFileSync(toolsFile, JSON.stringify(first.tools));
  const bare = [BARE, toolsFile];
  const check = [await serveAndList(loaded, dir, dir), await serveAndList(bare, dir, dir)];
  if (!check.every((listed) => sameList(listed.tools, first.tools))) throw new Error("the three servers list different definitions");
  const count = first.tools.length;

  const rawCheck = [await rawList(stored, dir, dir), await rawList(bare, dir, dir)];
  if (!rawCheck.every((listed) => sameList(listed.tools, first.tools))) throw new Error("the raw client lists other definitions than the SDK client");
  const rows = { stored: [] as number[], loaded: [] as number[], bare: [] as number[], rawStored: [] as number[], rawBare: [] as number[], help: [] as number[], node: [] as number[] };
  const ratios = { stored: [] as number[], loaded: [] as number[], raw: [] as number[], help: [] as number[] };
  const loads: string[] = [load()];
  for (let round = 0; round < ROUNDS; round += 1) {
    const steps: Array<() => Promise<void>> = [
      async () => void rows.stored.push((await serveAndList(stored, dir, dir)).ms),
      async () => void rows.loaded.push((await serveAndList(loaded, dir, dir)).ms),
      async () => void rows.bare.push((await serveAndList(bare, dir, dir)).ms),
      async () => void rows.rawStored.push((await rawList(stored, dir, dir)).ms),
      async () => void rows.rawBare.push((await rawList(bare, dir, dir)).ms),
      async () => void rows.help.push(processMs([BIN, "--help"])),
      async () => void rows.node.push(processMs(["-e", "0"])),
    ];
    for (let i = 0; i < steps.length; i += 1) await steps[(i + round) % steps.length]!();
    ratios.stored.push(rows.stored.at(-1)! / rows.bare.at(-1)!);
    ratios.loaded.push(rows.loaded.at(-1)! / rows.bare.at(-1)!);
    ratios.raw.push(rows.rawStored.at(-1)! / rows.rawBare.at(-1)!);
    ratios.help.push(rows.help.at(-1)! / rows.node.at(-1)!);
    process.stderr.write(`serve round ${round + 1}/${ROUNDS}: stored ${fmt(rows.stored.at(-1)!)}, loaded ${fmt(rows.loaded.at(-1)!)}, bare ${fmt(rows.bare.at(-1)!)}; raw client: stored ${fmt(rows.rawStored.at(-1)!)}, bare ${fmt(rows.rawBare.at(-1)!)}\n`);
  }
  loads.push(load());
  rmSync(dir, { recursive: true, force: true });
  const x = (values: number[]) => `${median(values).toFixed(2)}x`;
  return [
    "# `sluice serve` to its first full tools/list, and `sluice --help`",
    "",
    "```sh",
    `npx pnpm@10.34.8 -r build && ${COMMAND} --rounds ${ROUNDS}${options["skip-large"] ? " --skip-large" : ""}   # also writes bench/LARGE-PACKS.md`,
    "```",
    "",
    `Generated on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${cpus()[0]?.model ?? "?"} (${cpus().length} threads), load average (1, 5, 15 min) ${loads[0]} at the start and ${loads[1]} at the end`,
    "(other sessions share the two cores: read the ratios, which are per round, not the milliseconds). Do not edit by hand; rerun the command.",
    "",
    `The pack: the first ${count} operations of GitHub REST, generated by the built CLI into a project of its own (TypeScript`,
    "sources, @sluice/core from the project's node_modules), served by the built CLI (dist/ on plain node) with `--page-size 500`.",
    "Every server is timed at the MCP SDK client, from spawn to the last page of tools/list; all three list the same definitions",
    `(checked byte for byte). ${ROUNDS} interleaved rounds; medians, and the median of the per-round ratios. The raw-client row (a departure from`,
    "the SDK client, beside it: newline-delimited JSON-RPC over stdio, each line only JSON.parse'd) times the same two servers without the SDK client's validation.",
    "",
    "| measure | ms | anchor | anchor ms | ratio | goal |",
    "| --- | ---: | --- | ---: | ---: | ---: |",
    `| \`sluice serve\`, ${count} tools, answered from the stored list (src/served-tools.gen.json) | ${fmt(median(rows.stored))} | bare MCP SDK server | ${fmt(median(rows.bare))} | ${x(ratios.stored)} | 1.2x |`,
    `| \`sluice serve\`, the same pack without its stored list (compiled and loaded first) | ${fmt(median(rows.loaded))} | bare MCP SDK server | ${fmt(median(rows.bare))} | ${x(ratios.loaded)} | |`,
    `| \`sluice serve\` from the stored list, at a raw JSON-RPC client | ${fmt(median(rows.rawStored))} | bare MCP SDK server, raw client | ${fmt(median(rows.rawBare))} | ${x(ratios.raw)} | |`,
    `| \`sluice --help\` | ${fmt(median(rows.help))} | \`node -e 0\` | ${fmt(median(rows.node))} | ${x(ratios.help)} | 1.5x |`,
    "",
  ].join("\n");
}

async function largePacks(): Promise<string> {
  const dir = project();
  const spec = join(dir, "k8x8.json");
  run([join(ROOT, "scripts/kubernetes-copies.mjs"), "8", spec], dir);
  const loads: string[] = [load()];
  const generated = measured([DIST_CLI, "generate", "k8x8.json", "--name", "k8x8", "--out", "packs/k8x8"], dir, dir);
  const listFile = join(dir, "packs/k8x8/src/served-tools.gen.json");
  const listBytes = readFileSync(listFile).length;
  // Pages of 100 (serve's default) on both servers: the SDK client refuses a message over 10 MiB, and all 8,984 are 118 MB.
  const serve = [DIST_CLI, "serve", "packs/k8x8", "--page-size", String(LARGE_PAGE)];
  type Timed = { ms: number; rssMiB: number };
  const rows = { serve: [] as Timed[], bare: [] as Timed[], rawServe: [] as Timed[], rawBare: [] as Timed[], rawFloor: [] as Timed[] };
  // The floor: a node server answering with serve's own answers, recorded in round one and replayed
  // (bench/startup/list-floor.mjs --serve): node's start, the pipe and the client's JSON.parse, no server work.
  const pagesFile = join(dir, "pages.jsonl");
  const floor = [join(ROOT, "bench/startup/list-floor.mjs"), "--serve", pagesFile];
  const recorded: Buffer[] = [];
  let toolsFile: string | undefined;
  let listed: unknown[] = [];
  let wire = 0;
  const fromList = <T extends { stderr: string }>(answer: T): T => {
    if (!answer.stderr.includes("listed from")) throw new Error(`serve did not answer from the stored list:\n${answer.stderr}`);
    return answer;
  };
  for (let round = 0; round < LARGE_ROUNDS; round += 1) {
    // Round one starts with serve at the raw client: the first run after generating (nothing of the pack read or compiled yet).
    const raw = fromList(await rawList(serve, dir, dir, round === 0 ? recorded : undefined));
    rows.rawServe.push(raw);
    if (toolsFile === undefined) {
      toolsFile = join(dir, "tools.json");
      const text = JSON.stringify(raw.tools);
      writeFileSync(toolsFile, text);
      listed = raw.tools;
      wire = Buffer.byteLength(text);
      writeFileSync(pagesFile, Buffer.concat(recorded.flatMap((result) => [result, Buffer.from("\n")])));
      let end = -1;
      writeFileSync(`${pagesFile}.ends.json`, JSON.stringify(recorded.map((result) => (end += result.length + 1))));
    }
    const rawFloor = await rawList(floor, dir, dir);
    if (round === 0 && !sameList(rawFloor.tools, listed)) throw new Error("the floor server lists other definitions than serve");
    rows.rawFloor.push(rawFloor);
    const bare = [BARE, toolsFile, String(LARGE_PAGE)];
    const rawBare = await rawList(bare, dir, dir);
    if (round === 0 && !sameList(rawBare.tools, listed)) throw new Error("the bare server lists other definitions than serve");
    rows.rawBare.push(rawBare);
    const sdk = fromList(await serveAndList(serve, dir, dir));
    if (round === 0 && !sameList(sdk.tools, listed)) throw new Error("the SDK client read other definitions than the raw client");
    rows.serve.push(sdk);
    rows.bare.push(await serveAndList(bare, dir, dir));
    process.stderr.write(`large round ${round + 1}/${LARGE_ROUNDS}: raw client: serve ${fmt(rows.rawServe.at(-1)!.ms)}, floor ${fmt(rows.rawFloor.at(-1)!.ms)}, bare ${fmt(rows.rawBare.at(-1)!.ms)}; SDK client: serve ${fmt(rows.serve.at(-1)!.ms)}, bare ${fmt(rows.bare.at(-1)!.ms)}\n`);
  }
  loads.push(load());
  rmSync(dir, { recursive: true, force: true });
  const row = (label: string, list: Timed[], goal: string) =>
    `| ${label} | ${fmt(list[0]!.ms)} | ${fmt(median(list.map((r) => r.ms)))} | ${Math.round(Math.max(...list.map((r) => r.rssMiB)))} MiB | ${goal} |`;
  const ratios = (a: Timed[], b: Timed[]) => a.map((r, i) => `${(r.ms / b[i]!.ms).toFixed(2)}x`).join(", ");
  return [
    "# Packs of 9,000 tools: serve to the first full tools/list",
    "",
    "```sh",
    `npx pnpm@10.34.8 -r build && ${COMMAND}${options["no-build"] ? " --no-build" : ""}${options["skip-serve"] ? " --skip-serve" : ""} --large-rounds ${LARGE_ROUNDS}${options["skip-serve"] ? "" : "   # also writes bench/SERVE-SPEED.md"}`,
    "node scripts/kubernetes-copies.mjs 8 k8x8.json   # the spec alone",
    "```",
    "",
    `Generated on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, ${cpus().length} threads, load average (1, 5, 15 min) ${loads[0]} at the start and ${loads[1]} at the end`,
    "(other sessions share the two cores). Do not edit by hand; rerun the command. survey and report of the same pack: bench/LARGE-SURVEY-REPORT.md.",
    "",
    `The pack: 8 disjoint copies of Kubernetes (scripts/kubernetes-copies.mjs: paths, operationIds and definitions renamed per copy),`,
    `generated by the built CLI into a project of its own in ${fmt(generated.ms)} (peak ${Math.round(generated.rssMiB)} MiB); ${listed.length} tools served, whose tools/list is`,
    `${(wire / 1024 ** 2).toFixed(0)} MiB of JSON; the stored list (each shared definition once) is ${(listBytes / 1024 ** 2).toFixed(1)} MiB. serve runs on the built CLI on plain node,`,
    `pages of ${LARGE_PAGE} (\`--page-size ${LARGE_PAGE}\`) on serve and on the bare MCP SDK server listing the same definitions (checked identical).`,
    "Each is timed from spawn to the last page twice a round: at a raw JSON-RPC client (newline-delimited JSON over stdio, each line only",
    "JSON.parse'd: a departure from the SDK client, which validates every page against its zod schemas and takes seconds of its own for",
    "112 MiB) and at the MCP SDK client. The first column is round one, the first run after generating (served at the raw client first);",
    `then the median of ${LARGE_ROUNDS} interleaved rounds and the largest peak RSS. serve loads the pack at the first call, so its RSS is the list's alone.`,
    "",
    "| server, client | first run | median | peak RSS | goal |",
    "| --- | ---: | ---: | ---: | --- |",
    row("`sluice serve` (from the stored list), raw JSON-RPC client", rows.rawServe, "under 2 s"),
    row("bare MCP SDK server, the same list, raw JSON-RPC client (anchor)", rows.rawBare, ""),
    row("floor: node replaying serve's recorded answers, raw JSON-RPC client", rows.rawFloor, ""),
    row("`sluice serve` (from the stored list), MCP SDK client", rows.serve, ""),
    row("bare MCP SDK server, the same list, MCP SDK client (anchor)", rows.bare, ""),
    "",
    `serve against the bare server, per round: raw client ${ratios(rows.rawServe, rows.rawBare)}; SDK client ${ratios(rows.serve, rows.bare)}.`,
    `serve against the floor (the same raw client; no server can answer sooner), per round: ${ratios(rows.rawServe, rows.rawFloor)}.`,
    "The floor replays serve's answers recorded in round one, each read from a file into memory used again (bench/startup/list-floor.mjs --serve).",
    "Round one is the first serve after generating: generate leaves the stat cache (node_modules/.cache/sluice) vouching for the list's key.",
    "",
  ].join("\n");
}

if (!options["no-build"]) {
  const built = spawnSync("npx", ["--yes", "pnpm@10.34.8", "-r", "build"], { cwd: ROOT, stdio: "inherit" });
  if (built.status !== 0) throw new Error("pnpm -r build failed");
}
if (!options["skip-serve"]) {
  const serveText = await serveSpeed();
  writeFileSync(join(ROOT, "bench/SERVE-SPEED.md"), serveText);
  process.stderr.write(serveText);
}
if (!options["skip-large"]) {
  const largeText = await largePacks();
  writeFileSync(join(ROOT, "bench/LARGE-PACKS.md"), largeText);
  process.stderr.write(largeText);
}
