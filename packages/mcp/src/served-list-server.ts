import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ListToolsRequestSchema, type ListToolsResult, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { SluiceError } from "@sluice/schema";
import type { ServedCatalog } from "./served-catalog.ts";
import { ServedListPage } from "./served-list-page.ts";
import type { SessionOptions } from "./server.ts";
import { CallToolEnvelopeSchema, declaringWhenQuiet, decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, SERVER_VERSION } from "./server-protocol.ts";

/**
 * A catalog whose tools/list is known before its tools are: the definitions a pack's served
 * list stores (exactly what the loaded catalog would list), as objects or as the list's
 * text, and the catalog itself, loaded on first need (a call). Not for a deferred session or
 * a proxy's gate, which list from the loaded tools.
 */
export type PrelistedCatalog = PrelistedDefinitions | PrelistedText;

interface PrelistedDefinitions {
  readonly definitions: readonly McpTool[];
  load(): Promise<ServedCatalog>;
}

/**
 * The definitions as text: how many, and the UTF-8 JSON array of a range of them (exactly
 * JSON.stringify's), copied out, or lent until `done` (then reused for a later page).
 */
interface PrelistedText {
  readonly count: number;
  listedJson(from: number, to: number): Buffer;
  lentJson?(from: number, to: number): { json: Buffer; done(): void };
  load(): Promise<ServedCatalog>;
}

const TOOLS_OPENING = Buffer.from('{"tools":', "utf8");

/**
 * One MCP server over a pack's stored list: the same initialize answer and the same tools/list
 * pages (order, cursors) as createServer over the loaded pack, answered from the definitions
 * as stored. Nothing of sluice's call runtime (the catalog, screening, credentials, the
 * session) is loaded until the first tools/call, which loads the pack and createServer's call
 * handler and goes on as createServer would.
 */
export function createServedListServer(listed: PrelistedCatalog, options: SessionOptions = {}): Server {
  if (options.gate !== undefined || (options.defer !== undefined && options.defer !== false)) {
    throw new SluiceError("INVALID_OPTION", "A prelisted catalog serves its stored list as it is: defer and a proxy's gate need the loaded catalog.");
  }
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new SluiceError("INVALID_OPTION", `pageSize must be a positive integer, got ${String(pageSize)}.`);
  const maxResultBytes = options.maxResultBytes;
  if (maxResultBytes !== undefined && (!Number.isInteger(maxResultBytes) || maxResultBytes < 1)) throw new SluiceError("INVALID_OPTION", `maxResultBytes must be a positive integer, got ${String(maxResultBytes)}.`);
  const server = new Server(
    { name: options.serverName ?? "sluice", version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, ...(options.instructions === undefined ? {} : { instructions: options.instructions }) },
  );
  const usage = options.usage === undefined ? undefined : declaringWhenQuiet(options.usage);
  if (usage !== undefined) {
    const onclose = server.onclose;
    server.onclose = () => {
      usage.close?.();
      onclose?.();
    };
  }

  if ("definitions" in listed) {
    const all = listed.definitions;
    server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
      const cursor = request.params?.cursor;
      const offset = cursor === undefined ? 0 : decodeCursor(cursor, all.length);
      const result: ListToolsResult = { tools: all.slice(offset, offset + pageSize) };
      usage?.declared(result.tools);
      if (offset + pageSize < all.length) result.nextCursor = encodeCursor(offset + pageSize);
      return result;
    });
  } else {
    const { count } = listed;
    // Each page is the list's bytes, never objects: the result's text is written as it is (ServedListPage).
    server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
      const cursor = request.params?.cursor;
      const offset = cursor === undefined ? 0 : decodeCursor(cursor, count);
      const end = Math.min(offset + pageSize, count);
      const next = offset + pageSize < count ? `,"nextCursor":${JSON.stringify(encodeCursor(offset + pageSize))}}` : "}";
      const lent = listed.lentJson?.(offset, end) ?? { json: listed.listedJson(offset, end), done: undefined };
      const page = new ServedListPage([TOOLS_OPENING, lent.json, Buffer.from(next, "utf8")], lent.done);
      // Recorded as objects once the listing is quiet, each parsed from its own text then.
      if (usage !== undefined) {
        const made: Array<() => McpTool> = [];
        for (let at = offset; at < end; at++) made.push(() => (JSON.parse(listed.listedJson(at, at + 1).toString("utf8")) as McpTool[])[0]!);
        usage.declaredLater(made);
      }
      return page as unknown as ListToolsResult;
    });
  }

  let loading: Promise<ServedCatalog> | undefined;
  const catalogNow = () => (loading ??= listed.load());
  type Handler = Parameters<typeof Protocol.prototype.setRequestHandler<typeof CallToolEnvelopeSchema>>[1];
  let handler: Promise<Handler> | undefined;
  // The call path (screening, credentials, the call runtime) loads with the first call.
  const callTool: Handler = async (request, extra) => {
    handler ??= import("./server.ts").then(({ toolCallHandler }) => toolCallHandler(catalogNow, { ...options, ...(usage === undefined ? {} : { usage }) }) as Handler);
    return (await handler)(request, extra);
  };
  // Registered through Protocol's method, as createServer does: the SDK's own tools/call schema would refuse bad params first.
  Protocol.prototype.setRequestHandler.call(server, CallToolEnvelopeSchema, callTool);
  return server;
}
