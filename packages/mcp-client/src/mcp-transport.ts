/**
 * The one way sluice reaches an MCP server, for `sluice generate` (connect.ts) and for the
 * proxy of `sluice serve` (@sluice/mcp's upstream.ts): a stdio child it starts, with only
 * the SDK's short list of safe variables and what the config names, or a Streamable HTTP
 * URL; `fromEnv` secrets read at connect time and redacted from everything said about the
 * server; its stderr kept as a bounded tail of lines; the protocol version `initialize`
 * agreed on; a deadline on connecting that holds even when the child never answers; and a
 * child that never outlives sluice (stdin closed, then SIGTERM, then SIGKILL on close, and
 * SIGTERM when this process exits first).
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports
 */
import { getDefaultEnvironment, StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError } from "@sluice/schema";
import { deserializeJsonRpc } from "./jsonrpc-message.ts";

/**
 * A value in the config that may come from the environment: a literal string, or
 * `{ fromEnv: "NAME" }`, read when sluice connects and never written anywhere.
 */
export type SecretValue = string | { fromEnv: string };

/** How to reach an MCP server: a command (stdio) or a URL (Streamable HTTP). */
export type McpSource =
  | { command: string; args?: string[]; env?: Record<string, SecretValue>; cwd?: string }
  | { url: string; headers?: Record<string, SecretValue> };

/** Lines of the child's stderr kept for messages. */
const STDERR_LINES = 6;
/** Longest stderr line kept (a server that writes megabytes without a newline cannot grow the tail). */
const STDERR_LINE_CHARS = 2_000;

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

/** A short name of the server for messages: the command and its arguments, or the URL without its query. */
export function describeMcpSource(source: McpSource): string {
  if ("command" in source) return [source.command, ...(source.args ?? [])].join(" ");
  try {
    const url = new URL(source.url);
    return `${url.origin}${url.pathname}`;
  } catch {
    return source.url;
  }
}

export interface OpenOptions {
  /** Where `fromEnv` names are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Each line the stdio child writes on stderr, secrets redacted. */
  onStderrLine?: (line: string) => void;
}

/** A transport to one server, not yet started: hand `transport` to `Client.connect` (or to {@link connectWithin}). */
export interface McpTransport {
  readonly transport: Transport;
  readonly stdio: boolean;
  /** The secret values given to the server (env or headers), to keep out of anything written. */
  readonly secrets: readonly string[];
  /** The protocol version `initialize` agreed on, once connected. */
  protocolVersion(): string | undefined;
  /** The stdio child's process id while it runs. */
  pid(): number | undefined;
  /** The last lines the child wrote on stderr, secrets redacted (empty over HTTP). */
  stderrTail(): string;
  /** `text` with every secret value given to the server replaced by [redacted]. */
  redact(text: string): string;
}

/**
 * The transport for `source`: nothing starts until the client connects. A malformed source
 * or a missing `fromEnv` variable is CONFIG_INVALID, thrown before any process starts.
 */
export function openMcpTransport(source: McpSource, options: OpenOptions = {}): McpTransport {
  const env = options.env ?? process.env;
  const tail: string[] = [];
  let partial = "";
  let secrets: string[] = [];
  const redact = (text: string) => {
    let out = text;
    for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[redacted]");
    return out;
  };
  const keep = (raw: string) => {
    const line = redact(raw.trimEnd().slice(0, STDERR_LINE_CHARS));
    if (line === "") return;
    tail.push(line);
    if (tail.length > STDERR_LINES) tail.shift();
    options.onStderrLine?.(line);
  };
  const stderrTail = () => [...tail, ...(partial.trim() === "" ? [] : [redact(partial.trimEnd().slice(0, STDERR_LINE_CHARS))])].join("\n");

  let inner: Transport;
  let child: ChildTransport | undefined;
  if ("command" in source) {
    if (typeof source.command !== "string" || source.command === "") throw new SluiceError("CONFIG_INVALID", "mcp.command must be a non-empty string");
    const resolved = resolveSecrets(source.env, "mcp.env", env);
    secrets = resolved.secrets;
    child = new ChildTransport({
      command: source.command,
      args: source.args ?? [],
      // Only the SDK's short list of safe variables (PATH, HOME, ...) and what the config names: never the whole environment.
      env: { ...getDefaultEnvironment(), ...resolved.values },
      stderr: "pipe",
      ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = (lines.pop() ?? "").slice(-STDERR_LINE_CHARS);
      for (const line of lines) keep(line);
    });
    inner = child;
  } else {
    if (typeof source.url !== "string") throw new SluiceError("CONFIG_INVALID", "mcp needs either command (stdio) or url (Streamable HTTP)");
    let url: URL;
    try {
      url = new URL(source.url);
    } catch {
      throw new SluiceError("CONFIG_INVALID", `mcp.url is not a URL: ${JSON.stringify(source.url)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new SluiceError("CONFIG_INVALID", `mcp.url must be http(s), got ${url.protocol}`);
    const resolved = resolveSecrets(source.headers, "mcp.headers", env);
    secrets = resolved.secrets;
    inner = new StreamableHTTPClientTransport(url, { requestInit: { headers: resolved.values } });
  }
  const peek = new ProtocolPeek(inner);
  return {
    transport: peek,
    stdio: child !== undefined,
    secrets,
    protocolVersion: () => peek.protocolVersion,
    pid: () => child?.livePid,
    stderrTail,
    redact,
  };
}

/**
 * What {@link connectWithin} needs of an SDK client. Structural: @sluice/mcp and this package
 * may resolve two copies of the SDK (one per zod major), whose Client classes do not match.
 */
export interface ConnectingClient {
  connect(transport: Transport, options?: { timeout?: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `client.connect(transport)` within `timeoutMs`, even when the SDK's own request timeout
 * does not fire (a child that never starts reading). On any failure the client is closed
 * (a started child stopped) and the cause thrown: `deadline()` at the deadline.
 */
export async function connectWithin(client: ConnectingClient, open: McpTransport, timeoutMs: number, deadline: () => Error): Promise<void> {
  try {
    await withDeadline(client.connect(open.transport, { timeout: timeoutMs }), timeoutMs, deadline);
  } catch (cause) {
    await client.close().catch(() => undefined);
    throw cause;
  }
}

/** Ends the wait at the deadline even if the work never settles; the losing promise's rejection is absorbed. */
export async function withDeadline<T>(work: Promise<T>, ms: number, deadline: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(deadline()), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SDK's stdio client transport (spawning, stdin closed then SIGTERM then SIGKILL on
 * close), reading the child's stdout with {@link deserializeJsonRpc} instead of the SDK's
 * zod union, and stopping the child if this process exits while it runs.
 */
export class ChildTransport extends StdioClientTransport {
  /** Whether stdout is read with the fast check (the SDK keeps its buffer in a private field; a test pins it). */
  readonly fastRead: boolean;
  #running: number | undefined;
  readonly #onExit = () => {
    if (this.#running === undefined) return;
    try {
      process.kill(this.#running, "SIGTERM");
    } catch {
      // already gone
    }
  };

  constructor(params: StdioServerParameters) {
    super(params);
    const self = this as unknown as { _readBuffer?: unknown };
    this.fastRead = self._readBuffer instanceof ReadBuffer;
    if (this.fastRead) self._readBuffer = new FastReadBuffer(params.maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE);
  }

  /** The child's pid while it runs. */
  get livePid(): number | undefined {
    return this.#running;
  }

  override async start(): Promise<void> {
    await super.start();
    if (this.pid === null) return;
    this.#running = this.pid;
    process.on("exit", this.#onExit);
    const onclose = this.onclose;
    // The SDK sets onclose before start; wrap it to drop the exit hook once the child is gone.
    this.onclose = () => {
      this.#stopped();
      onclose?.();
    };
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.#stopped();
    }
  }

  #stopped(): void {
    this.#running = undefined;
    process.off("exit", this.#onExit);
  }
}

/** Bytes kept of each end of a message too large to read: enough to find its id. */
const OVERSIZED_ENDS = 512;

/** A message left out for its size: its length and its two ends. */
interface Oversized {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

/**
 * The SDK's line buffer, each line read with the fast JSON-RPC check (same messages, same
 * errors), and two differences. A line is gathered from its pieces once, when it ends (the
 * SDK concatenates the whole buffer on every chunk: quadratic in a message's size). A line
 * longer than the maximum is not an error that ends the connection (the SDK clears the
 * buffer and closes the transport, which stops the server): its bytes are counted and
 * dropped as they come, and when it ends the request it answers gets a JSON-RPC error
 * saying how large it was, so that one call fails and the server goes on serving.
 */
class FastReadBuffer extends ReadBuffer {
  /** The line in progress, as the pieces that came (none holds a newline). */
  #parts: Buffer[] = [];
  #open = 0;
  /** The line in progress when it is too large to keep. */
  #skipping: Oversized | undefined;
  /** Complete lines (or the error standing for one left out), oldest first. */
  readonly #ready: Array<Buffer | Oversized> = [];
  readonly #max: number;
  constructor(max: number) {
    super({ maxBufferSize: max });
    this.#max = max;
  }
  override append(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const piece = chunk.subarray(from, newline === -1 ? chunk.length : newline);
      const skipping = this.#skipping;
      if (skipping !== undefined) {
        skipping.bytes += piece.length;
        skipping.tail = lastBytes([skipping.tail, piece]);
      } else if (this.#open + piece.length > this.#max) {
        const line = [...this.#parts, piece];
        this.#skipping = { bytes: this.#open + piece.length, head: Buffer.concat(line).subarray(0, OVERSIZED_ENDS), tail: lastBytes(line) };
        this.#parts = [];
        this.#open = 0;
      } else if (piece.length > 0) {
        this.#parts.push(piece);
        this.#open += piece.length;
      }
      if (newline === -1) return;
      if (this.#skipping !== undefined) this.#ready.push(this.#skipping);
      else this.#ready.push(this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#open));
      this.#skipping = undefined;
      this.#parts = [];
      this.#open = 0;
      from = newline + 1;
    }
  }
  override readMessage(): JSONRPCMessage | null {
    const next = this.#ready.shift();
    if (next === undefined) return null;
    if (!Buffer.isBuffer(next)) return oversizedAnswer(next, this.#max);
    const line = next.toString("utf8").replace(/\r$/, "");
    return deserializeJsonRpc(line);
  }
  override clear(): void {
    this.#parts = [];
    this.#open = 0;
    this.#skipping = undefined;
    this.#ready.length = 0;
  }
}

function lastBytes(pieces: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  let length = 0;
  for (let i = pieces.length - 1; i >= 0 && length < OVERSIZED_ENDS; i--) {
    out.unshift(pieces[i]!);
    length += pieces[i]!.length;
  }
  const joined = Buffer.concat(out);
  return joined.subarray(Math.max(0, joined.length - OVERSIZED_ENDS));
}

/** A JSON-RPC id written as the last member of the message (the MCP SDK's order), or as the first after `jsonrpc`. */
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\r?$/;
const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,/;

/**
 * The error answer standing for a message too large to read, for the request it answered
 * (its id read from either end); a message whose id cannot be found is an error of the
 * transport (its request then times out), never the end of the connection.
 */
function oversizedAnswer(message: Oversized, max: number): JSONRPCMessage {
  const id = ID_AT_END.exec(message.tail.toString("utf8"))?.[1] ?? ID_AT_START.exec(message.head.toString("latin1"))?.[1];
  const what = `the server's answer was ${message.bytes} bytes, more than the ${max} bytes one message may have; it was left out (the connection stays open)`;
  if (id === undefined) throw new Error(`${what}, and no request id was found in it`);
  return { jsonrpc: "2.0", id: JSON.parse(id) as string | number, error: { code: OVERSIZED_ERROR_CODE, message: what } };
}

/** The JSON-RPC error code of {@link oversizedAnswer} (implementation-defined server error range). */
export const OVERSIZED_ERROR_CODE = -32_099;

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
