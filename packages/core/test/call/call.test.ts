/**
 * The call runtime on its own: a hand-made HTTP tool (with a shared, recursive `$defs`
 * type so depth and type-withheld paths matter) against a server started here on
 * 127.0.0.1 that records every request. Packs end to end are in test/calls-e2e.test.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallCollector, collecting, isSluiceError, okFalse, pick, SluiceError, Tool, type HttpBinding, type JsonSchemaObject } from "../../src/index.ts";
import { assertNothingWithheld } from "../../src/call/build-request.ts";
import { withoutGuard } from "../../src/guards.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const received: Received[] = [];
let base = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    route(req, res);
  });
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url!, "http://x").pathname;
  switch (path) {
    case "/non-json":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end("<html>oops</html>");
    case "/truncated":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end('{"items": [{"id": "a"}, {"id": "b"');
    case "/error-500":
      return json(res, 500, { error: { message: "internal failure" } });
    case "/rate-limited":
      return json(res, 429, { message: "slow down" }, { "retry-after": "7" });
    case "/hang":
      return; // never answers
    case "/slow-body":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.write('{"items": [');
    case "/huge":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ blob: "x".repeat(200_000) }));
    case "/deep":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end("[".repeat(100_000) + "]".repeat(100_000));
    case "/graphql-limited":
      return json(res, 400, { errors: [{ message: "Rate limit exceeded", extensions: { code: "RATELIMITED" } }] });
    case "/slack-fail":
      return json(res, 200, { ok: false, error: "channel_not_found" });
    case "/empty":
      res.writeHead(204);
      return void res.end();
    default:
      return json(res, 200, { items: [{ id: "it_1", name: "first", noise: "x".repeat(500) }], has_more: false, next: null });
  }
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A recursive filter type shared by two arguments, as generated packs have them. */
const schema: JsonSchemaObject = {
  type: "object",
  properties: {
    account: { type: "string", minLength: 1 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    filter: { $ref: "#/$defs/Filter" },
    tags: { type: "array", items: { type: "string" } },
    metadata: { type: "object", additionalProperties: { type: "string" } },
  },
  required: ["account"],
  $defs: {
    Filter: {
      type: "object",
      properties: {
        name: { type: "string" },
        secret: { type: "string" },
        and: { type: "array", items: { $ref: "#/$defs/Filter" } },
      },
    },
  },
};

function httpTool(path = "/v1/{account}/items", extra: Partial<HttpBinding> = {}): Tool {
  const binding: HttpBinding = {
    kind: "http",
    method: "POST",
    path,
    server: "https://api.example.invalid",
    parameters: [
      { arg: "account", name: "account", in: "path", style: "simple", explode: false, required: true },
      { arg: "limit", name: "limit", in: "query", style: "form", explode: true },
    ],
    body: { mediaType: "application/json", encoding: "json", fields: { filter: "filter", tags: "tags", metadata: "metadata" } },
    auth: [[{ scheme: "key", type: "bearer" }]],
    ...extra,
  };
  return Tool.create({ name: "items_search", description: "Search items.", inputSchema: schema, binding });
}

const ctx = () => ({ baseUrl: base, credentials: { key: { token: "sk_test_secret" } }, timeoutMs: 2_000 });

async function refusal(promise: Promise<unknown>): Promise<SluiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SluiceError);
  return error as SluiceError;
}

describe("arguments", () => {
  const narrowed = httpTool().derived({ drop: ["Filter.secret"], pin: { limit: 10 } });

  it("sends a valid call: path, query, body, auth, pins", async () => {
    received.length = 0;
    const output = await narrowed.call({ account: "acc 1/x", filter: { name: "a", and: [{ name: "b" }] } }, ctx());
    expect(output).toMatchObject({ items: [{ id: "it_1" }] });
    expect(received).toHaveLength(1);
    const request = received[0]!;
    expect(request.url).toBe("/v1/acc%201%2Fx/items?limit=10");
    expect(request.headers.authorization).toBe("Bearer sk_test_secret");
    expect(JSON.parse(request.body)).toEqual({ filter: { name: "a", and: [{ name: "b" }] } });
  });

  it("refuses a withheld field at depth with EGRESS_DENIED and sends nothing", async () => {
    received.length = 0;
    const error = await refusal(narrowed.call({ account: "a", filter: { and: [{ and: [{ secret: "s" }] }] } }, ctx()));
    expect(error.code).toBe("EGRESS_DENIED");
    expect(error.issues).toEqual([expect.objectContaining({ code: "withheld", path: "/filter/and/0/and/0/secret" })]);
    expect(error.message).toContain("/filter/and/0/and/0/secret");
    expect(received).toHaveLength(0);
  });

  it("refuses a pinned argument sent by the model", async () => {
    const error = await refusal(narrowed.call({ account: "a", limit: 50 }, ctx()));
    expect(error.code).toBe("EGRESS_DENIED");
    expect(error.issues?.[0]).toMatchObject({ code: "pinned", path: "/limit" });
  });

  it("lists every problem with wrong types, extra and missing fields", async () => {
    received.length = 0;
    const error = await refusal(httpTool().call({ limit: "ten", bogus: 1, tags: [1] }, ctx()));
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.issues?.map((i) => `${i.code} ${i.path}`).sort()).toEqual(["required /account", "type /limit", "type /tags/0", "unknown /bogus"]);
    expect(error.message).toMatch(/\/limit: must be integer/);
    expect(error.message).toMatch(/\/bogus: "bogus" is not a field of this tool; accepted here: account, filter, limit, metadata, tags/);
    expect(received).toHaveLength(0);
  });

  it("treats an own __proto__ key as a field like any other", async () => {
    received.length = 0;
    const args = JSON.parse('{"account": "a", "__proto__": {"polluted": true}, "filter": {"__proto__": {"secret": "s"}}}') as Record<string, unknown>;
    const error = await refusal(httpTool().call(args, ctx()));
    expect(error.issues?.map((i) => i.path).sort()).toEqual(["/__proto__", "/filter/__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(received).toHaveLength(0);
  });

  it("refuses huge strings and deep nesting before anything is sent", async () => {
    received.length = 0;
    const huge = await refusal(httpTool().call({ account: "a", filter: { name: "x".repeat(2_000_000) } }, ctx()));
    expect(huge.issues?.[0]?.code).toBe("too_large");
    let deep: Record<string, unknown> = { name: "leaf" };
    for (let i = 0; i < 20_000; i++) deep = { and: [deep] };
    const nested = await refusal(httpTool().call({ account: "a", filter: deep }, ctx()));
    expect(nested.issues?.[0]?.code).toBe("too_deep");
    expect(received).toHaveLength(0);
  });

  it("request() screens and validates like call(): withheld fields are refused, never quietly left out", async () => {
    const hostile = { account: "a", limit: 99, filter: { name: "n", secret: "s", and: [{ secret: "t", name: "m" }] }, junk: "j", metadata: { k: "v" } };
    const refused = await refusal(narrowed.request(hostile, ctx()));
    expect(refused.code).toBe("EGRESS_DENIED");
    expect(refused.issues?.map((i) => `${i.code} ${i.path}`)).toEqual(["pinned /limit", "withheld /filter/secret", "withheld /filter/and/0/secret", "unknown /junk"]);
    const request = await narrowed.request({ account: "a", filter: { name: "n", and: [{ name: "m" }] }, metadata: { k: "v" } }, ctx());
    const body = JSON.parse(String(request.body)) as Record<string, unknown>;
    expect(body).toEqual({ filter: { name: "n", and: [{ name: "m" }] }, metadata: { k: "v" } });
    expect(request.url).toContain("limit=10");
    expect(narrowed.check({ account: "a", filter: { secret: "s" } })).toEqual([expect.objectContaining({ code: "withheld" })]);
    expect(narrowed.check({ account: "a" })).toEqual([]);
  });

  it("the request builder fails closed on a withheld path that screening let through (guard: requestFilter)", async () => {
    // Stands in for a screening bug: the builder is handed a copy that still holds a withheld path.
    const leaked = { account: "a", filter: { name: "n", and: [{ secret: "t" }] } };
    expect(() => assertNothingWithheld(narrowed, leaked)).toThrow(expect.objectContaining({ code: "EGRESS_DENIED" }));
    expect(() => assertNothingWithheld(narrowed, { account: "a", filter: { name: "n" } })).not.toThrow();
    await withoutGuard("requestFilter", () => expect(() => assertNothingWithheld(narrowed, leaked)).not.toThrow());
  });

  it("needs credentials for a tool that declares auth, and never puts them in errors", async () => {
    const error = await refusal(httpTool().call({ account: "a" }, { baseUrl: base }));
    expect(error.code).toBe("AUTH_MISSING");
    const failed = await refusal(httpTool("/error-500").call({ account: "a" }, ctx()));
    expect(failed.message).not.toContain("sk_test_secret");
  });
});

describe("answers", () => {
  const at = (path: string) => httpTool(path);

  it.each([
    ["/non-json", "RESPONSE_INVALID", undefined],
    ["/truncated", "RESPONSE_INVALID", undefined],
    ["/error-500", "HTTP_ERROR", 500],
    ["/rate-limited", "RATE_LIMITED", 429],
  ])("%s becomes %s", async (path, code, status) => {
    const error = await refusal(at(path).call({ account: "a" }, ctx()));
    expect(error.code).toBe(code);
    if (status !== undefined) expect(error.status).toBe(status);
  });

  it("carries retry-after and the API's message", async () => {
    const error = await refusal(at("/rate-limited").call({ account: "a" }, ctx()));
    expect(error.retryAfterSeconds).toBe(7);
    expect(error.message).toContain("slow down");
    const internal = await refusal(at("/error-500").call({ account: "a" }, ctx()));
    expect(internal.message).toContain("internal failure");
  });

  it("times out on a server that never answers, or stops mid-body", async () => {
    for (const path of ["/hang", "/slow-body"]) {
      const error = await refusal(at(path).call({ account: "a" }, { ...ctx(), timeoutMs: 300 }));
      expect(error.code).toBe("TIMEOUT");
    }
  });

  it("stops reading an answer larger than the cap", async () => {
    const error = await refusal(at("/huge").call({ account: "a" }, { ...ctx(), maxResponseBytes: 50_000 }));
    expect(error.code).toBe("RESPONSE_TOO_LARGE");
  });

  it("honours the caller's abort signal", async () => {
    const controller = new AbortController();
    const pending = at("/hang").call({ account: "a" }, { ...ctx(), signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await refusal(pending)).code).toBe("ABORTED");
  });

  it("turns a declared failure envelope into API_ERROR", async () => {
    const tool = Tool.create({
      name: "slack_like",
      description: "x",
      inputSchema: schema,
      binding: at("/slack-fail").binding,
      settings: { failure: okFalse },
    });
    const error = await refusal(tool.call({ account: "a" }, ctx()));
    expect(error.code).toBe("API_ERROR");
    expect(error.message).toContain("channel_not_found");
  });

  it("refuses an answer nested too deep for any handler, without overflowing the stack", async () => {
    const error = await refusal(at("/deep").call({ account: "a" }, ctx()));
    expect(error.code).toBe("RESPONSE_INVALID");
    expect(error.message).toContain("nests deeper than");
  });

  it("reads a GraphQL rate limit from the errors of a non-2xx answer", async () => {
    const tool = Tool.create({
      name: "gql_probe",
      description: "x",
      inputSchema: { type: "object", properties: {} },
      binding: { kind: "graphql", operationType: "query", field: "viewer", document: "query Viewer { viewer { id } }", variables: {} },
    });
    const error = await refusal(tool.call({}, { baseUrl: `${base}/graphql-limited` }));
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.status).toBe(400);
  });

  it("returns null for an empty answer", async () => {
    expect(await at("/empty").call({ account: "a" }, ctx())).toBeNull();
  });
});

describe("handlers and measurement", () => {
  it("runs the handler, a projection's handler replaces it, and the collector measures both sides", async () => {
    const tool = httpTool().derived({ responseHandler: pick(["items.id", "items.name", "has_more"]) });
    const collector = new CallCollector();
    const result = await collecting(collector, () => tool.invoke({ account: "a" }, ctx()));
    expect(result.output).toEqual({ items: [{ id: "it_1", name: "first" }], has_more: false });
    expect(result.payloadBytes).toBeGreaterThan(500);
    expect(result.contextBytes).toBe(JSON.stringify(result.output).length);
    const [record] = collector.records;
    expect(record).toMatchObject({ tool: "items_search", outcome: "ok", status: 200, payloadBytes: result.payloadBytes, contextBytes: result.contextBytes });
    expect(record!.ratio).toBeCloseTo(result.payloadBytes / result.contextBytes);

    const replaced = tool.derived({ responseHandler: () => "replaced" });
    expect(await replaced.call({ account: "a" }, ctx())).toBe("replaced");
  });

  it("records failures too, and only inside the scope", async () => {
    const collector = new CallCollector();
    await collecting(collector, async () => {
      await httpTool("/error-500").call({ account: "a" }, ctx()).catch(() => undefined);
      await httpTool().call({ bogus: 1 }, ctx()).catch(() => undefined);
    });
    await httpTool().call({ account: "a" }, ctx());
    expect(collector.records.map((r) => r.outcome)).toEqual(["HTTP_ERROR", "INVALID_ARGUMENTS"]);
    expect(collector.summary()).toMatchObject({ calls: 2, failed: 2 });
  });

  it("turns a handler that throws into HANDLER_FAILED", async () => {
    const tool = httpTool().derived({
      responseHandler: () => {
        throw new Error("bad shape");
      },
    });
    const error = await refusal(tool.call({ account: "a" }, ctx()));
    expect(isSluiceError(error, "HANDLER_FAILED")).toBe(true);
  });
});
