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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { definePack, isSluiceError, type Tool } from "@sluice/core";
import { buildMcpPackIR, connectMcp, listConnected, upstreamOf, type McpConnection, type McpSnapshot } from "@sluice/generator-mcp";
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

describe.skipIf(!LONG)("server-memory and server-everything (long tier)", () => {
  it("server-memory: every tool generated, a write and a read through the SDK client", async () => {
    const connection = await connectMcp({ command: process.execPath, args: [server("memory")], env: { MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), "sluice-mcp-memory-")), "memory.jsonl") } });
    try {
      const tools = toolsOf(await listConnected(connection), "memory");
      expect([...tools.keys()].sort()).toEqual(["add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations", "open_nodes", "read_graph", "search_nodes"]);
      const ctx = { mcp: upstreamOf(connection.client) };
      await tools.get("create_entities")!.call({ entities: [{ name: "sluice", entityType: "project", observations: ["narrows tools"] }] }, ctx);
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
