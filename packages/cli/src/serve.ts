import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SluiceError } from "@sluice/schema";
import type { JsonSchemaObject, Tool } from "@sluice/core/pack";
// What answering tools/list from a pack's stored list needs, and no more: the list's server,
// the transports, the defaults (serveListModule, loaded after the stored list is checked). The
// loaded catalog, createServer and @sluice/core load after (serveModule), at the first call on
// the stored-list path and before listing on the other.
import type { CallerCredentials, createServedListServer, PrelistedCatalog, SessionCaller, SessionOptions } from "@sluice/mcp/serve-list";
import type { ServedCatalog } from "@sluice/mcp/serve";
// The proxy half of @sluice/mcp (the SDK client, @sluice/generator-mcp) loads only for an MCP pack.
import type { McpProxy, McpSnapshot, UpstreamSource } from "@sluice/mcp";
import type { UsageSink } from "@sluice/catalog/usage";
import { parseCommand, stringOption } from "./args.ts";
import { resolvePack } from "./resolve-pack.ts";
import { currentServedList, type CurrentServedList } from "./stored-list.ts";
import type { Io } from "./io.ts";

/** The list's server, the transports and the defaults (the MCP SDK behind them: the largest part of serve's start). */
const serveListModule = () => import("@sluice/mcp/serve-list");
/** The served catalog, createServer and the credential report, with @sluice/core and the catalog behind them. */
const serveModule = () => import("@sluice/mcp/serve");
const loadPackOf = async (spec: string, cwd: string) => (await import("./load-tools.ts")).loadPack(spec, cwd);

export const SERVE_USAGE = `  sluice serve <pack|module> [--http <port>] [--host ADDR] [--auth-token TOKEN] [--profile <client>] [--defer]
               [--include-full] [--base-url [HOST=]URL] [--page-size N] [--server-name NAME] [--allow-lossy] [--unroll N]
               [--timeout-ms N] [--max-argument-bytes N] [--max-message-bytes N] [--max-result-bytes N]
               [--max-concurrent-calls N] [--max-queued-calls N] [--env-file FILE] [--callers FILE] [--verbose]
               [--usage-dir DIR | --no-usage]
               MCP packs: [--snapshot FILE] [--upstream-url URL | -- <command> [args...]]`;

async function help(): Promise<string> {
  const { DEFAULT_HTTP_HOST, DEFAULT_PAGE_SIZE, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } = await serveListModule();
  const { SNAPSHOT_FILE } = await proxyModule();
  const { CREDENTIAL_ENV } = await serveModule();
  const lines = [
    "usage:",
    SERVE_USAGE,
    "",
    "Serves the tools as an MCP server: stdio by default; --http <port> serves Streamable HTTP",
    `at http://${DEFAULT_HTTP_HOST}:<port>/mcp (0 picks a free port; the URL is printed on stderr).`,
    "  --host ADDR           bind address for --http (default 127.0.0.1; any other address needs --auth-token)",
    "  --auth-token TOKEN    the bearer token HTTP clients must send (also SLUICE_MCP_TOKEN); without one, a random",
    "                        token is generated and printed once on stderr",
    "  --profile <client>    fit names and schemas to a client: claude-code, cursor, vscode, windsurf, mcp",
    "  --defer               list one search tool; tools it loads are announced with tools/list_changed",
    "  --include-full        also serve the *_full twins (curated tools' unprojected originals; left out by default)",
    "  --base-url URL        send every call to URL instead of the API (also SLUICE_BASE_URL);",
    "  --base-url HOST=URL   only the calls to one API host, e.g. api.linear.app=http://127.0.0.1:4000/graphql (repeatable)",
    `  --page-size N         tools per tools/list page (default ${DEFAULT_PAGE_SIZE})`,
    "  --server-name NAME    the name clients register the server under (counts against name limits; default sluice)",
    "  --allow-lossy, --unroll N   accept lossy fitting / unroll recursive schemas for the profile",
    "  --timeout-ms N, --max-argument-bytes N   call deadline and argument size limit",
    `  --max-message-bytes N   largest JSON-RPC message (stdio line, HTTP body; default ${DEFAULT_MAX_MESSAGE_BYTES}); larger: HTTP 413`,
    `  --max-result-bytes N   most bytes of one call's result put before the model (default ${DEFAULT_MAX_RESULT_BYTES}); more is cut with a note`,
    `  --max-concurrent-calls N   tools/call (and, over HTTP, request bodies) handled at once (default ${DEFAULT_MAX_CONCURRENT_CALLS})`,
    `  --max-queued-calls N   waiting beyond those (default ${DEFAULT_MAX_QUEUED_CALLS}); more are refused with SERVER_BUSY (HTTP 503)`,
    "  --env-file FILE       read environment variables (credentials, endpoints) from FILE first",
    "  --callers FILE        --http shared by several people: a JSON file {\"callers\": [{\"name\", \"token\", \"env\": {VAR: value}}]};",
    "                        a request with a caller's token is that caller's, and its calls read only that caller's env",
    "  --verbose             one line per call on stderr (never arguments or credentials), with each reformatter's tokens before and after",
    "  --usage-dir DIR       where each session's tool usage is recorded (also SLUICE_USAGE_DIR; default .sluice/usage in",
    "                        the folder of the nearest sluice.config, else the pack's): the tools listed and the number of",
    "                        calls of each, by name, never arguments or results; `sluice usage` reads it",
    "  --no-usage            record nothing (also SLUICE_USAGE=off)",
    "",
    "A pack made from an MCP server is served as a screening proxy: sluice starts the server (or connects to",
    "it), screens every call as for HTTP tools, and forwards what passes. The upstream is, in this order:",
    "`-- <command> [args...]` (stdio, with this environment), --upstream-url URL (Streamable HTTP), the server the",
    "pack was generated from (its runtime.gen.ts), its `mcp` entry in the sluice.config of the current folder, or the",
    "module's `mcpServer` export. The pack's",
    `spec/${SNAPSHOT_FILE} is a lock: a tool changed upstream (wider schema, rewritten text) or removed is not`,
    "served until the snapshot is regenerated (a new one is not in the pack, so not served either).",
    "  --snapshot FILE       the snapshot to hold the upstream to (default: the pack's spec/tools.snapshot.json)",
    "  --upstream-url URL    the upstream's Streamable HTTP endpoint",
    "",
    "Credentials come from the environment. A generated pack names its variables (<PACK>_<SCHEME>, printed",
    "by sluice generate and at start-up); the packs of the sluice repository read, by the API a tool calls:",
    ...CREDENTIAL_ENV.map((entry) => {
      const typed = Object.entries(entry.byType ?? {}).map(([type, names]) => `${names.join(" | ")} (${type})`);
      return `  ${entry.api.padEnd(14)} ${[...typed, entry.token.join(" | ")].join(", ")}`;
    }),
  ];
  return lines.join("\n") + "\n";
}

/** A usage problem, made a SluiceError by usageError (which loads the profile names) when serveCommand throws it. */
class UsageProblem extends Error {}

function usage(problem: string): UsageProblem {
  return new UsageProblem(problem);
}

async function usageError(problem: string): Promise<SluiceError> {
  const { PROFILE_IDS } = await import("@sluice/catalog/serve");
  return new SluiceError("INVALID_OPTION", `${problem} (see sluice serve --help; client profiles: claude-code, cursor, vscode, windsurf, mcp, or any of ${PROFILE_IDS.join(", ")})`);
}

function integer(value: unknown, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw usage(`${flag} takes an integer of at least ${min}, got "${String(value)}"`);
  return n;
}

/**
 * `--base-url URL` sends every call to URL; `--base-url HOST=URL` (repeatable) only the
 * calls of tools whose API lives at HOST (`api.linear.app=http://127.0.0.1:4000/graphql`).
 */
function baseUrlOption(given: readonly string[]): string | Record<string, string> | undefined {
  if (given.length === 0) return undefined;
  const url = (text: string) => {
    if (!/^https?:\/\/\S+$/.test(text)) throw usage(`--base-url (or SLUICE_BASE_URL) takes an http(s) URL or HOST=URL, got "${text}"`);
    return text;
  };
  const plain = given.filter((value) => !/^[^=/:]+=/.test(value));
  if (plain.length > 0) {
    if (given.length > 1) throw usage("--base-url takes either one URL for every tool, or HOST=URL entries");
    return url(plain[0]!);
  }
  const byHost: Record<string, string> = {};
  for (const entry of given) {
    const at = entry.indexOf("=");
    byHost[entry.slice(0, at).toLowerCase()] = url(entry.slice(at + 1));
  }
  return byHost;
}

/** A module may export `outputSchemas` (by tool name) beside its tools; packs have none. */
function outputSchemasOf(spec: string, module: Record<string, unknown>): Record<string, JsonSchemaObject> | undefined {
  const schemas = module.outputSchemas;
  if (schemas === undefined) return undefined;
  if (typeof schemas !== "object" || schemas === null || Array.isArray(schemas)) {
    throw new SluiceError("INVALID_OPTION", `${spec}: \`outputSchemas\` must be an object of JSON Schemas by tool name.`);
  }
  return schemas as Record<string, JsonSchemaObject>;
}

/**
 * Said once at start, per API: HTTP tools with no absolute base URL (the spec names no server,
 * or a relative one) and no override for them, whose calls would answer NO_BASE_URL; and
 * an API none of whose tools carries any security, whose calls go out without a credential.
 */
export function specSilences(tools: readonly Tool<object>[], baseUrl: string | Readonly<Record<string, string>> | undefined): string[] {
  const byApi = new Map<string, Tool<object>[]>();
  for (const tool of tools) {
    if (tool.binding.kind !== "http") continue;
    const api = tool.callSettings.api ?? "tools";
    const group = byApi.get(api);
    if (group === undefined) byApi.set(api, [tool]);
    else group.push(tool);
  }
  const lines: string[] = [];
  for (const [api, group] of byApi) {
    // A HOST=URL override needs a host to match; only a plain --base-url covers a tool with none.
    const unset = typeof baseUrl === "string" ? [] : group.filter((tool) => tool.server === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(tool.server));
    if (unset.length > 0) {
      const relative = unset.map((tool) => tool.server).find((server) => server !== undefined && server !== "");
      const what = relative === undefined ? "the spec names no server URL" : `the spec's server URL ${JSON.stringify(relative)} is relative`;
      lines.push(`${api}: ${what} for ${unset.length === group.length ? `all ${group.length}` : `${unset.length} of ${group.length}`} tools; their calls answer NO_BASE_URL until one is set (--base-url URL or SLUICE_BASE_URL; or baseUrl in sluice.config, then regenerate)`);
    }
    if (group.every((tool) => (tool.auth ?? []).every((alternative) => alternative.length === 0)) && Object.keys(group[0]!.callSettings.credentialEnv ?? {}).length === 0) {
      lines.push(`${api}: the spec declares no security; calls go out without a credential`);
    }
  }
  return lines;
}

const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/** The lock's file name (generator-mcp's SNAPSHOT_FILE), known without loading the proxy, which a pack of HTTP tools never needs; the MCP serve tests find the lock by it. */
const SNAPSHOT_FILE = "tools.snapshot.json";

const proxyModule = () => import("@sluice/mcp");

/** The pack folder a module belongs to: the nearest folder up from it with the snapshot in spec/. */
function snapshotNear(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const candidate = join(dir, "spec", SNAPSHOT_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A command given on the command line runs with sluice's environment, as the shell would run it. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return env;
}

function isUpstreamSource(value: unknown): value is UpstreamSource {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record["command"] === "string" || typeof record["url"] === "string";
}

/** The pack's `mcp` entry in the sluice.config of cwd, found by its `out` folder; undefined when there is none. */
async function upstreamFromConfig(cwd: string, snapshotFile: string): Promise<UpstreamSource | undefined> {
  const { CONFIG_FILES } = await import("./config.ts");
  if (!CONFIG_FILES.some((name) => existsSync(join(cwd, name)))) return undefined;
  const { loadConfig } = await import("./load-config.ts");
  const { config, dir } = await loadConfig(cwd, undefined);
  const packDir = dirname(dirname(snapshotFile));
  for (const pack of config.packs) {
    const mcp = (pack as unknown as { mcp?: unknown }).mcp;
    if (resolve(dir, pack.out) !== packDir || !isUpstreamSource(mcp)) continue;
    // A stdio command of the config runs in the config's folder, or in its `cwd` taken from
    // that folder, as generate ran it (not from this process's cwd: main() may run inside another program).
    return "command" in mcp ? { ...mcp, cwd: resolve(dir, typeof mcp.cwd === "string" ? mcp.cwd : ".") } : mcp;
  }
  return undefined;
}

interface ProxyStart {
  spec: string;
  file: string;
  module: Record<string, unknown>;
  tools: readonly Tool<object>[];
  cwd: string;
  values: Readonly<Record<string, unknown>>;
  upstreamCommand: readonly string[];
  timeoutMs: number | undefined;
  say: (line: string) => void;
}

/** A proxy whose start is under way: `started` settles when the upstream has been listed through the lock (or could not start). */
interface Launched {
  proxy: McpProxy;
  started: Promise<void>;
  source: UpstreamSource;
  snapshotFile: string;
}

/** The lock file: --snapshot, or the spec/ folder nearest above the pack's module. */
function snapshotFileOf(values: Readonly<Record<string, unknown>>, cwd: string, file: string): string | undefined {
  return typeof values.snapshot === "string" ? resolve(cwd, values.snapshot) : snapshotNear(file);
}

/**
 * For an MCP pack: the snapshot, the upstream, and the proxy, its start under way. The caller
 * builds its catalog and answers initialize meanwhile, and its server lists and calls nothing
 * before `started` (the proxy is the server's gate). `early`, a proxy started before the
 * pack was loaded, is kept when it is the one this would start, and stopped otherwise.
 */
async function startProxy(start: ProxyStart, early: Launched | undefined): Promise<Launched> {
  const { values, say } = start;
  const snapshotFile = snapshotFileOf(values, start.cwd, start.file);
  if (snapshotFile === undefined) {
    throw new SluiceError("FILE_NOT_FOUND", `${start.spec} forwards to an MCP server, but no spec/${SNAPSHOT_FILE} was found above ${start.file}; pass --snapshot FILE (the lock the upstream is held to)`);
  }
  const url = typeof values["upstream-url"] === "string" ? values["upstream-url"] : undefined;
  if (url !== undefined && start.upstreamCommand.length > 0) throw usage("give the upstream either as -- <command> or as --upstream-url, not both");
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) throw usage(`--upstream-url takes an http(s) URL, got "${url}"`);
  const [command, ...args] = start.upstreamCommand;
  const exported = start.module["mcpServer"];
  // A generated pack carries its server (runtime.gen.ts, secrets as variable names) in its tools' settings.
  const fact = start.tools.map((tool) => tool.callSettings.mcp).find((found) => found !== undefined);
  const generated = fact === undefined ? undefined : upstreamOfFact(fact, snapshotFile);
  const source: UpstreamSource | undefined =
    command !== undefined
      ? { command, args, env: inheritedEnv() }
      : url !== undefined
        ? { url }
        : (generated ?? (await upstreamFromConfig(start.cwd, snapshotFile)) ?? (isUpstreamSource(exported) ? exported : undefined));
  if (source === undefined) {
    throw new SluiceError("CONFIG_INVALID", `${start.spec} forwards to an MCP server, but none is configured: add \`mcp: { command, args }\` (or \`{ url }\`) to its pack in sluice.config, or give it here: sluice serve ${start.spec} -- <command> [args...], or --upstream-url URL`);
  }
  if (early !== undefined) {
    if (early.snapshotFile === snapshotFile && JSON.stringify(early.source) === JSON.stringify(source)) return early;
    await early.proxy.close();
  }
  return launchProxy(source, snapshotFile, values, start.timeoutMs, say);
}

async function launchProxy(source: UpstreamSource, snapshotFile: string, values: Readonly<Record<string, unknown>>, timeoutMs: number | undefined, say: (line: string) => void): Promise<Launched> {
  const { McpProxy, readSnapshot, describeUpstream } = await proxyModule();
  const snapshot: McpSnapshot = await readSnapshot(snapshotFile);
  const proxy = new McpProxy(source, snapshot, {
    log: say,
    callTimeoutMs: timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    ...(values.verbose === true ? { onStderr: (line: string) => say(`upstream: ${line}`) } : {}),
  });
  const started = proxy.start().then(
    (state) => {
      const held = state.held.size;
      say(`proxying ${describeUpstream(source)} (${snapshot.server.name} ${snapshot.server.version}), held to ${snapshotFile}: ${held === 0 ? "every tool as committed" : `${held} tool${held === 1 ? "" : "s"} held back (see above)`}`);
    },
    async (error: unknown) => {
      await proxy.close();
      throw error;
    },
  );
  // Awaited by the caller once it serves; until then a failure must not count as unhandled.
  started.catch(() => undefined);
  return { proxy, started, source, snapshotFile };
}

/**
 * The upstream a pack names before its module is imported, so that the server starts while
 * tsx and the pack load instead of after them: `-- <command>`, `--upstream-url`, or the facts
 * a generated pack keeps in src/runtime.gen.ts (read as the JSON they are, not run). The
 * pack as loaded decides in the end (startProxy keeps this start only if it would pick the
 * same upstream and lock). Anything unusual (no snapshot, facts with escapes, an error of
 * any kind) gives undefined, and the start waits for the pack as before.
 */
async function launchBeforeLoading(spec: string, cwd: string, values: Readonly<Record<string, unknown>>, upstreamCommand: readonly string[], timeoutMs: number | undefined, say: (line: string) => void): Promise<Launched | undefined> {
  try {
    const { file } = resolvePack(spec, cwd);
    const snapshotFile = snapshotFileOf(values, cwd, file);
    if (snapshotFile === undefined) return undefined;
    const url = typeof values["upstream-url"] === "string" ? values["upstream-url"] : undefined;
    const [command, ...args] = upstreamCommand;
    let source: UpstreamSource | undefined;
    if (command !== undefined) source = url === undefined ? { command, args, env: inheritedEnv() } : undefined;
    else if (url !== undefined) source = /^https?:\/\/\S+$/.test(url) ? { url } : undefined;
    else source = generatedUpstream(join(dirname(file), "runtime.gen.ts"), snapshotFile);
    if (source === undefined) return undefined;
    return await launchProxy(source, snapshotFile, values, timeoutMs, say);
  } catch {
    return undefined;
  }
}

/**
 * The upstream a generated pack's `mcp` fact names. The fact keeps a stdio server's folder
 * relative to the pack (the folder above spec/, where the lock is): resolved here, the server
 * starts where generate ran it whatever folder the client started serve in. A fact without a
 * `cwd` (written before it was kept) runs in serve's own folder, as it did then.
 */
function upstreamOfFact(fact: UpstreamSource, snapshotFile: string): UpstreamSource {
  if (!("command" in fact) || typeof fact.cwd !== "string") return fact;
  return { ...fact, cwd: resolve(dirname(dirname(snapshotFile)), fact.cwd) };
}

/** The `mcp` fact of a runtime.gen.ts written by the MCP generator, or undefined. */
function generatedUpstream(runtime: string, snapshotFile: string): UpstreamSource | undefined {
  if (!existsSync(runtime)) return undefined;
  const text = readFileSync(runtime, "utf8");
  if (!text.startsWith("// @generated by @sluice/generator-mcp")) return undefined;
  const json = /JSON\.parse\(`([^`\\$]*)`\)/.exec(text)?.[1];
  if (json === undefined) return undefined;
  const mcp = (JSON.parse(json) as { kind?: unknown; mcp?: unknown }).mcp;
  return isUpstreamSource(mcp) ? upstreamOfFact(mcp, snapshotFile) : undefined;
}

/**
 * `sluice serve`: an MCP server over stdio (default) or Streamable HTTP. stdout belongs to
 * the protocol on stdio, so everything else goes to stderr. Runs until the client closes
 * stdin (stdio) or the process gets SIGINT/SIGTERM.
 */
export async function serveCommand(args: readonly string[], io: ServeIo): Promise<number> {
  try {
    return await serve(args, io);
  } catch (error) {
    throw error instanceof UsageProblem ? await usageError(error.message) : error;
  }
}

/** What serve takes beyond Io: the streams stdio serving speaks over, the process's stdin and stdout when absent (a program that serves inside itself, a test worker, gives its own). */
export interface ServeIo extends Io {
  stdio?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
}

async function serve(args: readonly string[], io: ServeIo): Promise<number> {
  // Everything after `--` is the upstream's command line, not options of serve.
  const dashes = args.indexOf("--");
  const upstreamCommand = dashes < 0 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseCommand("serve", dashes < 0 ? args : args.slice(0, dashes));
  if (values.help) {
    io.stdout.write(await help());
    return 0;
  }
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usage("serve takes one <pack|module>");
  // A pack whose stored list still matches its sources answers tools/list from it.
  const stored = storedServedList(spec, io.cwd, values, upstreamCommand);
  const { serveHttp, checkHttpAccess, serveStdio, createServedListServer, CallSlots, DEFAULT_HTTP_HOST, DEFAULT_PAGE_SIZE, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } = await serveListModule();
  const port = integer(values.http, "--http", 0);
  if (port !== undefined && port > 65_535) throw usage(`--http takes a port (0 for any free one), got ${port}`);
  if (values.host !== undefined && port === undefined) throw usage("--host applies to --http only");
  if (values["auth-token"] !== undefined && port === undefined) throw usage("--auth-token applies to --http only");
  if (values.callers !== undefined && port === undefined) throw usage("--callers applies to --http only");
  const envToken = process.env.SLUICE_MCP_TOKEN?.trim();
  const authToken = stringOption(values, "auth-token") ?? (envToken === undefined || envToken === "" ? undefined : envToken);
  const baseUrl = baseUrlOption((values["base-url"] as string[] | undefined) ?? (process.env.SLUICE_BASE_URL?.trim() ? process.env.SLUICE_BASE_URL.trim().split(/\s+/) : []));
  const pageSize = integer(values["page-size"], "--page-size", 1) ?? DEFAULT_PAGE_SIZE;
  const unroll = integer(values.unroll, "--unroll", 0);
  const timeoutMs = integer(values["timeout-ms"], "--timeout-ms", 1);
  const maxArgumentBytes = integer(values["max-argument-bytes"], "--max-argument-bytes", 1);
  const maxMessageBytes = integer(values["max-message-bytes"], "--max-message-bytes", 1024);
  const maxResultBytes = integer(values["max-result-bytes"], "--max-result-bytes", 1024);
  const maxConcurrentCalls = integer(values["max-concurrent-calls"], "--max-concurrent-calls", 1) ?? DEFAULT_MAX_CONCURRENT_CALLS;
  const maxQueuedCalls = integer(values["max-queued-calls"], "--max-queued-calls", 0) ?? DEFAULT_MAX_QUEUED_CALLS;
  // One set of call slots for every session: the bound is the server's, not each client's.
  const callSlots = new CallSlots(maxConcurrentCalls, maxQueuedCalls);
  const serverName = stringOption(values, "server-name") ?? "sluice";
  const say = (line: string) => io.stderr.write(`sluice serve: ${line}\n`);

  const host = stringOption(values, "host") ?? DEFAULT_HTTP_HOST;
  const callersFile = stringOption(values, "callers");
  const callers = callersFile === undefined ? undefined : readCallers(resolve(io.cwd, callersFile), callersFile);
  // Refused now rather than after the pack loads (seconds for a large one); callers bring tokens of their own.
  if (port !== undefined) checkHttpAccess(host, authToken, callers?.length ?? 0);

  const envFile = stringOption(values, "env-file");
  if (envFile !== undefined) {
    // Before the pack loads: a generated GraphQL pack reads its endpoint variable then.
    const path = resolve(io.cwd, envFile);
    if (!existsSync(path)) throw new SluiceError("FILE_NOT_FOUND", `--env-file ${envFile}: no such file (${path}).`);
    process.loadEnvFile(path);
  }
  const catalogOptions = (module: Record<string, unknown>) => {
    const outputSchemas = outputSchemasOf(spec, module);
    const profile = stringOption(values, "profile");
    return {
      serverName,
      ...(profile === undefined ? {} : { profile }),
      ...(values["allow-lossy"] ? { allowLossy: true } : {}),
      ...(unroll === undefined ? {} : { unroll }),
      ...(outputSchemas === undefined ? {} : { outputSchemas }),
      ...(values["include-full"] ? { includeFull: true } : {}),
    };
  };
  /** What is said once the tools are known: lossy fitting, findings, credentials, endpoints, base URLs. */
  const sayLoaded = async (catalog: ServedCatalog, tools: readonly Tool<object>[]) => {
    const { describeCredentialEnv } = await serveModule();
    for (const change of catalog.changes.filter((c) => c.kind === "lossy")) say(`lossy: ${change.tool}: ${change.message}`);
    for (const finding of catalog.findings) {
      if (values.defer && finding.code === "TOO_MANY_TOOLS") continue;
      say(`warning: ${finding.tool === "" ? "" : `${finding.tool}: `}${finding.message}${finding.code === "TOO_MANY_TOOLS" ? " Serve a narrower module, or add --defer." : ""}`);
    }
    for (const entry of describeCredentialEnv(tools, process.env)) {
      const missing = entry.missing ?? [];
      if (entry.set.length === 0) say(`${entry.api}: no credentials (set ${entry.expected.join(entry.missing === undefined ? " or " : ", ")}); calls will answer AUTH_MISSING or the API's 401`);
      else say(`${entry.api} credentials from ${entry.set.join(", ")}${missing.length > 0 ? `; not set: ${missing.join(", ")} (a call whose scheme needs one answers AUTH_MISSING)` : ""}`);
    }
    const endpoints = new Map<string, string>();
    for (const tool of tools) {
      const { endpointEnv, api } = tool.callSettings;
      if (endpointEnv !== undefined) endpoints.set(api ?? endpointEnv, tool.endpoint === undefined ? `no GraphQL endpoint (set ${endpointEnv}); calls will fail until it is set` : `GraphQL endpoint ${tool.endpoint} (from ${endpointEnv})`);
    }
    for (const [api, line] of endpoints) say(`${api}: ${line}`);
    for (const line of specSilences(tools, baseUrl)) say(line);
  };
  const sayOverrides = () => {
    if (typeof baseUrl === "string") say(`every call goes to ${baseUrl} (base URL override)`);
    else if (baseUrl !== undefined) for (const [host, url] of Object.entries(baseUrl)) say(`calls to ${host} go to ${url} (base URL override)`);
  };

  /** The usage store of the pack at `file`, opened (or refused) before anything is served. */
  const usageFor = async (file: string, proxy?: { close(): Promise<void> }) => {
    // Loaded here, not statically: it reads config file names from the pipeline's config module.
    const { usageRecorder } = await import("./serve-usage.ts");
    try {
      return usageRecorder(values, file, io.cwd, say);
    } catch (error) {
      await proxy?.close();
      throw error;
    }
  };

  // Listed from the stored list, the pack loads at the first call.
  if (stored !== undefined) {
    const recordUsage = await usageFor(resolvePack(spec, io.cwd).file);
    // The line a loaded pack's start gives, then where the list came from.
    const twins = stored.twins === 0 ? "" : ` (${stored.twins} *_full twin${stored.twins === 1 ? "" : "s"} left out; --include-full serves them)`;
    say(`serving ${stored.count} tools from ${spec}${twins}; listed from its ${relative(io.cwd, stored.file) || stored.file}, the pack loads at the first call`);
    sayOverrides();
    let loading: Promise<ServedCatalog> | undefined;
    const load = () =>
      (loading ??= (async () => {
        const [{ tools, module }, { ServedCatalog }] = await Promise.all([loadPackOf(spec, io.cwd), serveModule()]);
        if (tools.some((tool) => tool.binding.kind === "mcp")) throw new SluiceError("CONFIG_INVALID", `${spec} forwards to an MCP server, but its served list has a key; regenerate the pack (sluice generate).`);
        const catalog = new ServedCatalog(tools, catalogOptions(module));
        const listed = stored.names();
        if (catalog.tools.length !== listed.length || catalog.tools.some((tool, i) => tool.name !== listed[i])) {
          say(`warning: ${spec} as loaded serves other tools than its served list names; tools/list now answers from the pack (regenerate: sluice generate)`);
        }
        say(`loaded ${spec}`);
        await sayLoaded(catalog, tools);
        return catalog;
      })());
    // Loaded at the first call, not ahead of it: loading blocks the event loop (seconds for 9,000 tools), and a
    // list page still being written (118 MB for those) would wait behind it.
    // Pages are copied from the list's bytes; nothing of it is parsed to answer tools/list.
    const prelisted: PrelistedCatalog = { count: stored.count, listedJson: stored.listedJson, lentJson: stored.lentJson, load };
    return runServer((options) => createServedListServer(prelisted, options), undefined, undefined, recordUsage);
  }

  const early = await launchBeforeLoading(spec, io.cwd, values, upstreamCommand, timeoutMs, say);
  const { createServer, ServedCatalog } = await serveModule();
  let loaded: Awaited<ReturnType<typeof loadPackOf>>;
  try {
    loaded = await loadPackOf(spec, io.cwd);
  } catch (error) {
    await early?.proxy.close();
    throw error;
  }
  const { tools, module, file } = loaded;
  if (early !== undefined && !tools.some((tool) => tool.binding.kind === "mcp")) await early.proxy.close();
  const proxied = tools.some((tool) => tool.binding.kind === "mcp")
    ? await startProxy({ spec, file, module, tools, cwd: io.cwd, values, upstreamCommand, timeoutMs, say }, early).catch(async (error: unknown) => {
        await early?.proxy.close();
        throw error;
      })
    : undefined;
  const proxy = proxied?.proxy;
  if (proxy === undefined && (upstreamCommand.length > 0 || values["upstream-url"] !== undefined || values.snapshot !== undefined)) {
    throw usage(`${spec} has no tools made from an MCP server; -- <command>, --upstream-url and --snapshot apply to MCP packs only`);
  }
  const recordUsage = await usageFor(file, proxy);
  const catalog = new ServedCatalog(tools, catalogOptions(module));

  const fitted = catalog.profile === undefined ? "" : `, fitted to ${catalog.profile.label} (${catalog.changes.length} change${catalog.changes.length === 1 ? "" : "s"})`;
  const twins = catalog.twins.length;
  const twinNote =
    twins === 0
      ? ""
      : catalog.includeFull
        ? ` (${twins} *_full twin${twins === 1 ? "" : "s"} included)`
        : ` (${twins} *_full twin${twins === 1 ? "" : "s"} left out; --include-full serves them)`;
  // What is really served: for a proxy, once the lock has looked at the upstream (a tool it holds back is not).
  const sayServing = () => {
    const held = proxy === undefined ? 0 : catalog.tools.filter((tool) => proxy.refusal(catalog.original(tool.name) ?? tool) !== undefined).length;
    const heldNote = held === 0 ? "" : ` (${held} more held back by the snapshot lock)`;
    say(`serving ${catalog.tools.length - held} tools from ${spec}${heldNote}${twinNote}${fitted}${values.defer ? ", deferred behind one search tool" : ""}`);
  };
  if (proxy === undefined) sayServing();
  await sayLoaded(catalog, tools);
  sayOverrides();
  return runServer((options) => createServer(catalog, options), proxied, sayServing, recordUsage);

  /** Serves `served` over stdio or HTTP until the client leaves or a signal comes; each session's usage goes to `recordUsage`'s record. */
  async function runServer(
    makeServer: (options: SessionOptions) => ReturnType<typeof createServedListServer>,
    proxied: Launched | undefined,
    sayServing: (() => void) | undefined,
    recordUsage: (() => UsageSink) | undefined,
  ): Promise<number> {
    const proxy = proxied?.proxy;
    // A caller of --callers reads its own variables only; everyone else, the process environment.
    const newServer = (caller: SessionCaller = { kind: "operator" }) =>
      makeServer({
        pageSize,
        serverName,
        ...(values.defer ? { defer: true } : {}),
        call: {
          headers: { "user-agent": "sluice-mcp" },
          ...(baseUrl === undefined ? {} : { baseUrl }),
          // A proxied call is bounded by the upstream's own deadline (MCP_UPSTREAM_TIMEOUT), which this outlasts.
          ...(proxy !== undefined ? { timeoutMs: (timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS) + 1_000, mcp: proxy.mcp } : timeoutMs === undefined ? {} : { timeoutMs }),
          ...(maxArgumentBytes === undefined ? {} : { maxArgumentBytes }),
          ...(caller.kind === "caller" ? { env: caller.env } : {}),
        },
        callSlots,
        ...(maxResultBytes === undefined ? {} : { maxResultBytes }),
        ...(values.verbose ? { log: say } : {}),
        ...(proxy === undefined ? {} : { gate: proxy }),
        ...(recordUsage === undefined ? {} : { usage: recordUsage() }),
      });

    // The bin's process, or the stand-in of a program that runs serve inside itself (io.ts).
    const hostProcess = io.process ?? process;
    const stop = new Promise<string>((resolveStop) => {
      const onSignal = (signal: NodeJS.Signals) => resolveStop(signal);
      hostProcess.once("SIGINT", onSignal);
      hostProcess.once("SIGTERM", onSignal);
    });
    // One misbehaving request must not end a server other clients rely on.
    hostProcess.on("unhandledRejection", (reason) => say(`unhandled rejection: ${(reason as Error)?.message ?? String(reason)}`));

    if (port === undefined) {
      const handle = await serveStdio(newServer(), {
        ...io.stdio,
        ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
        onProblem: (problem) => say(problem),
      });
      await upstreamStarted(proxied, () => handle.close());
      if (proxy !== undefined) sayServing?.();
      say("ready on stdio");
      const why = await Promise.race([handle.closed.then(() => "stdin closed"), stop]);
      await handle.close();
      await proxy?.close();
      say(`stopped (${why})`);
    } else {
      const handle = await serveHttp(newServer, {
        port,
        host,
        ...(authToken === undefined ? {} : { authToken }),
        ...(callers === undefined ? {} : { callers }),
        ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
        maxConcurrentCalls,
        maxQueuedCalls,
        ...(values.verbose ? { log: say } : {}),
      });
      await upstreamStarted(proxied, () => handle.close());
      if (proxy !== undefined) sayServing?.();
      if (host === "0.0.0.0" || host === "::") say(`warning: listening on every interface (${host}) over plain HTTP; anyone who can reach the port and read the token can call the tools with your credentials (put TLS in front)`);
      if (handle.generatedToken) say(`auth token (generated for this run; clients send Authorization: Bearer <token>): ${handle.authToken}`);
      else say(`clients must send Authorization: Bearer <token> (the token from ${values["auth-token"] !== undefined ? "--auth-token" : "SLUICE_MCP_TOKEN"})`);
      say(`listening on ${handle.url}`);
      const why = await stop;
      await handle.close();
      await proxy?.close();
      say(`stopped (${why})`);
    }
    // Keep-alive sockets to the API may hold the event loop for seconds; do not wait for them.
    setTimeout(() => hostProcess.exit(hostProcess.exitCode ?? 0), 1_000).unref();
    return 0;
  }
}

/**
 * The served list of the pack `spec` names, when serve may answer tools/list from it: no
 * option that changes what is listed (a profile, --defer, --include-full, an upstream) and a
 * list current for the pack's entry (currentServedList). Otherwise serve loads the pack first.
 */
function storedServedList(spec: string, cwd: string, values: Readonly<Record<string, unknown>>, upstreamCommand: readonly string[]): CurrentServedList | undefined {
  if (values.profile !== undefined || values.defer || values["include-full"] || upstreamCommand.length > 0 || values["upstream-url"] !== undefined || values.snapshot !== undefined) return undefined;
  return currentServedList(spec, cwd);
}

/** Waits for a proxy's upstream to be listed through the lock; when it cannot start, stops serving and throws why. */
async function upstreamStarted(proxied: { started: Promise<void> } | undefined, stop: () => Promise<void>): Promise<void> {
  if (proxied === undefined) return;
  try {
    await proxied.started;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The callers of a shared HTTP server: `{"callers": [{"name": "alice", "token": "<bearer>",
 * "env": {"STRIPE_BEARER_AUTH": "sk_..."}}]}`. Tokens and values are secrets: the file is
 * read, never echoed, and errors name the caller, not the value.
 */
function readCallers(path: string, shown: string): CallerCredentials[] {
  if (!existsSync(path)) throw new SluiceError("FILE_NOT_FOUND", `--callers ${shown}: no such file (${path}).`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new SluiceError("INVALID_OPTION", `--callers ${shown}: not valid JSON; write {"callers": [{"name": "...", "token": "...", "env": {"VAR": "value"}}]}.`);
  }
  const list = typeof parsed === "object" && parsed !== null ? (parsed as { callers?: unknown }).callers : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new SluiceError("INVALID_OPTION", `--callers ${shown}: needs a non-empty "callers" array of {"name", "token", "env"}.`);
  return list.map((entry: unknown, index) => {
    const { name, token, env } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    const label = typeof name === "string" && name !== "" ? name : `#${index + 1}`;
    const values = typeof env === "object" && env !== null && !Array.isArray(env) ? Object.entries(env) : undefined;
    if (typeof name !== "string" || name === "" || typeof token !== "string" || values === undefined || values.some(([, value]) => typeof value !== "string")) {
      throw new SluiceError("INVALID_OPTION", `--callers ${shown}: caller ${label} needs "name" and "token" strings and an "env" object of string values.`);
    }
    return { name, token, env: Object.fromEntries(values) as Record<string, string> };
  });
}
