/**
 * serveStdio hands each checked message to the SDK Protocol's handler for its kind instead
 * of letting the SDK try its response schemas on every request (serve-stdio.ts,
 * dispatchByShape). The same exchange, with and without the shortcut, gives the same
 * answers; and the SDK's private handlers the shortcut needs are there (an SDK upgrade that
 * renames them fails here, and serving falls back to the SDK's own sorting).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport, serveStdio } from "../src/index.ts";
import { dispatchByShape } from "../src/serve-stdio.ts";

const EXCHANGE = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: "two", method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 3, method: "ping" },
  { jsonrpc: "2.0", id: 4, method: "no/such/method", params: { _meta: { progressToken: 9 } } },
  // A response to a request never sent, and an error without an id: the SDK reports both to onerror and answers nothing.
  { jsonrpc: "2.0", id: 99, result: {} },
  { jsonrpc: "2.0", error: { code: -1, message: "stray" } },
  { jsonrpc: "2.0", id: 5, method: "ping" },
];

function newServer(): { server: Server; errors: string[] } {
  const server = new Server({ name: "dispatch-test", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }));
  const errors: string[] = [];
  server.onerror = (error) => errors.push(error.message);
  return { server, errors };
}

async function exchange(shortcut: boolean): Promise<{ answers: unknown[]; errors: string[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const { server, errors } = newServer();
  if (shortcut) await serveStdio(server, { input, output });
  else await server.connect(new LineTransport(input, output));
  for (const message of EXCHANGE) input.write(JSON.stringify(message) + "\n");
  const deadline = Date.now() + 10_000;
  while (text.split("\n").filter(Boolean).length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await server.close();
  return { answers: text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown), errors };
}

describe("serveStdio's dispatch by message shape", () => {
  it("is on with the SDK this repository pins", () => {
    const { server } = newServer();
    const transport = new LineTransport(new PassThrough(), new PassThrough());
    expect(dispatchByShape(server, transport)).toBe(true);
  });

  it("answers an exchange exactly as the SDK's own sorting does", async () => {
    const sorted = await exchange(false);
    const direct = await exchange(true);
    expect(direct).toEqual(sorted);
    const byId = new Map(direct.answers.map((answer) => [(answer as { id: unknown }).id, answer as { result?: unknown; error?: { code: number } }]));
    expect([...byId.keys()].sort()).toEqual([1, 3, 4, 5, "two"]);
    expect(byId.get(4)!.error!.code).toBe(-32601);
    expect(byId.get("two")!.result).toEqual({ tools: [{ name: "t", inputSchema: { type: "object" } }] });
    expect(direct.errors).toHaveLength(2);
  });
});
