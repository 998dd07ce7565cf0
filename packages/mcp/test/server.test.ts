/**
 * The server in process, over the SDK's in-memory transport: paging, fitting to a client
 * profile (and routing calls back through the original tool), structured content, error
 * results, credentials by API host, the line transport's handling of bad input, invalid
 * tools/call params, and the HTTP server's bearer token and host checks. The
 * spawned-process tests are in serve.test.ts; served sets (`*_full` twins) in
 * served-sets.test.ts.
 */
import { request as httpRequest } from "node:http";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Tool, type JsonSchemaObject } from "@sluice/core";
import { tools as linearTools } from "@sluice/pack-linear";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { tools as gmailTools } from "@sluice/pack-gmail";
import { createServer, LineTransport, serveHttp, ServedCatalog, toolAuthFromEnv, type SessionOptions } from "../src/index.ts";

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fetch that records requests and answers with `answer` (JSON), never touching the network. */
function fakeFetch(answer: unknown = { ok: true }, status = 200): { fetch: typeof globalThis.fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input),
      method: init?.method ?? "GET",
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      body: typeof init?.body === "string" ? init.body : undefined,
    });
    return new Response(JSON.stringify(answer), { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

function httpTool(name: string, extra: Partial<Parameters<typeof Tool.create>[0]> = {}): Tool<object> {
  return Tool.create({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties: { id: { type: "string" }, mode: { type: "string", enum: ["a", "b"] } }, required: ["id"] },
    binding: {
      kind: "http",
      method: "GET",
      path: "/things/{id}",
      server: "https://api.example.test",
      parameters: [
        { arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true },
        { arg: "mode", name: "mode", in: "query", style: "form", explode: true },
      ],
    },
    annotations: { readOnly: true, idempotent: true },
    ...extra,
  });
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function connect(catalog: ServedCatalog, options: SessionOptions = {}): Promise<Client> {
  const server = createServer(catalog, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

describe("tools/list", () => {
  it("pages by the requested size with opaque cursors, and refuses forged ones", async () => {
    const catalog = new ServedCatalog(["g", "c", "a", "f", "b", "e", "d"].map((n) => httpTool(`tool_${n}`)));
    const client = await connect(catalog, { pageSize: 3 });
    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(["tool_a", "tool_b", "tool_c"]);
    const second = await client.listTools({ cursor: first.nextCursor! });
    const third = await client.listTools({ cursor: second.nextCursor! });
    expect(third.tools.map((t) => t.name)).toEqual(["tool_g"]);
    expect(third.nextCursor).toBeUndefined();
    expect(first.tools[0]!.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    const forged = Buffer.from(JSON.stringify({ offset: 99 })).toString("base64url");
    await expect(client.listTools({ cursor: forged })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("cursor") });
    await expect(client.listTools({ cursor: "%%%" })).rejects.toMatchObject({ code: -32602 });
  });

  it("fits names to Claude Code's 64 characters with the server prefix, and routes calls to the original tool", async () => {
    const catalog = new ServedCatalog(stripeTools, { profile: "claude-code", serverName: "payments" });
    const renamed = catalog.tools.filter((t) => catalog.original(t.name)!.name !== t.name);
    expect(renamed.length).toBeGreaterThan(0);
    for (const tool of catalog.tools) expect(`mcp__payments__${tool.name}`.length).toBeLessThanOrEqual(64);

    const { fetch, sent } = fakeFetch({ id: "x", object: "thing" });
    const client = await connect(catalog, { call: { fetch, env: { STRIPE_API_KEY: "sk_test_1" } } });
    const wire = renamed[0]!;
    const original = catalog.original(wire.name)!;
    const required = (original.inputSchema.required as string[] | undefined) ?? [];
    const args = Object.fromEntries(required.map((name) => [name, "value_1"]));
    const result = await client.callTool({ name: wire.name, arguments: args });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(sent).toHaveLength(1);
    const binding = original.binding;
    expect(binding.kind).toBe("http");
    if (binding.kind === "http") expect(sent[0]!.method).toBe(binding.method);
    expect(sent[0]!.url.startsWith("https://api.stripe.com/")).toBe(true);
    expect(sent[0]!.headers.authorization).toBe("Bearer sk_test_1");
  });

  it("keeps pins through a renamed tool: the original is called", async () => {
    const long = "x".repeat(60);
    const pinned = httpTool(long).derived({ pin: { mode: "b" } });
    const catalog = new ServedCatalog([pinned], { profile: "cursor" });
    const wire = catalog.tools[0]!;
    expect(wire.name).not.toBe(long);
    expect(wire.name.length + "sluice".length).toBeLessThanOrEqual(59);
    const { fetch, sent } = fakeFetch();
    const client = await connect(catalog, { call: { fetch } });
    const listed = (await client.listTools()).tools[0]!;
    expect(Object.keys(listed.inputSchema.properties ?? {})).toEqual(["id"]);
    await client.callTool({ name: wire.name, arguments: { id: "42" } });
    expect(sent[0]!.url).toBe("https://api.example.test/things/42?mode=b");
    const refused = await client.callTool({ name: wire.name, arguments: { id: "42", mode: "a" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^EGRESS_DENIED: .*pinned/s);
  });

  it("under openai-strict, a client's nulls for members it leaves out are dropped before the original is called", async () => {
    const catalog = new ServedCatalog([httpTool("things_get").derived({ name: "things_get" })], { profile: "openai-strict", allowLossy: true });
    const listed = catalog.tools[0]!.inputSchema as { required?: string[] };
    expect(listed.required).toEqual(["id", "mode"]);
    const { fetch, sent } = fakeFetch();
    const client = await connect(catalog, { call: { fetch } });
    const answer = await client.callTool({ name: "things_get", arguments: { id: "42", mode: null } });
    expect(answer.isError).toBeUndefined();
    expect(sent[0]!.url).toBe("https://api.example.test/things/42");
    const refused = await client.callTool({ name: "things_get", arguments: { id: "42", mode: "c" } });
    expect(textOf(refused)).toMatch(/^INVALID_ARGUMENTS: /);
  });

  it("refuses a lossy fit unless allowed, and reports what a client would still reject", () => {
    expect(() => new ServedCatalog([httpTool("t")], { profile: "no-such-client" })).toThrow(/Unknown provider profile/);
    const many = Array.from({ length: 45 }, (_, i) => httpTool(`tool_${String(i).padStart(2, "0")}`));
    const catalog = new ServedCatalog(many, { profile: "cursor" });
    expect(catalog.findings.map((f) => f.code)).toEqual(["TOO_MANY_TOOLS"]);
  });
});

describe("tools/call results", () => {
  it("returns structuredContent only for tools with an output schema, and text always", async () => {
    const outputSchema: JsonSchemaObject = { type: "object", properties: { ok: { type: "boolean" } } };
    const catalog = new ServedCatalog([httpTool("with_schema"), httpTool("without_schema")], { outputSchemas: { with_schema: outputSchema } });
    const { fetch } = fakeFetch({ ok: true });
    const client = await connect(catalog, { call: { fetch } });
    const listed = (await client.listTools()).tools;
    expect(listed.find((t) => t.name === "with_schema")!.outputSchema).toEqual(outputSchema);
    expect(listed.find((t) => t.name === "without_schema")!.outputSchema).toBeUndefined();
    const structured = await client.callTool({ name: "with_schema", arguments: { id: "1" } });
    expect(structured.structuredContent).toEqual({ ok: true });
    expect(textOf(structured)).toBe('{"ok":true}');
    const plain = await client.callTool({ name: "without_schema", arguments: { id: "1" } });
    expect(plain.structuredContent).toBeUndefined();
    expect(textOf(plain)).toBe('{"ok":true}');
  });

  it("says so when a handler breaks the declared output shape", async () => {
    const tool = httpTool("lists").derived({ responseHandler: () => [1, 2] });
    const catalog = new ServedCatalog([tool], { outputSchemas: { lists: { type: "object" } } });
    const client = await connect(catalog, { call: fakeFetch() });
    const result = await client.callTool({ name: "lists", arguments: { id: "1" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^RESPONSE_INVALID: .*array/);
  });

  it("turns API failures into tool errors that start with the code", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const rateLimited = fakeFetch({ message: "slow down" }, 429);
    const client = await connect(catalog, { call: rateLimited });
    const limited = await client.callTool({ name: "t", arguments: { id: "1" } });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/^RATE_LIMITED: t: rate limited/);
    expect(limited._meta).toEqual({ "sluice/error": { code: "RATE_LIMITED", status: 429 } });

    const invalid = await client.callTool({ name: "t", arguments: { id: 5, extra: true } });
    expect(textOf(invalid)).toMatch(/^INVALID_ARGUMENTS: /);

    const broken = await connect(catalog, { call: { fetch: (async () => { throw new TypeError("fetch failed"); }) as typeof globalThis.fetch } });
    const network = await broken.callTool({ name: "t", arguments: { id: "1" } });
    expect(textOf(network)).toMatch(/^NETWORK_ERROR: /);
  });

  it("answers AUTH_MISSING naming the scheme, never a value, when the environment has no credential", async () => {
    const tool = linearTools.find((t) => t.name === "issue")!;
    const catalog = new ServedCatalog([tool]);
    const client = await connect(catalog, { call: { ...fakeFetch(), env: {} } });
    const result = await client.callTool({ name: "issue", arguments: { id: "ENG-1" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^AUTH_MISSING: .*apiKey/);
  });

  it("runs the search tool of a deferred session and refuses a search without a query", async () => {
    const catalog = new ServedCatalog([httpTool("alpha_get"), httpTool("beta_get")]);
    const client = await connect(catalog, { defer: { maxResults: 1 } });
    const bad = await client.callTool({ name: "tool_search", arguments: {} });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^INVALID_ARGUMENTS: /);
    await expect(client.callTool({ name: "gamma", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("credentials from the environment", () => {
  const find = (tools: readonly Tool<object>[], name: string) => tools.find((t) => t.name === name)!;
  const headersOf = async (tool: Tool<object>, args: Record<string, unknown>, env: Record<string, string>) => {
    const auth = toolAuthFromEnv(tool, env);
    // request() redacts credentials unless asked: these tests read the header a call would send.
    return (await tool.request(args, { credentials: auth.credentials, headers: auth.headers, revealCredentials: true })).headers;
  };

  it("Linear: a personal API key raw, an OAuth token as bearer", async () => {
    const issue = find(linearTools, "issue");
    expect((await headersOf(issue, { id: "1" }, { LINEAR_API_KEY: "lin_api_1" })).authorization).toBe("lin_api_1");
    expect((await headersOf(issue, { id: "1" }, { LINEAR_ACCESS_TOKEN: "oauth_1" })).authorization).toBe("Bearer oauth_1");
  });

  it("Stripe and Gmail by their schemes; GitHub REST, whose spec declares none, as a bearer header", async () => {
    const customers = find(stripeTools, "get_customers");
    expect((await headersOf(customers, {}, { STRIPE_API_KEY: "sk_1" })).authorization).toBe("Bearer sk_1");
    const labels = find(gmailTools, "gmail_users_labels_list");
    expect((await headersOf(labels, { userId: "me" }, { GOOGLE_ACCESS_TOKEN: "ya29" })).authorization).toBe("Bearer ya29");
    expect((await headersOf(labels, { userId: "me" }, { GMAIL_ACCESS_TOKEN: "gm", GOOGLE_ACCESS_TOKEN: "ya29" })).authorization).toBe("Bearer gm");
    const repo = githubRestTools.find((t) => t.name === "repos_get")!;
    expect((await headersOf(repo, { owner: "o", repo: "r" }, { GITHUB_TOKEN: "ghp_1" })).authorization).toBe("Bearer ghp_1");
    expect((await headersOf(repo, { owner: "o", repo: "r" }, {})).authorization).toBeUndefined();
  });
});

describe("LineTransport", () => {
  function pair(maxMessageBytes = 1024) {
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    let rest = "";
    output.on("data", (chunk: Buffer) => {
      rest += chunk.toString("utf8");
      const lines = rest.split("\n");
      rest = lines.pop()!;
      written.push(...lines);
    });
    const transport = new LineTransport(input, output, { maxMessageBytes });
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => received.push(message);
    return { input, written, received, transport };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it("skips an oversized line however it is chunked, answers its id, and reads the next message", async () => {
    const { input, written, received, transport } = pair(1024);
    await transport.start();
    input.write('{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"');
    for (let i = 0; i < 10; i++) input.write("y".repeat(500));
    input.write('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n');
    await tick();
    expect(written.map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: "2.0", id: "big-1", error: { code: -32600, message: expect.stringContaining("1024 bytes") } },
    ]);
    expect(received).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  });

  it("answers unreadable lines with id null, invalid messages with their id, ignores blank lines, and closes at end of input", async () => {
    const { input, written, received, transport } = pair();
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    input.write('\n{"a":\n[]\n{"jsonrpc":"1.0","id":3,"method":"x"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await tick();
    expect(written.map((line) => JSON.parse(line).error.code)).toEqual([-32700, -32600, -32600]);
    expect(written.map((line) => JSON.parse(line).id)).toEqual([null, null, 3]);
    expect(received).toHaveLength(1);
    input.end();
    await tick();
    expect(closed).toBe(true);
  });
});

describe("invalid tools/call params", () => {
  const calls: Array<[string, unknown]> = [
    ["a string", "{\"id\":\"1\"}"],
    ["an array", [{ id: "1" }]],
    ["a number", 5],
    ["null", null],
  ];

  /** One JSON-RPC exchange over the stdio line transport, in process. */
  async function overStdio(lines: readonly unknown[]): Promise<Array<{ id: unknown; error?: { code: number; message: string }; result?: CallToolResult }>> {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = "";
    output.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    const { fetch } = fakeFetch();
    const server = createServer(new ServedCatalog([httpTool("t")]), { call: { fetch } });
    await server.connect(new LineTransport(input, output));
    open.push(server);
    for (const line of lines) input.write(JSON.stringify(line) + "\n");
    const want = lines.length;
    for (let i = 0; i < 200 && text.split("\n").filter(Boolean).length < want; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  }

  it.each(calls)("arguments that are %s get -32602 in one line over stdio; the next call is served", async (_kind, value) => {
    const answers = await overStdio([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: value } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", arguments: { id: "1" } } },
    ]);
    const bad = answers.find((a) => a.id === 1)!;
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/^Invalid params: the arguments of "t" must be a JSON object/);
    expect(bad.error?.message).not.toMatch(/\n/);
    expect(bad.error!.message.length).toBeLessThan(200);
    expect(answers.find((a) => a.id === 2)?.result?.isError).toBeFalsy();
  });

  it("a missing or non-string tool name is -32602 in one line too", async () => {
    const answers = await overStdio([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 7 } },
    ]);
    for (const answer of answers) {
      expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params: tools\/call needs the tool's name/) });
      expect(answer.error!.message).not.toMatch(/\n/);
    }
  });

  it("screening problems stay tool results with isError: a withheld or pinned field, a wrong type", async () => {
    const pinned = httpTool("t").derived({ pin: { mode: "a" } });
    const { fetch, sent } = fakeFetch();
    const client = await connect(new ServedCatalog([pinned]), { call: { fetch } });
    const denied = await client.callTool({ name: "t", arguments: { id: "1", mode: "b" } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/^EGRESS_DENIED: /);
    const invalid = await client.callTool({ name: "t", arguments: { id: 5 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^INVALID_ARGUMENTS: /);
    // Arguments left out entirely are an empty object: the tool reports its missing required id.
    const missing = await client.callTool({ name: "t" });
    expect(textOf(missing)).toMatch(/^INVALID_ARGUMENTS: /);
    expect(sent).toHaveLength(0);
  });

  it.each(calls)("arguments that are %s get -32602 in one line over HTTP", async (_kind, value) => {
    const handle = await serveHttp(() => createServer(new ServedCatalog([httpTool("t")]), { call: fakeFetch() }), { port: 0 });
    open.push(handle);
    const authorization = `Bearer ${handle.authToken}`;
    const transport = new StreamableHTTPClientTransport(new URL(handle.url), { requestInit: { headers: { authorization } } });
    const client = new Client({ name: "t", version: "0" });
    await client.connect(transport);
    open.push(client);
    const response = await fetch(handle.url, {
      method: "POST",
      headers: {
        authorization,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "t", arguments: value } }),
    });
    const body = await response.text();
    const json = body.startsWith("{") ? body : /^data: (.*)$/m.exec(body)![1]!;
    const answer = JSON.parse(json) as { id: number; error?: { code: number; message: string } };
    expect(answer).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) } });
    expect(answer.error!.message).not.toMatch(/\n/);
    expect((await client.callTool({ name: "t", arguments: { id: "1" } })).isError).toBeFalsy();
  });
});

describe("HTTP", () => {
  const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } });
  const rawPost = (url: string, host: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const target = new URL(url);
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on("error", reject);
      req.end(INITIALIZE);
    });
  const withToken = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

  it("on loopback, refuses foreign Host headers (DNS rebinding) and serves loopback ones", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const handle = await serveHttp(() => createServer(catalog), { port: 0 });
    open.push(handle);
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const port = new URL(handle.url).port;
    const authorization = `Bearer ${handle.authToken}`;
    expect((await rawPost(handle.url, `attacker.example:${port}`, { authorization })).status).toBe(403);
    expect((await rawPost(handle.url, `localhost:${port}`, { authorization })).status).toBe(200);
    const client = new Client({ name: "t", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), withToken(handle.authToken)));
    open.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["t"]);
  });

  it("closes the least recently used session beyond maxSessions", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const handle = await serveHttp(() => createServer(catalog), { port: 0, maxSessions: 2 });
    open.push(handle);
    const clients: Client[] = [];
    for (let i = 0; i < 3; i++) {
      const client = new Client({ name: `c${i}`, version: "0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), withToken(handle.authToken)));
      clients.push(client);
      open.push(client);
    }
    expect(handle.sessions).toBe(2);
    await expect(clients[0]!.listTools()).rejects.toThrow();
    expect((await clients[2]!.listTools()).tools).toHaveLength(1);
  });

  it("without a token given, generates one (32 random bytes, base64url) and answers 401 to requests without it", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const [first, second] = await Promise.all([serveHttp(() => createServer(catalog), { port: 0 }), serveHttp(() => createServer(catalog), { port: 0 })]);
    open.push(first!, second!);
    expect(first!.generatedToken).toBe(true);
    expect(first!.authToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first!.authToken, "base64url")).toHaveLength(32);
    expect(second!.authToken).not.toBe(first!.authToken);
    const host = new URL(first!.url).host;
    for (const headers of [{}, { authorization: `Bearer ${second!.authToken}` }, { authorization: first!.authToken }, { authorization: `Basic ${first!.authToken}` }, { authorization: `Bearer ${first!.authToken}x` }]) {
      const refused = await rawPost(first!.url, host, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(String(refused.headers["www-authenticate"])).toMatch(/^Bearer( |$)/);
      const body = JSON.parse(refused.body) as { jsonrpc: string; id: null; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringMatching(/^Unauthorized: /) } });
      expect(body.error.message).not.toContain(first!.authToken);
    }
    // Every path and method needs it, not only the MCP endpoint.
    const get = await fetch(first!.url.replace(/\/mcp$/, "/other"), { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(401);
    expect((await rawPost(first!.url, host, { authorization: `bearer ${first!.authToken}` })).status).toBe(200);
    const anonymous = new Client({ name: "t", version: "0" });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(first!.url)))).rejects.toThrow();
  });

  it("tells a client that tries OAuth that it takes a static bearer token: which header, which flag or variable", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const handle = await serveHttp(() => createServer(catalog), { port: 0 });
    open.push(handle);
    const host = new URL(handle.url).host;
    const refused = await rawPost(handle.url, host);
    expect(refused.status).toBe(401);
    // RFC 6750: the scheme, no error code for a request without credentials, no resource_metadata (there is no OAuth).
    expect(refused.headers["www-authenticate"]).toBe('Bearer realm="sluice"');
    const body = JSON.parse(refused.body) as { error: { message: string; data: unknown } };
    expect(body.error.message).toContain("Authorization: Bearer <token>");
    expect(body.error.message).toMatch(/--auth-token.*SLUICE_MCP_TOKEN/);
    expect(body.error.data).toMatchObject({ header: "Authorization", scheme: "Bearer", oauth: false });
    const wrong = await rawPost(handle.url, host, { authorization: "Bearer not-the-token-of-this-server" });
    expect(String(wrong.headers["www-authenticate"])).toMatch(/^Bearer realm="sluice", error="invalid_token", error_description="[\x20\x21\x23-\x5B\x5D-\x7E]+"$/);
    expect(String(wrong.headers["www-authenticate"])).not.toContain("resource_metadata");
    // The discovery documents and the legacy OAuth endpoints answer 404 with an OAuth error body, without a token.
    const origin = new URL(handle.url).origin;
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/mcp/.well-known/openid-configuration", "/register", "/token"]) {
      const answer = await fetch(origin + path);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("not OAuth") });
    }
    // An OAuth-aware client (the SDK's, as MCP Inspector uses it) ends its attempt with that explanation.
    const provider = {
      redirectUrl: "http://127.0.0.1:1/callback",
      clientMetadata: { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "inspector-like" },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => undefined,
      saveCodeVerifier: () => undefined,
      codeVerifier: () => "verifier",
    };
    const oauthClient = new Client({ name: "oauth", version: "0" });
    await expect(oauthClient.connect(new StreamableHTTPClientTransport(new URL(handle.url), { authProvider: provider }))).rejects.toThrow(/static bearer token, not OAuth: send the header Authorization: Bearer <token>/);
  });

  it("uses the token given; refuses a weak one and a non-loopback bind without one, in one coded line", async () => {
    const catalog = new ServedCatalog([httpTool("t")]);
    const token = "a-token-chosen-by-the-operator_0123456789";
    const handle = await serveHttp(() => createServer(catalog), { port: 0, authToken: token });
    open.push(handle);
    expect(handle).toMatchObject({ authToken: token, generatedToken: false });
    const client = new Client({ name: "t", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url), withToken(token)));
    open.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["t"]);

    for (const weak of ["", "short", "has spaces in the middle of it", "x".repeat(15)]) {
      await expect(serveHttp(() => createServer(catalog), { port: 0, authToken: weak })).rejects.toMatchObject({ code: "INVALID_OPTION" });
    }
    for (const host of ["0.0.0.0", "::", "192.0.2.1"]) {
      const refusal = serveHttp(() => createServer(catalog), { port: 0, host });
      await expect(refusal).rejects.toMatchObject({ code: "INVALID_OPTION", message: expect.stringContaining(`Refusing to bind ${host} without an auth token`) });
      await expect(refusal).rejects.toSatisfy((error: Error) => !error.message.includes("\n"));
    }
  });
});
