/**
 * Per-caller credentials on a shared `serve --http`: each caller's bearer token selects
 * its own credential variables. Against an API on 127.0.0.1 that records the credential
 * of every request: caller A's credential never reaches a call of caller B, in seeded
 * interleavings of calls from both, and a caller holding another's session id is refused.
 */
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { definePack, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { createServer, serveHttp, ServedCatalog, type CallerCredentials, type HttpHandle } from "../src/index.ts";

const CALLERS: CallerCredentials[] = [
  { name: "alice", token: "alice-mcp-token-0123456789", env: { ACME_BEARER: "alice-api-key-0123456789" } },
  { name: "bob", token: "bob-mcp-token-0123456789ab", env: { ACME_BEARER: "bob-api-key-0123456789ab" } },
];
const OPERATOR = "operator-mcp-token-0123456789";

let apiUrl = "";
const received: { authorization: string | undefined; who: string | null }[] = [];
const api = createHttpServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received.push({ authorization: req.headers.authorization, who: new URL(req.url ?? "/", "http://x").searchParams.get("who") });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true }));
  });
});

// A generated-pack-like tool: its runtime names the variable of its one scheme.
const tools = definePack({
  name: "acme",
  defs: {},
  tools: [
    {
      name: "whoami",
      description: "Echo.",
      parameters: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
      binding: { kind: "http", method: "GET", path: "/whoami", server: "https://api.acme.example", parameters: [{ arg: "who", name: "who", in: "query", style: "form", explode: true, required: true }], auth: [[{ scheme: "bearer", type: "bearer" }]] },
      annotations: { readOnly: true },
    },
  ],
  runtime: { credentialEnv: { bearer: "ACME_BEARER" }, api: "acme" },
} as never).tools as readonly Tool<object>[];

let handle: HttpHandle;
beforeAll(async () => {
  await new Promise<void>((done) => api.listen(0, "127.0.0.1", done));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const catalog = new ServedCatalog([...tools]);
  handle = await serveHttp(
    (caller) => createServer(catalog, { call: { baseUrl: apiUrl, env: caller.kind === "caller" ? caller.env : { ACME_BEARER: "operator-api-key-0123456789" } } }),
    { port: 0, authToken: OPERATOR, callers: CALLERS },
  );
});
afterAll(async () => {
  await handle?.close();
  await new Promise((done) => api.close(done));
});

async function client(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const c = new Client({ name: "t", version: "0" });
  await c.connect(transport);
  return { client: c, transport };
}

const call = (c: Client, who: string) => c.callTool({ name: "whoami", arguments: { who } }) as Promise<CallToolResult>;

describe("per-caller credentials", () => {
  it("each caller's calls carry its own credential; the operator's carry the server's", async () => {
    const [alice, bob, operator] = await Promise.all([client(CALLERS[0]!.token), client(CALLERS[1]!.token), client(OPERATOR)]);
    received.length = 0;
    await call(alice.client, "alice");
    await call(bob.client, "bob");
    await call(operator.client, "operator");
    expect(received).toEqual([
      { authorization: "Bearer alice-api-key-0123456789", who: "alice" },
      { authorization: "Bearer bob-api-key-0123456789ab", who: "bob" },
      { authorization: "Bearer operator-api-key-0123456789", who: "operator" },
    ]);
    await Promise.all([alice, bob, operator].map(({ client: c }) => c.close()));
  });

  it("property: interleaved calls of both callers never carry the other's credential", async () => {
    const [alice, bob] = await Promise.all([client(CALLERS[0]!.token), client(CALLERS[1]!.token)]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("alice", "bob"), { minLength: 2, maxLength: 12 }), async (order) => {
        received.length = 0;
        // All in flight at once: the interleaving on the server is the scheduler's.
        const results = await Promise.all(order.map((who) => call(who === "alice" ? alice.client : bob.client, who)));
        expect(results.every((result) => result.isError !== true)).toBe(true);
        expect(received).toHaveLength(order.length);
        for (const request of received) expect(request.authorization).toBe(`Bearer ${request.who}-api-key-0123456789${request.who === "bob" ? "ab" : ""}`);
      }),
      { seed: 25, numRuns: 8 },
    );
    await Promise.all([alice, bob].map(({ client: c }) => c.close()));
  });

  it("a caller holding another caller's session id is refused like an unknown session, and the guard's test notices it off", async () => {
    const alice = await client(CALLERS[0]!.token);
    const session = alice.transport.sessionId!;
    const hijack = () =>
      fetch(handle.url, {
        method: "POST",
        headers: { authorization: `Bearer ${CALLERS[1]!.token}`, "mcp-session-id": session, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "whoami", arguments: { who: "bob" } } }),
      });
    received.length = 0;
    const refused = await hijack();
    expect(refused.status).toBe(404);
    expect(received).toEqual([]);

    const unguarded = await withoutGuard("callerCredentials", hijack);
    await unguarded.text();
    expect(unguarded.status).toBe(200);
    // Without the guard bob's call ran in alice's session, with alice's credential.
    expect(received).toEqual([{ authorization: "Bearer alice-api-key-0123456789", who: "bob" }]);
    await alice.client.close();
  });

  it("refuses callers sharing a token or a name, or with a weak token", async () => {
    const bad = (callers: CallerCredentials[]) => serveHttp(() => createServer(new ServedCatalog([...tools])), { port: 0, authToken: OPERATOR, callers });
    await expect(bad([CALLERS[0]!, { ...CALLERS[1]!, token: CALLERS[0]!.token }])).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(bad([CALLERS[0]!, { ...CALLERS[1]!, name: "alice" }])).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(bad([{ name: "carol", token: "short", env: {} }])).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(bad([{ name: "carol", token: OPERATOR, env: {} }])).rejects.toMatchObject({ code: "INVALID_OPTION" });
  });
});
