/**
 * The upstream's own secret never reaches the model through the proxy. A hostile server
 * (test/fixtures/mcp/hostile-server.mjs, started over stdio) is given an API key through
 * `mcp.env: { UPSTREAM_KEY: { fromEnv } }` and echoes it in every place a tools/call answer
 * has: text in assorted spellings, structuredContent values and keys at depth, embedded
 * resource text and URI, resource_link fields, block `_meta`, an error result, a JSON-RPC
 * error and a progress message. Everything the client gets is searched for every spelling
 * the server used. The guard `redaction` switched off shows the key gets through. A
 * Streamable HTTP server echoing the headers it was sent (a `fromEnv` key, a literal
 * `Authorization: Bearer` of the config) is held to the same.
 */
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { definePack, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { makeSnapshot } from "@sluice/mcp-client";
import { createServer, McpProxy, ServedCatalog, UpstreamManager, type UpstreamSource } from "@sluice/mcp";
import { buildMcpPackIR } from "../generators/mcp/src/build-pack-ir.ts";
import { ROOT } from "./support/mcp-pack.ts";

const SERVER = join(ROOT, "test/fixtures/mcp/hostile-server.mjs");
const KEY = "hk_live_7Qx+9Zr/Kp=Wd3é";
const ENV = { TEST_UPSTREAM_KEY: KEY };
const SOURCE: UpstreamSource = { command: process.execPath, args: [SERVER], env: { UPSTREAM_KEY: { fromEnv: "TEST_UPSTREAM_KEY" } } };
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64").replace(/=+$/, "");

/** Every spelling of the key the hostile server writes (base64 of a pair: the part after `user:`). */
const SPELLINGS = [KEY, KEY.toUpperCase(), encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1), b64(KEY), b64(`user:${KEY}`).slice(8), b64(`blob ${KEY}`).slice(8)];
const leaks = (text: string) => SPELLINGS.filter((form) => text.includes(form));

let proxy: McpProxy;
let client: Client;
let served: ReturnType<typeof createServer>;
const lines: string[] = [];

beforeAll(async () => {
  // The lock: the hostile server's own listing (its definitions carry no secret).
  const lister = new UpstreamManager(SOURCE, { env: ENV });
  const listing = await lister.listTools();
  await lister.close();
  const snapshot = makeSnapshot(listing.server, listing.protocolVersion, listing.tools);
  const tools = definePack(buildMcpPackIR(snapshot, { name: "hostile", file: "tools.snapshot.json", sha256: "" })).tools as Tool<object>[];
  proxy = new McpProxy(SOURCE, snapshot, { env: ENV, log: (line) => lines.push(line) });
  await proxy.start();
  served = createServer(new ServedCatalog(tools), { gate: proxy, call: { mcp: proxy.mcp, timeoutMs: 20_000 }, log: (line) => lines.push(line) });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await served.connect(serverSide);
  client = new Client({ name: "redaction-test", version: "1.0.0" });
  await client.connect(clientSide);
}, 30_000);

afterAll(async () => {
  await client?.close();
  await served?.close();
  await proxy?.close();
});

/** The whole answer as the client got it (result or protocol error), progress messages included. */
async function seen(name: string): Promise<string> {
  const progress: string[] = [];
  try {
    const result = await client.callTool({ name, arguments: {} }, undefined, { onprogress: (p) => progress.push(JSON.stringify(p)) });
    return JSON.stringify(result) + progress.join("\n");
  } catch (error) {
    return `${(error as Error).message}\n${JSON.stringify(error)}${progress.join("\n")}`;
  }
}

const PLACES: Array<[string, string]> = [
  ["text blocks (as is, percent-encoded, base64, Basic pair, JSON-escaped twice, upper case)", "echo_text"],
  ["structuredContent values and keys, deep", "echo_structured"],
  ["embedded resource text, URI and blob; resource_link uri, name, title, description; block _meta", "echo_resources"],
  ["an error result", "echo_error_result"],
  ["a JSON-RPC error", "echo_rpc_error"],
  ["a progress message", "echo_progress"],
];

describe("a hostile upstream echoing the key it was given", () => {
  it("the proxy knows the key as a secret of the upstream", () => {
    expect(proxy.upstream.secrets()).toContain(KEY);
  });

  it.each(PLACES)("%s: redacted", async (_place, tool) => {
    const text = await seen(tool);
    expect(leaks(text)).toEqual([]);
    if (tool !== "echo_progress") expect(text).toContain("[redacted]");
    expect(leaks(lines.join("\n"))).toEqual([]);
  });

  it("with the redaction guard off, the key reaches the client (the guard is what stops it)", async () => {
    const through = await withoutGuard("redaction", async () => Promise.all(PLACES.map(([, tool]) => seen(tool))));
    expect(through.map((text) => leaks(text).length > 0)).toEqual(PLACES.map(() => true));
  });
});

describe("a Streamable HTTP upstream echoing the headers sluice sends it", () => {
  it("neither the fromEnv key header nor a literal Authorization header in the config reaches the client", async () => {
    const KEY_HEADER = "hk_http_5Tz+w/Qe=Rt8";
    const BEARER = "bt_literal_9Yx2Lm4Pq7";
    const http = createHttpServer(async (req: IncomingMessage, res) => {
      // Stateless: a server and a transport per request; the one tool answers with what it was sent.
      const server = new Server({ name: "http-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "whoami", description: "Says who called.", inputSchema: { type: "object", properties: {} } }] }));
      server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [{ type: "text", text: `you sent ${req.headers["authorization"]} and key=${encodeURIComponent(String(req.headers["x-api-key"]))}` }],
        structuredContent: { headers: { authorization: req.headers["authorization"], key: req.headers["x-api-key"] } },
      }));
      const transport = new StreamableHTTPServerTransport({});
      res.on("close", () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await transport.handleRequest(req, res, chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8")));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const source: UpstreamSource = { url, headers: { Authorization: `Bearer ${BEARER}`, "X-Api-Key": { fromEnv: "HTTP_ECHO_KEY" } } };
    const env = { HTTP_ECHO_KEY: KEY_HEADER };
    const lister = new UpstreamManager(source, { env });
    const listing = await lister.listTools();
    await lister.close();
    const snapshot = makeSnapshot(listing.server, listing.protocolVersion, listing.tools);
    const tools = definePack(buildMcpPackIR(snapshot, { name: "httpecho", file: "tools.snapshot.json", sha256: "" })).tools as Tool<object>[];
    const httpProxy = new McpProxy(source, snapshot, { env });
    const server = createServer(new ServedCatalog(tools), { gate: httpProxy, call: { mcp: httpProxy.mcp, timeoutMs: 20_000 } });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const httpClient = new Client({ name: "redaction-http-test", version: "1.0.0" });
    try {
      await httpProxy.start();
      await server.connect(serverSide);
      await httpClient.connect(clientSide);
      const text = JSON.stringify(await httpClient.callTool({ name: "whoami", arguments: {} }));
      expect(text).toContain("you sent Bearer [redacted]");
      for (const secret of [KEY_HEADER, encodeURIComponent(KEY_HEADER), BEARER]) expect(text).not.toContain(secret);
    } finally {
      await httpClient.close();
      await server.close();
      await httpProxy.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  }, 30_000);
});
