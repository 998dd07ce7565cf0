/**
 * Connecting to an MCP server with the SDK client, over stdio (a child process sluice starts
 * and always stops) or Streamable HTTP, and listing every tool (all pages of `tools/list`).
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#listing-tools
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError } from "@sluice/schema";
import type { McpToolResult, McpUpstream } from "@sluice/core";
import { connectWithin, describeMcpSource, openMcpTransport, withDeadline, type McpSource } from "./mcp-transport.ts";
import { makeSnapshot, type McpSnapshot } from "./snapshot.ts";

export { resolveSecrets, type McpSource, type SecretValue } from "./mcp-transport.ts";

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

/** Connects within the deadline; on any failure the child (if started) is stopped before the error is thrown. */
export async function connectMcp(source: McpSource, options: ListOptions = {}): Promise<McpConnection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const open = openMcpTransport(source, options.env === undefined ? {} : { env: options.env });
  const describe = "command" in source ? `the MCP server \`${describeMcpSource(source)}\`` : `the MCP server at ${describeMcpSource(source)}`;
  const client = new Client({ name: "sluice", version: "0.1.0" }, { capabilities: {} });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => undefined);
  };
  try {
    await connectWithin(client, open, timeoutMs, () => new SluiceError("MCP_TIMEOUT", `no answer within ${timeoutMs} ms while connecting to ${describe}`));
  } catch (cause) {
    closed = true;
    throw connectError(cause, describe, open.stderrTail(), open.secrets);
  }
  const info = client.getServerVersion();
  const server: McpSnapshot["server"] = { name: info?.name ?? "", version: info?.version ?? "" };
  if (typeof info?.title === "string") server.title = info.title;
  return { client, server, protocolVersion: open.protocolVersion() ?? "", secrets: open.secrets, stderrTail: open.stderrTail, close };
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
  const label = connection.server.name || "the MCP server";
  const tools = await listToolPages(connection.client, label, options, (cause) => connectError(cause, `${label} (tools/list)`, connection.stderrTail(), connection.secrets));
  const snapshot = makeSnapshot(connection.server, connection.protocolVersion, tools);
  const text = JSON.stringify(snapshot);
  for (const secret of connection.secrets) {
    if (secret.length >= 4 && text.includes(secret)) {
      throw new SluiceError("MCP_SNAPSHOT_INVALID", `${connection.server.name}: a tool definition contains the value of a secret given to the server (env or headers); it would be committed in the snapshot and shown to the model, so nothing was written`);
    }
  }
  return snapshot;
}

/**
 * What {@link listToolPages} needs of an SDK client. Structural: @sluice/mcp and this package
 * may resolve two copies of the SDK (one per zod major), whose Client classes do not match;
 * either copy reads the other's result schema (the SDK parses zod 3 and zod 4 schemas alike).
 */
export interface ListingClient {
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: never, options?: { timeout?: number }): Promise<unknown>;
}

/**
 * Every page of `tools/list` on a connected client, as the server sent the tools (checked
 * by `makeSnapshot` afterwards, not here: the SDK's own listTools would parse them with its
 * zod schema and compile a validator for each output schema, which nothing here uses). A
 * server that pages without end or loops on a cursor is MCP_CONNECT_FAILED; a failed request
 * is whatever `failure` makes of it. Shared with the proxy's upstream.
 */
export async function listToolPages(client: ListingClient, label: string, options: Pick<ListOptions, "timeoutMs" | "maxPages">, failure: (cause: unknown) => Error): Promise<unknown[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const maxPages = options.maxPages ?? 1000;
  const tools: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  const started = Date.now();
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new SluiceError("MCP_CONNECT_FAILED", `${label}: tools/list gave more than ${maxPages} pages; refusing to follow it further`);
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    let result: Record<string, unknown>;
    try {
      const request = client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ResultSchema as never, { timeout: left });
      result = (await withDeadline(request, left, () => new SluiceError("MCP_TIMEOUT", `no answer within ${left} ms while listing tools`))) as Record<string, unknown>;
    } catch (cause) {
      throw failure(cause);
    }
    const listed = result["tools"];
    if (!Array.isArray(listed)) throw new SluiceError("MCP_CONNECT_FAILED", `${label}: tools/list answered without a tools list`);
    tools.push(...(listed as unknown[]));
    const next = result["nextCursor"];
    if (next === undefined || next === null) break;
    if (typeof next !== "string" || cursors.has(next)) throw new SluiceError("MCP_CONNECT_FAILED", `${label}: tools/list gave ${typeof next === "string" ? "a cursor it gave before" : "a cursor that is not a string"}; refusing to loop`);
    cursors.add(next);
    cursor = next;
  }
  return tools;
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
