/**
 * Connecting to an MCP server with the SDK client, over stdio (a child process sluice starts
 * and always stops) or Streamable HTTP, and listing every tool (all pages of `tools/list`).
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#listing-tools
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError } from "@sluice/schema";
import type { McpToolResult, McpUpstream } from "@sluice/core";
import { makeSnapshot, type McpSnapshot } from "./snapshot.ts";

/**
 * A value in the config that may come from the environment: a literal string, or
 * `{ fromEnv: "NAME" }`, read when sluice connects and never written anywhere.
 */
export type SecretValue = string | { fromEnv: string };

/** How to reach an MCP server: a command (stdio) or a URL (Streamable HTTP). */
export type McpSource =
  | { command: string; args?: string[]; env?: Record<string, SecretValue>; cwd?: string }
  | { url: string; headers?: Record<string, SecretValue> };

export interface ListOptions {
  /** Milliseconds for connecting and listing everything. Default 30 000. */
  timeoutMs?: number;
  /** Where `fromEnv` names are read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Pages of `tools/list` followed at most (a server that never stops paging is refused). Default 1 000. */
  maxPages?: number;
}

export const DEFAULT_LIST_TIMEOUT_MS = 30_000;

/**
 * A connected upstream: the SDK client, and what `initialize` said. `close()` stops a stdio
 * child (stdin closed, then SIGTERM, then SIGKILL) and is safe to call twice.
 */
export interface McpConnection {
  client: Client;
  server: McpSnapshot["server"];
  protocolVersion: string;
  /** The secret values this connection was given, so callers can keep them out of anything they write. */
  secrets: readonly string[];
  /** The last lines the child wrote on stderr (stdio only), secrets redacted: for error messages. */
  stderrTail(): string;
  close(): Promise<void>;
}

/** Reads the `fromEnv` values; a missing variable is CONFIG_INVALID naming it, never an empty value sent. */
export function resolveSecrets(values: Record<string, SecretValue> | undefined, where: string, env: Readonly<Record<string, string | undefined>>): { values: Record<string, string>; secrets: string[] } {
  const out: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    if (typeof value === "string") {
      out[key] = value;
      continue;
    }
    if (typeof value !== "object" || value === null || typeof value.fromEnv !== "string" || Object.keys(value).length !== 1) {
      throw new SluiceError("CONFIG_INVALID", `${where}.${key}: give a string or { fromEnv: "VARIABLE" }`);
    }
    const read = env[value.fromEnv];
    if (read === undefined || read === "") throw new SluiceError("CONFIG_INVALID", `${where}.${key} reads the environment variable ${value.fromEnv}, which is not set; set it (its value is never written to the pack)`);
    out[key] = read;
    secrets.push(read);
  }
  return { values: out, secrets };
}

/** Connects within the deadline; on any failure the child (if started) is stopped before the error is thrown. */
export async function connectMcp(source: McpSource, options: ListOptions = {}): Promise<McpConnection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const env = options.env ?? process.env;
  const { transport, secrets, describe, stderr } = transportFor(source, env);
  const peek = new ProtocolPeek(transport);
  const client = new Client({ name: "sluice", version: "0.1.0" }, { capabilities: {} });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => undefined);
  };
  const tail = () => redact(stderr.join("").split("\n").slice(-6).join("\n").trim(), secrets);
  try {
    await withDeadline(client.connect(peek, { timeout: timeoutMs }), timeoutMs, `connecting to ${describe}`);
  } catch (cause) {
    await close();
    throw connectError(cause, describe, tail(), secrets);
  }
  const info = client.getServerVersion();
  const server: McpSnapshot["server"] = { name: info?.name ?? "", version: info?.version ?? "" };
  if (typeof info?.title === "string") server.title = info.title;
  return { client, server, protocolVersion: peek.protocolVersion ?? "", secrets, stderrTail: tail, close };
}

/**
 * Every tool the server lists, following `nextCursor`, as a snapshot. The connection is
 * closed (the child stopped) whatever happens. A tool definition that carries one of the
 * configured secret values is refused: the snapshot is committed.
 */
export async function listMcpTools(source: McpSource, options: ListOptions = {}): Promise<McpSnapshot> {
  const connection = await connectMcp(source, options);
  try {
    return await listConnected(connection, options);
  } finally {
    await connection.close();
  }
}

/** Lists every tool of an open connection (pages followed), as a snapshot. */
export async function listConnected(connection: McpConnection, options: ListOptions = {}): Promise<McpSnapshot> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const maxPages = options.maxPages ?? 1000;
  const tools: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  const started = Date.now();
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new SluiceError("MCP_CONNECT_FAILED", `${connection.server.name}: tools/list gave more than ${maxPages} pages; refusing to follow it further`);
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    let result: Record<string, unknown>;
    try {
      result = (await withDeadline(connection.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: left }), left, "listing tools")) as Record<string, unknown>;
    } catch (cause) {
      throw connectError(cause, `${connection.server.name || "the MCP server"} (tools/list)`, connection.stderrTail(), connection.secrets);
    }
    const listed = result["tools"];
    if (!Array.isArray(listed)) throw new SluiceError("MCP_CONNECT_FAILED", `${connection.server.name}: tools/list answered without a tools list`);
    tools.push(...listed);
    const next = result["nextCursor"];
    if (next === undefined || next === null) break;
    if (typeof next !== "string" || cursors.has(next)) throw new SluiceError("MCP_CONNECT_FAILED", `${connection.server.name}: tools/list gave ${typeof next === "string" ? "a cursor it gave before" : "a cursor that is not a string"}; refusing to loop`);
    cursors.add(next);
    cursor = next;
  }
  const snapshot = makeSnapshot(connection.server, connection.protocolVersion, tools);
  const text = JSON.stringify(snapshot);
  for (const secret of connection.secrets) {
    if (secret.length >= 4 && text.includes(secret)) {
      throw new SluiceError("MCP_SNAPSHOT_INVALID", `${connection.server.name}: a tool definition contains the value of a secret given to the server (env or headers); it would be committed in the snapshot and shown to the model, so nothing was written`);
    }
  }
  return snapshot;
}

function transportFor(source: McpSource, env: Readonly<Record<string, string | undefined>>): { transport: Transport; secrets: string[]; describe: string; stderr: string[] } {
  const stderr: string[] = [];
  if ("command" in source) {
    if (typeof source.command !== "string" || source.command === "") throw new SluiceError("CONFIG_INVALID", "mcp.command must be a non-empty string");
    const resolved = resolveSecrets(source.env, "mcp.env", env);
    const transport = new StdioClientTransport({
      command: source.command,
      args: source.args ?? [],
      // Only the SDK's short list of safe variables (PATH, HOME, ...) and what the config names: never the whole environment.
      env: { ...getDefaultEnvironment(), ...resolved.values },
      stderr: "pipe",
      ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
    });
    let kept = 0;
    transport.stderr?.on("data", (chunk: Buffer) => {
      // Bounded: a chatty server cannot grow this without end.
      if (kept > 64 * 1024) stderr.splice(0, Math.ceil(stderr.length / 2));
      stderr.push(chunk.toString("utf8"));
      kept += chunk.byteLength;
    });
    return { transport, secrets: resolved.secrets, describe: `the MCP server \`${[source.command, ...(source.args ?? [])].join(" ")}\``, stderr };
  }
  if (typeof source.url !== "string") throw new SluiceError("CONFIG_INVALID", "mcp needs either command (stdio) or url (Streamable HTTP)");
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    throw new SluiceError("CONFIG_INVALID", `mcp.url is not a URL: ${JSON.stringify(source.url)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SluiceError("CONFIG_INVALID", `mcp.url must be http(s), got ${url.protocol}`);
  const resolved = resolveSecrets(source.headers, "mcp.headers", env);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: resolved.values } });
  return { transport, secrets: resolved.secrets, describe: `the MCP server at ${url.origin}${url.pathname}`, stderr };
}

/** Passes everything through, and keeps the protocol version the client agreed on (the client tells HTTP transports only). */
class ProtocolPeek implements Transport {
  protocolVersion: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(private readonly inner: Transport) {}
  start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message) => this.onmessage?.(message);
    return this.inner.start();
  }
  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
}

/** Ends the wait at the deadline even if the SDK's own timeout does not fire (a child that never starts). */
async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SluiceError("MCP_TIMEOUT", `no answer within ${ms} ms while ${what}`)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function connectError(cause: unknown, describe: string, stderr: string, secrets: readonly string[]): SluiceError {
  const said = stderr === "" ? "" : `; it wrote on stderr:\n${stderr}`;
  if (cause instanceof SluiceError) {
    if (cause.code === "MCP_TIMEOUT") return new SluiceError("MCP_TIMEOUT", `${describe}: ${cause.message}${said}`);
    return cause;
  }
  const message = redact((cause as Error)?.message ?? String(cause), secrets);
  const timedOut = /timed out|timeout/i.test(message);
  return new SluiceError(timedOut ? "MCP_TIMEOUT" : "MCP_CONNECT_FAILED", `${describe} could not be ${timedOut ? "reached in time" : "started or reached"} (${message})${said}`);
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[redacted]");
  return out;
}

/**
 * The SDK client as the upstream `call()` forwards MCP-bound tools to (`ctx.mcp`): the
 * call's signal cancels the request (the SDK sends `notifications/cancelled`), progress
 * notifications are passed on, and the SDK's own request timeout is left to the caller's
 * deadline (sluice's `timeoutMs`).
 */
export function upstreamOf(client: Client): McpUpstream {
  return {
    async callTool(request, options) {
      const result = await client.request(
        { method: "tools/call", params: { name: request.name, arguments: request.arguments } },
        ResultSchema,
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.onProgress === undefined ? {} : { onprogress: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) =>
                options.onProgress!({ progress: progress.progress, ...(progress.total === undefined ? {} : { total: progress.total }), ...(progress.message === undefined ? {} : { message: progress.message }) }), resetTimeoutOnProgress: true }),
          // Long enough that sluice's own deadline (ctx.timeoutMs) is the one that ends a call.
          timeout: 24 * 60 * 60 * 1000,
        },
      );
      return result as unknown as McpToolResult;
    },
  };
}
