/**
 * `sluice serve` stays answerable under hostile and heavy calls (issue 21, item 5):
 * - a call whose argument would take a backtracking engine hours against the tool's
 *   pattern completes, and tools/list from a second session is answered beside it;
 * - calls beyond --max-concurrent-calls wait, beyond --max-queued-calls they are refused
 *   with SERVER_BUSY (a tool error result in process, HTTP 503 for request bodies), and a
 *   small request is not held up behind large ones.
 * No wall-clock limits: completion and ordering only.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Tool } from "@sluice/core";
import { CallSlots, createServer, serveHttp, ServedCatalog, type SessionOptions } from "../src/index.ts";
import { heldFetch } from "./support.ts";

function patternTool(): Tool<object> {
  return Tool.create({
    name: "lookup",
    description: "Looks a thing up.",
    inputSchema: { type: "object", properties: { id: { type: "string", pattern: "^(a+)+$" } }, required: ["id"] },
    binding: {
      kind: "http",
      method: "GET",
      path: "/things/{id}",
      server: "https://api.example.test",
      parameters: [{ arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true }],
    },
    annotations: { readOnly: true },
  });
}


const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function httpServer(options: SessionOptions, http: { maxConcurrentCalls?: number; maxQueuedCalls?: number } = {}) {
  const catalog = new ServedCatalog([patternTool()]);
  const handle = await serveHttp(() => createServer(catalog, options), { port: 0, ...http });
  open.push(handle);
  const client = async () => {
    const c = new Client({ name: "t", version: "0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${handle.authToken}` } } }));
    open.push(c);
    return c;
  };
  return { handle, client };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("hostile patterns through sluice serve", () => {
  it("a 50,001-character argument against ^(a+)+$ is answered, and a second session's tools/list beside it", async () => {
    const { client } = await httpServer({ call: { fetch: heldFetch().fetch } });
    const [hostile, other] = await Promise.all([client(), client()]);
    const order: string[] = [];
    const call = hostile.callTool({ name: "lookup", arguments: { id: "a".repeat(50_000) + "b" } }).then((r) => (order.push("call"), r));
    const list = other.listTools().then((r) => (order.push("list"), r));
    const [result, listed] = await Promise.all([call, list]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^INVALID_ARGUMENTS: .*pattern/s);
    expect(listed.tools.map((t) => t.name)).toEqual(["lookup"]);
    expect(order.sort()).toEqual(["call", "list"]);
  });
});

describe("bounded concurrency", () => {
  it("in process: calls past the slots and queue get SERVER_BUSY; queued ones run when a slot frees", async () => {
    const upstream = heldFetch();
    const { client } = await httpServer({ call: { fetch: upstream.fetch }, callSlots: new CallSlots(1, 1) }, { maxConcurrentCalls: 8 });
    const c = await client();
    const first = c.callTool({ name: "lookup", arguments: { id: "aaa" } });
    // Wait until the first call is at the API, holding the only slot.
    while (upstream.started() === 0) await new Promise((resolve) => setImmediate(resolve));
    const queued = c.callTool({ name: "lookup", arguments: { id: "aa" } });
    const refused = await c.callTool({ name: "lookup", arguments: { id: "a" } });
    // The third call was answered while the first still waits on the API.
    expect(upstream.started()).toBe(1);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^SERVER_BUSY: /);
    expect(refused._meta).toEqual({ "sluice/error": { code: "SERVER_BUSY" } });
    // tools/list is not a call: it never waits for a call slot.
    expect((await c.listTools()).tools).toHaveLength(1);
    upstream.release();
    expect((await first).isError).toBeFalsy();
    expect((await queued).isError).toBeFalsy();
    expect(upstream.started()).toBe(2);
  });

  it("over HTTP: a large body past the slots is refused 503 SERVER_BUSY before it is read, while small requests go on", async () => {
    const upstream = heldFetch();
    const { handle, client } = await httpServer({ call: { fetch: upstream.fetch } }, { maxConcurrentCalls: 1, maxQueuedCalls: 0 });
    const c = await client();
    const large = "a".repeat(200_000);
    const held = c.callTool({ name: "lookup", arguments: { id: large } });
    while (upstream.started() === 0) await new Promise((resolve) => setImmediate(resolve));
    const response = await fetch(handle.url, {
      method: "POST",
      headers: { authorization: `Bearer ${handle.authToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup", arguments: { id: large } } }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^SERVER_BUSY: /);
    // A small request uses its own pool: answered while the large call still holds its slot.
    expect((await c.listTools()).tools).toHaveLength(1);
    expect(upstream.started()).toBe(1);
    upstream.release();
    expect((await held).isError).toBeFalsy();
  });

  it("a slot frees when its holder hangs up, and never goes negative", async () => {
    const slots = new CallSlots(1, 1);
    const a = await slots.acquire()!;
    const b = slots.acquire()!;
    expect(slots.acquire()).toBeUndefined();
    a();
    a(); // a second release of the same holder is ignored
    const releaseB = await b;
    expect([slots.active, slots.queued]).toEqual([1, 0]);
    releaseB();
    expect([slots.active, slots.queued]).toEqual([0, 0]);
  });
});
