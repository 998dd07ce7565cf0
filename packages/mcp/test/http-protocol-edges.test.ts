/**
 * Protocol edges of `serve --http`, in process on 127.0.0.1, with raw HTTP requests:
 * - `Origin: null` (a sandboxed frame, a file: page) is refused 403 with ORIGIN_REFUSED;
 * - ten concurrent requests that reuse one JSON-RPC id on one session are all answered:
 *   the one in flight by its result, the others by a JSON-RPC error (REQUEST_ID_IN_USE),
 *   where before some were never answered; an id may be used again once its request is done.
 * Each guard (`httpNullOrigin`, `httpDuplicateIds`) is switched off once to show the test fails.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { createServer, serveHttp, ServedCatalog, type HttpHandle } from "../src/index.ts";
import { heldFetch } from "./support.ts";

function heldTool(): Tool<object> {
  return Tool.create({
    name: "lookup",
    description: "Looks a thing up.",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
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


const handles: HttpHandle[] = [];
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const stop of aborts.splice(0)) stop.abort();
  for (const handle of handles.splice(0)) await handle.close();
});

async function serve() {
  const upstream = heldFetch();
  const catalog = new ServedCatalog([heldTool()]);
  const handle = await serveHttp(() => createServer(catalog, { call: { fetch: upstream.fetch } }), { port: 0 });
  handles.push(handle);
  const headers = { authorization: `Bearer ${handle.authToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const post = (body: unknown, extra: Record<string, string> = {}, signal?: AbortSignal) => fetch(handle.url, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body), ...(signal === undefined ? {} : { signal }) });
  return { handle, upstream, post };
}

/** Opens a session with raw requests; returns its id. */
async function session(post: (body: unknown, extra?: Record<string, string>) => Promise<Response>): Promise<string> {
  const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
  expect(init.status).toBe(200);
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const ack = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id });
  expect(ack.status).toBe(202);
  return id;
}

/** The JSON-RPC messages of a response, whether sent as JSON or as an SSE stream. */
async function messagesOf(response: Response): Promise<Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string; data?: { code?: string } } }>> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)));
  }
  return [JSON.parse(text)];
}

const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "lookup", arguments: { id: "x" } } });

/** Ten concurrent calls with id 7 on one session; how many were answered within `ms` after the API answered, and how. */
async function tenWithOneId(ms: number): Promise<{ answered: number; results: number; refused: Array<{ status: number; id: unknown; code?: string | undefined }> }> {
  const { post, upstream } = await serve();
  const id = await session(post);
  const stop = new AbortController();
  aborts.push(stop);
  const refused: Array<{ status: number; id: unknown; code?: string | undefined }> = [];
  let answered = 0;
  let results = 0;
  const all = Array.from({ length: 10 }, () =>
    post(call(7), { "mcp-session-id": id }, stop.signal)
      .then(async (response) => {
        for (const message of await messagesOf(response)) {
          if (message.error !== undefined) refused.push({ status: response.status, id: message.id, code: message.error.data?.code });
          else if (message.result !== undefined) results += 1;
        }
        answered += 1;
      })
      .catch(() => undefined),
  );
  // Every request at the server (at the API, or answered) before the API answers: they overlap.
  const deadline = Date.now() + 5_000;
  while (upstream.started() + refused.length < 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  upstream.release();
  await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, ms))]);
  return { answered, results, refused };
}

describe("serve --http protocol edges", () => {
  it("refuses Origin: null with a coded 403, and still serves a request without Origin", async () => {
    const { post } = await serve();
    const refused = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }, { origin: "null" });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe("ORIGIN_REFUSED");
    expect(body.error.message).toMatch(/^Forbidden: Origin null /);
    await session(post);
  });

  it("without httpNullOrigin, Origin: null opens a session (the guard is what refuses it)", async () => {
    await withoutGuard("httpNullOrigin", async () => {
      const { post } = await serve();
      await session((body, extra = {}) => post(body, { ...extra, origin: "null" }));
    });
  });

  it("answers every one of ten concurrent requests reusing one id: one result, nine REQUEST_ID_IN_USE errors", async () => {
    const { answered, results, refused } = await tenWithOneId(10_000);
    expect(answered).toBe(10);
    expect(results).toBe(1);
    expect(refused).toHaveLength(9);
    for (const error of refused) expect(error).toEqual({ status: 409, id: 7, code: "REQUEST_ID_IN_USE" });
  });

  it("lets an id be used again once its request was answered", async () => {
    const { post, upstream } = await serve();
    upstream.release();
    const id = await session(post);
    for (let round = 0; round < 3; round++) {
      const [message] = await messagesOf(await post(call(1), { "mcp-session-id": id }));
      expect(message?.result).toBeDefined();
    }
  });

  it("without httpDuplicateIds some of the ten are never answered (the hang the guard stops)", async () => {
    const { answered } = await withoutGuard("httpDuplicateIds", () => tenWithOneId(1_500));
    expect(answered).toBeLessThan(10);
  });
});
