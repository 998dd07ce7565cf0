/**
 * The upstream of a proxied MCP pack: the server sluice starts (stdio) or connects to
 * (Streamable HTTP) and forwards screened `tools/call` requests to. It implements core's
 * `McpUpstream`, so `invoke()` of an MCP-bound tool reaches it through `ctx.mcp`.
 *
 * A dead or hung upstream is a coded error for the call in flight (`MCP_UPSTREAM_EXITED`,
 * `MCP_UPSTREAM_TIMEOUT`), never a hang; the next call starts it again after a backoff
 * that doubles with each failure in a row. A stdio child is always stopped: on `close()`,
 * and, as a last resort, when this process exits.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, ProgressNotificationSchema, ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError, type McpProgress, type McpToolResult, type McpUpstream } from "@sluice/core";
import { resolveSecrets, type SecretValue } from "@sluice/generator-mcp";

export type { SecretValue } from "@sluice/generator-mcp";

/** How to reach the upstream: a command sluice starts (stdio), or a Streamable HTTP URL. */
export type UpstreamSource =
  | { command: string; args?: string[]; env?: Record<string, SecretValue>; cwd?: string }
  | { url: string; headers?: Record<string, SecretValue> };

export interface UpstreamOptions {
  /** Where `fromEnv` names are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds to start and initialize the server (default 30 000). */
  connectTimeoutMs?: number;
  /** Milliseconds one `tools/call` may take before it is MCP_UPSTREAM_TIMEOUT (default 60 000). */
  callTimeoutMs?: number;
  /** The first wait before a restart, doubled per failure in a row up to `maxBackoffMs` (defaults 250 and 10 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** What happened to the upstream, for stderr (secrets redacted). */
  log?: (line: string) => void;
  /** The upstream sent `notifications/tools/list_changed` (or was restarted): its tools must be listed again. */
  onToolsChanged?: () => void;
  /** The upstream's own stderr lines (stdio), secrets redacted; kept for messages either way. */
  onStderr?: (line: string) => void;
  /**
   * After a restart, before any call goes to the new process: its listing (a new process
   * may list other tools than the old one did; the snapshot lock looks at it first).
   */
  onRestarted?: (listing: UpstreamListing) => void | Promise<void>;
  /**
   * Asked right before a `tools/call` is sent, with the upstream tool's name: an error
   * refuses the call (nothing is sent). The snapshot lock's last word on a call.
   */
  gate?: (upstreamName: string) => SluiceError | undefined | Promise<SluiceError | undefined>;
}

/** What the upstream lists, every page followed. */
export interface UpstreamListing {
  server: { name: string; version: string; title?: string };
  protocolVersion: string;
  tools: McpTool[];
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_UPSTREAM_CALL_TIMEOUT_MS = 60_000;
const MAX_LIST_PAGES = 1000;

interface Live {
  client: Client;
  /** Set when the connection closed: the error the calls in flight and the next one see. */
  closed?: SluiceError;
  pid?: number;
  /** What initialize agreed on. */
  protocolVersion: string;
}

/** A short name of the upstream for messages: the command and its arguments, or the URL without its query. */
export function describeUpstream(source: UpstreamSource): string {
  if ("command" in source) return [source.command, ...(source.args ?? [])].join(" ");
  try {
    const url = new URL(source.url);
    return `${url.origin}${url.pathname}`;
  } catch {
    return source.url;
  }
}

export class UpstreamManager implements McpUpstream {
  readonly source: UpstreamSource;
  readonly description: string;
  readonly #options: UpstreamOptions;
  readonly #stderrTail: string[] = [];
  #secrets: string[] = [];
  #live: Live | undefined;
  #connecting: Promise<Live> | undefined;
  #failures = 0;
  #retryAt = 0;
  #closed = false;
  #restarts = 0;
  /** Progress callbacks by the token sent upstream. */
  readonly #progress = new Map<string, (progress: McpProgress) => void>();
  #nextToken = 0;
  readonly #exitHook = () => this.#killNow();

  constructor(source: UpstreamSource, options: UpstreamOptions = {}) {
    this.source = source;
    this.description = describeUpstream(source);
    this.#options = options;
  }

  /** How many times the upstream was started again after it failed. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The stdio child's process id while it runs. */
  get pid(): number | undefined {
    return this.#live?.closed === undefined ? this.#live?.pid : undefined;
  }

  /** The upstream's `initialize` answer and every page of `tools/list`. */
  async listTools(): Promise<UpstreamListing> {
    return this.#listOn(await this.#connection());
  }

  async #listOn(live: Live): Promise<UpstreamListing> {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MAX_LIST_PAGES) throw new SluiceError("MCP_CONNECT_FAILED", `${this.description}: tools/list gave more than ${MAX_LIST_PAGES} pages; refusing to follow it further`);
      let result;
      try {
        result = await live.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });
      } catch (cause) {
        throw this.#failure(live, cause, "tools/list");
      }
      tools.push(...result.tools);
      const next = result.nextCursor;
      if (next === undefined) break;
      if (seen.has(next)) throw new SluiceError("MCP_CONNECT_FAILED", `${this.description}: tools/list gave a cursor it gave before; refusing to loop`);
      seen.add(next);
      cursor = next;
    }
    const info = live.client.getServerVersion();
    const server: UpstreamListing["server"] = { name: info?.name ?? "", version: info?.version ?? "" };
    if (typeof info?.title === "string") server.title = info.title;
    return { server, protocolVersion: live.protocolVersion, tools };
  }

  async callTool(request: { name: string; arguments: Record<string, unknown> }, options: { signal?: AbortSignal; onProgress?: (progress: McpProgress) => void } = {}): Promise<McpToolResult> {
    const live = await this.#connection(options.signal);
    const refused = await this.#options.gate?.(request.name);
    if (refused !== undefined) throw refused;
    const timeoutMs = this.#options.callTimeoutMs ?? DEFAULT_UPSTREAM_CALL_TIMEOUT_MS;
    const onProgress = options.onProgress;
    // The token is ours, not the SDK's: its client drops a progress notification that comes
    // in the same read as the answer (it forgets the token when the answer is handled, and
    // handles notifications a tick later), which loses the last step of most operations.
    const token = onProgress === undefined ? undefined : `sluice-${++this.#nextToken}`;
    if (token !== undefined) this.#progress.set(token, onProgress!);
    try {
      // The SDK sends notifications/cancelled upstream when the signal aborts.
      const params = token === undefined ? request : { ...request, _meta: { progressToken: token } };
      const result = await live.client.callTool(params, CallToolResultSchema, {
        timeout: timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      this.#failures = 0;
      return result as McpToolResult;
    } catch (cause) {
      if (options.signal?.aborted === true) throw cause;
      const failure = this.#failure(live, cause, `tools/call ${request.name}`);
      if (failure.code === "MCP_UPSTREAM_TIMEOUT") void this.#probe(live);
      throw failure;
    } finally {
      if (token !== undefined) this.#progress.delete(token);
    }
  }

  /** Stops the upstream (a stdio child: stdin closed, then SIGTERM, then SIGKILL). Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    process.off("exit", this.#exitHook);
    const live = this.#live ?? (await this.#connecting?.catch(() => undefined));
    this.#live = undefined;
    if (live !== undefined) await live.client.close().catch(() => undefined);
  }

  /** The last lines the upstream wrote on stderr, secrets redacted, for messages. */
  stderrTail(): string {
    return this.#stderrTail.join("\n");
  }

  async #connection(signal?: AbortSignal): Promise<Live> {
    if (this.#closed) throw new SluiceError("MCP_UPSTREAM_EXITED", `${this.description}: the proxy is shutting down`);
    const live = this.#live;
    if (live !== undefined && live.closed === undefined) return live;
    if (this.#connecting === undefined) {
      const restarting = live !== undefined || this.#failures > 0;
      this.#connecting = this.#start(restarting, signal).finally(() => {
        this.#connecting = undefined;
      });
    }
    return this.#connecting;
  }

  async #start(restarting: boolean, signal?: AbortSignal): Promise<Live> {
    const wait = this.#retryAt - Date.now();
    if (wait > 0) {
      this.#options.log?.(`upstream ${this.description}: starting again in ${wait} ms (failure ${this.#failures} in a row)`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new SluiceError("ABORTED", "the call was cancelled while the upstream was restarting"));
        }, { once: true });
      });
    }
    if (restarting) this.#restarts += 1;
    const env = this.#options.env ?? process.env;
    const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    if ("command" in this.source) {
      const resolved = resolveSecrets(this.source.env, "mcp.env", env);
      this.#secrets = resolved.secrets;
      transport = new StdioClientTransport({
        command: this.source.command,
        args: this.source.args ?? [],
        env: { ...getDefaultEnvironment(), ...resolved.values },
        ...(this.source.cwd === undefined ? {} : { cwd: this.source.cwd }),
        stderr: "pipe",
      });
      let partial = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) this.#stderrLine(line);
      });
    } else {
      const resolved = resolveSecrets(this.source.headers, "mcp.headers", env);
      this.#secrets = resolved.secrets;
      transport = new StreamableHTTPClientTransport(new URL(this.source.url), { requestInit: { headers: resolved.values } });
    }
    const client = new Client({ name: "sluice", version: "0.1.0" }, { capabilities: {} });
    const live: Live = { client, protocolVersion: "" };
    // The SDK hands the agreed version to the transport only; keep a copy for the snapshot comparison.
    const versioned = transport as Transport;
    const setVersion = versioned.setProtocolVersion?.bind(transport);
    versioned.setProtocolVersion = (version: string) => {
      live.protocolVersion = version;
      setVersion?.(version);
    };
    client.onclose = () => {
      if (live.closed !== undefined) return;
      live.closed = new SluiceError("MCP_UPSTREAM_EXITED", this.#exitMessage());
      this.#noteFailure();
      if (!this.#closed) this.#options.log?.(`${live.closed.message}`);
    };
    client.onerror = () => undefined;
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.connect(transport, { timeout: timeoutMs }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: did not finish initialize within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
    } catch (cause) {
      live.closed ??= new SluiceError("MCP_UPSTREAM_EXITED", "");
      this.#noteFailure();
      await client.close().catch(() => undefined);
      const base = cause instanceof SluiceError ? cause.message : `${this.description}: could not start or reach the MCP server (${this.#redact((cause as Error)?.message ?? String(cause))})`;
      const tail = this.stderrTail();
      const error = new SluiceError(cause instanceof SluiceError ? cause.code : "MCP_UPSTREAM_EXITED", `${base}${tail === "" ? "" : `; its stderr ended with: ${tail.slice(-400)}`}; ${this.#fixHint()}`, { cause });
      this.#options.log?.(error.message);
      throw error;
    }
    if (transport instanceof StdioClientTransport && transport.pid !== null) {
      live.pid = transport.pid;
      // One hook per manager, whatever the number of restarts; it kills the child of the moment.
      process.off("exit", this.#exitHook);
      process.on("exit", this.#exitHook);
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#options.onToolsChanged?.());
    client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      const listener = this.#progress.get(String(progressToken));
      if (listener === undefined) return;
      const out: McpProgress = { progress };
      if (total !== undefined) out.total = total;
      if (message !== undefined) out.message = message;
      listener(out);
    });
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new SluiceError("MCP_UPSTREAM_EXITED", `${this.description}: the proxy is shutting down`);
    }
    if (restarting) {
      this.#options.log?.(`upstream ${this.description}: started again (restart ${this.#restarts})`);
      const onRestarted = this.#options.onRestarted;
      if (onRestarted !== undefined) {
        try {
          await onRestarted(await this.#listOn(live));
        } catch (error) {
          await client.close().catch(() => undefined);
          throw error;
        }
      }
    }
    this.#live = live;
    return live;
  }

  #noteFailure(): void {
    this.#failures += 1;
    const first = this.#options.backoffMs ?? 250;
    const max = this.#options.maxBackoffMs ?? 10_000;
    this.#retryAt = Date.now() + Math.min(max, first * 2 ** (this.#failures - 1));
  }

  /** After a timed-out call: an upstream that cannot answer a ping either is hung, and is stopped so the next call starts it again. */
  async #probe(live: Live): Promise<void> {
    try {
      await live.client.ping({ timeout: 2_000 });
    } catch {
      if (live.closed !== undefined || this.#live !== live) return;
      this.#options.log?.(`upstream ${this.description}: did not answer a ping after a timed-out call; stopping it (the next call starts it again)`);
      live.closed = new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: hung (no answer to a call nor to a ping); it was stopped and starts again on the next call`);
      this.#noteFailure();
      await live.client.close().catch(() => undefined);
    }
  }

  #failure(live: Live, cause: unknown, what: string): SluiceError {
    if (cause instanceof SluiceError) return cause;
    if (cause instanceof McpError && cause.code === ErrorCode.RequestTimeout) {
      return new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: no answer to ${what} within ${this.#options.callTimeoutMs ?? DEFAULT_UPSTREAM_CALL_TIMEOUT_MS} ms; raise --upstream-timeout-ms if the tool is slow`, { cause });
    }
    if (live.closed !== undefined || (cause instanceof McpError && cause.code === ErrorCode.ConnectionClosed)) {
      const closed = live.closed ?? new SluiceError("MCP_UPSTREAM_EXITED", this.#exitMessage());
      return new SluiceError(closed.code, `${closed.message} (during ${what})`, { cause });
    }
    return new SluiceError("MCP_UPSTREAM_ERROR", `${this.description}: ${what} failed (${this.#redact((cause as Error)?.message ?? String(cause))})`, { cause });
  }

  #exitMessage(): string {
    const tail = this.stderrTail();
    const what = "command" in this.source ? "the MCP server process exited" : "the connection to the MCP server closed";
    return `${this.description}: ${what}${tail === "" ? "" : `; its stderr ended with: ${tail.slice(-400)}`}; the next call starts it again; ${this.#fixHint()}`;
  }

  #fixHint(): string {
    return "command" in this.source
      ? "if it keeps failing, run the command yourself to see why (missing package, credential or folder)"
      : "check that the server is up at that URL and that its headers (credentials) are right";
  }

  #stderrLine(line: string): void {
    const clean = this.#redact(line.trimEnd());
    if (clean === "") return;
    this.#stderrTail.push(clean);
    if (this.#stderrTail.length > 6) this.#stderrTail.shift();
    this.#options.onStderr?.(clean);
  }

  #redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
    return out;
  }

  /** Synchronous, for process exit: the child must not outlive the proxy. */
  #killNow(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
