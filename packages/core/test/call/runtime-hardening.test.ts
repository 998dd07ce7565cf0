/**
 * Call runtime hardening (issue 11, observations 7, 8 and 11): pins are copied and
 * frozen at derive time; ctx.headers cannot replace a header the binding sets;
 * derived() options are checked at run time; credential values never reach an error
 * or `request()` output. Each guard is switched off once to prove its tests notice.
 * The only server is started here, on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { tools as notionTools } from "@sluice/pack-notion";
import { egressMap, formatEgressMap, isSluiceError, Tool, type CallContext, type HttpBinding, type JsonSchemaObject, type SluiceError } from "../../src/index.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const received: Received[] = [];
let base = "";

/** Answers by path; the error routes echo what they were sent, as careless APIs do. */
function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = new URL(req.url!, "http://x").pathname;
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  const auth = req.headers.authorization ?? "";
  switch (path) {
    case "/echo-401":
      return json(401, { message: `Bad credentials ${auth}` });
    case "/echo-url-500":
      return json(500, { error: { message: `upstream failed for ${req.url}` } });
    case "/echo-long":
      // The credential sits across the 500-character cut of the API message.
      return json(400, { message: `${"x".repeat(480)} ${auth}` });
    case "/echo-object-errors":
      // Not a `message` string: the error entry is shown as JSON, cut at 500 characters.
      return json(422, { errors: [{ detail: "y".repeat(460), auth }] });
    case "/echo-body":
      return json(400, { message: `bad form: ${body}` });
    case "/echo-not-json":
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(`oops ${auth} ${req.url}`);
    case "/graphql":
      return json(200, { data: null, errors: [{ message: `token ${auth} may not read this` }, { message: `and again: ${auth.replace(/^Bearer /, "")}` }] });
    case "/ok":
      return json(200, { ok: true });
    default:
      return json(404, { message: "no such route" });
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    route(req, res, body);
  });
});

// No idle timeout: the tokenizer load before the redaction cases can hold the event loop
// past Node's 5 s, and the next call would race the server closing its kept-alive
// connection (test/support/servers/http.test.ts shows the race). afterAll closes them all.
server.keepAliveTimeout = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function thrown(promise: Promise<unknown>): Promise<SluiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isSluiceError(error)) throw new Error(`expected a SluiceError, got ${inspect(error)}`);
  return error;
}

function syncThrown(fn: () => unknown): SluiceError {
  try {
    fn();
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError, nothing was thrown");
}

// ---------------------------------------------------------------------------------------
// Pins
// ---------------------------------------------------------------------------------------

const searchSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    query: { type: "string" },
    filter: {
      type: "object",
      properties: { state: { type: "string" }, labels: { type: "array", items: { type: "string" } }, extra: { type: "string" } },
      additionalProperties: false,
    },
    cursor: { type: "string" },
    limit: { type: "integer" },
  },
};

function searchTool(): Tool {
  const binding: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/ok",
    server: "https://api.example.invalid",
    parameters: [
      { arg: "cursor", name: "cursor", in: "query", style: "form", explode: true },
      { arg: "limit", name: "limit", in: "query", style: "form", explode: true },
    ],
    body: { mediaType: "application/json", encoding: "json", fields: { query: "query", filter: "filter" } },
  };
  return Tool.create({ name: "search", description: "Search.", inputSchema: searchSchema, binding });
}

/**
 * Derives with a pin, then changes the object it passed every way it can; returns what
 * of the derived tool changed with it (nothing, when pins are copied and frozen).
 */
async function pinLeaks(): Promise<string[]> {
  const pin = { filter: { state: "open", labels: ["bug"] } };
  const tool = searchTool().derived({ name: "open_bugs", pin });
  const before = { request: await tool.request({ query: "q" }, { baseUrl: base }), map: formatEgressMap(egressMap([tool])), pins: JSON.stringify(tool.pins) };
  pin.filter.state = "closed";
  pin.filter.labels.push("wontfix");
  (pin.filter as Record<string, unknown>).extra = "smuggled";
  (pin as Record<string, unknown>).limit = 1000;
  const after = { request: await tool.request({ query: "q" }, { baseUrl: base }), map: formatEgressMap(egressMap([tool])), pins: JSON.stringify(tool.pins) };
  const leaks: string[] = [];
  if (after.request.body !== before.request.body || after.request.url !== before.request.url) leaks.push(`request: ${String(after.request.body)} ${after.request.url}`);
  if (after.map !== before.map) leaks.push("egress map");
  if (after.pins !== before.pins) leaks.push(`tool.pins: ${after.pins}`);
  if (!Object.isFrozen(tool.pins) || !Object.isFrozen(tool.pins.filter) || !Object.isFrozen((tool.pins.filter as { labels: unknown }).labels)) leaks.push("tool.pins is not frozen");
  return leaks;
}

describe("pins", () => {
  it("are copied and frozen at derived(): changing the passed object changes neither the request, the egress map nor tool.pins", async () => {
    expect(await pinLeaks()).toEqual([]);
  });

  it("cannot be changed through tool.pins", () => {
    const tool = searchTool().derived({ pin: { filter: { state: "open" } } });
    expect(() => {
      (tool.pins as Record<string, unknown>).limit = 5;
    }).toThrow(TypeError);
    expect(() => {
      (tool.pins.filter as Record<string, unknown>).state = "closed";
    }).toThrow(TypeError);
    expect(tool.pins).toEqual({ filter: { state: "open" } });
  });

  it("the pins of a derived tool's parent stay frozen in the child", async () => {
    const pin = { filter: { state: "open" } };
    const child = searchTool().derived({ pin }).derived({ drop: ["query"] });
    pin.filter.state = "closed";
    expect(JSON.parse((await child.request({}, { baseUrl: base })).body as string)).toEqual({ filter: { state: "open" } });
  });

  it.each([
    ["a function", { query: (() => "x") as unknown }],
    ["a Date", { query: new Date(0) as unknown }],
    ["NaN", { limit: Number.NaN as unknown }],
    ["a Map inside", { filter: { state: new Map() as unknown } }],
  ])("refuses %s as a pin with PIN_INVALID (pins are JSON data)", (_name, pin) => {
    const error = syncThrown(() => searchTool().derived({ pin }));
    expect(error.code).toBe("PIN_INVALID");
  });

  it("refuses a looping pin with PIN_INVALID instead of looping", () => {
    const loop: Record<string, unknown> = { state: "open" };
    loop.self = loop;
    expect(syncThrown(() => searchTool().derived({ pin: { filter: loop } })).code).toBe("PIN_INVALID");
  });

  it("guard freezePins: switched off, the mutation leaks and the pin test fails", async () => {
    const leaks = await withoutGuard("freezePins", pinLeaks);
    expect(leaks).toEqual(expect.arrayContaining([expect.stringMatching(/^request/), "egress map", expect.stringMatching(/^tool\.pins/)]));
  });
});

// ---------------------------------------------------------------------------------------
// ctx.headers cannot override what the binding sets
// ---------------------------------------------------------------------------------------

const notionPage = notionTools.find((tool) => tool.name === "retrieve_a_page")!;

function headerTool(): Tool {
  const binding: HttpBinding = {
    kind: "http",
    method: "POST",
    path: "/ok",
    server: "https://api.example.invalid",
    parameters: [{ arg: "mode", name: "X-Mode", in: "header", style: "simple", explode: false }],
    body: { mediaType: "application/json", encoding: "json", fields: { query: "query" } },
    auth: [[{ scheme: "key", type: "bearer" }]],
  };
  return Tool.create({
    name: "header_tool",
    description: "Has a header parameter, a body and authentication.",
    inputSchema: { type: "object", properties: { mode: { type: "string" }, query: { type: "string" } } },
    binding,
  });
}

function graphqlTool(): Tool {
  return Tool.create({
    name: "viewer",
    description: "The viewer.",
    inputSchema: { type: "object", properties: {} },
    binding: { kind: "graphql", operationType: "query", field: "viewer", document: "query viewer { viewer { id } }", variables: {} },
    settings: { endpoint: "https://api.example.invalid/graphql", auth: [[{ scheme: "key", type: "bearer" }]] },
  });
}

/** The three ways of sending, each with the same arguments and context. */
const senders: Array<[string, (tool: Tool, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>]> = [
  ["call", (tool, args, ctx) => tool.call(args, ctx)],
  ["invoke", (tool, args, ctx) => tool.invoke(args, ctx)],
  ["request", (tool, args, ctx) => tool.request(args, ctx)],
];

/**
 * Sends Notion's curated `retrieve_a_page` (its `Notion-Version` pinned) with another
 * version in ctx.headers; returns the version the server saw, or the error code.
 */
async function notionVersionSent(headerName: string): Promise<string> {
  received.length = 0;
  try {
    await notionPage.call({ page_id: "p1" }, { baseUrl: base, headers: { [headerName]: "2022-06-28" }, timeoutMs: 2_000 });
  } catch (error) {
    if (isSluiceError(error) && error.code === "HEADER_OVERRIDE") return error.code;
    if (!isSluiceError(error) || error.code !== "HTTP_ERROR") throw error;
  }
  return String(received.at(-1)?.headers["notion-version"]);
}

describe("ctx.headers and the binding's headers", () => {
  it("the Notion pack pins Notion-Version in its curated tools", () => {
    expect(notionPage.pins).toEqual({ "Notion-Version": "2025-09-03" });
  });

  it.each(senders)("Notion: %s refuses a Notion-Version in ctx.headers with HEADER_OVERRIDE, before sending", async (_how, send) => {
    for (const headerName of ["Notion-Version", "notion-version", "NOTION-VERSION"]) {
      received.length = 0;
      const error = await thrown(send(notionPage, { page_id: "p1" }, { baseUrl: base, headers: { [headerName]: "2022-06-28" }, timeoutMs: 2_000 }));
      expect(error.code).toBe("HEADER_OVERRIDE");
      expect(error.message).toContain(`"${headerName}"`);
      expect(error.message).toContain("2025-09-03");
      expect(received).toHaveLength(0);
    }
  });

  it("Notion: the pinned version is what the server gets", async () => {
    expect(await notionVersionSent("Notion-Version")).toBe("HEADER_OVERRIDE");
    received.length = 0;
    await notionPage.call({ page_id: "p1" }, { baseUrl: base, timeoutMs: 2_000 }).catch(() => undefined);
    expect(received.at(-1)?.headers["notion-version"]).toBe("2025-09-03");
  });

  it.each([
    ["a header parameter", "x-mode"],
    ["a header parameter, other case", "X-MODE"],
    ["authentication", "Authorization"],
    ["the body's content type", "Content-Type"],
  ])("synthetic tool: %s (%s) cannot be replaced, by call, invoke or request", async (_what, headerName) => {
    for (const [, send] of senders) {
      received.length = 0;
      const ctx: CallContext = { baseUrl: base, credentials: { key: { token: "tok_live_1234" } }, headers: { [headerName]: "from-ctx" }, timeoutMs: 2_000 };
      const error = await thrown(send(headerTool(), { query: "q" }, ctx));
      expect(error.code).toBe("HEADER_OVERRIDE");
      expect(error.message).toContain(`"${headerName}"`);
      expect(received).toHaveLength(0);
    }
  });

  it("a header parameter clashes even when this call leaves it out (the binding declares it)", async () => {
    const error = await thrown(headerTool().request({}, { credentials: { key: { token: "tok_live_1234" } }, headers: { "X-Mode": "fast" } }));
    expect(error.code).toBe("HEADER_OVERRIDE");
  });

  it("dropping the header parameter frees the header for ctx.headers", async () => {
    const request = await headerTool().derived({ drop: ["mode"] }).request({}, { credentials: { key: { token: "tok_live_1234" } }, headers: { "X-Mode": "fast" } });
    expect(request.headers["x-mode"]).toBe("fast");
  });

  it("headers the binding does not set pass through, and may set accept", async () => {
    received.length = 0;
    await headerTool().call({ query: "q", mode: "m" }, { baseUrl: base, credentials: { key: { token: "tok_live_1234" } }, headers: { "User-Agent": "my-app/1", Accept: "application/vnd.x+json" }, timeoutMs: 2_000 });
    const sent = received.at(-1)!;
    expect(sent.headers["user-agent"]).toBe("my-app/1");
    expect(sent.headers["accept"]).toBe("application/vnd.x+json");
    expect(sent.headers["x-mode"]).toBe("m");
    expect(sent.headers["authorization"]).toBe("Bearer tok_live_1234");
  });

  it("GraphQL: authentication and the content type cannot be replaced", async () => {
    for (const headerName of ["authorization", "content-type"]) {
      const error = await thrown(graphqlTool().request({}, { credentials: { key: { token: "tok_live_1234" } }, headers: { [headerName]: "x" } }));
      expect(error.code).toBe("HEADER_OVERRIDE");
    }
  });

  it("guard headerOverride: switched off, ctx.headers replaces the pinned Notion-Version again", async () => {
    expect(await withoutGuard("headerOverride", () => notionVersionSent("Notion-Version"))).toBe("2022-06-28");
  });
});

// ---------------------------------------------------------------------------------------
// derived() options
// ---------------------------------------------------------------------------------------

describe("derived() options", () => {
  /** Options built at run time, as when they come from configuration: TypeScript sees none of their keys. */
  const loose = (text: string): never => JSON.parse(text) as never;

  it.each([
    ["dropp", loose('{ "dropp": ["query"] }'), "drop"],
    ["Drop", loose('{ "Drop": ["query"] }'), "drop"],
    ["Keep", loose('{ "Keep": ["query"] }'), "keep"],
    ["pins", loose('{ "pins": { "limit": 1 } }'), "pin"],
    ["responsehandler", { responsehandler: () => 1 } as never, "responseHandler"],
    ["paginate", loose('{ "paginate": { "style": "cursor" } }'), "pagination"],
  ])("an unknown key (%s) is INVALID_OPTION naming the nearest valid key", (key, options, nearest) => {
    const error = syncThrown(() => searchTool().derived(options));
    expect(error.code).toBe("INVALID_OPTION");
    expect(error.message).toContain(`"${key}"`);
    expect(error.message).toContain(`did you mean "${nearest}"`);
    expect(error.candidates?.[0]).toBe(nearest);
  });

  it.each([
    ["responseHandler: a string", { responseHandler: "x" }],
    ["responseHandler: an object", { responseHandler: { body: 1 } }],
    ["name: a number", { name: 5 }],
    ["description: an object", { description: { text: "x" } }],
    ["pin: an array", { pin: ["limit"] }],
    ["returns: not strings", { returns: [1] }],
    ["pagination: a string", { pagination: "cursor" }],
    ["pagination: no arg", { pagination: { style: "cursor", cursor: "next" } }],
    ["pagination: cursor style without cursor", { pagination: { style: "cursor", arg: "cursor" } }],
    ["pagination: page size not a number", { pagination: { style: "page", arg: "cursor", items: "items", defaultPageSize: "10" } }],
  ])("%s is INVALID_OPTION", (_name, options) => {
    expect(syncThrown(() => searchTool().derived(options as never)).code).toBe("INVALID_OPTION");
  });

  it.each([
    ["options that are not an object", [] as unknown],
    ["options that are null", null as unknown],
  ])("%s are INVALID_OPTION", (_name, options) => {
    expect(syncThrown(() => searchTool().derived(options as never)).code).toBe("INVALID_OPTION");
  });

  it("pagination.arg must be an argument of the derived tool: nearest argument named", () => {
    const error = syncThrown(() => searchTool().derived({ pagination: { style: "cursor", arg: "cursr", cursor: "next" } }));
    expect(error.code).toBe("INVALID_OPTION");
    expect(error.message).toContain('did you mean "cursor"');
    expect(error.candidates?.[0]).toBe("cursor");
    expect(error.candidates).toEqual(expect.arrayContaining(["query", "filter", "cursor", "limit"]));
  });

  it("pagination.arg may not be an argument dropped or pinned in the same derive", () => {
    const dropped = syncThrown(() => searchTool().derived({ drop: ["cursor"], pagination: { style: "cursor", arg: "cursor", cursor: "next" } }));
    expect(dropped.code).toBe("INVALID_OPTION");
    expect(dropped.candidates).not.toContain("cursor");
    const pinned = syncThrown(() => searchTool().derived({ pin: { cursor: "c0" }, pagination: { style: "cursor", arg: "cursor", cursor: "next" } }));
    expect(pinned.code).toBe("INVALID_OPTION");
    expect(pinned.message).toContain("pinned");
    const pinnedBefore = searchTool().derived({ pin: { cursor: "c0" } });
    expect(syncThrown(() => pinnedBefore.derived({ pagination: { style: "cursor", arg: "cursor", cursor: "next" } })).code).toBe("INVALID_OPTION");
  });

  it("an unknown pagination style or field names the nearest one", () => {
    const style = syncThrown(() => searchTool().derived({ pagination: { style: "cursr", arg: "cursor", cursor: "next" } as never }));
    expect(style.code).toBe("INVALID_OPTION");
    expect(style.candidates?.[0]).toBe("cursor");
    const field = syncThrown(() => searchTool().derived({ pagination: { style: "cursor", arg: "cursor", cursor: "next", hasmore: "more" } as never }));
    expect(field.code).toBe("INVALID_OPTION");
    expect(field.candidates?.[0]).toBe("hasMore");
  });

  it("a valid pagination is taken, copied and used for the next page", async () => {
    const pagination = { style: "cursor" as const, arg: "cursor", cursor: "next" };
    const tool = searchTool().derived({ pagination });
    pagination.arg = "limit";
    expect(tool.pagination).toEqual({ style: "cursor", arg: "cursor", cursor: "next" });
    const fetch = (async () => new Response(JSON.stringify({ next: "c2" }), { status: 200, headers: { "content-type": "application/json" } })) as typeof globalThis.fetch;
    expect((await tool.invoke({ query: "q" }, { fetch })).nextPageArgs).toEqual({ query: "q", cursor: "c2" });
  });

  it("valid options still derive; the measuring hook (paths byCost) still works", async () => {
    const tool = searchTool().derived({ name: "s2", description: "d", drop: ["filter.extra"], keep: [], pin: { limit: 5 }, responseHandler: (body) => body });
    expect(tool.name).toBe("s2");
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(["query", "filter", "cursor"]);
    const costs = await searchTool().paths({ byCost: true });
    expect(costs.map((cost) => cost.path).sort()).toEqual(["cursor", "filter", "limit", "query"]);
    expect(costs.every((cost) => typeof cost.tokens === "number" && cost.tokens > 0)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------
// Redaction
// ---------------------------------------------------------------------------------------

/** A token with characters every encoding treats differently. */
const TOKEN = "ghp_S3cr3t+b/c=d&e!x*y'z";
const API_KEY = "key_9f8e+7d/6c=5b&4a";
const USER = "sk_test_user42";
const PASSWORD = "pa$$ word:with/colon";
const BASIC = Buffer.from(`${USER}:${PASSWORD}`, "utf8").toString("base64");

/** Every spelling of a value that could give it away. */
function spellings(value: string): string[] {
  const percent = [encodeURIComponent(value), encodeURIComponent(value).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())];
  return [
    value,
    ...percent,
    ...percent.map((p) => p.toLowerCase()),
    encodeURIComponent(value).replace(/%20/g, "+"),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value, "utf8").toString("base64"),
  ];
}

const SECRETS = [TOKEN, API_KEY, USER, PASSWORD, `${USER}:${PASSWORD}`, BASIC];

/** Everything about an error a person, a log or a model could read: message, stack, causes, details. */
function everything(error: unknown): string {
  const parts: string[] = [];
  let link: unknown = error;
  for (let depth = 0; link !== undefined && link !== null && depth < 20; depth++) {
    const e = link as { message?: unknown; stack?: unknown; cause?: unknown };
    parts.push(String(e.message), String(e.stack));
    try {
      parts.push(JSON.stringify(link));
    } catch {
      parts.push(String(link));
    }
    link = typeof link === "object" ? e.cause : undefined;
  }
  parts.push(inspect(error, { depth: 20 }));
  return parts.join("\n");
}

/** The spellings (and 10-character pieces of them, for cut-off texts) of any secret found in `text`. */
function leaksIn(text: string): string[] {
  const found = new Set<string>();
  for (const secret of SECRETS) {
    for (const form of spellings(secret)) {
      if (text.includes(form)) found.add(form);
      for (let i = 0; i + 10 <= form.length; i++) if (text.includes(form.slice(i, i + 10))) found.add(`piece of ${form}`);
    }
  }
  return [...found];
}

function redactionTool(path: string, binding: Partial<HttpBinding> = {}): Tool {
  return Tool.create({
    name: "leaky",
    description: "Calls an API that echoes what it gets.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    binding: {
      kind: "http",
      method: "POST",
      path,
      server: "https://api.example.invalid",
      parameters: [],
      body: { mediaType: "application/json", encoding: "json", fields: { text: "text" } },
      auth: [[{ scheme: "bearerAuth", type: "bearer" }]],
      ...binding,
    },
  });
}

const bearer: CallContext = { credentials: { bearerAuth: { token: TOKEN } }, timeoutMs: 3_000 };

/**
 * Each case makes a call fail in a way that echoes a credential (or builds a request
 * carrying one); returns everything the error says, and texts that must be in it.
 */
interface Seen {
  text: string;
  shows?: string[];
}
const redactionCases: Array<[string, () => Promise<Seen>]> = [
  ["401 whose JSON body says `Bad credentials Bearer <token>`", async () => {
    const error = await thrown(redactionTool("/echo-401").call({ text: "hi" }, { ...bearer, baseUrl: base }));
    expect([error.code, error.status]).toEqual(["HTTP_ERROR", 401]);
    return { text: everything(error) };
  }],
  ["500 whose body echoes the URL with ?api_key=<key>", async () => {
    const tool = redactionTool("/echo-url-500", { auth: [[{ scheme: "apiKey", type: "apiKey", in: "query", name: "api_key" }]] });
    const error = await thrown(tool.call({ text: "hi" }, { credentials: { apiKey: { token: API_KEY } }, baseUrl: base, timeoutMs: 3_000 }));
    expect([error.code, error.status]).toEqual(["HTTP_ERROR", 500]);
    return { text: everything(error), shows: ["api_key=[redacted]"] };
  }],
  ["an API message with the token across the 500-character cut", async () => {
    const error = await thrown(redactionTool("/echo-long").call({}, { ...bearer, baseUrl: base }));
    expect(error.status).toBe(400);
    return { text: everything(error) };
  }],
  ["an API error entry shown as JSON, cut at 500 characters", async () => {
    const error = await thrown(redactionTool("/echo-object-errors").call({}, { ...bearer, baseUrl: base }));
    expect(error.status).toBe(422);
    return { text: everything(error) };
  }],
  ["Basic auth echoed (base64 of user:pass)", async () => {
    const tool = redactionTool("/echo-401", { auth: [[{ scheme: "basicAuth", type: "basic" }]] });
    const error = await thrown(tool.call({}, { credentials: { basicAuth: { username: USER, password: PASSWORD } }, baseUrl: base, timeoutMs: 3_000 }));
    return { text: everything(error), shows: ["Basic [redacted]"] };
  }],
  ["a credential parameter (Slack's `token`) echoed from a form body", async () => {
    const tool = redactionTool("/echo-body", {
      body: { mediaType: "application/x-www-form-urlencoded", encoding: "form", fields: { text: "text", token: "token" }, credentialFields: { token: "slackAuth" } },
      auth: [[{ scheme: "slackAuth", type: "bearer" }]],
    });
    const error = await thrown(tool.call({ text: "hi" }, { credentials: { slackAuth: { token: TOKEN } }, baseUrl: base, timeoutMs: 3_000 }));
    expect(error.status).toBe(400);
    return { text: everything(error) };
  }],
  ["a token query parameter (Slack's `token`) in a URL the server echoes", async () => {
    const tool = redactionTool("/echo-url-500", { parameters: [{ arg: "token", name: "token", in: "query", style: "form", explode: true, credential: "slackAuth", required: true }], auth: [[{ scheme: "slackAuth", type: "bearer" }]] });
    const error = await thrown(tool.call({}, { credentials: { slackAuth: { token: TOKEN } }, baseUrl: base, timeoutMs: 3_000 }));
    expect(error.status).toBe(500);
    return { text: everything(error) };
  }],
  ["an answer that is not JSON (RESPONSE_INVALID snippet)", async () => {
    const error = await thrown(redactionTool("/echo-not-json").call({}, { ...bearer, baseUrl: base }));
    expect(error.code).toBe("RESPONSE_INVALID");
    return { text: everything(error), shows: ["Bearer [redacted]"] };
  }],
  ["GraphQL errors[].message echoing the token", async () => {
    const tool = Tool.create({
      name: "viewer",
      description: "The viewer.",
      inputSchema: { type: "object", properties: {} },
      binding: { kind: "graphql", operationType: "query", field: "viewer", document: "query viewer { viewer { id } }", variables: {} },
      settings: { endpoint: `${base}/graphql`, auth: [[{ scheme: "bearerAuth", type: "bearer" }]] },
    });
    const error = await thrown(tool.call({}, bearer));
    expect(error.code).toBe("API_ERROR");
    return { text: everything(error) };
  }],
  ["a custom fetch whose error (and its cause) quote the URL and the header", async () => {
    const tool = redactionTool("/ok", { auth: [[{ scheme: "bearerAuth", type: "bearer" }, { scheme: "apiKey", type: "apiKey", in: "query", name: "api_key" }]] });
    const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
      const headers = init?.headers as Record<string, string>;
      const inner = Object.assign(new Error(`socket closed while sending ${headers["authorization"]}`), { code: "ECONNRESET", config: { headers } });
      throw new TypeError(`fetch to ${String(url)} failed`, { cause: inner });
    }) as typeof globalThis.fetch;
    const error = await thrown(tool.call({}, { credentials: { bearerAuth: { token: TOKEN }, apiKey: { token: API_KEY } }, baseUrl: base, fetch, timeoutMs: 3_000 }));
    expect(error.code).toBe("NETWORK_ERROR");
    return { text: everything(error) };
  }],
  ["a custom fetch that throws a plain object holding the token", async () => {
    const fetch = (async () => {
      throw { reason: `denied for ${TOKEN}` };
    }) as typeof globalThis.fetch;
    const error = await thrown(redactionTool("/ok").invoke({}, { ...bearer, baseUrl: base, fetch }));
    expect(error.code).toBe("NETWORK_ERROR");
    return { text: everything(error) };
  }],
  ["a token given as an Authorization header in ctx.headers (how MCP sends undeclared auth)", async () => {
    const tool = redactionTool("/echo-401", { auth: [] });
    const error = await thrown(tool.call({}, { headers: { Authorization: `Bearer ${TOKEN}` }, baseUrl: base, timeoutMs: 3_000 }));
    expect(error.status).toBe(401);
    return { text: everything(error) };
  }],
  ["tool.request() output (headers, query, cookies, form body)", async () => {
    const tool = redactionTool("/ok", {
      auth: [[{ scheme: "bearerAuth", type: "bearer" }, { scheme: "apiKey", type: "apiKey", in: "query", name: "api_key" }, { scheme: "session", type: "apiKey", in: "cookie", name: "sid" }]],
      body: { mediaType: "application/x-www-form-urlencoded", encoding: "form", fields: { text: "text", token: "token" }, credentialFields: { token: "bearerAuth" } },
    });
    const request = await tool.request({ text: "hi" }, { credentials: { bearerAuth: { token: TOKEN }, apiKey: { token: API_KEY }, session: { token: PASSWORD } } });
    return { text: JSON.stringify(request), shows: ['"authorization":"Bearer [redacted]"', "api_key=[redacted]", '"cookie":"sid=[redacted]"', "token=[redacted]"] };
  }],
  ["tool.request() with Basic auth", async () => {
    const tool = redactionTool("/ok", { auth: [[{ scheme: "basicAuth", type: "basic" }]] });
    const request = await tool.request({}, { credentials: { basicAuth: { username: USER, password: PASSWORD } } });
    return { text: JSON.stringify(request), shows: ['"authorization":"Basic [redacted]"'] };
  }],
];

describe("redaction of credentials", () => {
  it.each(redactionCases)("%s: no spelling of a credential is left", async (_name, run) => {
    const seen = await run();
    expect(leaksIn(seen.text)).toEqual([]);
    for (const shown of seen.shows ?? []) expect(seen.text).toContain(shown);
    expect(seen.text).toContain("[redacted]");
  });

  it("request() with revealCredentials shows the request as sent", async () => {
    const tool = redactionTool("/ok", { auth: [[{ scheme: "bearerAuth", type: "bearer" }, { scheme: "apiKey", type: "apiKey", in: "query", name: "api_key" }]] });
    const request = await tool.request({}, { credentials: { bearerAuth: { token: TOKEN }, apiKey: { token: API_KEY } }, revealCredentials: true });
    expect(request.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
    expect(request.url).toContain(`api_key=${encodeURIComponent(API_KEY).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())}`);
  });

  it("what is sent is untouched: the server gets the real credentials", async () => {
    received.length = 0;
    await redactionTool("/ok").call({}, { ...bearer, baseUrl: base });
    expect(received.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("values shorter than 4 characters are not redacted (they would blank out ordinary words)", async () => {
    const error = await thrown(redactionTool("/echo-401").call({}, { credentials: { bearerAuth: { token: "abc" } }, baseUrl: base, timeoutMs: 3_000 }));
    expect(error.message).toContain("Bad credentials Bearer abc");
  });

  it("an error that mentions no credential is passed on as it is (same object, same cause)", async () => {
    const cause = new Error("plain failure");
    const fetch = (async () => {
      throw cause;
    }) as typeof globalThis.fetch;
    const error = await thrown(redactionTool("/ok").call({}, { ...bearer, baseUrl: base, fetch }));
    expect(error.cause).toBe(cause);
  });

  it("guard redaction: switched off, every redaction case above leaks", async () => {
    const leaking: string[] = [];
    await withoutGuard("redaction", async () => {
      for (const [name, run] of redactionCases) {
        if (leaksIn((await run()).text).length > 0) leaking.push(name);
      }
    });
    expect(leaking).toEqual(redactionCases.map(([name]) => name));
  });
});
