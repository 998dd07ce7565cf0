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
import { ErrorCode, McpError, ProgressNotificationSchema, ResultSchema, ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError, type McpProgress, type McpToolResult, type McpUpstream } from "@sluice/core";
import { upstreamSecrets } from "./upstream-secrets.ts";
import { connectWithin, describeMcpSource, listToolPages, openMcpTransport, OVERSIZED_ERROR_CODE, type McpSource, type McpTransport } from "@sluice/mcp-client";

export type { SecretValue } from "@sluice/mcp-client";

/** How to reach the upstream: a command sluice starts (stdio), or a Streamable HTTP URL (generator-mcp's McpSource). */
export type UpstreamSource = McpSource;

export interface UpstreamOptions {
  /** Where `fromEnv` names are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Milliseconds to start and initialize the server (default 30 000). */
  connectTimeoutMs?: number;
  /** Milliseconds to list every page of `tools/list` (default: `connectTimeoutMs`). */
  listTimeoutMs?: number;
  /** Pages of `tools/list` followed at most; a server that pages on is refused (default 1 000). */
  maxListPages?: number;
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
  onRestarted?: (listing: UpstreamListing, mark: number | undefined) => void | Promise<void>;
  /** Taken just before a restart's listing is asked for, and given to `onRestarted` with it (the lock's generation). */
  listingMark?: () => number;
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
  /** The transport (generator-mcp's, shared with sluice generate): pid, stderr, agreed protocol version. */
  open: McpTransport;
  /** Set when the connection closed: the error the calls in flight and the next one see. */
  closed?: SluiceError;
}

/** A short name of the upstream for messages: the command and its arguments, or the URL without its query. */
export const describeUpstream: (source: UpstreamSource) => string = describeMcpSource;

export class UpstreamManager implements McpUpstream {
  readonly source: UpstreamSource;
  readonly description: string;
  readonly #options: UpstreamOptions;
  /** The transport of the latest start, live or not: its stderr and secrets are what messages use. */
  #open: McpTransport | undefined;
  /** `secrets()` of the transport it was worked out for (a restart reads the environment again). */
  #secrets: { of: McpTransport | undefined; values: readonly string[] } | undefined;
  #live: Live | undefined;
  #connecting: Promise<Live> | undefined;
  #failures = 0;
  #retryAt = 0;
  #closed = false;
  #restarts = 0;
  /** Progress callbacks by the token sent upstream. */
  readonly #progress = new Map<string, (progress: McpProgress) => void>();
  #nextToken = 0;

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
    return this.#live?.closed === undefined ? this.#live?.open.pid() : undefined;
  }

  /** The upstream's `initialize` answer and every page of `tools/list`. */
  async listTools(): Promise<UpstreamListing> {
    return this.#listOn(await this.#connection());
  }

  async #listOn(live: Live): Promise<UpstreamListing> {
    const timeoutMs = this.#options.listTimeoutMs ?? this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const tools = (await listToolPages(live.client, this.description, { timeoutMs, maxPages: this.#options.maxListPages ?? MAX_LIST_PAGES }, (cause) => this.#failure(live, cause, "tools/list", timeoutMs))) as McpTool[];
    const info = live.client.getServerVersion();
    const server: UpstreamListing["server"] = { name: info?.name ?? "", version: info?.version ?? "" };
    if (typeof info?.title === "string") server.title = info.title;
    return { server, protocolVersion: live.open.protocolVersion() ?? "", tools };
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
      // The SDK sends notifications/cancelled upstream when the signal aborts. A plain request,
      // not the SDK's callTool: that parses the result with its zod schema and checks
      // structuredContent against the tool's output schema, and core's callMcpUpstream
      // checks the result's shape once more; the screening of what goes out is core's, before this.
      const params = token === undefined ? request : { ...request, _meta: { progressToken: token } };
      const result = await live.client.request({ method: "tools/call", params }, ResultSchema, {
        timeout: timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      this.#failures = 0;
      return result as unknown as McpToolResult;
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
    const live = this.#live ?? (await this.#connecting?.catch(() => undefined));
    this.#live = undefined;
    if (live !== undefined) await live.client.close().catch(() => undefined);
  }

  /**
   * What the upstream was given that a model must never read (see upstream-secrets.ts):
   * core's call runtime redacts these from every result, error and progress message.
   */
  secrets(): readonly string[] {
    const open = this.#open;
    if (this.#secrets === undefined || this.#secrets.of !== open) this.#secrets = { of: open, values: upstreamSecrets(this.source, open?.secrets ?? []) };
    return this.#secrets.values;
  }

  /** The last lines the upstream wrote on stderr, secrets redacted, for messages. */
  stderrTail(): string {
    return this.#open?.stderrTail() ?? "";
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
    const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const open = openMcpTransport(this.source, {
      ...(this.#options.env === undefined ? {} : { env: this.#options.env }),
      ...(this.#options.onStderr === undefined ? {} : { onStderrLine: this.#options.onStderr }),
    });
    this.#open = open;
    const client = new Client({ name: "sluice", version: "0.1.0" }, { capabilities: {} });
    const live: Live = { client, open };
    client.onclose = () => {
      if (live.closed !== undefined) return;
      live.closed = new SluiceError("MCP_UPSTREAM_EXITED", this.#exitMessage());
      this.#noteFailure();
      if (!this.#closed) this.#options.log?.(`${live.closed.message}`);
    };
    client.onerror = () => undefined;
    try {
      await connectWithin(client, open, timeoutMs, () => new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: did not finish initialize within ${timeoutMs} ms`));
    } catch (cause) {
      live.closed ??= new SluiceError("MCP_UPSTREAM_EXITED", "");
      this.#noteFailure();
      const base = cause instanceof SluiceError ? cause.message : `${this.description}: could not start or reach the MCP server (${open.redact((cause as Error)?.message ?? String(cause))})`;
      const tail = this.stderrTail();
      const error = new SluiceError(cause instanceof SluiceError ? cause.code : "MCP_UPSTREAM_EXITED", `${base}${tail === "" ? "" : `; its stderr ended with: ${tail.slice(-400)}`}; ${this.#fixHint()}`, { cause });
      this.#options.log?.(error.message);
      throw error;
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
          const mark = this.#options.listingMark?.();
          await onRestarted(await this.#listOn(live), mark);
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

  /** `listWithinMs`: the failed request was a listing, bounded by that deadline rather than the call timeout. */
  #failure(live: Live, cause: unknown, what: string, listWithinMs?: number): SluiceError {
    // The shared listing's own deadline (generator-mcp) says MCP_TIMEOUT; to the proxy's callers it is the upstream's.
    if (cause instanceof SluiceError && cause.code === "MCP_TIMEOUT") return new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: ${cause.message} (${what})`, { cause });
    if (cause instanceof SluiceError) return cause;
    if (cause instanceof McpError && cause.code === OVERSIZED_ERROR_CODE) {
      // The transport dropped an answer too large to read (generator-mcp's read buffer); the connection is still up.
      return new SluiceError("MCP_RESULT_TOO_LARGE", `${this.description}: ${what} failed: ${cause.message.replace(/^MCP error -?\d+: /, "")}; ask for less (a narrower query, a page, a range)`, { cause });
    }
    if (cause instanceof McpError && cause.code === ErrorCode.RequestTimeout) {
      const hint = listWithinMs === undefined ? `${this.#options.callTimeoutMs ?? DEFAULT_UPSTREAM_CALL_TIMEOUT_MS} ms; raise --upstream-timeout-ms if the tool is slow` : `${listWithinMs} ms`;
      return new SluiceError("MCP_UPSTREAM_TIMEOUT", `${this.description}: no answer to ${what} within ${hint}`, { cause });
    }
    // The SDK sets `live.closed` (onclose) before it fails the requests in flight. An McpError
    // code alone says nothing: ConnectionClosed is -32000, which servers use for their own errors.
    if (live.closed !== undefined) {
      const closed = live.closed ?? new SluiceError("MCP_UPSTREAM_EXITED", this.#exitMessage());
      return new SluiceError(closed.code, `${closed.message} (during ${what})`, { cause });
    }
    return new SluiceError("MCP_UPSTREAM_ERROR", `${this.description}: ${what} failed (${live.open.redact((cause as Error)?.message ?? String(cause))})`, { cause });
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
}
