/**
 * Driving a real `sluice serve` child process from tests: a stdio client transport that
 * can also write raw bytes (malformed JSON-RPC) and keeps every line the server wrote (over
 * a child's pipes, or streams the CLI's main serves in this process), an HTTP child whose bound URL is read from stderr (or the same server run by the CLI's main
 * in this process), and an upstream that never answers.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createInterface } from "node:readline";
import { PassThrough, Readable, type Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ServeIo } from "../../cli/src/serve.ts";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const BIN = fileURLToPath(new URL("../../cli/bin/sluice.mjs", import.meta.url));

/** A clean environment for the child: no credentials of the developer's leak into a test. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "NODE_OPTIONS"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // Serve records tool usage beside the project (this repository); tests that do not check it record nothing.
  return { ...env, SLUICE_USAGE: "off", ...extra };
}

/** Polls until `check` returns something other than undefined/false. */
export async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The client side of a stdio server's two streams, so a test can also write bytes no SDK
 * client would send. Every line the server writes is kept in `lines`; lines that are valid
 * JSON-RPC go to the client as well. A child's pipes (ChildStdioTransport) or streams the
 * CLI's main serves in this process (WorkerStdioTransport).
 */
abstract class StdioLinesTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly lines: string[] = [];
  stderr = "";
  /** The exit code: the child's, or what main returned. */
  abstract readonly exited: Promise<number | null>;

  constructor(
    private readonly toServer: Writable,
    private readonly fromServer: Readable,
  ) {
    this.toServer.on("error", () => undefined);
  }

  async start(): Promise<void> {
    const reader = createInterface({ input: this.fromServer, crlfDelay: Infinity });
    reader.on("line", (line) => {
      this.lines.push(line);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return;
      }
      const parsed = JSONRPCMessageSchema.safeParse(value);
      if (parsed.success) this.onmessage?.(parsed.data);
    });
    void this.exited.then(() => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.writeRaw(JSON.stringify(message) + "\n");
  }

  writeRaw(text: string): void {
    this.toServer.write(text);
  }

  /** Parsed server lines that answer `id` (null for answers to unreadable input). */
  answersTo(id: string | number | null): Array<{ id: unknown; error?: { code: number; message: string }; result?: unknown }> {
    return this.lines
      .map((line) => {
        try {
          return JSON.parse(line) as { id?: unknown; error?: { code: number; message: string }; result?: unknown };
        } catch {
          return undefined;
        }
      })
      .filter((value): value is { id: unknown } => value !== undefined && value.id === id);
  }

  /** Ends stdin (what a client does when it goes away) and waits for the server to exit. */
  async close(): Promise<void> {
    this.toServer.end();
    const timer = setTimeout(() => this.kill(), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** What close does to a server that does not stop when its stdin ends. */
  protected abstract kill(): void;
}

/** `sluice serve <args>` over stdio in a child we spawn ourselves. */
export class ChildStdioTransport extends StdioLinesTransport {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[], env: Record<string, string>) {
    const child = spawn(process.execPath, [BIN, "serve", ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    super(child.stdin, child.stdout);
    this.child = child;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  protected kill(): void {
    this.child.kill("SIGKILL");
  }
}

/**
 * `sluice serve <args>` over stdio run by the CLI's main in this process, on two in-memory
 * streams given as its stdio (ServeIo.stdio): the code the bin runs once loaded, without a
 * child that loads tsx, the CLI and the pack again. Signals and the closing exit go to a
 * stand-in (Io.process), as in startHttpInProcess. What calls read (credentials) and what
 * serve reads at start (SLUICE_BASE_URL) are the caller's to set in process.env first.
 */
export class WorkerStdioTransport extends StdioLinesTransport {
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[], cwd: string = ROOT) {
    const input = new PassThrough();
    const output = new PassThrough();
    super(input, output);
    const io: ServeIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (this.stderr += text) },
      cwd,
      process: this.host,
      stdio: { input, output },
    };
    this.exited = import("../../cli/src/main.ts").then(({ main }) => main(["serve", ...args], io));
    // A server that ended (an error at start) ends its output, so the client's reads end too.
    void this.exited.finally(() => output.end());
  }

  private readonly host = Object.assign(new EventEmitter(), { exit: (_code?: number | string) => {}, exitCode: undefined as number | undefined });

  protected kill(): void {
    // No process to kill: the signal a child would get, which serve takes from its stand-in.
    this.host.emit("SIGTERM", "SIGTERM");
  }
}

/** Sets `env` in process.env (undefined removes a name); the function it gives puts back what was there. */
function setEnv(env: Record<string, string | undefined>): () => void {
  const saved = Object.entries(env).map(([key, value]) => {
    const before = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
    return [key, before] as const;
  });
  return () => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/**
 * `sluice serve <args>` over stdio by the CLI's main in this process, given `input` as its
 * whole stdin (then closed, as a child's `stdin.end(input)`), until it ends: its exit code and
 * what it wrote on stdout and stderr. `env` is set while it runs and put back after.
 */
export async function serveStdioInProcess(args: readonly string[], input: string, env: Record<string, string | undefined> = {}, cwd: string = ROOT): Promise<{ status: number; stdout: string; stderr: string }> {
  const { main } = await import("../../cli/src/main.ts");
  const output = new PassThrough();
  let stdout = "";
  output.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  let stderr = "";
  const restoreEnv = setEnv(env);
  try {
    const io: ServeIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      cwd,
      process: Object.assign(new EventEmitter(), { exit: (_code?: number | string) => {}, exitCode: undefined as number | undefined }),
      stdio: { input: Readable.from([input]), output },
    };
    const status = await main(["serve", ...args], io);
    return { status, stdout, stderr };
  } finally {
    restoreEnv();
  }
}

/** A `sluice serve --http` running, in a child or in this process. */
export interface HttpServed {
  url: string;
  /** The bearer token the server generated and printed, when it was given none. */
  generatedToken: string | undefined;
  stderr: () => string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

export interface HttpChild extends HttpServed {
  child: ChildProcessWithoutNullStreams;
}

/** `args` with `--http 0` before a `--` (what follows it is a proxied upstream's command line). */
function withHttp(args: readonly string[]): string[] {
  const dashes = args.indexOf("--");
  return dashes < 0 ? [...args, "--http", "0"] : [...args.slice(0, dashes), "--http", "0", ...args.slice(dashes)];
}

/**
 * `sluice serve ... --http 0` run by the CLI's `main` in this process: the code the bin runs
 * once loaded, without a child that loads tsx, the CLI and the pack again (seconds of CPU for
 * Linear). Serve takes its signals from and exits through a stand-in (Io.process), so stop()
 * sends it SIGTERM as the child's stop does, and its closing exit does not end the worker.
 * `startEnv` is set while it starts (what serve reads at start: SLUICE_MCP_TOKEN, ...) and put
 * back once it listens; what calls read (credentials) is the caller's to set in process.env.
 * `cwd` is the directory serve resolves the pack and its usage store from (a child's cwd).
 */
export async function startHttpInProcess(args: readonly string[], startEnv: Record<string, string | undefined> = {}, cwd: string = ROOT): Promise<HttpServed> {
  const { main } = await import("../../cli/src/main.ts");
  const host = Object.assign(new EventEmitter(), { exit: (_code?: number | string) => {}, exitCode: undefined as number | undefined });
  let stderr = "";
  const restoreEnv = setEnv(startEnv);
  const running = main(["serve", ...withHttp(args)], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    cwd,
    process: host,
  });
  let url: string;
  try {
    url = await Promise.race([
      waitFor(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], "the HTTP server's URL", 60_000),
      running.then((code) => {
        throw new Error(`sluice serve ended (${code}) before listening:\n${stderr}`);
      }),
    ]);
  } finally {
    restoreEnv();
  }
  let stopped: Promise<number> | undefined;
  return {
    url,
    generatedToken: /auth token \(generated[^)]*\): (\S+)/.exec(stderr)?.[1],
    stderr: () => stderr,
    stop() {
      if (stopped === undefined) {
        host.emit("SIGTERM", "SIGTERM");
        stopped = running;
      }
      return stopped;
    },
  };
}

/** A client connected to a served HTTP server with the bearer token it generated (or `token`). */
export async function connectHttp(served: HttpServed, token: string | undefined = served.generatedToken): Promise<Client> {
  const client = new Client({ name: "sluice-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** `sluice serve ... --http 0`, resolved once it prints the URL it bound. */
export async function startHttpChild(args: readonly string[], env: Record<string, string>): Promise<HttpChild> {
  const ordered = withHttp(args);
  const child = spawn(process.execPath, [BIN, "serve", ...ordered], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await Promise.race([
    waitFor(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], "the HTTP server's URL", 60_000),
    exited.then((code) => {
      throw new Error(`sluice serve exited (${code}) before listening:\n${stderr}`);
    }),
  ]);
  return {
    child,
    url,
    generatedToken: /auth token \(generated[^)]*\): (\S+)/.exec(stderr)?.[1],
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** An upstream API that reads requests and never answers them: a call to it is in flight until cancelled. */
export async function startHangingServer(): Promise<{ url: string; received: string[]; readonly dropped: number; close(): Promise<void> }> {
  const received: string[] = [];
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      dropped++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Connections the caller closed: a cancelled call hangs up on its upstream. */
    get dropped() {
      return dropped;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A fetch that answers only when `release` is called (never touches the network). */
export function heldFetch(): { fetch: typeof globalThis.fetch; started: () => number; release: () => void } {
  let started = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const fetch = (async () => {
    started++;
    await gate;
    return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, started: () => started, release: () => open() };
}
