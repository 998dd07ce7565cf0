/**
 * `sluice serve` as a real child process, driven by the MCP SDK's Client over stdio and
 * over Streamable HTTP on 127.0.0.1, calling the local API servers of test/support:
 * Linear's real SDL behind a GraphQL mock, Gmail's OpenAPI document behind a REST mock,
 * and an upstream that never answers (for calls in flight when a client leaves).
 *
 * Servers start in parallel (pack loading through tsx takes a couple of seconds each):
 * the whole Linear pack over stdio and over HTTP (generated bearer token), the documented
 * example module (plus one Slack tool) deferred behind a search tool, over stdio and over
 * HTTP (--auth-token), and the served sets: Gmail and GitHub REST over stdio (no *_full
 * twins), Gmail over HTTP with --include-full (token from SLUICE_MCP_TOKEN).
 *
 * The quick tier leaves two kinds of child to the long tier (test/support/tier.ts), each
 * with the same behaviour still tested in the quick tier: the GitHub REST server (a pack
 * load of its own for one case; its twin refusal is served-sets.test.ts's in process, and
 * the start-up summary is the Gmail server's here), and the three refusals at start, which
 * throw before serve touches the process (signals, stdio) and so run the CLI's main in the
 * worker (packages/cli/test/support/run-in-process.ts).
 *
 * The quick tier also runs two of the HTTP servers (the whole Linear pack, and Gmail with
 * --include-full) by the CLI's main in the worker (support.ts startHttpInProcess): the same
 * serve code on the same port and protocol, with its signals and exit taken from a stand-in
 * (Io.process). Its three stdio servers run there too (support.ts WorkerStdioTransport: serve
 * speaks over two in-memory streams given as ServeIo.stdio, the same line transport as on a
 * process's stdin and stdout), so that only the deferred module over HTTP (whose Linear
 * credential would clash with the pack's in one environment, and whose SIGTERM is the bin's
 * own) is a child; the long tier starts all of them as children.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { startGraphQLServer, startOpenApiMockServer, type GraphQLServer, type OpenApiMockServer } from "../../../test/support/servers/index.ts";
import { LONG } from "../../../test/support/tier.ts";
import { BIN, ChildStdioTransport, childEnv, ROOT, startHangingServer, startHttpChild, startHttpInProcess, waitFor, WorkerStdioTransport, type HttpChild, type HttpServed } from "./support.ts";
import { listToolPages } from "../../../test/support/list-tool-pages.ts";

const LINEAR_SDL = `${ROOT}packs/linear/spec/schema.graphql`;
const GMAIL_SPEC = `${ROOT}packs/gmail/spec/gmail-v1.yaml`;
const FIXTURE = `${ROOT}packages/mcp/test/fixtures/triage.ts`;
const PAGE = 100;
const MAX_MESSAGE = 256 * 1024;
const MAX_ARGUMENTS = 64 * 1024;

let gql: GraphQLServer;
let gmail: OpenAPIMock;
let hang: Awaited<ReturnType<typeof startHangingServer>>;
type OpenAPIMock = OpenApiMockServer;

let packStdio: ChildStdioTransport | WorkerStdioTransport;
let packStdioClient: Client;
let packHttp: HttpServed;
let deferredStdio: StdioClientTransport | WorkerStdioTransport;
let deferredStdioClient: Client;
/** What the deferred stdio server wrote on stderr: the SDK transport's pipe (a child), or the worker's server's. */
let deferredStdioStderr = () => "";
let deferredHttp: HttpChild;
let gmailStdio: ChildStdioTransport | WorkerStdioTransport;
let gmailStdioClient: Client;
let githubStdio: ChildStdioTransport;
let githubStdioClient: Client;
let gmailFullHttp: HttpServed;

const DEFERRED_TOKEN = "deferred-test-token-0123456789abcdef";
const GMAIL_TOKEN = "gmail-full-test-token-0123456789";
const GMAIL_PAGE = 20;

const clients: Client[] = [];

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  expect(content[0]?.type).toBe("text");
  return (content[0] as { text: string }).text;
}

async function listAll(client: Client): Promise<{ tools: McpTool[]; pages: number[] }> {
  const listed = await listToolPages(client);
  return { tools: listed.flatMap((page) => page.tools), pages: listed.map((page) => page.tools.length) };
}

/** The token a served child expects: the generated one it printed, or the one it was given. */
function tokenOf(served: HttpServed): string {
  if (served === deferredHttp) return DEFERRED_TOKEN;
  if (served === gmailFullHttp) return GMAIL_TOKEN;
  return served.generatedToken!;
}

async function httpClient(served: HttpServed): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${tokenOf(served)}` } } });
  const client = new Client({ name: "sluice-test", version: "0" });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

beforeAll(async () => {
  [gql, gmail, hang] = await Promise.all([
    startGraphQLServer({ sdlFile: LINEAR_SDL, listLength: 3 }),
    startOpenApiMockServer({ specFile: GMAIL_SPEC, listLength: 3 }),
    startHangingServer(),
  ]);
  const packArgs = ["linear", "--base-url", `${gql.url}/graphql`, "--max-message-bytes", String(MAX_MESSAGE), "--max-argument-bytes", String(MAX_ARGUMENTS)];
  const packEnv = childEnv({ LINEAR_API_KEY: "lin_api_test" });
  const deferredArgs = [
    FIXTURE,
    "--defer",
    "--base-url",
    `api.linear.app=${gql.url}/graphql`,
    "--base-url",
    `gmail.googleapis.com=${gmail.url}`,
    "--base-url",
    `slack.com=${hang.url}`,
  ];
  const deferredEnv = childEnv({ LINEAR_ACCESS_TOKEN: "lin_oauth_test", GOOGLE_ACCESS_TOKEN: "google_test", SLACK_TOKEN: "xoxb-test" });

  // The worker's variables first: the stdio servers in the worker read them at start and at each call.
  if (!LONG) {
    setWorkerEnv({ LINEAR_API_KEY: "lin_api_test", GOOGLE_ACCESS_TOKEN: "google_test", SLACK_TOKEN: "xoxb-test", SLUICE_USAGE: "off", SLUICE_BASE_URL: undefined, SLUICE_MCP_TOKEN: undefined });
  }
  const gmailArgs = ["gmail", "--base-url", gmail.url, "--page-size", String(GMAIL_PAGE)];
  packStdio = LONG ? new ChildStdioTransport(packArgs, packEnv) : new WorkerStdioTransport(packArgs);
  packStdioClient = new Client({ name: "sluice-test", version: "0" });
  if (LONG) {
    const child = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", ...deferredArgs], cwd: ROOT, env: deferredEnv, stderr: "pipe" });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    deferredStdio = child;
    deferredStdioStderr = () => stderr;
  } else {
    // Its calls go to Gmail and Slack; its Linear tool is only refused (not loaded), so the
    // worker lacks the child's LINEAR_ACCESS_TOKEN, which the pack server's calls beside it could read.
    const worker = new WorkerStdioTransport(deferredArgs);
    deferredStdio = worker;
    deferredStdioStderr = () => worker.stderr;
  }
  deferredStdioClient = new Client({ name: "sluice-test", version: "0" });
  gmailStdio = LONG ? new ChildStdioTransport(gmailArgs, childEnv({ GOOGLE_ACCESS_TOKEN: "google_test" })) : new WorkerStdioTransport(gmailArgs);
  gmailStdioClient = new Client({ name: "sluice-test", version: "0" });
  if (LONG) {
    githubStdio = new ChildStdioTransport(["github-rest", "--base-url", hang.url], childEnv({ GITHUB_TOKEN: "ghp_test" }));
    githubStdioClient = new Client({ name: "sluice-test", version: "0" });
  }
  const gmailFullArgs = ["gmail", "--include-full", "--base-url", gmail.url];
  // In the worker, one after the other: what each reads at start (SLUICE_MCP_TOKEN) is set for it alone.
  const inWorker = async (): Promise<[HttpServed, HttpServed]> => {
    const pack = await startHttpInProcess(packArgs, { SLUICE_MCP_TOKEN: undefined });
    return [pack, await startHttpInProcess(gmailFullArgs, { SLUICE_MCP_TOKEN: GMAIL_TOKEN })];
  };
  let inWorkerServers: [HttpServed, HttpServed];
  [inWorkerServers, deferredHttp] = await Promise.all([
    LONG
      ? Promise.all([startHttpChild(packArgs, packEnv), startHttpChild(gmailFullArgs, childEnv({ GOOGLE_ACCESS_TOKEN: "google_test", SLUICE_MCP_TOKEN: GMAIL_TOKEN }))])
      : inWorker(),
    startHttpChild([...deferredArgs, "--auth-token", DEFERRED_TOKEN], deferredEnv),
    packStdioClient.connect(packStdio),
    deferredStdioClient.connect(deferredStdio),
    gmailStdioClient.connect(gmailStdio),
    ...(LONG ? [githubStdioClient.connect(githubStdio)] : []),
  ]);
  [packHttp, gmailFullHttp] = inWorkerServers;
});

/** The worker's variables before setWorkerEnv, put back after the file. */
const savedEnv = new Map<string, string | undefined>();
/** What the in-worker servers read from the environment at a call (credentials) or start; a child gets childEnv() instead. */
function setWorkerEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!savedEnv.has(key)) savedEnv.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await Promise.allSettled([
    packStdioClient?.close(),
    deferredStdioClient?.close(),
    gmailStdioClient?.close(),
    githubStdioClient?.close(),
    packHttp?.stop(),
    deferredHttp?.stop(),
    gmailFullHttp?.stop(),
  ]);
  await Promise.allSettled([gql?.close(), gmail?.close(), hang?.close()]);
  for (const [key, value] of savedEnv) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("a whole pack over stdio", () => {
  it("lists hundreds of tools in pages, with annotations from the bindings", async () => {
    const { tools, pages } = await listAll(packStdioClient);
    expect(tools.length).toBeGreaterThan(500);
    expect(pages.length).toBe(Math.ceil(tools.length / PAGE));
    expect(pages.slice(0, -1).every((n) => n === PAGE)).toBe(true);
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    const issues = tools.find((t) => t.name === "issues_list")!;
    expect(issues.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(issues.inputSchema.type).toBe("object");
    expect(tools.find((t) => t.name === "issue_delete")?.annotations?.destructiveHint).toBe(true);
  });

  it("refuses a cursor it did not hand out", async () => {
    await expect(packStdioClient.listTools({ cursor: "bm90IGEgY3Vyc29y" })).rejects.toMatchObject({ code: -32602 });
  });

  it("calls a curated tool end to end, with the API key from the environment", async () => {
    const before = gql.received.length;
    const result = await packStdioClient.callTool({ name: "issues_list", arguments: { first: 2, filter: { title: { containsIgnoreCase: "search" } } } });
    expect(result.isError).toBeFalsy();
    const output = JSON.parse(text(result)) as { nodes: unknown[] };
    expect(output.nodes).toHaveLength(2);
    const request = gql.received[before]!;
    expect(request.headers.authorization).toBe("lin_api_test");
    expect((request.json as { variables: unknown }).variables).toEqual({ first: 2, filter: { title: { containsIgnoreCase: "search" } } });
    expect(gql.errors).toEqual([]);
  });

  it("refuses a withheld argument without calling the API, in words a model can act on", async () => {
    const before = gql.received.length;
    const result = await packStdioClient.callTool({ name: "issues_list", arguments: { filter: { and: [{ title: { eq: "x" } }] } } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^EGRESS_DENIED: issues_list refused the call/);
    expect(text(result)).toContain('"and" is withheld');
    expect(gql.received.length).toBe(before);
  });

  it("answers an unknown tool with a protocol error naming the closest tool, then the next call", async () => {
    await expect(packStdioClient.callTool({ name: "issues_lst", arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("issues_list") });
    const result = await packStdioClient.callTool({ name: "issues_list", arguments: { first: 1 } });
    expect(result.isError).toBeFalsy();
  });

  it("refuses arguments over --max-argument-bytes as a tool error", async () => {
    const before = gql.received.length;
    const result = await packStdioClient.callTool({ name: "issues_list", arguments: { filter: { title: { contains: "x".repeat(MAX_ARGUMENTS + 10) } } } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INVALID_ARGUMENTS: .*exceed/s);
    expect(gql.received.length).toBe(before);
  });

  it("survives malformed JSON-RPC and oversized messages, and answers the next request", async () => {
    packStdio.writeRaw("{this is not json\n");
    packStdio.writeRaw('{"jsonrpc":"2.0","id":77,"method":5}\n');
    packStdio.writeRaw("[1,2,3]\n");
    packStdio.writeRaw(`{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"issues_list","arguments":{"x":"${"a".repeat(MAX_MESSAGE)}"}}}\n`);
    // A message split across writes, the way a pipe may deliver it.
    packStdio.writeRaw('{"jsonrpc":"2.0","id":9002,"meth');
    packStdio.writeRaw('od":"no/such/method"}\n');
    await waitFor(() => packStdio.answersTo(9002).length > 0, "the answer to 9002");
    const nulls = packStdio.answersTo(null).map((a) => a.error?.code);
    expect(nulls).toEqual([-32700, -32600]);
    expect(packStdio.answersTo(77)[0]?.error?.code).toBe(-32600);
    expect(packStdio.answersTo(9001)[0]?.error).toMatchObject({ code: -32600, message: expect.stringContaining("too large") });
    expect(packStdio.answersTo(9002)[0]?.error?.code).toBe(-32601);

    const result = await packStdioClient.callTool({ name: "issues_list", arguments: { first: 1 } });
    expect(result.isError).toBeFalsy();
    expect((await packStdioClient.listTools()).tools).toHaveLength(PAGE);
    expect(packStdio.stderr).not.toContain("lin_api_test");
  });
});

describe("invalid tools/call params through sluice serve", () => {
  it("over stdio: arguments that are a string, an array, a number or null get -32602 in one line", async () => {
    const values: unknown[] = ['{"first":1}', [1], 5, null];
    values.forEach((value, i) => packStdio.writeRaw(JSON.stringify({ jsonrpc: "2.0", id: 7100 + i, method: "tools/call", params: { name: "issues_list", arguments: value } }) + "\n"));
    await waitFor(() => packStdio.answersTo(7100 + values.length - 1).length > 0, "the answers to the bad calls");
    for (let i = 0; i < values.length; i++) {
      const error = packStdio.answersTo(7100 + i)[0]?.error;
      expect(error, JSON.stringify(values[i])).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params: the arguments of "issues_list" must be a JSON object/) });
      expect(error!.message).not.toContain("\n");
    }
    expect((await packStdioClient.callTool({ name: "issues_list", arguments: { first: 1 } })).isError).toBeFalsy();
  });

  it("over HTTP: the same, and screening problems stay tool results", async () => {
    const { client, transport } = await httpClient(packHttp);
    const post = async (id: number, args: unknown) => {
      const response = await fetch(packHttp.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tokenOf(packHttp)}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId!,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "issues_list", arguments: args } }),
      });
      const body = await response.text();
      return JSON.parse(body.startsWith("{") ? body : /^data: (.*)$/m.exec(body)![1]!) as { id: number; error?: { code: number; message: string } };
    };
    for (const [i, value] of (['{"first":1}', [1], 5, null] as unknown[]).entries()) {
      const answer = await post(7200 + i, value);
      expect(answer.error, JSON.stringify(value)).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params: /) });
      expect(answer.error!.message).not.toContain("\n");
    }
    const invalid = await client.callTool({ name: "issues_list", arguments: { first: "two" } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^INVALID_ARGUMENTS: /);
  });
});

describe("the example module, deferred, over stdio", () => {
  it("lists only the search tool until a load, then sends tools/list_changed", async () => {
    let changed = 0;
    deferredStdioClient.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    expect(deferredStdioClient.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect((await deferredStdioClient.listTools()).tools.map((t) => t.name)).toEqual(["tool_search"]);

    const search = await deferredStdioClient.callTool({ name: "tool_search", arguments: { query: "select:gmail_search,gmail_read_headers" } });
    expect(text(search)).toContain("Loaded 2 tools");
    await waitFor(() => changed === 1, "tools/list_changed");
    const listed = (await deferredStdioClient.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(["tool_search", "gmail_search", "gmail_read_headers"]);
    expect(listed[1]!.outputSchema?.type).toBe("object");

    // Loading nothing new announces nothing.
    await deferredStdioClient.callTool({ name: "tool_search", arguments: { query: "select:gmail_search" } });
    await deferredStdioClient.ping();
    expect(changed).toBe(1);
  });

  it("calls a narrowed Gmail tool: pins sent, structured content returned", async () => {
    const before = gmail.received.length;
    const result = await deferredStdioClient.callTool({ name: "gmail_search", arguments: { q: "is:unread" } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { messages: Array<{ id: string }> };
    expect(structured.messages).toHaveLength(3);
    expect(JSON.parse(text(result))).toEqual(structured);
    const request = gmail.received[before]!;
    expect(request.path).toBe("/gmail/v1/users/me/messages?includeSpamTrash=false&q=is%3Aunread");
    expect(request.headers.authorization).toBe("Bearer google_test");
    expect(gmail.violations).toEqual([]);
  });

  it("refuses a pinned argument, and a tool that is not loaded yet says how to load it", async () => {
    const pinned = await deferredStdioClient.callTool({ name: "gmail_search", arguments: { userId: "someone@example.com" } });
    expect(pinned.isError).toBe(true);
    expect(text(pinned)).toMatch(/^EGRESS_DENIED: .*pinned/s);
    const unloaded = await deferredStdioClient.callTool({ name: "linear_find_issues", arguments: {} });
    expect(unloaded.isError).toBe(true);
    expect(text(unloaded)).toContain('select:linear_find_issues');
  });

  it("cancels a call in flight when the client does, and answers the next one", async () => {
    await deferredStdioClient.callTool({ name: "tool_search", arguments: { query: "select:conversations_history" } });
    const controller = new AbortController();
    const before = hang.received.length;
    const dropped = hang.dropped;
    const pending = deferredStdioClient.callTool({ name: "conversations_history", arguments: { channel: "C123" } }, undefined, { signal: controller.signal });
    await waitFor(() => hang.received.length > before, "the call to reach the upstream");
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The server passed the cancellation on: it hung up on the upstream.
    await waitFor(() => hang.dropped > dropped, "the upstream call to be abandoned");
    const next = await deferredStdioClient.callTool({ name: "gmail_read_headers", arguments: { id: "m1" } });
    expect(next.isError).toBeFalsy();
    expect(next.structuredContent).toMatchObject({ headers: expect.any(Object) });
    expect(deferredStdioStderr()).not.toMatch(/google_test|xoxb-test|lin_oauth_test/);
  });
});

describe("a whole pack over Streamable HTTP on 127.0.0.1", () => {
  it("binds loopback and pages through every tool", async () => {
    expect(packHttp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await httpClient(packHttp);
    const { tools, pages } = await listAll(client);
    expect(tools.length).toBeGreaterThan(500);
    expect(pages.length).toBe(Math.ceil(tools.length / PAGE));
  });

  it("calls a curated tool end to end and refuses a withheld argument", async () => {
    const { client } = await httpClient(packHttp);
    const before = gql.received.length;
    const ok = await client.callTool({ name: "issues_list", arguments: { first: 3 } });
    expect(ok.isError).toBeFalsy();
    expect((JSON.parse(text(ok)) as { nodes: unknown[] }).nodes).toHaveLength(3);
    expect(gql.received[before]?.headers.authorization).toBe("lin_api_test");
    const refused = await client.callTool({ name: "issues_list", arguments: { filter: { or: [] } } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^EGRESS_DENIED/);
    expect(gql.received.length).toBe(before + 1);
  });

  it("answers malformed bodies, foreign hosts and oversized bodies with errors, then serves the next request", async () => {
    const { client, transport } = await httpClient(packHttp);
    const headers = {
      authorization: `Bearer ${tokenOf(packHttp)}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": transport.sessionId!,
      "mcp-protocol-version": "2025-06-18",
    };
    const malformed = await fetch(packHttp.url, { method: "POST", headers, body: "{nope" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);

    const rebinding = await fetch(packHttp.url, { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body: "{}" });
    expect(rebinding.status).toBe(403);

    const huge = await fetch(packHttp.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "issues_list", arguments: { x: "a".repeat(MAX_MESSAGE) } } }),
    });
    expect(huge.status).toBe(413);

    const unknownSession = await fetch(packHttp.url, { method: "POST", headers: { ...headers, "mcp-session-id": "nope" }, body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }) });
    expect(unknownSession.status).toBe(404);

    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const next = await client.callTool({ name: "issues_list", arguments: { first: 1 } });
    expect(next.isError).toBeFalsy();
  });
});

describe("the example module, deferred, over Streamable HTTP", () => {
  it("announces loaded tools with tools/list_changed and calls them", async () => {
    const { client } = await httpClient(deferredHttp);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["tool_search"]);
    const search = await client.callTool({ name: "tool_search", arguments: { query: "linear issues" } });
    expect(text(search)).toContain("linear_find_issues");
    await waitFor(() => changed > 0, "tools/list_changed over HTTP");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names[0]).toBe("tool_search");
    expect(names).toContain("linear_find_issues");

    const before = gql.received.length;
    const found = await client.callTool({ name: "linear_find_issues", arguments: { first: 2 } });
    expect(found.isError).toBeFalsy();
    const output = JSON.parse(text(found)) as { nodes: Array<Record<string, unknown>>; pageInfo: { endCursor: string } };
    expect(output.nodes).toHaveLength(2);
    expect(Object.keys(output.nodes[0]!).sort()).toEqual(["assignee", "dueDate", "id", "identifier", "priority", "state", "title"]);
    expect(output.pageInfo.endCursor).toEqual(expect.any(String));
    const request = gql.received[before]!;
    expect(request.headers.authorization).toBe("Bearer lin_oauth_test");
    expect((request.json as { variables: Record<string, unknown> }).variables).toEqual({ first: 2, includeArchived: false });

    // Sessions are separate: a second client starts with the search tool alone.
    const { client: other } = await httpClient(deferredHttp);
    expect((await other.listTools()).tools.map((t) => t.name)).toEqual(["tool_search"]);
  });

  it("keeps serving when a client disconnects mid-call", async () => {
    const { client, transport } = await httpClient(deferredHttp);
    await client.callTool({ name: "tool_search", arguments: { query: "select:conversations_history,gmail_search" } });
    const controller = new AbortController();
    const before = hang.received.length;
    const dropped = hang.dropped;
    const inFlight = fetch(deferredHttp.url, {
      method: "POST",
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${DEFERRED_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 4242, method: "tools/call", params: { name: "conversations_history", arguments: { channel: "C1" } } }),
    }).then((response) => response.text());
    await waitFor(() => hang.received.length > before, "the call to reach the upstream");
    controller.abort();
    await expect(inFlight).rejects.toThrow();
    await waitFor(() => hang.dropped > dropped, "the upstream call to be abandoned");

    const next = await client.callTool({ name: "gmail_search", arguments: { q: "from:ada" } });
    expect(next.isError).toBeFalsy();
    const { client: fresh } = await httpClient(deferredHttp);
    expect((await fresh.listTools()).tools).toHaveLength(1);
    expect(deferredHttp.child.exitCode).toBeNull();
  });
});

describe("the bearer token of Streamable HTTP", () => {
  it("is generated and printed once when none is given; a request without it gets 401", async () => {
    const token = packHttp.generatedToken!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(packHttp.stderr().split(token)).toHaveLength(2);
    const anonymous = await fetch(packHttp.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await anonymous.json()) as { error: { code: number } }).error.code).toBe(-32000);
    const wrong = await fetch(packHttp.url, { method: "POST", headers: { authorization: `Bearer ${DEFERRED_TOKEN}`, "content-type": "application/json" }, body: "{}" });
    expect(wrong.status).toBe(401);
  });

  it("comes from --auth-token or SLUICE_MCP_TOKEN when given, and is then not printed", async () => {
    expect(deferredHttp.generatedToken).toBeUndefined();
    expect(deferredHttp.stderr()).not.toContain(DEFERRED_TOKEN);
    expect(deferredHttp.stderr()).toContain("the token from --auth-token");
    expect(gmailFullHttp.stderr()).not.toContain(GMAIL_TOKEN);
    expect(gmailFullHttp.stderr()).toContain("the token from SLUICE_MCP_TOKEN");
    const refused = await fetch(gmailFullHttp.url, { method: "POST", headers: { authorization: `Bearer ${DEFERRED_TOKEN}`, "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(401);
    const { client } = await httpClient(gmailFullHttp);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("binding beyond loopback without a given token is refused at start, in one coded line", async () => {
    // A child in the long tier; main in the worker in the quick tier, with the variables a
    // child of childEnv() would lack unset (SLUICE_MCP_TOKEN would be a given token).
    const run = (args: string[], env: Record<string, string>) =>
      LONG ? runChild(args, env) : inWorker(["serve", ...args]);
    // Imported here: the CLI's sources load only for the quick tier's case, not at collection.
    const inWorker = async (args: string[]) =>
      (await import("../../cli/test/support/run-in-process.ts")).runInProcess(args, { cwd: ROOT, env: { SLUICE_MCP_TOKEN: undefined, SLUICE_BASE_URL: undefined } });
    const runChild = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "serve", ...args], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk;
        });
        const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
        child.once("exit", (code) => {
          clearTimeout(timer);
          resolve({ code, stderr });
        });
      });
    const refused = await run(["gdocs", "--http", "0", "--host", "0.0.0.0"], childEnv());
    expect(refused.code).toBe(2);
    const lines = refused.stderr.split("\n").filter((line) => line.startsWith("sluice:"));
    expect(lines).toEqual([expect.stringMatching(/^sluice: INVALID_OPTION: Refusing to bind 0\.0\.0\.0 without an auth token/)]);
    expect(refused.stderr).not.toContain("listening on");
    // Refused before the pack is loaded: no "serving N tools" line, nothing about credentials.
    expect(refused.stderr).not.toContain("serving ");
    expect(refused.stderr).toContain("--auth-token TOKEN or SLUICE_MCP_TOKEN");
    const misplaced = await run(["gdocs", "--auth-token", GMAIL_TOKEN], childEnv());
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/^sluice: INVALID_OPTION: --auth-token applies to --http only/);
    const noSlots = await run(["gdocs", "--max-concurrent-calls", "0"], childEnv());
    expect(noSlots.code).toBe(2);
    expect(noSlots.stderr).toMatch(/^sluice: INVALID_OPTION: --max-concurrent-calls/);
  });
});

describe("served sets through sluice serve", () => {
  it("gmail: tools/list on every page has no *_full twin, and the summary says how many were left out", async () => {
    const { tools, pages } = await listAll(gmailStdioClient);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((n) => n === GMAIL_PAGE)).toBe(true);
    expect(tools.filter((t) => t.name.endsWith("_full"))).toEqual([]);
    expect(tools.map((t) => t.name)).toContain("gmail_users_messages_list");
    expect(gmailStdio.stderr).toContain(`serving ${tools.length} tools from gmail (68 *_full twins left out; --include-full serves them)`);
  });

  it("gmail: gmail_users_messages_list_full cannot be called; nothing reaches the API", async () => {
    const before = gmail.received.length;
    await expect(
      gmailStdioClient.callTool({ name: "gmail_users_messages_list_full", arguments: { userId: "me", access_token: "leak", callback: "cb", key: "k" } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("is not served") });
    const refused = await gmailStdioClient.callTool({ name: "gmail_users_messages_list", arguments: { userId: "me", access_token: "leak" } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^EGRESS_DENIED: /);
    expect(gmail.received.length).toBe(before);
  });

  // Long tier: a server process of its own for this case (served-sets.test.ts: the same refusal in process).
  it.runIf(LONG)("github-rest: apps_create_installation_access_token_full cannot be called", async () => {
    const before = hang.received.length;
    await expect(
      githubStdioClient.callTool({ name: "apps_create_installation_access_token_full", arguments: { installation_id: 1, permissions: { administration: "write" } } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("twin of apps_create_installation_access_token") });
    const { tools } = await listAll(githubStdioClient);
    expect(tools.filter((t) => t.name.endsWith("_full"))).toEqual([]);
    expect(githubStdio.stderr).toMatch(/serving \d+ tools from github-rest \(2 \*_full twins left out/);
    expect(hang.received.length).toBe(before);
  });

  it("gmail with --include-full: the twins are listed, said so at start, and callable", async () => {
    const { client } = await httpClient(gmailFullHttp);
    const { tools } = await listAll(client);
    expect(tools).toHaveLength(136);
    expect(tools.map((t) => t.name)).toContain("gmail_users_messages_list_full");
    expect(gmailFullHttp.stderr()).toContain("serving 136 tools from gmail (68 *_full twins included)");
    const before = gmail.received.length;
    const result = await client.callTool({ name: "gmail_users_messages_list_full", arguments: { userId: "me", access_token: "sent-as-asked" } });
    expect(result.isError, text(result)).toBeFalsy();
    expect(gmail.received[before]?.path).toContain("access_token=sent-as-asked");
  });
});

describe("shutting down", () => {
  it("exits cleanly when the stdio client closes stdin, and on SIGTERM over HTTP", async () => {
    await packStdioClient.close();
    expect(await packStdio.exited).toBe(0);
    expect(packStdio.stderr).toContain("stopped (stdin closed)");
    expect(await packHttp.stop()).toBe(0);
    expect(packHttp.stderr()).toContain("stopped (SIGTERM)");
    // A child in both tiers (packHttp is in the worker in the quick tier): the bin's own process takes the real signal.
    expect(await deferredHttp.stop()).toBe(0);
    expect(deferredHttp.stderr()).toContain("stopped (SIGTERM)");
  });
});
