/**
 * Proves the local servers the call runtime's end-to-end tests and benchmarks rely on:
 * GraphQL over the vendored Linear and GitHub SDLs, the OpenAPI mock over the vendored
 * REST specs, and the fault server. Everything is driven with plain `fetch` against
 * 127.0.0.1; nothing leaves the machine.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { HUGE_BODY_BYTES, startFaultServer, startGraphQLServer, startOpenApiMockServer, type LocalServer } from "./servers/index.ts";
import { loadSpec, matchRoute } from "./servers/openapi-spec.ts";
import { buildMocks } from "./servers/graphql-mocks.ts";
import { graphql, graphqlMock } from "./servers/graphql-runtime.ts";

const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const SPECS = {
  linear: repo("packs/linear/spec/schema.graphql"),
  github: repo("packs/github/spec/schema.graphql"),
  stripe: repo("packs/stripe/spec/spec3.json"),
  githubRest: repo("packs/github-rest/spec/api.github.com.json"),
  slack: repo("packs/slack/spec/slack_web_openapi_v2_without_examples.json"),
  gmail: repo("packs/gmail/spec/gmail-v1.yaml"),
  notion: repo("packs/notion/spec/notion-openapi.json"),
};

const open: LocalServer[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});
async function track<T extends LocalServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  open.push(s);
  return s;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function postGraphQL(url: string, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
}

describe("startGraphQLServer", () => {
  const LINEAR_ISSUES = `query Issues($first: Int, $after: String) {
    issues(first: $first, after: $after) {
      nodes { id identifier title description priority createdAt url state { name type } assignee { name email } labels { nodes { name color } } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

  it("serves Linear: listLength nodes, a first page with a cursor, and later pages after it", async () => {
    const server = await track(startGraphQLServer({ sdlFile: SPECS.linear, listLength: 4 }));
    const first = await postGraphQL(server.url, LINEAR_ISSUES, { first: 50 });
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeUndefined();
    const page1 = first.body.data.issues;
    expect(page1.nodes).toHaveLength(4);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(typeof page1.pageInfo.endCursor).toBe("string");
    expect(page1.pageInfo.endCursor.length).toBeGreaterThan(0);
    expect(new Set(page1.nodes.map((n: Json) => n.id)).size).toBe(4);
    for (const node of page1.nodes) {
      expect(node.title.split(" ").length).toBeGreaterThanOrEqual(3);
      expect(node.description.length).toBeGreaterThan(40);
      expect(Number.isNaN(Date.parse(node.createdAt))).toBe(false);
      expect(node.labels.nodes).toHaveLength(4);
    }

    const second = (await postGraphQL(server.url, LINEAR_ISSUES, { first: 50, after: page1.pageInfo.endCursor })).body.data.issues;
    expect(second.nodes.map((n: Json) => n.id)).not.toEqual(page1.nodes.map((n: Json) => n.id));
    const third = (await postGraphQL(server.url, LINEAR_ISSUES, { first: 50, after: second.pageInfo.endCursor })).body.data.issues;
    expect(second.pageInfo.hasNextPage).toBe(true);
    expect(third.pageInfo.hasNextPage).toBe(false);

    // A smaller `first` than listLength is honoured.
    expect((await postGraphQL(server.url, LINEAR_ISSUES, { first: 2 })).body.data.issues.nodes).toHaveLength(2);
    expect(server.errors).toEqual([]);
    expect(server.received).toHaveLength(4);
    expect(server.received[0]!.json).toMatchObject({ variables: { first: 50 } });
  });

  it("serves GitHub: nested connections with edges, nodes, totalCount and pageInfo", async () => {
    const server = await track(startGraphQLServer({ sdlFile: SPECS.github, listLength: 3 }));
    const { status, body } = await postGraphQL(
      server.url,
      `query($owner: String!, $name: String!) {
        repository(owner: $owner, name: $name) {
          id name url createdAt
          issues(first: 20, states: OPEN) {
            totalCount
            edges { cursor node { id number title body author { login avatarUrl } labels(first: 5) { nodes { name } } } }
            pageInfo { hasNextPage endCursor }
          }
        }
      }`,
      { owner: "octo-org", name: "service" },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const issues = body.data.repository.issues;
    expect(issues.edges).toHaveLength(3);
    expect(issues.pageInfo).toMatchObject({ hasNextPage: true });
    expect(issues.pageInfo.endCursor).toBe(issues.edges[2].cursor);
    expect(issues.edges[0].node.author.login).toEqual(expect.any(String));
    expect(issues.edges[0].node.labels.nodes).toHaveLength(3);
    expect(server.errors).toEqual([]);
  });

  it("answers invalid documents and variables with `errors` at HTTP 200, and records them", async () => {
    const server = await track(startGraphQLServer({ sdlFile: SPECS.linear }));
    const unknownField = await postGraphQL(server.url, "{ issues { nodez { id } } }");
    expect(unknownField.status).toBe(200);
    expect(unknownField.body.data).toBeUndefined();
    expect(unknownField.body.errors[0].message).toMatch(/Cannot query field "nodez"/);

    const syntax = await postGraphQL(server.url, "{ issues { ");
    expect(syntax.status).toBe(200);
    expect(syntax.body.errors[0].message).toMatch(/Syntax Error/);

    const badVariable = await postGraphQL(server.url, "query($first: Int) { issues(first: $first) { nodes { id } } }", { first: "ten" });
    expect(badVariable.status).toBe(200);
    expect(badVariable.body.errors[0].message).toMatch(/\$first/);

    expect(server.errors).toHaveLength(3);
    expect(server.received).toHaveLength(3);
  });

  it("returns success: true from mutation payloads", async () => {
    const server = await track(startGraphQLServer({ sdlFile: SPECS.linear }));
    const { body } = await postGraphQL(
      server.url,
      "mutation($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id title } } }",
      { input: { title: "Broken export", teamId: "team-1" } },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.issueCreate.success).toBe(true);
    expect(body.data.issueCreate.issue.id).toMatch(/^id-Issue-\d+$/);
  });

  it("is deterministic: two servers answer the same queries with the same bytes", async () => {
    const texts: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const server = await track(startGraphQLServer({ sdlFile: SPECS.linear, listLength: 5, seed: 7 }));
      const one = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: LINEAR_ISSUES }) });
      const first = await one.text();
      const cursor = JSON.parse(first).data.issues.pageInfo.endCursor as string;
      const two = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: LINEAR_ISSUES, variables: { after: cursor } }) });
      texts.push([first, await two.text()]);
      await server.close();
    }
    expect(texts[0]).toEqual(texts[1]);
  });

  it("keeps servers on the same SDL apart: each answers from its own store, even concurrently", async () => {
    const ask = (url: string) => fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: LINEAR_ISSUES }) }).then((r) => r.text());
    const alone: string[] = [];
    for (const seed of [1, 2]) {
      const server = await track(startGraphQLServer({ sdlFile: SPECS.linear, listLength: 3, seed }));
      alone.push(await ask(server.url));
    }
    const [a, b] = await Promise.all([1, 2].map((seed) => track(startGraphQLServer({ sdlFile: SPECS.linear, listLength: 3, seed }))));
    const together = await Promise.all([ask(a!.url), ask(b!.url)]);
    expect(together).toEqual(alone);
    expect(alone[0]).not.toBe(alone[1]);
  });
});

describe("buildMocks", () => {
  it("gives a connection only the list fields its type has (Saleor's connections have edges, no nodes)", () => {
    const schema = graphql.buildSchema(`
      type Product { id: ID! name: String }
      type ProductEdge { node: Product! cursor: String! }
      type PageInfo { hasNextPage: Boolean! endCursor: String }
      type EdgesOnly { edges: [ProductEdge!]! pageInfo: PageInfo! }
      type Both { nodes: [Product!]! edges: [ProductEdge!]! pageInfo: PageInfo! totalCount: Int }
      type Query { edgesOnly(first: Int): EdgesOnly both(first: Int): Both }
    `);
    const state = buildMocks(schema, { listLength: 2, seed: 1 });
    state.bindStore(graphqlMock.createMockStore({ schema, mocks: state.mocks, mockGenerationBehavior: "deterministic" }));
    const query = (state.mocks as Record<string, Record<string, (args: Record<string, unknown>) => Record<string, unknown>>>)["Query"]!;
    const edgesOnly = query["edgesOnly"]!({ first: 2 });
    expect(Object.keys(edgesOnly).sort()).toEqual(["edges", "pageInfo"]);
    expect(edgesOnly["edges"]).toHaveLength(2);
    const both = query["both"]!({ first: 2 });
    expect(Object.keys(both).sort()).toEqual(["edges", "nodes", "pageInfo", "totalCount"]);
  });
});

describe("startOpenApiMockServer", () => {
  it("answers Stripe GET /v1/customers?limit=3 with a list object", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.stripe }));
    const res = await fetch(`${server.url}/v1/customers?limit=3`, { headers: { authorization: "Bearer sk_test_123" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ object: "list", url: "/v1/customers", has_more: true });
    expect(body.data).toHaveLength(3);
    for (const customer of body.data) {
      expect(customer.object).toBe("customer");
      expect(customer.id).toMatch(/^cus_/);
      expect(typeof customer.created).toBe("number");
      expect(customer.email).toMatch(/@example\.com$/);
    }
    expect(new Set(body.data.map((c: Json) => c.id)).size).toBe(3);
    expect(server.violations).toEqual([]);
    expect(server.received[0]!.headers["authorization"]).toBe("Bearer sk_test_123");
  });

  it("rejects GET /v1/customers?limit=notanumber with 400 and a violation", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.stripe }));
    const res = await fetch(`${server.url}/v1/customers?limit=notanumber`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error.message).toMatch(/limit/);
    expect(server.violations).toHaveLength(1);
    expect(server.violations[0]).toMatchObject({ operation: "GetCustomers", request: { method: "GET", path: "/v1/customers?limit=notanumber" } });
  });

  it("validates form-encoded Stripe bodies with bracket notation", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.stripe }));
    const body = "email=ada%40example.com&balance=1500&metadata[key]=value&metadata[order_id]=A-17&expand[]=tax_ids&invoice_settings[custom_fields][0][name]=PO&invoice_settings[custom_fields][0][value]=42";
    const ok = await fetch(`${server.url}/v1/customers`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).object).toBe("customer");
    expect(server.violations).toEqual([]);
    expect(server.received[0]).toMatchObject({ method: "POST", path: "/v1/customers", body });

    const bad = await fetch(`${server.url}/v1/customers`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "balance=lots&metadata[key]=value" });
    expect(bad.status).toBe(400);
    const wrongType = await fetch(`${server.url}/v1/customers`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "a@b.co" }) });
    expect(wrongType.status).toBe(400);
    expect(server.violations.map((v) => v.operation)).toEqual(["PostCustomers", "PostCustomers"]);
  });

  it("answers unknown routes with 404 and a violation, and lets overrides win", async () => {
    let seen = "";
    const server = await track(
      startOpenApiMockServer({
        specFile: SPECS.stripe,
        overrides: {
          GetCustomersCustomer: (request) => {
            seen = request.path;
            return { status: 402, headers: { "request-id": "req_1" }, body: { error: { type: "card_error", message: "declined" } } };
          },
          GetBalance: () => {
            throw new Error("override bug");
          },
        },
      }),
    );
    const missing = await fetch(`${server.url}/v1/no-such-thing`);
    expect(missing.status).toBe(404);
    expect(server.violations[0]).toMatchObject({ request: { path: "/v1/no-such-thing" } });
    expect(server.violations[0]!.operation).toBeUndefined();

    const overridden = await fetch(`${server.url}/v1/customers/cus_123`);
    expect(overridden.status).toBe(402);
    expect(overridden.headers.get("request-id")).toBe("req_1");
    expect(((await overridden.json()) as Json).error.type).toBe("card_error");
    expect(seen).toBe("/v1/customers/cus_123");

    const broken = await fetch(`${server.url}/v1/balance`);
    expect(broken.status).toBe(500);
    expect(server.received.map((r) => r.path)).toEqual(["/v1/no-such-thing", "/v1/customers/cus_123", "/v1/balance"]);
  });

  it("answers GitHub REST GET /repos/{owner}/{repo}/issues with the spec's example", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.githubRest }));
    const res = await fetch(`${server.url}/repos/octo-org/service/issues?state=open&per_page=30`, { headers: { accept: "application/vnd.github+json" } });
    expect(res.status).toBe(200);
    const spec = JSON.parse(readFileSync(SPECS.githubRest, "utf8")) as Json;
    expect(await res.json()).toEqual(spec.components.examples["issue-items"].value);
    expect(server.violations).toEqual([]);
  });

  it("pages GitHub REST lists with a Link header, as the spec declares, until the last page", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.githubRest }));
    const first = await fetch(`${server.url}/repos/octo-org/service/issues?per_page=2`);
    expect(first.headers.get("link")).toBe(`<${server.url}/repos/octo-org/service/issues?per_page=2&page=2>; rel="next", <${server.url}/repos/octo-org/service/issues?page=3>; rel="last"`);
    const last = await fetch(`${server.url}/repos/octo-org/service/issues?per_page=2&page=3`);
    expect(last.headers.get("link")).toBeNull();
    const single = await fetch(`${server.url}/repos/octo-org/service`);
    expect(single.headers.get("link")).toBeNull();
  });

  it("accepts GitHub's workflow_id as the integer or file name it is on the wire", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.githubRest }));
    expect((await fetch(`${server.url}/repos/o/r/actions/workflows/161335`)).status).toBe(200);
    expect((await fetch(`${server.url}/repos/o/r/actions/workflows/ci.yml`)).status).toBe(200);
    expect(server.violations).toEqual([]);
  });

  it("answers Slack conversations.history with ok: true and messages, at the root and under /api", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.slack }));
    const spec = await loadSpec(SPECS.slack);
    for (const path of ["/conversations.history?channel=C1", "/api/conversations.history?channel=C1"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: "Bearer xoxb-1" } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body.ok).toBe(true);
      expect(body.messages).toHaveLength(10);
      expect(body.has_more).toBe(true);
      expect(new Set(body.messages.map((m: Json) => m.ts)).size).toBe(10);
      const match = matchRoute(spec, "GET", "/conversations.history");
      if (match.kind !== "found") throw new Error("no route");
      expect(spec.strict.validateResponse(body, match.operation.routed, 200).errors ?? []).toEqual([]);
    }
    const posted = await fetch(`${server.url}/chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer xoxb-1" },
      body: "channel=C0123456789&text=Deploy%20finished&unfurl_links=false",
    });
    expect(posted.status).toBe(200);
    expect(((await posted.json()) as Json).ok).toBe(true);
    // The Swagger 2.0 operation consumes JSON as well; conversion must not lose that.
    const asJson = await fetch(`${server.url}/chat.postMessage`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ channel: "C0123456789", text: "hi" }) });
    expect(asJson.status).toBe(200);
    expect(server.violations).toEqual([]);
  });

  it("answers Gmail users.threads.get with a spec-shaped thread", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.gmail, listLength: 6 }));
    const res = await fetch(`${server.url}/gmail/v1/users/me/threads/18c2f0a1b2?format=full`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(typeof body.id).toBe("string");
    expect(body.messages).toHaveLength(6);
    for (const message of body.messages) {
      expect(typeof message.id).toBe("string");
      expect(message.labelIds.length).toBeGreaterThan(0);
      expect(message.snippet.length).toBeGreaterThan(20);
    }
    const spec = await loadSpec(SPECS.gmail);
    const match = matchRoute(spec, "GET", "/gmail/v1/users/me/threads/x");
    if (match.kind !== "found") throw new Error("no route");
    expect(match.operation.operationId).toBe("gmail.users.threads.get");
    expect(spec.strict.validateResponse(body, match.operation.routed, 200).errors ?? []).toEqual([]);
    expect((await fetch(`${server.url}/gmail/v1/users/me/threads/x?format=everything`)).status).toBe(400);
  });

  it("answers Notion's data source query (the spec's successor of databases/{id}/query) with a list", async () => {
    const server = await track(startOpenApiMockServer({ specFile: SPECS.notion }));
    const res = await fetch(`${server.url}/v1/data_sources/0f3c2b1a/query`, {
      method: "POST",
      headers: { "content-type": "application/json", "notion-version": "2025-09-03", authorization: "Bearer secret_1" },
      body: JSON.stringify({ page_size: 5, filter: { property: "Status", status: { equals: "Done" } } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.object).toBe("list");
    expect(body.results).toHaveLength(5);
    expect(body.has_more).toBe(true);
    expect(server.violations).toEqual([]);
    // The vendored spec (Notion-Version 2025-09-03) no longer has databases/{id}/query.
    const legacy = await fetch(`${server.url}/v1/databases/0f3c2b1a/query`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(legacy.status).toBe(404);
    expect(server.violations).toHaveLength(1);
  });

  it("is deterministic: two servers answer the same request with the same bytes", async () => {
    const bodies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await track(startOpenApiMockServer({ specFile: SPECS.stripe }));
      bodies.push(await (await fetch(`${server.url}/v1/customers?limit=5`)).text());
      bodies.push(await (await fetch(`${server.url}/v1/invoices`)).text());
      await server.close();
    }
    expect(bodies[0]).toBe(bodies[2]);
    expect(bodies[1]).toBe(bodies[3]);
    expect(JSON.parse(bodies[1]!).data).toHaveLength(10);
    // A different request (the next page) gets different ids.
    const server = await track(startOpenApiMockServer({ specFile: SPECS.stripe }));
    const firstId = JSON.parse(bodies[0]!).data[4].id as string;
    const next = (await (await fetch(`${server.url}/v1/customers?limit=5&starting_after=${firstId}`)).json()) as Json;
    expect(next.data.map((c: Json) => c.id)).not.toContain(firstId);
  });
});

describe("startFaultServer", () => {
  it("answers each fault path as documented", async () => {
    const server = await track(startFaultServer());
    const nonJson = await fetch(`${server.url}/non-json`);
    expect(nonJson.status).toBe(200);
    expect(nonJson.headers.get("content-type")).toBe("application/json");
    await expect(nonJson.json()).rejects.toThrow();

    const truncated = await fetch(`${server.url}/truncated`, { method: "POST", body: "{}" });
    expect(truncated.status).toBe(200);
    await expect(truncated.json()).rejects.toThrow();

    const boom = await fetch(`${server.url}/error-500`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ message: "boom" });

    const limited = await fetch(`${server.url}/rate-limited`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(((await limited.json()) as Json).error).toBeDefined();

    const empty = await fetch(`${server.url}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");

    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /non-json", "POST /truncated", "GET /error-500", "GET /rate-limited", "DELETE /empty"]);
  });

  it("never answers /hang and never finishes /slow-body: a timeout aborts both", async () => {
    const server = await track(startFaultServer());
    await expect(fetch(`${server.url}/hang`, { signal: AbortSignal.timeout(200) })).rejects.toThrow(/abort|timeout/i);
    const slow = await fetch(`${server.url}/slow-body`, { signal: AbortSignal.timeout(300) });
    expect(slow.status).toBe(200);
    await expect(slow.text()).rejects.toThrow(/abort|timeout/i);
  });

  it("streams about 40 MB of valid JSON from /huge", async () => {
    const server = await track(startFaultServer());
    const res = await fetch(`${server.url}/huge`);
    const text = await res.text();
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(HUGE_BODY_BYTES);
    const parsed = JSON.parse(text) as Json;
    expect(parsed.items).toHaveLength(parsed.count);
  });

  it("close() ends requests still hanging, and can be called twice", async () => {
    const server = await startFaultServer();
    const pending = fetch(`${server.url}/hang`);
    const outcome = pending.then(
      () => "answered",
      () => "failed",
    );
    while (server.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    await server.close();
    await server.close();
    expect(await outcome).toBe("failed");
  });
});
