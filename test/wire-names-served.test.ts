/**
 * Issue 39 item 3 through the serving paths: `sluice serve` answers tools/call through the
 * same call() as a pack's own tools, so a key servers fold onto a withheld or pinned name
 * (`admin\u0000`, ` admin`) is refused there too, and nothing reaches the API. Driven by the
 * MCP SDK's client over its in-memory transport (what stdio serves) and over Streamable HTTP
 * on 127.0.0.1 (`serve --http`), against a recording server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { definePack, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { createServer, serveHttp, ServedCatalog } from "@sluice/mcp";
import { startRecordingServer, wireText, type RecordingServer } from "./support/recording-server.ts";
import { readableCanary } from "./support/server-name-readers.ts";

const CANARY = "CANARY_served_9c1e";

const spec = {
  openapi: "3.0.3",
  info: { title: "served", version: "1" },
  servers: [{ url: "https://api.example.test" }],
  paths: {
    "/items": {
      get: {
        operationId: "listItems",
        parameters: [
          { name: "filter", in: "query", schema: { type: "object", additionalProperties: { type: "string" } } },
          { name: "admin", in: "query", schema: { type: "string" } },
          { name: "pinme", in: "query", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

function narrowed(): Tool<object> {
  const tool = definePack(buildOpenAPIPackIR(spec, { name: "served", file: "s.json", sha256: "0".repeat(64) })).tools[0]!;
  return tool.derived({ name: "list_items_narrow", drop: ["admin"], pin: { pinme: "PINNED" } });
}

const KEYS = ["admin\u0000", " admin", "admin\u0000x", "[admin]", "!admin", " pinme", "pinme\u0000"];

let api: RecordingServer;
const clients: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  api = await startRecordingServer();
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await api.close();
});

async function inMemory(): Promise<Client> {
  const server = createServer(new ServedCatalog([narrowed()]), { call: { baseUrl: api.url } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  clients.push(client, server);
  return client;
}

async function overHttp(): Promise<Client> {
  const handle = await serveHttp(() => createServer(new ServedCatalog([narrowed()]), { call: { baseUrl: api.url } }), { port: 0 });
  clients.push(handle);
  const transport = new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${handle.authToken}` } } });
  const client = new Client({ name: "test", version: "0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe.each([
  ["in memory (as stdio serves)", inMemory],
  ["over Streamable HTTP", overHttp],
])("served %s", (_, connect) => {
  it("refuses every folded key with EGRESS_DENIED and sends nothing; a harmless key is sent", async () => {
    const client = await connect();
    const before = api.received.length;
    for (const key of KEYS) {
      const result = await client.callTool({ name: "list_items_narrow", arguments: { filter: { [key]: CANARY } } });
      expect(result.isError, JSON.stringify(key)).toBe(true);
      expect(text(result)).toMatch(/^EGRESS_DENIED: /);
    }
    expect(api.received.length).toBe(before);
    const ok = await client.callTool({ name: "list_items_narrow", arguments: { filter: { color: "red" } } });
    expect(ok.isError).toBeFalsy();
    expect(api.received.slice(before).map((r) => r.path)).toEqual(["/items?color=red&pinme=PINNED"]);
  });
});

describe("the served path has no check of its own", () => {
  it("with the wire-name guards off, the folded keys reach the API and PHP reads them as admin and pinme", async () => {
    const client = await inMemory();
    const before = api.received.length;
    await withoutGuard("wireNameScreening", () =>
      withoutGuard("wireNames", async () => {
        for (const key of KEYS) await client.callTool({ name: "list_items_narrow", arguments: { filter: { [key]: CANARY } } });
      }),
    );
    const received = api.received.slice(before);
    expect(received.length).toBe(KEYS.length);
    expect(received.every((r) => wireText(r).includes(CANARY))).toBe(true);
    const read = received.flatMap((r) => readableCanary({ url: r.path, headers: r.headers }, { query: ["admin", "pinme"], cookie: [], form: [] }, CANARY));
    expect(new Set(read.filter((r) => r.server === "php").map((r) => r.target))).toEqual(new Set(["admin", "pinme"]));
  });
});
