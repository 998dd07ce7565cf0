import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * What both MCP servers of `sluice serve` share (createServer's, over a loaded catalog, and
 * createServedListServer's, over a pack's stored list): the version they announce, the page
 * size, the cursors and the tools/call envelope. A leaf beside the SDK, so that the stored
 * list's server loads nothing of sluice's call runtime before its first list.
 */
export const SERVER_VERSION = "0.1.0";
export const DEFAULT_PAGE_SIZE = 100;

/**
 * A JSON-RPC error for the client (unknown tool, bad cursor). The SDK's McpError puts
 * "MCP error <code>:" into the message it sends, and the client SDK adds it again; this
 * sends the message alone.
 */
export class ProtocolError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
  }
}

/** Cursor for tools/list: the offset of the next page, base64url JSON so clients treat it as opaque. */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset }), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string, length: number): number {
  let offset: unknown;
  try {
    offset = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { offset?: unknown }).offset;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0 || offset > length) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid tools/list cursor ${JSON.stringify(cursor.slice(0, 80))}: pass a nextCursor this server returned, or none to start over.`);
  }
  return offset;
}

/**
 * tools/call as the protocol layer parses it: the method alone. The SDK's own schema
 * refuses bad params with a multi-line dump of its validation issues (-32603 when the
 * arguments are not an object); the server checks them instead and answers -32602 in
 * one line, which a client can show and a model can act on.
 */
export const CallToolEnvelopeSchema = z.object({ method: z.literal("tools/call"), params: z.unknown() }).passthrough();

/** A session's usage record, as both servers feed it (UsageSink of @sluice/catalog/usage, by shape). */
export interface DeclaringSink {
  declared(definitions: readonly { name: string }[]): void;
  invoked(name: string): void;
  close?(): void;
}

/**
 * How long tools/list must stay quiet before the definitions it sent are recorded, and how
 * many are recorded at a time. A second: counting tokens (and loading the tokenizer's ranks)
 * right after a page would compete for the CPU with the client still reading it.
 */
const DECLARE_AFTER_MS = 1_000;
const DECLARE_SLICE = 25;

/** A declaring sink that records a listing's definitions later: the ones sent, or what gives them when they are needed. */
export interface QuietDeclaringSink extends DeclaringSink {
  /** Definitions sent as text: each made (parsed) only when it is recorded. */
  declaredLater(definitions: ReadonlyArray<() => { name: string }>): void;
}

/**
 * `usage` with its declarations put off until the listing goes quiet, then recorded a slice
 * at a time: recording a definition counts its tokens, seconds for the 112 MB of a
 * 9,000-tool list, which would otherwise hold every page behind it. Nothing is lost or
 * reordered: a call, or the end of the session, records everything pending first, so a
 * call is always of a declared tool.
 */
export function declaringWhenQuiet(usage: DeclaringSink): QuietDeclaringSink {
  let pending: Array<() => { name: string }> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let slice: ReturnType<typeof setImmediate> | undefined;
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (slice !== undefined) clearImmediate(slice);
    timer = slice = undefined;
  };
  const made = (definitions: ReadonlyArray<() => { name: string }>) => definitions.map((definition) => definition());
  const flush = () => {
    stop();
    const all = pending;
    pending = [];
    if (all.length > 0) usage.declared(made(all));
  };
  const drain = () => {
    slice = undefined;
    const next = pending.splice(0, DECLARE_SLICE);
    if (next.length > 0) usage.declared(made(next));
    // A page asked for meanwhile is answered between two slices; the rest waits for the next quiet.
    if (pending.length > 0) slice = setImmediate(drain);
  };
  const quiet = () => {
    timer = undefined;
    drain();
  };
  const later = (definitions: ReadonlyArray<() => { name: string }>) => {
    stop();
    for (const definition of definitions) pending.push(definition);
    timer = setTimeout(quiet, DECLARE_AFTER_MS);
    // A client that lists and leaves must not keep the process waiting: close records what is left.
    timer.unref?.();
  };
  return {
    declared(definitions) {
      later(definitions.map((definition) => () => definition));
    },
    declaredLater: later,
    invoked(name) {
      flush();
      usage.invoked(name);
    },
    close() {
      flush();
      usage.close?.();
    },
  };
}
