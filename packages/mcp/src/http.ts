import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SluiceError } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./stdio.ts";
import { checkHttpAccess, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PATH, DEFAULT_MAX_SESSIONS, isLoopbackHost, TOKEN_PATTERN } from "./http-defaults.ts";
import { CallSlots, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } from "./call-slots.ts";

/** Bodies declared at most this large are read in a pool of their own, so tools/list and small calls never queue behind large ones. */
const SMALL_BODY_BYTES = 64 * 1024;

export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PATH, DEFAULT_MAX_SESSIONS };

export interface HttpOptions {
  /** Address to bind. Default 127.0.0.1: only this machine can connect. */
  host?: string;
  /** Port; 0 picks a free one (read it from `url`). */
  port: number;
  /** Default `/mcp`. */
  path?: string;
  /** POST bodies larger than this are answered 413 before parsing. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Open sessions kept; beyond it the least recently used one is closed. Default 64. */
  maxSessions?: number;
  /**
   * POST requests read and handled at once (default 16); others wait, their bodies unread,
   * and past `maxQueuedCalls` (default 256) are answered 503 with a SERVER_BUSY JSON-RPC
   * error. Bodies declared at most 64 KiB use a second pool four times as large, so small
   * requests are not held up by large ones. Memory held by calls in flight is then about
   * 7 x maxConcurrentCalls x maxMessageBytes at most (measured: bench/SERVE-MEMORY.md).
   */
  maxConcurrentCalls?: number;
  maxQueuedCalls?: number;
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`): at least
   * 16 characters of `A-Z a-z 0-9 - . _ ~ + /` (trailing `=` allowed). When left out, a
   * random one is generated (read it from `authToken` of the handle), and only a loopback
   * address may be bound: serving beyond this machine needs a token the operator chose and
   * gave to the clients.
   */
  authToken?: string;
  /**
   * Callers with credentials of their own, for a server several people share. Each has a
   * bearer token of its own (the same rules as `authToken`) and the credential variables
   * its calls read (`<PACK>_<SCHEME>` and the rest, as the environment would hold them). A
   * request carrying a caller's token is that caller's: the session it opens belongs to it,
   * its calls read that caller's variables and never the server's environment, and a
   * request with another token on that session is answered 404, as for an unknown session.
   * `authToken`, when given, stays the operator's: its sessions read the server's environment.
   */
  callers?: readonly CallerCredentials[];
  log?: (line: string) => void;
}

/** One caller of a shared server: its bearer token and the credential variables its calls read. */
export interface CallerCredentials {
  /** A name for logs (never the token). */
  name: string;
  token: string;
  env: Readonly<Record<string, string>>;
}

/** Who opened a session: the operator (the server's `authToken`) or one of `callers`. */
export type SessionCaller = { kind: "operator" } | { kind: "caller"; name: string; env: Readonly<Record<string, string>> };

export interface HttpHandle {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Open MCP sessions. */
  readonly sessions: number;
  /** The bearer token clients must send: the one given, or the one generated. */
  readonly authToken: string;
  /** Whether `authToken` was generated here (the caller should show it once). */
  readonly generatedToken: boolean;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
  /** Index into the accepted tokens of the token that opened it: the operator's is -1. */
  owner: number;
  /** JSON-RPC ids of the requests this session is answering now (`number:1`, `string:1`: distinct ids). */
  inFlight: Set<string>;
}


function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}


/** A random bearer token: 32 bytes, base64url (43 characters). */
function generateAuthToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Whether an `Authorization` header carries this token as a bearer token. Both sides are
 * hashed first, so `timingSafeEqual` compares equal lengths and the time taken says
 * nothing about the token, its length included.
 */
/** Which of the accepted token hashes the header's bearer token is, or -1; every one is compared, so the time says nothing about which. */
function whichToken(header: string | undefined, accepted: readonly Buffer[]): number {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  const given = createHash("sha256").update(match?.[1] ?? "", "utf8").digest();
  let found = -1;
  accepted.forEach((hash, index) => {
    if (timingSafeEqual(given, hash) && match !== null && found === -1) found = index;
  });
  return found;
}

/** Reads a request body up to `max` bytes; undefined when it is larger (the rest is not read). */
async function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Ids of the requests (not notifications or responses) in a parsed POST body. */
function requestIdsOf(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  const ids: Array<string | number> = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) ids.push(id);
  }
  return ids;
}

/** A JSON-RPC id as a key: 1 and "1" are different ids. */
const idKey = (id: string | number): string => `${typeof id}:${String(id)}`;

/**
 * What an OAuth client asks for after a 401: the metadata documents (RFC 9728 protected
 * resource, RFC 8414 authorization server, OpenID discovery; before or after the path),
 * then, with no metadata, the legacy endpoints at the root (register, authorize, token).
 */
const OAUTH_PATHS = /^(?:\/[^?#]*)?\/\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?$|^\/(?:register|authorize|token)$/;

const NO_OAUTH =
  "This MCP server takes a static bearer token, not OAuth: send the header Authorization: Bearer <token>, with the token sluice serve printed at start-up or the one it was given (--auth-token TOKEN or the SLUICE_MCP_TOKEN variable).";
/** The same for error_description, which RFC 6750 limits to printable ASCII without quotes or backslashes. */
const NO_OAUTH_SHORT = "static bearer token, no OAuth: send Authorization: Bearer <token> (the token of --auth-token or SLUICE_MCP_TOKEN, or the one sluice serve printed)";

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, data?: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message, ...(data === undefined ? {} : { data }) } }));
}

function cancelOnHangUp(transport: StreamableHTTPServerTransport, res: ServerResponse, body: unknown): void {
  const ids = requestIdsOf(body);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the client disconnected" } });
    }
  });
}

/**
 * Serves MCP over Streamable HTTP on node:http, one SDK transport and one server per
 * session (`Mcp-Session-Id`), so each client has its own deferred-loading state.
 *
 * Every request must carry `Authorization: Bearer <token>` (the server's calls carry the
 * user's API credentials; any local process could otherwise use them); one without is
 * answered 401 with `WWW-Authenticate: Bearer`. Binding beyond loopback is refused unless
 * the token was given. Bound to a loopback address, requests must also name a loopback host
 * (`Host`) and, when they carry an `Origin`, a loopback origin: a web page the user visits
 * cannot reach the server through DNS rebinding.
 */
export async function serveHttp(newServer: (caller: SessionCaller) => Server, options: HttpOptions): Promise<HttpHandle> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  const given = options.authToken;
  const callers = options.callers ?? [];
  const names = new Set<string>();
  const tokens = new Set<string>(given === undefined ? [] : [given]);
  for (const caller of callers) {
    if (typeof caller?.token !== "string" || !TOKEN_PATTERN.test(caller.token)) {
      throw new SluiceError("INVALID_OPTION", `Caller ${JSON.stringify(String(caller?.name))}: its token must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token); generate one with \`openssl rand -base64 32\`.`);
    }
    if (tokens.has(caller.token)) throw new SluiceError("INVALID_OPTION", `Caller ${JSON.stringify(caller.name)} has the token of another caller (or the server's): each caller needs a token of its own.`);
    if (names.has(caller.name)) throw new SluiceError("INVALID_OPTION", `Two callers are named ${JSON.stringify(caller.name)}; give each a name of its own.`);
    tokens.add(caller.token);
    names.add(caller.name);
  }
  checkHttpAccess(host, given, callers.length);
  const authToken = given ?? generateAuthToken();
  // The SDK's HTTP transport (and the web server stack under it) loads only for --http.
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const expected = createHash("sha256").update(authToken, "utf8").digest();
  // The operator's token first (index 0), then each caller's.
  const accepted = [expected, ...callers.map((caller) => createHash("sha256").update(caller.token, "utf8").digest())];
  const callerOf = (owner: number): SessionCaller => {
    const caller = owner > 0 ? callers[owner - 1] : undefined;
    return caller === undefined ? { kind: "operator" } : { kind: "caller", name: caller.name, env: { ...caller.env } };
  };
  const path = options.path ?? DEFAULT_HTTP_PATH;
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const log = options.log;
  const loopbackOnly = isLoopbackHost(host);
  const sessions = new Map<string, Session>();
  const maxConcurrent = options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS;
  const maxQueued = options.maxQueuedCalls ?? DEFAULT_MAX_QUEUED_CALLS;
  const bodySlots = new CallSlots(maxConcurrent, maxQueued);
  const smallSlots = new CallSlots(4 * maxConcurrent, maxQueued);

  const closeSession = async (id: string, why: string): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    log?.(`session ${id.slice(0, 8)} closed (${why})`);
    await session.server.close().catch(() => undefined);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // An OAuth-aware client (the SDK's, MCP Inspector) answers a 401 by looking for OAuth
    // metadata and then registering itself. This server has no OAuth: those requests get a
    // 404 saying which header and token to send, instead of a 401 read as "log in first".
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (pathname !== path && OAUTH_PATHS.test(pathname)) {
      // An OAuth error body: the SDK shows error_description when registration fails.
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_request", error_description: NO_OAUTH }));
      req.resume();
      return;
    }
    const owner = whichToken(req.headers.authorization, accepted);
    if (owner === -1) {
      const invalid = req.headers.authorization !== undefined;
      // RFC 6750 section 3: a request without credentials gets the scheme and realm only; a
      // wrong token gets error="invalid_token". No resource_metadata: there is no OAuth here.
      jsonRpcError(
        res,
        401,
        -32000,
        invalid ? `Unauthorized: the bearer token is not this server's. ${NO_OAUTH}` : `Unauthorized: no bearer token. ${NO_OAUTH}`,
        { "www-authenticate": invalid ? `Bearer realm="sluice", error="invalid_token", error_description="${NO_OAUTH_SHORT}"` : 'Bearer realm="sluice"' },
        { header: "Authorization", scheme: "Bearer", tokenFrom: ["--auth-token", "SLUICE_MCP_TOKEN", "printed by sluice serve at start-up"], oauth: false },
      );
      req.resume();
      return;
    }
    const hostHeader = req.headers.host ?? "";
    if (loopbackOnly && !isLoopbackHost(hostnameOf(hostHeader))) {
      jsonRpcError(res, 403, -32000, `Forbidden: Host ${JSON.stringify(hostHeader)} is not a loopback name.`);
      return;
    }
    const origin = req.headers.origin;
    if (origin === "null" && guards.httpNullOrigin) {
      // Sent by sandboxed frames, file: pages and some redirects: no page this server can tell is local.
      jsonRpcError(res, 403, -32000, "Forbidden: Origin null (a sandboxed frame, a file: page or a redirect) is refused: a browser page cannot be told apart from any other. MCP clients that are not browsers send no Origin header.", {}, { code: "ORIGIN_REFUSED" });
      req.resume();
      return;
    }
    if (origin !== undefined && origin !== "null" && loopbackOnly) {
      let originHost = "";
      try {
        originHost = new URL(origin).hostname;
      } catch {
        originHost = "";
      }
      if (!isLoopbackHost(originHost)) {
        jsonRpcError(res, 403, -32000, `Forbidden: Origin ${JSON.stringify(origin)} is not a loopback origin.`, {}, { code: "ORIGIN_REFUSED" });
        return;
      }
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      jsonRpcError(res, 404, -32601, `Not found: the MCP endpoint is ${path}.`);
      return;
    }
    // The body is read here rather than by the transport, to know which requests this
    // HTTP exchange carries: when the client hangs up before their answers are written,
    // they are cancelled like a notifications/cancelled would, so the API call stops too.
    let parsed: unknown;
    if (req.method === "POST") {
      // A slot before the body is read: waiting requests hold their socket, not their bytes.
      const declared = Number(req.headers["content-length"]);
      const pool = Number.isFinite(declared) && declared <= SMALL_BODY_BYTES ? smallSlots : bodySlots;
      const waiting = pool.acquire();
      if (waiting === undefined) {
        log?.(`request refused SERVER_BUSY (${pool.active} running, ${pool.queued} queued)`);
        jsonRpcError(res, 503, -32000, `SERVER_BUSY: ${pool.active} requests are being handled and ${pool.queued} are waiting, the most this server takes (--max-concurrent-calls, --max-queued-calls); retry shortly.`, { "retry-after": "1" });
        req.resume();
        return;
      }
      let release: (() => void) | undefined;
      let gone = false;
      res.once("close", () => {
        gone = true;
        release?.();
      });
      release = await waiting;
      if (gone) {
        release();
        return;
      }
      const body = await readBody(req, maxBytes);
      if (body === undefined) {
        jsonRpcError(res, 413, -32000, `Request body too large: at most ${maxBytes} bytes; send smaller arguments.`);
        return;
      }
      try {
        parsed = JSON.parse(body);
      } catch {
        jsonRpcError(res, 400, -32700, "Parse error: the body is not valid JSON.");
        return;
      }
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // A session is its opener's: another caller holding its id gets what an unknown id gets.
      if (session === undefined || (guards.callerCredentials && session.owner !== owner)) {
        jsonRpcError(res, 404, -32001, "Session not found: it ended or never existed; initialize a new session.");
        return;
      }
      session.lastUsed = Date.now();
      // The SDK transport keeps one response stream per request id: a second request with an
      // id still in flight would take the first one's stream, and one of them would never be answered.
      const ids = requestIdsOf(parsed).map(idKey);
      if (guards.httpDuplicateIds && ids.length > 0) {
        const clash = ids.find((id, index) => session.inFlight.has(id) || ids.indexOf(id) !== index);
        if (clash !== undefined) {
          const shown = clash.slice(clash.indexOf(":") + 1);
          const id = clash.startsWith("number:") ? Number(shown) : shown;
          res.writeHead(409, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid Request: id ${JSON.stringify(id)} is already used by a request in flight on this session; give each request an id of its own.`, data: { code: "REQUEST_ID_IN_USE" } } }));
          return;
        }
        for (const id of ids) session.inFlight.add(id);
        res.once("close", () => {
          for (const id of ids) session.inFlight.delete(id);
        });
      }
      cancelOnHangUp(session.transport, res, parsed);
      await session.transport.handleRequest(req, res, parsed);
      return;
    }
    if (req.method !== "POST") {
      jsonRpcError(res, 400, -32000, "Bad Request: no Mcp-Session-Id; start a session with an initialize POST.");
      return;
    }
    // A POST without a session must be an initialize request; the transport checks that
    // and answers 400 otherwise, in which case the session it never opened is dropped.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBytes,
    });
    const server = newServer(callerOf(owner));
    const session: Session = { transport, server, lastUsed: Date.now(), owner, inFlight: new Set() };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id) === session) {
        sessions.delete(id);
        log?.(`session ${id.slice(0, 8)} ended`);
      }
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
    const id = transport.sessionId;
    if (id === undefined) {
      await server.close().catch(() => undefined);
      return;
    }
    sessions.set(id, session);
    log?.(`session ${id.slice(0, 8)} opened`);
    if (sessions.size > maxSessions) {
      let oldest: [string, Session] | undefined;
      for (const entry of sessions) if (oldest === undefined || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
      if (oldest !== undefined) await closeSession(oldest[0], `more than ${maxSessions} sessions`);
    }
  };

  const http: NodeHttpServer = createHttpServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log?.(`request failed: ${(error as Error)?.message ?? String(error)}`);
      jsonRpcError(res, 500, -32603, "Internal error while handling the request.");
    });
  });
  // A client that goes away mid-request must not take the process with it.
  http.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    get sessions() {
      return sessions.size;
    },
    authToken,
    generatedToken: given === undefined,
    async close() {
      for (const id of [...sessions.keys()]) await closeSession(id, "server stopping");
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
