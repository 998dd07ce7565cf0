/**
 * The runtime of a generated pack, built from its facts: a hand-made pack (two HTTP tools
 * and a GraphQL connection) called against a server started here on 127.0.0.1, with
 * credentials and the GraphQL endpoint read from an environment given to the runtime.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  credentialsFromEnv,
  credentialStatus,
  definePack,
  generatedRuntime,
  relayPagination,
  type Binding,
  type GraphQLBinding,
  type HttpBinding,
  type RuntimeFacts,
  type ToolIR,
} from "../../src/index.ts";

interface Received {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

const received: Received[] = [];
let base = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const url = new URL(req.url!, "http://x");
    const entry = { path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
    received.push(entry);
    route(entry, res);
  });
});

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Three pages everywhere: cursors c1, c2; Link pages 2, 3; GraphQL end cursors e1, e2. */
function route(request: Received, res: ServerResponse): void {
  if (request.path === "/items") {
    const page = Number((request.query.get("cursor") ?? "c0").slice(1));
    return json(res, { items: [{ id: `item${page}` }], next_cursor: page < 2 ? `c${page + 1}` : null, has_more: page < 2 });
  }
  if (request.path === "/events") {
    const page = Number(request.query.get("page") ?? "1");
    const link = page < 3 ? { link: `<${base}/events?page=${page + 1}&per_page=1>; rel="next", <${base}/events?page=3&per_page=1>; rel="last"` } : {};
    return json(res, [{ id: `event${page}` }], link);
  }
  if (request.path === "/graphql") {
    const after = (JSON.parse(request.body) as { variables?: { after?: string } }).variables?.after;
    const page = after === undefined ? 0 : Number(after.slice(1));
    return json(res, { data: { issues: { nodes: [{ id: `issue${page}` }], pageInfo: { hasNextPage: page < 2, endCursor: `e${page + 1}` } } } });
  }
  res.writeHead(404);
  res.end();
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const apiKey = { scheme: "apiKey", type: "apiKey", in: "header", name: "X-Api-Key" } as const;

function httpTool(name: string, path: string, query: string[]): ToolIR {
  const binding: HttpBinding = {
    kind: "http",
    method: "GET",
    path,
    server: "https://api.example.invalid",
    parameters: query.map((arg) => ({ arg, name: arg, in: "query", style: "form", explode: true })),
    auth: [[apiKey]],
  };
  return {
    name,
    description: `GET ${path}`,
    parameters: { properties: Object.fromEntries(query.map((arg) => [arg, { type: arg === "page" || arg === "per_page" ? "integer" : "string" }])), required: [] },
    binding,
    annotations: { readOnly: true, idempotent: true },
  };
}

const issuesBinding: GraphQLBinding = {
  kind: "graphql",
  operationType: "query",
  field: "issues",
  document: "query issues_list($first: Int, $after: String) {\n  issues(first: $first, after: $after) {\n    nodes {\n      id\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}",
  variables: { first: "Int", after: "String" },
};
const issues: ToolIR = {
  name: "issues_list",
  description: "Issues",
  parameters: { properties: { first: { type: "integer" }, after: { type: "string" } }, required: [] },
  binding: issuesBinding,
  annotations: { readOnly: true, idempotent: true },
};

const httpFacts: RuntimeFacts = {
  kind: "openapi",
  server: { url: "https://api.example.invalid", from: "servers", variables: [] },
  credentials: [
    { scheme: "apiKey", type: "apiKey", in: "header", name: "X-Api-Key", env: "ACME_API_KEY" },
    { scheme: "basic", type: "basic", env: "ACME_BASIC" },
  ],
  pagination: {
    list_events: { style: "link", arg: "page" },
    list_items: { style: "cursor", arg: "cursor", cursor: "next_cursor", hasMore: "has_more", items: "items" },
  },
  credentialArguments: {},
  secretLooking: [],
};

const graphqlFacts: RuntimeFacts = {
  kind: "graphql",
  endpoint: { env: "ACME_ENDPOINT" },
  credentials: [{ scheme: "token", type: "bearer", env: "ACME_TOKEN" }],
  pagination: { issues_list: relayPagination(issuesBinding)! },
  credentialArguments: {},
  secretLooking: [],
};

/** Calls a tool until it says there is no next page (at most 10 calls); the items of every page. */
async function allPages(call: (args: Record<string, unknown>) => Promise<{ body: unknown; nextPageArgs?: Record<string, unknown> }>, pick: (body: unknown) => unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  let args: Record<string, unknown> | undefined = {};
  for (let calls = 0; args !== undefined && calls < 10; calls += 1) {
    const result = await call(args);
    out.push(...pick(result.body));
    args = result.nextPageArgs;
  }
  return out;
}

describe("generatedRuntime end to end", () => {
  it("HTTP tools: the key from its variable, cursor and Link pagination from the facts", async () => {
    const env = { ACME_API_KEY: "key-from-env" };
    const pack = definePack({ name: "acme", defs: {}, tools: [httpTool("list_items", "/items", ["cursor"]), httpTool("list_events", "/events", ["page", "per_page"])], runtime: generatedRuntime(httpFacts, { env }) });
    const ctx = { baseUrl: base, credentials: credentialsFromEnv(httpFacts, env) };
    received.length = 0;
    const items = await allPages((args) => pack.tool("list_items").invoke(args, ctx), (body) => (body as { items: { id: string }[] }).items.map((i) => i.id));
    expect(items).toEqual(["item0", "item1", "item2"]);
    expect(received.map((r) => r.query.get("cursor"))).toEqual([null, "c1", "c2"]);
    expect(received.every((r) => r.headers["x-api-key"] === "key-from-env")).toBe(true);
    received.length = 0;
    const events = await allPages((args) => pack.tool("list_events").invoke({ ...args, per_page: 1 }, ctx), (body) => (body as { id: string }[]).map((e) => e.id));
    expect(events).toEqual(["event1", "event2", "event3"]);
    expect(received.map((r) => r.query.get("page"))).toEqual([null, "2", "3"]);
  });

  it("GraphQL: endpoint and bearer token from their variables, Relay pagination with after", async () => {
    const env = { ACME_ENDPOINT: `${base}/graphql`, ACME_TOKEN: "tok-from-env" };
    const runtime = generatedRuntime(graphqlFacts, { env });
    expect(runtime.endpoint).toBe(`${base}/graphql`);
    const pack = definePack({ name: "acme", defs: {}, tools: [issues], runtime });
    received.length = 0;
    const ids = await allPages(
      (args) => pack.tool("issues_list").invoke(args, { credentials: credentialsFromEnv(graphqlFacts, env) }),
      (body) => (body as { data: { issues: { nodes: { id: string }[] } } }).data.issues.nodes.map((n) => n.id),
    );
    expect(ids).toEqual(["issue0", "issue1", "issue2"]);
    expect(received.map((r) => (JSON.parse(r.body) as { variables?: { after?: string } }).variables?.after)).toEqual([undefined, "e1", "e2"]);
    expect(received.every((r) => r.headers.authorization === "Bearer tok-from-env")).toBe(true);
  });

  it("without the endpoint variable a GraphQL call fails before anything is sent", async () => {
    const pack = definePack({ name: "acme", defs: {}, tools: [issues], runtime: generatedRuntime(graphqlFacts, { env: {} }) });
    received.length = 0;
    // The variable named, as serve names it: what a user of a generated pack sets.
    await expect(pack.tool("issues_list").call({}, { credentials: { token: { token: "t" } } })).rejects.toMatchObject({
      code: "INVALID_OPTION",
      message: "issues_list: no GraphQL endpoint; set ACME_ENDPOINT to the GraphQL endpoint's URL before the pack is loaded (or endpoint in its sluice.config entry, then regenerate), or pass ctx.baseUrl on the call",
    });
    // A derived tool keeps its parent's settings, and so the same answer.
    await expect(pack.tool("issues_list").derived({ name: "issues_short", drop: ["after"] }).call({}, { credentials: { token: { token: "t" } } })).rejects.toThrow(/^issues_short: no GraphQL endpoint; set ACME_ENDPOINT /);
    expect(received).toEqual([]);
  });
});

describe("generatedRuntime per tool", () => {
  const binding: Binding = httpTool("x", "/x", []).binding;

  it("pagination only for declared tools (own entries only), handlers from the option", () => {
    const handler = (body: unknown) => body;
    const runtime = generatedRuntime(httpFacts, { env: {}, responseHandler: (name) => (name === "list_items" ? handler : undefined) });
    expect(runtime.forTool?.("list_items", binding)).toEqual({ pagination: httpFacts.pagination["list_items"], responseHandler: handler });
    expect(runtime.forTool?.("list_events", binding)).toEqual({ pagination: { style: "link", arg: "page" } });
    expect(runtime.forTool?.("other", binding)).toBeUndefined();
    expect(runtime.forTool?.("constructor", binding)).toBeUndefined();
    expect(runtime.forTool?.("__proto__", binding)).toBeUndefined();
    // HTTP tools carry their own auth and server: the runtime adds neither.
    expect(runtime.endpoint).toBeUndefined();
    expect(runtime.auth).toBeUndefined();
  });

  it("a pack whose facts page a tool by an argument it lacks is refused (definePack's check holds)", () => {
    const facts: RuntimeFacts = { ...httpFacts, pagination: { list_items: { style: "cursor", arg: "after", cursor: "next" } } };
    expect(() => definePack({ name: "acme", defs: {}, tools: [httpTool("list_items", "/items", ["cursor"])], runtime: generatedRuntime(facts, { env: {} }) })).toThrow(/after/);
  });
});

describe("credentials from the environment", () => {
  it("tokens as they are, basic as user:password split at the first colon, unset and empty left out", () => {
    expect(credentialsFromEnv(httpFacts, { ACME_API_KEY: "k", ACME_BASIC: "user:pa:ss" })).toEqual({ apiKey: { token: "k" }, basic: { username: "user", password: "pa:ss" } });
    expect(credentialsFromEnv(httpFacts, { ACME_BASIC: "alone" })).toEqual({ basic: { username: "alone", password: "" } });
    expect(credentialsFromEnv(httpFacts, { ACME_API_KEY: "" })).toEqual({});
    // Inherited members of the environment object are not variables.
    expect(credentialsFromEnv({ ...httpFacts, credentials: [{ scheme: "k", type: "bearer", env: "toString" }] }, {})).toEqual({});
  });

  it("status names set and missing variables, never their values", () => {
    const status = credentialStatus(httpFacts, { ACME_API_KEY: "super-secret-value", ACME_BASIC: "" });
    expect(status).toEqual({ set: ["ACME_API_KEY"], missing: ["ACME_BASIC"] });
    expect(JSON.stringify(status)).not.toContain("super-secret-value");
    expect(credentialStatus(graphqlFacts, { ACME_ENDPOINT: "https://x" })).toEqual({ set: [], missing: ["ACME_TOKEN"], endpoint: { env: "ACME_ENDPOINT", set: true } });
  });

  it("reads process.env when no environment is given", () => {
    const before = process.env["ACME_TOKEN"];
    process.env["ACME_TOKEN"] = "from-process";
    try {
      expect(credentialsFromEnv(graphqlFacts)).toEqual({ token: { token: "from-process" } });
      expect(credentialStatus(graphqlFacts).set).toEqual(["ACME_TOKEN"]);
    } finally {
      if (before === undefined) delete process.env["ACME_TOKEN"];
      else process.env["ACME_TOKEN"] = before;
    }
  });
});
