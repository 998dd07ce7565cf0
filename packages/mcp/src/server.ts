import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallSlots } from "./call-slots.ts";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type ListToolsResult,
  type Tool as McpTool,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolSession, type ToolSessionOptions } from "@sluice/catalog/serve";
import type { UsageSink } from "@sluice/catalog/usage";
import { describeStages, isSluiceError, SluiceError, type CallContext, type CallResult, type McpUpstream, type Tool } from "@sluice/core/pack";
import type { ServedGate } from "./mcp-proxy.ts";
import { apiHostOf, missingCredentialMessage, toolAuthFromEnv, type ApiCredentialEnv, CREDENTIAL_ENV } from "./credentials.ts";
import type { ServedCatalog } from "./served-catalog.ts";
import { boundResult, DEFAULT_MAX_RESULT_BYTES } from "./result-bounds.ts";
import { CallToolEnvelopeSchema, declaringWhenQuiet, decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, ProtocolError, SERVER_VERSION, type DeclaringSink } from "./server-protocol.ts";

export { DEFAULT_PAGE_SIZE, SERVER_VERSION } from "./server-protocol.ts";

export interface CallOptions {
  /**
   * Replaces tools' API base URL (HTTP server or GraphQL endpoint): for tests, proxies,
   * regional hosts. A string applies to every tool; a record applies by the host the tool
   * calls by default (`{ "api.linear.app": "http://127.0.0.1:4000/graphql" }`), and tools
   * of other hosts keep theirs.
   */
  baseUrl?: string | Readonly<Record<string, string>>;
  /** Where credentials are read from (default `process.env`); see `CREDENTIAL_ENV`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The credential table (default `CREDENTIAL_ENV`). */
  credentialEnv?: readonly ApiCredentialEnv[];
  /** Milliseconds for one API exchange (default: the call runtime's 30 s). */
  timeoutMs?: number;
  /** Arguments larger than this are refused before anything is sent (default: the runtime's 1 MiB). */
  maxArgumentBytes?: number;
  /** Extra request headers (user agent). Authentication cannot be replaced through them. */
  headers?: Readonly<Record<string, string>>;
  fetch?: typeof globalThis.fetch;
  /** Where MCP-bound tools (a pack made from an MCP server) forward their calls: the proxy's upstream. */
  mcp?: McpUpstream;
}

export interface SessionOptions {
  /** Tools per tools/list page (default 100). */
  pageSize?: number;
  /**
   * Deferred loading: the client first sees one search tool; calling it loads tools, and
   * the server tells the client with `notifications/tools/list_changed`.
   */
  defer?: boolean | ToolSessionOptions;
  call?: CallOptions;
  /** One line per call on stderr (tool, outcome, duration, bytes; never arguments or credentials). */
  log?: (line: string) => void;
  /** Name in the initialize answer (default `sluice`). */
  serverName?: string;
  /**
   * Bounds tools/call across sessions: share one instance between the sessions of a server.
   * A call waits for a slot; past the queue it is answered with a SERVER_BUSY error result.
   */
  callSlots?: CallSlots;
  instructions?: string;
  /**
   * The most bytes of content (and, on its own, of structuredContent) one call's result puts
   * in front of the model; more is cut at a boundary with a note (see result-bounds.ts).
   * Default {@link DEFAULT_MAX_RESULT_BYTES}.
   */
  maxResultBytes?: number;
  /**
   * A proxy's snapshot lock: tools it holds back are left out of tools/list and their calls
   * answer its coded error; when its verdict changes, the client gets tools/list_changed.
   */
  gate?: ServedGate;
  /**
   * This session's usage record (`sluice serve` opens one per session): the tools each
   * tools/list page sends, and each call of a served tool, by name. Closed with the session.
   */
  usage?: UsageSink | DeclaringSink;
}

function baseUrlFor(tool: Tool<object>, option: CallOptions["baseUrl"]): string | undefined {
  if (option === undefined || typeof option === "string") return option;
  const host = apiHostOf(tool);
  return host !== undefined && Object.hasOwn(option, host) ? option[host] : undefined;
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The tool name and arguments of a tools/call, or a one-line -32602 ProtocolError. */
function callParams(params: unknown): { name: string; args: Record<string, unknown> } {
  if (!isPlainObject(params)) throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: tools/call takes params {"name": string, "arguments": object}, got ${kindOf(params)}.`);
  const name = Object.hasOwn(params, "name") ? params.name : undefined;
  if (typeof name !== "string") throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: tools/call needs the tool's name as a string in params.name, got ${kindOf(name)}.`);
  const args = Object.hasOwn(params, "arguments") ? params.arguments : undefined;
  if (args === undefined) return { name, args: {} };
  if (!isPlainObject(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: the arguments of ${JSON.stringify(name.slice(0, 80))} must be a JSON object of named arguments, got ${kindOf(args)}.`);
  }
  return { name, args };
}

/** An unknown-tool answer that names the closest served tools, or says why a `*_full` twin is not served. */
function unknownTool(catalog: ServedCatalog, name: string, base: string): ProtocolError {
  const curated = catalog.twinOf(name);
  if (curated !== undefined) {
    return new ProtocolError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${name} is the unprojected *_full twin of ${curated} and is not served (it would send what ${curated} withholds). Call ${curated}, or serve the twins with --include-full (includeFull: true).`,
    );
  }
  return new ProtocolError(ErrorCode.InvalidParams, base);
}

/**
 * One MCP server (one client connection) over a served catalog. tools/list pages
 * through the catalog (or, deferred, through the session's visible tools); tools/call
 * routes the wire name back to the tool given and runs `invoke` with credentials from
 * the environment. A call failure is a tool result with `isError` and a text that
 * starts with the error code; an unknown tool or a bad cursor is a protocol error.
 */
export function createServer(catalog: ServedCatalog, options: SessionOptions = {}): Server {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new SluiceError("INVALID_OPTION", `pageSize must be a positive integer, got ${String(pageSize)}.`);
  const session =
    options.defer === undefined || options.defer === false
      ? undefined
      : new ToolSession(catalog.tools, options.defer === true ? {} : options.defer);
  // Recorded once the listing goes quiet, so that no page waits for the record's token counts.
  const usage = options.usage === undefined ? undefined : declaringWhenQuiet(options.usage);
  const callTool = toolCallHandler(async () => catalog, { ...options, ...(usage === undefined ? {} : { usage }) }, session);

  const server = new Server(
    { name: options.serverName ?? "sluice", version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: session !== undefined || options.gate !== undefined } },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    },
  );

  const gate = options.gate;
  if (gate !== undefined) {
    const unsubscribe = gate.subscribe(() => {
      // Only a connected session can be told; one that is not yet asks tools/list anyway.
      if (server.transport !== undefined) void server.sendToolListChanged().catch(() => undefined);
    });
    const onclose = server.onclose;
    server.onclose = () => {
      unsubscribe();
      onclose?.();
    };
  }
  if (usage !== undefined) {
    const onclose = server.onclose;
    server.onclose = () => {
      usage.close?.();
      onclose?.();
    };
  }
  const listable = (tools: readonly Tool<object>[]) => (gate === undefined ? tools : tools.filter((tool) => gate.refusal(catalog.original(tool.name) ?? tool) === undefined));

  server.setRequestHandler(ListToolsRequestSchema, async (request): Promise<ListToolsResult> => {
    const cursor = request.params?.cursor;
    // A proxy answers initialize while its upstream starts; what it lists waits for the lock's first verdict.
    if (gate?.ready !== undefined) await gate.ready();
    const visible = listable(session === undefined ? catalog.tools : session.visibleTools());
    const offset = cursor === undefined ? 0 : decodeCursor(cursor, visible.length);
    const page = visible.slice(offset, offset + pageSize);
    const result: ListToolsResult = { tools: page.map((tool) => catalog.definition(tool)) };
    usage?.declared(result.tools);
    if (offset + page.length < visible.length) result.nextCursor = encodeCursor(offset + page.length);
    return result;
  });

  // Registered through Protocol's method: Server's override would parse the request with
  // the SDK's schema first, and a bad `arguments` would never reach `callParams`.
  Protocol.prototype.setRequestHandler.call(server, CallToolEnvelopeSchema, callTool);
  return server;
}

type CallHandler = (request: { params?: unknown }, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => Promise<CallToolResult>;

/**
 * tools/call over the catalog `catalogNow` gives (the loaded one, or a stored list's pack,
 * loaded at the first call): call slots, the deferred session's search, the lock's gate,
 * screening and the call itself, bounded results, usage. createServer's, and the stored
 * list's server's (createServedListServer) once a call comes.
 */
export function toolCallHandler(catalogNow: () => Promise<ServedCatalog>, options: SessionOptions, session?: ToolSession): CallHandler {
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isInteger(maxResultBytes) || maxResultBytes < 1) throw new SluiceError("INVALID_OPTION", `maxResultBytes must be a positive integer, got ${String(maxResultBytes)}.`);
  const callOptions = options.call ?? {};
  const env = callOptions.env ?? process.env;
  const table = callOptions.credentialEnv ?? CREDENTIAL_ENV;
  const log = options.log;
  const gate = options.gate;
  const usage = options.usage;

  const slots = options.callSlots;
  const callTool = async (request: { params?: unknown }, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
    if (slots === undefined) return boundedCall(request, extra);
    const waiting = slots.acquire();
    if (waiting === undefined) {
      log?.(`call refused SERVER_BUSY (${slots.active} running, ${slots.queued} queued)`);
      return { ...errorResult(`SERVER_BUSY: ${slots.active} calls are running and ${slots.queued} waiting, the most this server takes (--max-concurrent-calls, --max-queued-calls); retry shortly.`), _meta: { "sluice/error": { code: "SERVER_BUSY" } } };
    }
    const release = await waiting;
    try {
      return await boundedCall(request, extra);
    } finally {
      release();
    }
  };
  const boundedCall = async (request: { params?: unknown }, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
    const { name, args } = callParams(request.params);
    const catalog = await catalogNow();
    let wire: Tool<object> | undefined;
    if (session !== undefined) {
      const outcome = session.call(name, args);
      if (outcome.kind === "search") {
        if (outcome.result.loaded.length > 0) {
          // Sent on this request's stream, so a Streamable HTTP client gets it before the result.
          await extra.sendNotification({ method: "notifications/tools/list_changed" });
        }
        log?.(`search ${JSON.stringify(outcome.result.query).slice(0, 120)} loaded ${outcome.result.loaded.length}`);
        usage?.invoked(name);
        return { content: [{ type: "text", text: outcome.text }] };
      }
      if (outcome.kind === "error") {
        if (outcome.error.code === "TOOL_NOT_FOUND") throw unknownTool(catalog, name, outcome.text);
        return errorResult(`${outcome.error.code}: ${outcome.text}`);
      }
      wire = outcome.tool;
    } else {
      wire = catalog.wireTool(name);
      if (wire === undefined) {
        const near = catalog.near(name);
        throw unknownTool(catalog, name, `Unknown tool: ${name}.${near.length > 0 ? ` Similar tools: ${near.join(", ")}.` : ""}`);
      }
    }
    const tool = catalog.original(wire.name)!;
    if (gate?.ready !== undefined) await gate.ready();
    const held = gate?.refusal(tool);
    if (held !== undefined) {
      log?.(`call ${wire.name} ${held.code}`);
      return { ...errorResult(`${held.code}: ${held.message}`), _meta: { "sluice/error": { code: held.code } } };
    }
    // Counted once it is known to be a served tool the lock lets through; by wire name, as listed.
    usage?.invoked(wire.name);
    const auth = toolAuthFromEnv(tool, env, table);
    const baseUrl = baseUrlFor(tool, callOptions.baseUrl);
    const ctx: CallContext = {
      credentials: auth.credentials,
      headers: { ...callOptions.headers, ...auth.headers },
      signal: extra.signal,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(callOptions.timeoutMs === undefined ? {} : { timeoutMs: callOptions.timeoutMs }),
      ...(callOptions.maxArgumentBytes === undefined ? {} : { maxArgumentBytes: callOptions.maxArgumentBytes }),
      ...(callOptions.fetch === undefined ? {} : { fetch: callOptions.fetch }),
      ...(callOptions.mcp === undefined ? {} : { mcp: callOptions.mcp }),
      // A log line reports each reformatter's tokens; without a log nothing reads them, so nothing counts them.
      ...(log === undefined ? {} : { reformatTokens: true }),
    };
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined && tool.binding.kind === "mcp") {
      // The client's token on the upstream's progress: sent on this request's stream.
      ctx.onProgress = (progress) => void extra.sendNotification({ method: "notifications/progress", params: { progressToken, ...progress } }).catch(() => undefined);
    }
    let result: CallResult;
    try {
      // The wire tool: the one given, renamed, or fit's rewrite, which calls through to it (its
      // pins, withheld paths and validation) once a strict client's nulls for what it leaves out are dropped.
      result = await wire.invoke(args, ctx);
    } catch (error) {
      if (isSluiceError(error)) {
        log?.(`call ${wire.name} ${error.code}${error.status === undefined ? "" : ` ${error.status}`}`);
        const details = {
          code: error.code,
          ...(error.status === undefined ? {} : { status: error.status }),
          ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
        };
        const text = error.code === "AUTH_MISSING" ? missingCredentialMessage(tool, error.schemes) : error.message;
        return { ...errorResult(`${error.code}: ${text}`), _meta: { "sluice/error": details } };
      }
      log?.(`call ${wire.name} INTERNAL_ERROR ${(error as Error)?.message ?? String(error)}`);
      return errorResult(`INTERNAL_ERROR: ${wire.name} failed inside the server (${(error as Error)?.message ?? String(error)}); the API may not have been called.`);
    }
    log?.(`call ${wire.name} ok ${result.status} ${Math.round(result.durationMs)} ms payload ${result.payloadBytes} B context ${result.contextBytes} B${result.reformat.length === 0 ? "" : `; ${describeStages(result.reformat)}`}`);
    // What the model reads: the reformatted text, or for a forwarded call its blocks (text reformatted, every other block as sent).
    const out: CallToolResult = { content: (result.content as CallToolResult["content"] | undefined) ?? [{ type: "text", text: result.text }] };
    // The upstream's structured content passes as it came (redacted): it is what the output
    // schema served beside the tool (the upstream's) describes, so a handler does not reshape it.
    const structured = tool.binding.kind === "mcp" ? result.mcpResult?.structuredContent : undefined;
    if (structured !== undefined) out.structuredContent = structured;
    if (catalog.outputSchema(wire.name) !== undefined) {
      if (!isPlainObject(result.output)) {
        return errorResult(`RESPONSE_INVALID: ${wire.name} declares an output schema, but its response handler returned ${Array.isArray(result.output) ? "an array" : typeof result.output}, not an object.`);
      }
      out.structuredContent = result.output;
    }
    if (result.nextPageArgs !== undefined) out._meta = { "sluice/nextPageArgs": result.nextPageArgs };
    const bounded = boundResult(out, maxResultBytes);
    if (bounded !== out) log?.(`call ${wire.name} result cut to --max-result-bytes ${maxResultBytes}`);
    return bounded;
  };
  return callTool;
}
