/**
 * Packs called end to end through real HTTP on 127.0.0.1: a GraphQL server executing
 * the vendored Linear schema, OpenAPI mocks that validate every request against the
 * vendored Stripe, GitHub REST and Slack documents, and a server of broken behaviours.
 * Each server records what it received, so "nothing withheld reaches the server" is
 * checked on the wire, not inferred.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallCollector, collecting, SluiceError, Tool, type CallContext, type HttpBinding } from "@sluice/core";
import { allTools as linearTools } from "@sluice/pack-linear";
import { allTools as stripeTools } from "@sluice/pack-stripe";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { tools as slackTools } from "@sluice/pack-slack";
import { HUGE_BODY_BYTES, startFaultServer, startGraphQLServer, startOpenApiMockServer, type GraphQLServer, type LocalServer, type OpenApiMockServer } from "./support/servers/index.ts";

const spec = (path: string) => fileURLToPath(new URL(`../packs/${path}`, import.meta.url));

let linear: GraphQLServer;
let stripe: OpenApiMockServer;
let github: OpenApiMockServer;
let slack: OpenApiMockServer;
let faults: LocalServer;

beforeAll(async () => {
  [linear, stripe, github, slack, faults] = await Promise.all([
    startGraphQLServer({ sdlFile: spec("linear/spec/schema.graphql"), listLength: 5 }),
    startOpenApiMockServer({ specFile: spec("stripe/spec/spec3.json"), listLength: 5 }),
    startOpenApiMockServer({ specFile: spec("github-rest/spec/api.github.com.json"), listLength: 5 }),
    startOpenApiMockServer({ specFile: spec("slack/spec/slack_web_openapi_v2_without_examples.json"), listLength: 5 }),
    startFaultServer(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([linear, stripe, github, slack, faults].map((server) => server?.close()));
});

function pick<T extends { name: string }>(tools: readonly T[], name: string): T {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

const linearCtx = (): CallContext => ({ baseUrl: `${linear.url}/graphql`, credentials: { apiKey: { token: "lin_api_test" } } });
const stripeCtx = (): CallContext => ({ baseUrl: stripe.url, credentials: { basicAuth: { username: "sk_test_1", password: "" }, bearerAuth: { token: "sk_test_1" } } });
const githubCtx = (): CallContext => ({ baseUrl: github.url, credentials: () => ({ token: "ghp_test" }) });
const slackCtx = (): CallContext => ({ baseUrl: slack.url, credentials: { slackAuth: { token: "xoxb-test" } } });

async function failure(promise: Promise<unknown>): Promise<SluiceError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(SluiceError);
  return outcome as SluiceError;
}

describe("GraphQL: Linear", () => {
  it("calls the curated tool and its *_full twin; the server validates and executes both", async () => {
    const before = linear.received.length;
    const args = { first: 5, filter: { title: { containsIgnoreCase: "bug" }, priority: { lte: 2 } } };
    const curated = (await pick(linearTools, "issues_list").invoke(args, linearCtx())) as { body: { data: { issues: { nodes: unknown[] } } } };
    const full = (await pick(linearTools, "issues_list_full").invoke({ ...args, filter: { ...args.filter, or: [{ number: { eq: 1 } }] } }, linearCtx())) as typeof curated;
    expect(curated.body.data.issues.nodes).toHaveLength(5);
    expect(full.body.data.issues.nodes).toHaveLength(5);
    expect(linear.errors).toEqual([]);
    const sent = linear.received.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.path).toBe("/graphql"); // the endpoint as given: no path appended to it
    expect(sent[0]!.headers["authorization"]).toBe("lin_api_test");
    expect((sent[0]!.json as { variables: unknown }).variables).toEqual(args);
  });

  it("fetches less with returns", async () => {
    const narrowed = pick(linearTools, "issues_list").derived({ name: "issues_brief", returns: ["nodes.id", "nodes.identifier", "nodes.title"] });
    const full = await pick(linearTools, "issues_list").invoke({ first: 5 }, linearCtx());
    const brief = await narrowed.invoke({ first: 5 }, linearCtx());
    expect(Object.keys((brief.body as { data: { issues: { nodes: object[] } } }).data.issues.nodes[0]!).sort()).toEqual(["id", "identifier", "title"]);
    expect(brief.payloadBytes * 5).toBeLessThan(full.payloadBytes);
  });

  it("refuses withheld fields at depth, wrong types, extra fields, __proto__ and huge strings; the server sees none of it", async () => {
    const tool = pick(linearTools, "issues_list");
    const before = linear.received.length;
    const attempts: Array<[unknown, string]> = [
      [{ filter: { and: [{ title: { eq: "x" } }] } }, "EGRESS_DENIED"],
      [{ filter: { assignee: { email: { eq: "a@b.c" }, assignedIssues: { some: { id: { eq: "t" } } } } } }, "EGRESS_DENIED"],
      [{ sort: [{ priority: { order: "Ascending" } }] }, "EGRESS_DENIED"],
      [{ first: "ten" }, "INVALID_ARGUMENTS"],
      [{ first: 5, mystery: true }, "INVALID_ARGUMENTS"],
      // A prototype key is refused as egress (issue 21), not as a mere unknown field.
      [JSON.parse('{"first": 5, "__proto__": {"isAdmin": true}}'), "EGRESS_DENIED"],
      [{ filter: { title: { contains: "x".repeat(3_000_000) } } }, "INVALID_ARGUMENTS"],
    ];
    for (const [args, code] of attempts) {
      const error = await failure(tool.call(args as Record<string, unknown>, linearCtx()));
      expect(error.code, JSON.stringify(args).slice(0, 80)).toBe(code);
      expect(error.issues?.length).toBeGreaterThan(0);
    }
    expect(linear.received.length).toBe(before);
  });

  it("request() refuses what call() refuses, and what it builds is exactly what the server receives", async () => {
    const tool = pick(linearTools, "issues_list");
    const hostile = JSON.parse(
      '{"first": 2, "sort": [{"priority": {}}], "filter": {"title": {"eq": "kept"}, "and": [{"title": {"eq": "x"}}], "__proto__": {"x": 1}, "assignee": {"email": {"eq": "kept@example.com"}, "teams": {}}}}',
    ) as Record<string, unknown>;
    const viaRequest = await tool.request(hostile, linearCtx()).then(() => undefined, (error: unknown) => error as SluiceError);
    const viaCall = await tool.call(hostile, linearCtx()).then(() => undefined, (error: unknown) => error as SluiceError);
    expect(viaRequest?.code).toBe("EGRESS_DENIED");
    expect(viaRequest?.issues).toEqual(viaCall?.issues);
    const before = linear.received.length;
    const request = await tool.request({ first: 2, filter: { title: { eq: "kept" }, assignee: { email: { eq: "kept@example.com" } } } }, { ...linearCtx(), revealCredentials: true });
    // Send it as built, skipping call(): the server records exactly this.
    const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body as string });
    expect(response.status).toBe(200);
    expect(linear.received.length).toBe(before + 1);
    const received = linear.received.at(-1)!.json as { variables: Record<string, unknown> };
    expect(received.variables).toEqual({ first: 2, filter: { title: { eq: "kept" }, assignee: { email: { eq: "kept@example.com" } } } });
  });
});

describe("OpenAPI: Stripe, GitHub REST, Slack against validating mocks", () => {
  it("Stripe: lists and creates customers (form body with bracketed metadata)", async () => {
    const list = await pick(stripeTools, "get_customers").invoke({ limit: 3, email: "a@example.com" }, stripeCtx());
    expect(list.body).toMatchObject({ object: "list" });
    await pick(stripeTools, "post_customers").call({ email: "a@example.com", metadata: { team: "core" } }, stripeCtx());
    expect(stripe.violations).toEqual([]);
    const sent = stripe.received.at(-1)!;
    expect(sent.body).toBe("email=a%40example.com&metadata[team]=core");
  });

  it("Stripe: the curated tool and its *_full twin both call; the curated one refuses what it withholds", async () => {
    const args = { name: "Jenny Rosen", type: "individual", billing: { address: { line1: "1 Main St", city: "Springfield", country: "US", postal_code: "12345" } } };
    await pick(stripeTools, "post_issuing_cardholders").call(args, stripeCtx());
    await pick(stripeTools, "post_issuing_cardholders_full").call({ ...args, spending_controls: { allowed_categories: ["bakeries"] } }, stripeCtx());
    expect(stripe.violations).toEqual([]);
    const before = stripe.received.length;
    const error = await failure(pick(stripeTools, "post_issuing_cardholders").call({ ...args, spending_controls: { allowed_categories: ["bakeries"] } }, stripeCtx()));
    expect(error.code).toBe("EGRESS_DENIED");
    expect(stripe.received.length).toBe(before);
  });

  it("GitHub REST: lists issues and creates one", async () => {
    const issues = await pick(githubRestTools, "issues_list_for_repo").invoke({ owner: "octo", repo: "hello world", state: "open", per_page: 5 }, githubCtx());
    expect(Array.isArray(issues.body)).toBe(true);
    await pick(githubRestTools, "issues_create").call({ owner: "octo", repo: "hello", title: "Found a bug", labels: ["bug"] }, githubCtx());
    expect(github.violations).toEqual([]);
    expect(github.received.at(-2)!.path).toMatch(/^\/repos\/octo\/hello%20world\/issues\?/);
    expect(github.received.at(-1)!.headers["authorization"]).toBe("Bearer ghp_test");
  });

  it("Slack: reads history and posts; the token comes from the credential, never from the model", async () => {
    await pick(slackTools, "conversations_history").call({ channel: "C123", limit: 5 }, slackCtx());
    await pick(slackTools, "chat_post_message").call({ channel: "C123", text: "hello" }, slackCtx());
    expect(slack.violations).toEqual([]);
    expect(slack.received.at(-1)!.headers["token"]).toBe("xoxb-test");
    const before = slack.received.length;
    const error = await failure(pick(slackTools, "chat_post_message").call({ channel: "C123", text: "hello", token: "xoxb-model" }, slackCtx()));
    expect(error.code).toBe("EGRESS_DENIED");
    expect(slack.received.length).toBe(before);
  });

  it("Slack: ok:false inside a 200 is an API_ERROR", async () => {
    const failing = await startOpenApiMockServer({
      specFile: spec("slack/spec/slack_web_openapi_v2_without_examples.json"),
      overrides: { conversations_history: () => ({ status: 200, body: { ok: false, error: "channel_not_found" } }) },
    });
    try {
      const error = await failure(pick(slackTools, "conversations_history").call({ channel: "C404" }, { ...slackCtx(), baseUrl: failing.url }));
      expect(error.code).toBe("API_ERROR");
      expect(error.message).toContain("channel_not_found");
    } finally {
      await failing.close();
    }
  });
});

describe("server faults become typed errors within the timeout", () => {
  const at = (path: string): Tool => {
    const binding: HttpBinding = { kind: "http", method: "GET", path, parameters: [{ arg: "q", name: "q", in: "query", style: "form", explode: true }] };
    return Tool.create({ name: "fault_probe", description: "probe", inputSchema: { type: "object", properties: { q: { type: "string" } } }, binding });
  };
  const ctx = (): CallContext => ({ baseUrl: faults.url, timeoutMs: 1_000 });

  it.each([
    ["/non-json", "RESPONSE_INVALID"],
    ["/truncated", "RESPONSE_INVALID"],
    ["/error-500", "HTTP_ERROR"],
    ["/rate-limited", "RATE_LIMITED"],
    ["/hang", "TIMEOUT"],
    ["/slow-body", "TIMEOUT"],
    ["/huge", "RESPONSE_TOO_LARGE"],
  ])("%s -> %s", async (path, code) => {
    const collector = new CallCollector();
    // The size cap, not the clock, must end /huge: give it time on a loaded machine.
    const error = await failure(collecting(collector, () => at(path).call({ q: "x" }, path === "/huge" ? { ...ctx(), timeoutMs: 30_000 } : ctx())));
    expect(error.code).toBe(code);
    expect(collector.records).toEqual([expect.objectContaining({ outcome: code })]);
    if (code === "RATE_LIMITED") expect(error.retryAfterSeconds).toBe(7);
    if (code === "HTTP_ERROR") expect(error.status).toBe(500);
  });

  it("reads a large answer when the cap allows it", async () => {
    const result = await at("/huge").invoke({}, { ...ctx(), timeoutMs: 20_000, maxResponseBytes: HUGE_BODY_BYTES * 2 });
    expect(result.payloadBytes).toBeGreaterThan(HUGE_BODY_BYTES - 1024);
  });
});
