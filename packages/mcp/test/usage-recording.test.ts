/**
 * createServer's usage record, in process over the SDK's in-memory transport: the tools each
 * tools/list page sent (their union over pages), each call of a served tool by its wire
 * name, the search tool and what it loads when deferred; never an argument, never a name the
 * server does not serve.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Tool } from "@sluice/core";
import { openUsageStore } from "@sluice/catalog/usage";
import { createServer, serveHttp, ServedCatalog, type SessionOptions } from "../src/index.ts";

const root = mkdtempSync(join(tmpdir(), "sluice-mcp-usage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SECRET = "ghp_usageRecordingSecret0123456789abcdef";

const tools = ["alpha", "beta", "gamma"].map((name) =>
  Tool.create({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
    binding: { kind: "http", method: "GET", path: `/${name}`, parameters: [{ arg: "q", name: "q", in: "query", style: "form", explode: true, required: false }] },
  }),
);

const fetchOk: typeof globalThis.fetch = async () => new Response(JSON.stringify({ ok: true }), { status: 200, headers: { "content-type": "application/json" } });

async function connected(dir: string, options: SessionOptions): Promise<Client> {
  const store = openUsageStore({ dir });
  const server = createServer(new ServedCatalog(tools), { ...options, usage: store.session("packs/x"), call: { fetch: fetchOk, baseUrl: "https://api.example" } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "usage", version: "0" });
  await client.connect(clientSide);
  return client;
}

function records(dir: string): { declared: { tools: Record<string, number> }; invoked: Record<string, number> }[] {
  const folder = join(dir, "sessions");
  return readdirSync(folder).map((file) => JSON.parse(readFileSync(join(folder, file), "utf8")));
}

describe("createServer's usage record", () => {
  it("declares every tools/list page and counts calls of served tools by wire name", async () => {
    const dir = join(root, "paged");
    const client = await connected(dir, { pageSize: 2 });
    const first = await client.listTools();
    await client.listTools({ cursor: first.nextCursor! });
    const answer = await client.callTool({ name: "beta", arguments: { q: SECRET } });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    await client.callTool({ name: "beta", arguments: {} });
    await client.callTool({ name: SECRET, arguments: {} }).catch(() => undefined);
    await client.close();
    const [record, ...rest] = records(dir);
    expect(rest).toEqual([]);
    expect(Object.keys(record!.declared.tools)).toEqual(["alpha", "beta", "gamma"]);
    expect(record!.invoked).toEqual({ beta: 2 });
    expect(readdirSync(join(dir, "sessions")).map((file) => readFileSync(join(dir, "sessions", file), "utf8")).join("")).not.toContain(SECRET);
  });

  it("deferred: the search tool, then what it loads once listed again", async () => {
    const dir = join(root, "deferred");
    const client = await connected(dir, { defer: true });
    await client.listTools();
    await client.callTool({ name: "tool_search", arguments: { query: "select:gamma" } });
    await client.listTools();
    await client.callTool({ name: "gamma", arguments: {} });
    await client.close();
    const [record] = records(dir);
    expect(Object.keys(record!.declared.tools)).toEqual(["gamma", "tool_search"]);
    expect(record!.invoked).toEqual({ gamma: 1, tool_search: 1 });
  });
});

describe("over Streamable HTTP", () => {
  it("each session of one server has its own record, two of them at once", async () => {
    const dir = join(root, "http");
    const store = openUsageStore({ dir });
    const catalog = new ServedCatalog(tools);
    const handle = await serveHttp(() => createServer(catalog, { usage: store.session("packs/x"), call: { fetch: fetchOk, baseUrl: "https://api.example" } }), { port: 0 });
    try {
      const session = async (calls: string[]) => {
        const client = new Client({ name: "usage", version: "0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${handle.authToken}` } } }));
        await client.listTools();
        for (const name of calls) await client.callTool({ name, arguments: {} });
        await client.close();
      };
      await Promise.all([session(["alpha", "alpha"]), session(["gamma"])]);
    } finally {
      await handle.close();
    }
    const invoked = records(dir).map((record) => record.invoked).sort((a, b) => Object.keys(a)[0]!.localeCompare(Object.keys(b)[0]!));
    expect(invoked).toEqual([{ alpha: 2 }, { gamma: 1 }]);
  });
});
