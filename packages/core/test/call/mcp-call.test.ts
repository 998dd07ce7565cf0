/**
 * Calls of MCP-bound tools: screened exactly as HTTP tools are, then forwarded to the
 * upstream given in the call context. The upstream here is an in-memory stand-in that
 * records what reached it; real servers are in test/mcp-*.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isSluiceError, Tool, type JsonSchemaObject, type McpToolResult, type McpUpstream } from "../../src/index.ts";
import { withoutGuard } from "../../src/guards.ts";
import { mcpArguments } from "../../src/call/mcp-call.ts";
import type { McpBinding } from "../../src/tool-ir.ts";

const schema: JsonSchemaObject = {
  type: "object",
  properties: {
    path: { type: "string" },
    mode: { type: "string", enum: ["read", "write"] },
    options: { type: "object", properties: { depth: { type: "integer" }, secret: { type: "string" } }, additionalProperties: false },
  },
  required: ["path"],
  additionalProperties: false,
};

function readTool(): Tool<object> {
  return Tool.create({
    name: "read_file",
    description: "Reads a file.",
    inputSchema: schema,
    binding: { kind: "mcp", tool: "read_file", arguments: ["path", "mode", "options"] },
    annotations: { readOnly: true },
  });
}

function upstream(answer: (args: Record<string, unknown>) => McpToolResult | Promise<McpToolResult>) {
  const seen: Array<{ name: string; arguments: Record<string, unknown> }> = [];
  const client: McpUpstream = {
    async callTool(request, options) {
      seen.push(request);
      options.onProgress?.({ progress: 1, total: 2, message: "half" });
      return answer(request.arguments);
    },
  };
  return { client, seen };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isSluiceError(error) ? error.code : `not a SluiceError: ${String(error)}`;
  }
}

describe("call() of an MCP-bound tool", () => {
  it("forwards the screened arguments, pins added, and returns structured content", async () => {
    const { client, seen } = upstream(() => ({ content: [{ type: "text", text: "{}" }], structuredContent: { text: "hello" } }));
    const tool = readTool().derived({ name: "read_shallow", drop: ["options.secret"], pin: { mode: "read" } });
    const progress: unknown[] = [];
    const result = await tool.invoke({ path: "/tmp/a", options: { depth: 1 } }, { mcp: client, onProgress: (p) => progress.push(p) });
    expect(seen).toEqual([{ name: "read_file", arguments: { path: "/tmp/a", options: { depth: 1 }, mode: "read" } }]);
    expect(result.output).toEqual({ text: "hello" });
    expect(result.mcpResult?.structuredContent).toEqual({ text: "hello" });
    expect(progress).toEqual([{ progress: 1, total: 2, message: "half" }]);
  });

  it.each([
    ["a withheld member", { path: "/a", options: { secret: "x" } }, "EGRESS_DENIED"],
    ["a pinned argument", { path: "/a", mode: "write" }, "EGRESS_DENIED"],
    ["a wrong type", { path: 3 }, "INVALID_ARGUMENTS"],
    ["a missing required argument", {}, "INVALID_ARGUMENTS"],
    ["an undeclared argument", { path: "/a", extra: 1 }, "INVALID_ARGUMENTS"],
  ])("refuses %s and never reaches the upstream", async (_, args, code) => {
    const { client, seen } = upstream(() => ({ content: [] }));
    const tool = readTool().derived({ name: "read_shallow", drop: ["options.secret"], pin: { mode: "read" } });
    expect(await codeOf(tool.call(args, { mcp: client }))).toBe(code);
    expect(seen).toEqual([]);
  });

  it("without an upstream is MCP_UPSTREAM_MISSING", async () => {
    expect(await codeOf(readTool().call({ path: "/a" }))).toBe("MCP_UPSTREAM_MISSING");
  });

  it("reads JSON sent as text, and passes other text on as text", async () => {
    const json = upstream(() => ({ content: [{ type: "text", text: '{"entries":[{"name":"a"}],"next":null}' }] }));
    expect(await readTool().call({ path: "/a" }, { mcp: json.client })).toEqual({ entries: [{ name: "a" }], next: null });
    const text = upstream(() => ({ content: [{ type: "text", text: "[FILE] a.txt" }] }));
    expect(await readTool().call({ path: "/a" }, { mcp: text.client })).toBe("[FILE] a.txt");
  });

  it("offers the next page from a cursor in the structured content, and none when the marker is pinned", async () => {
    const pages = new Map<unknown, McpToolResult>([
      [undefined, { content: [], structuredContent: { items: [1, 2], nextCursor: "c2" } }],
      ["c2", { content: [], structuredContent: { items: [3], nextCursor: null } }],
    ]);
    const { client, seen } = upstream((args) => pages.get(args["mode"])!);
    const listing = Tool.create({
      name: "list_entries",
      description: "Lists entries.",
      inputSchema: { type: "object", properties: { path: { type: "string" }, mode: { type: "string" } }, required: ["path"], additionalProperties: false },
      binding: { kind: "mcp", tool: "list_entries", arguments: ["path", "mode"] },
      pagination: { style: "cursor", arg: "mode", cursor: "nextCursor" },
      annotations: { readOnly: true },
    });
    const first = await listing.invoke({ path: "/a" }, { mcp: client });
    expect(first.nextPageArgs).toEqual({ path: "/a", mode: "c2" });
    const last = await listing.invoke(first.nextPageArgs!, { mcp: client });
    expect(last.nextPageArgs).toBeUndefined();
    expect(seen.map((request) => request.arguments)).toEqual([{ path: "/a" }, { path: "/a", mode: "c2" }]);
    // A pinned marker cannot move: the pinned tool offers no next page even though the answer has a cursor.
    const pinned = listing.derived({ name: "list_from_start", pin: { path: "/a" } });
    expect((await pinned.invoke({}, { mcp: client })).nextPageArgs).toEqual({ mode: "c2" });
    const stuck = Tool.create({ name: "list_stuck", description: "", inputSchema: listing.inputSchema, binding: listing.binding, pagination: { style: "cursor", arg: "mode", cursor: "nextCursor" } }).derived({ name: "list_stuck_pinned", pin: { mode: "c2" } });
    expect((await stuck.invoke({ path: "/a" }, { mcp: client })).nextPageArgs).toBeUndefined();
  });

  it("runs the response handler on the result body", async () => {
    const { client } = upstream(() => ({ content: [], structuredContent: { items: [1, 2, 3], total: 3 } }));
    const tool = readTool().derived({ name: "read_count", responseHandler: (body) => ({ total: (body as { total: number }).total }) });
    const result = await tool.invoke({ path: "/a" }, { mcp: client });
    expect(result.output).toEqual({ total: 3 });
    expect(result.contextBytes).toBe(JSON.stringify({ total: 3 }).length);
  });

  it("turns isError into MCP_TOOL_ERROR carrying the server's text", async () => {
    const { client } = upstream(() => ({ content: [{ type: "text", text: "Access denied: /etc" }], isError: true }));
    const error = await readTool().call({ path: "/etc" }, { mcp: client }).catch((e: unknown) => e);
    expect(isSluiceError(error, "MCP_TOOL_ERROR")).toBe(true);
    expect((error as Error).message).toContain("Access denied: /etc");
  });

  it("ends a hung upstream call with TIMEOUT, and a cancelled one with ABORTED", async () => {
    const hung: McpUpstream = { callTool: () => new Promise(() => undefined) };
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: hung, timeoutMs: 50 }))).toBe("TIMEOUT");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: hung, signal: controller.signal }))).toBe("ABORTED");
  });

  it("hands the upstream one signal that ends on the deadline or the caller's cancellation; a signal aborted before the call sends nothing", async () => {
    const seen: AbortSignal[] = [];
    const hung: McpUpstream = { callTool: (_request, options) => (seen.push(options.signal!), new Promise(() => undefined)) };
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: hung, timeoutMs: 30 }))).toBe("TIMEOUT");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: hung, signal: controller.signal }))).toBe("ABORTED");
    expect(seen.map((signal) => signal.aborted)).toEqual([true, true]);
    // Cancelled once the deadline has passed: still the deadline's TIMEOUT.
    const late = new AbortController();
    const timedOut = readTool().call({ path: "/a" }, { mcp: hung, timeoutMs: 20, signal: late.signal });
    setTimeout(() => late.abort(), 60);
    expect(await codeOf(timedOut)).toBe("TIMEOUT");
    const before = new AbortController();
    before.abort();
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: hung, signal: before.signal }))).toBe("ABORTED");
    expect(seen).toHaveLength(3);
  });

  it("refuses an answer that is not a tools/call result", async () => {
    const broken: McpUpstream = { callTool: async () => ({ content: "nope" }) as unknown as McpToolResult };
    expect(await codeOf(readTool().call({ path: "/a" }, { mcp: broken }))).toBe("RESPONSE_INVALID");
  });

  it("request() shows the tools/call params without sending", async () => {
    const request = await readTool().derived({ name: "read_pinned", pin: { mode: "read" } }).request({ path: "/a" });
    expect(JSON.parse(request.body as string)).toEqual({ name: "read_file", arguments: { path: "/a", mode: "read" } });
  });

  it.each([
    ["an object without additionalProperties", {}],
    ["an open object (the dropped member stays as `false`)", { additionalProperties: true }],
  ])("forwards only the binding's arguments after a drop, of %s", async (_, openness) => {
    const { client, seen } = upstream(() => ({ content: [] }));
    const open = Tool.create({
      name: "search",
      description: "Searches.",
      inputSchema: { type: "object", properties: { query: { type: "string" }, scope: { type: "string" } }, ...openness },
      binding: { kind: "mcp", tool: "search", arguments: ["query", "scope"] },
    });
    await open.call({ query: "a", scope: "mine" }, { mcp: client });
    const narrowed = open.derived({ name: "search_any", drop: ["scope"] });
    // The binding follows the projection, so the last filter before the wire sends only `query`
    // even when everything in front of it (screening, the request filter) let `scope` through.
    expect(narrowed.binding).toEqual({ kind: "mcp", tool: "search", arguments: ["query"] });
    expect(mcpArguments(narrowed.binding as McpBinding, { query: "b", scope: "all" })).toEqual({ query: "b" });
    // With screening off the projected schema still refuses the dropped member: nothing is sent.
    expect(await codeOf(withoutGuard("withheldScreening", () => narrowed.call({ query: "b", scope: "all" }, { mcp: client })))).toBe("EGRESS_DENIED");
    await narrowed.call({ query: "c" }, { mcp: client });
    expect(seen.map((call) => call.arguments)).toEqual([{ query: "a", scope: "mine" }, { query: "c" }]);
  });
});

describe("an upstream's own secrets (McpUpstream.secrets)", () => {
  const KEY = "uk_9Zq+b/Xy=kLm2";
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const secretive = (answer: McpToolResult, given: readonly string[] = [KEY]): McpUpstream => ({
    async callTool(_request, options) {
      options.onProgress?.({ progress: 1, message: `with ${KEY}` });
      return answer;
    },
    secrets: () => given,
  });

  it("a binary block holding the key (at any byte alignment) is left out whole, a clean one passes as sent", async () => {
    const clean = { type: "image", data: b64("\x89PNG clean bytes"), mimeType: "image/png" };
    const answer: McpToolResult = {
      content: [
        clean,
        { type: "image", data: b64(`xy${KEY}`), mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///b", blob: b64(`z${KEY}`) } },
        { type: "text", text: `key ${KEY}` },
      ],
    };
    const progress: string[] = [];
    const result = await readTool().invoke({ path: "/a" }, { mcp: secretive(answer), onProgress: (p) => progress.push(p.message ?? "") });
    const content = result.mcpResult!.content;
    expect(content[0]).toEqual(clean);
    expect(content.slice(1, 3).map((block) => block.type)).toEqual(["text", "text"]);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(b64(KEY).slice(4, 16));
    expect(progress).toEqual(["with [redacted]"]);
  });

  it("a secret given as an Authorization value is redacted by its token, not by its scheme word", async () => {
    const answer: McpToolResult = { content: [{ type: "text", text: `Bearer tokens: you sent Bearer ${KEY}` }] };
    const result = await readTool().invoke({ path: "/a" }, { mcp: secretive(answer, [`Bearer ${KEY}`]) });
    expect(result.output).toBe("Bearer tokens: you sent Bearer [redacted]");
  });
});

describe("what a response handler of an MCP tool reads", () => {
  const image = { type: "image", data: Buffer.from("png bytes").toString("base64"), mimeType: "image/png" };
  const answering = (result: McpToolResult): McpUpstream => ({ callTool: async () => result });

  const cases: Array<[string, McpToolResult, unknown]> = [
    ["text and an image: the text only", { content: [{ type: "text", text: '{"a":1}' }, image] }, { a: 1 }],
    ["an image alone: nothing (null), never the image", { content: [image] }, null],
    ["structured content beside an image: the structured content", { content: [image], structuredContent: { b: 2 } }, { b: 2 }],
  ];
  it.each(cases)("%s", async (_name, result, want) => {
    const seen: unknown[] = [];
    const tool = readTool().derived({ name: "read_seen", responseHandler: (body) => (seen.push(body), body) });
    await tool.invoke({ path: "/a" }, { mcp: answering(result) });
    expect(seen).toEqual([want]);
  });

  it("without a handler, an image-only answer's output is its blocks as sent", async () => {
    const result = await readTool().invoke({ path: "/a" }, { mcp: answering({ content: [image] }) });
    expect(result.output).toEqual([image]);
  });
});
