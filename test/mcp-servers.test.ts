/**
 * Packs from real MCP servers installed from npm (devDependencies of the workspace root,
 * never fetched at test time), called through the SDK client as `ctx.mcp`:
 * server-filesystem on a temporary folder (a projection that drops the writes and pins a
 * path: real reads answered, withheld arguments refused before anything reaches it),
 * server-memory, and server-everything (structured content, progress).
 *
 * Quick tier: server-filesystem. server-memory and server-everything run in the long tier
 * (support/tier.ts): each start of a server costs seconds on a loaded machine.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defaultResponseHandler, definePack, isSluiceError, type Tool } from "@sluice/core";
import { buildMcpPackIR, mcpResponseHints } from "@sluice/generator-mcp";
import { connectMcp, formatSnapshot, listConnected, listMcpTools, upstreamOf, type McpConnection, type McpSnapshot } from "@sluice/mcp-client";
import { LONG } from "./support/tier.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const server = (name: string) => join(ROOT, `node_modules/@modelcontextprotocol/server-${name}/dist/index.js`);
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

function toolsOf(snapshot: McpSnapshot, name: string): Map<string, Tool<object>> {
  const ir = buildMcpPackIR(snapshot, { name, file: "tools.snapshot.json", sha256: "0" });
  expect(ir.skipped).toEqual([]);
  const pack = definePack({ name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools });
  return new Map(pack.tools.map((tool) => [tool.name, tool]));
}

describe("server-filesystem on a temporary folder", () => {
  const folder = mkdtempSync(join(tmpdir(), "sluice-mcp-fs-"));
  let connection: McpConnection;
  let tools: Map<string, Tool<object>>;
  beforeAll(async () => {
    writeFileSync(join(folder, "notes.txt"), "first line\nsecond line\n");
    connection = await connectMcp({ command: process.execPath, args: [server("filesystem"), folder] });
    tools = toolsOf(await listConnected(connection), "fs");
  });
  afterAll(async () => {
    await connection?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("lists every tool with its annotations and generates each", () => {
    expect([...tools.keys()]).toEqual(expect.arrayContaining(["read_text_file", "write_file", "edit_file", "list_directory", "move_file"]));
    expect(tools.get("read_text_file")!.annotations.readOnly).toBe(true);
    expect(tools.get("write_file")!.annotations.readOnly).toBe(false);
    expect(tools.get("read_text_file")!.binding).toMatchObject({ kind: "mcp", tool: "read_text_file" });
  });

  it("answers a pinned read through the projection, and refuses withheld arguments before the server sees them", async () => {
    const file = join(folder, "notes.txt");
    const reader = tools.get("read_text_file")!.derived({ name: "read_notes", pin: { path: file }, drop: ["tail"] });
    const sent: unknown[] = [];
    const upstream = upstreamOf(connection.client);
    const recording = { callTool: (request: { name: string; arguments: Record<string, unknown> }, options: object) => (sent.push(request), upstream.callTool(request, options)) };
    const answer = await reader.call({ head: 1 }, { mcp: recording });
    expect(JSON.stringify(answer)).toContain("first line");
    expect(JSON.stringify(answer)).not.toContain("second line");
    expect(sent).toEqual([{ name: "read_text_file", arguments: { head: 1, path: file } }]);
    for (const args of [{ tail: 1 }, { path: "/etc/passwd" }]) {
      const error = await reader.call(args, { mcp: recording }).catch((e: unknown) => e);
      expect(isSluiceError(error, "EGRESS_DENIED")).toBe(true);
    }
    expect(sent).toHaveLength(1);
  });

  it("turns the server's own refusal into MCP_TOOL_ERROR", async () => {
    const error = await tools.get("read_text_file")!.call({ path: "/etc/hostname" }, { mcp: upstreamOf(connection.client) }).catch((e: unknown) => e);
    expect(isSluiceError(error, "MCP_TOOL_ERROR")).toBe(true);
    expect((error as Error).message).toMatch(/denied|outside|not allowed/i);
  });
});

describe("connecting", () => {
  it("Streamable HTTP on 127.0.0.1: a header from the environment reaches the server and nothing sluice writes", async () => {
    const seen: string[] = [];
    const http = createServer(async (req: IncomingMessage, res) => {
      seen.push(String(req.headers["x-api-key"]));
      // Stateless (no session id generator): a server and a transport per request.
      const server = new Server({ name: "http-tiny", version: "2.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "ping", description: "Pings.", inputSchema: { type: "object", properties: { n: { type: "integer" } } } }] }));
      const transport = new StreamableHTTPServerTransport({});
      res.on("close", () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await transport.handleRequest(req, res, chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8")));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const snapshot = await listMcpTools({ url, headers: { "X-Api-Key": { fromEnv: "HTTP_TINY_KEY" } } }, { env: { HTTP_TINY_KEY: "key-from-env-123" } });
      expect(snapshot.server).toEqual({ name: "http-tiny", version: "2.0.0" });
      expect(snapshot.tools.map((tool) => tool.name)).toEqual(["ping"]);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((value) => value === "key-from-env-123")).toBe(true);
      expect(formatSnapshot(snapshot)).not.toContain("key-from-env-123");
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("a stdio server that never answers is MCP_TIMEOUT, and its process is stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-mcp-silent-"));
    try {
      writeFileSync(join(dir, "silent.mjs"), `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(join(dir, "pid"))}, String(process.pid)); setInterval(() => {}, 1000);\n`);
      const error = await listMcpTools({ command: process.execPath, args: [join(dir, "silent.mjs")] }, { timeoutMs: 800 }).catch((e: unknown) => e);
      expect(isSluiceError(error, "MCP_TIMEOUT")).toBe(true);
      const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
      expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a command that does not exist is MCP_CONNECT_FAILED, not a crash", async () => {
    const error = await listMcpTools({ command: "/nonexistent/sluice-no-such-server" }, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(isSluiceError(error)).toBe(true);
    expect(["MCP_CONNECT_FAILED", "MCP_TIMEOUT"]).toContain((error as { code: string }).code);
  });
});

describe.skipIf(!LONG)("server-memory and server-everything (long tier)", () => {
  it("server-memory: every tool generated, a write and a read through the SDK client", async () => {
    const connection = await connectMcp({ command: process.execPath, args: [server("memory")], env: { MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), "sluice-mcp-memory-")), "memory.jsonl") } });
    try {
      const snapshot = await listConnected(connection);
      const tools = toolsOf(snapshot, "memory");
      expect([...tools.keys()].sort()).toEqual(["add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations", "open_nodes", "read_graph", "search_nodes"]);
      const ctx = { mcp: upstreamOf(connection.client) };
      // The default handler with the hints of the live output schema (as a generated pack's runtime gives it): the one-member envelope goes, every name stays.
      const hints = mcpResponseHints(snapshot, buildMcpPackIR(snapshot, { name: "memory", file: "tools.snapshot.json", sha256: "0" }).tools);
      expect(hints["create_entities"]).toEqual({ envelope: "entities" });
      const create = tools.get("create_entities")!.derived({ name: "create_entities", responseHandler: defaultResponseHandler(hints["create_entities"]) });
      const created = await create.invoke({ entities: [{ name: "sluice", entityType: "project", observations: ["narrows tools"] }] }, ctx);
      expect(created.body).toEqual({ entities: [{ name: "sluice", entityType: "project", observations: ["narrows tools"] }] });
      expect(created.output).toEqual([{ name: "sluice", entityType: "project", observations: ["narrows tools"] }]);
      const graph = await tools.get("read_graph")!.call({}, ctx);
      expect(JSON.stringify(graph)).toContain("narrows tools");
    } finally {
      await connection.close();
    }
  });

  it("server-everything: structured content is the body, progress passes through", async () => {
    const connection = await connectMcp({ command: process.execPath, args: [server("everything"), "stdio"] });
    try {
      const tools = toolsOf(await listConnected(connection), "everything");
      const ctx = { mcp: upstreamOf(connection.client) };
      const weather = await tools.get("get-structured-content")!.invoke({ location: "Chicago" }, ctx);
      expect(weather.output).toEqual(expect.objectContaining({ temperature: expect.any(Number), conditions: expect.any(String) }));
      const progress: number[] = [];
      await tools.get("trigger-long-running-operation")!.call({ duration: 1, steps: 2 }, { ...ctx, onProgress: (p) => progress.push(p.progress) });
      expect(progress.length).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }
  });
});
