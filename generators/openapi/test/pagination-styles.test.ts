/**
 * Detection of the offset, next-URL and id-keyed pagination styles: on the real Jira,
 * Twilio and SendGrid specs (counts per style, a few tools exactly), on small documents
 * shaped like Discord's (not vendored) for the id-keyed rules and for what must not be
 * declared, and end to end: a generated pack walks every page of each style against a
 * local server, its next-page URLs never fetched.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack, generatedRuntime, type Pagination } from "@sluice/core";
import { buildOpenAPIPackIR, openapiRuntimeFacts } from "../src/index.ts";
import { corpusDocument } from "../../../test/support/corpus-document.ts";

const specs = new URL("../../../../shared/specs/", import.meta.url);

function detect(document: unknown, name = "api"): Record<string, Pagination> {
  const ir = buildOpenAPIPackIR(document, { name, file: `${name}.json`, sha256: "0".repeat(64) }, {});
  return openapiRuntimeFacts(document, ir).pagination;
}

function corpus(file: string): Record<string, Pagination> {
  return detect(corpusDocument(new URL(file, specs), file), file.split("/")[0]!);
}

function byStyle(pagination: Record<string, Pagination>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of Object.values(pagination)) out[`${p.style}:${p.arg}`] = (out[`${p.style}:${p.arg}`] ?? 0) + 1;
  return out;
}

describe("on the real specs", () => {
  it("Jira: startAt/maxResults/total/isLast lists page by offset", () => {
    const found = corpus("jira/jira-openapi.yaml");
    expect(byStyle(found)).toEqual({ "offset:startAt": 56, "offset:offset": 1, "nextUrl:after": 1 });
    expect(found["search_projects"]).toEqual({ style: "offset", arg: "startAt", items: "values", total: "total", isLast: "isLast", pageSizeArg: "maxResults", defaultPageSize: 50 });
    // A bare array of users: the answer itself is the list, and a short page ends it.
    expect(found["find_users"]).toEqual({ style: "offset", arg: "startAt", items: "$", pageSizeArg: "maxResults", defaultPageSize: 50 });
    expect(found["get_audit_records"]).toEqual({ style: "offset", arg: "offset", items: "records", total: "total", pageSizeArg: "limit", defaultPageSize: 1000 });
    expect(found["get_failed_webhooks"]).toEqual({ style: "nextUrl", arg: "after", next: "next", items: "values" });
    // Two lists in the answer (issues, warningMessages): which one pages is not confirmed, so nothing is declared.
    expect(found["search_for_issues_using_jql"]).toBeUndefined();
  });

  it("Twilio: every list follows next_page_uri's PageToken", () => {
    const found = corpus("twilio/twilio_api_v2010.json");
    expect(byStyle(found)).toEqual({ "nextUrl:PageToken": 60 });
    expect(found["list_call"]).toEqual({ style: "nextUrl", arg: "PageToken", next: "next_page_uri", items: "calls" });
    expect(found["list_account"]).toEqual({ style: "nextUrl", arg: "PageToken", next: "next_page_uri", items: "accounts" });
  });

  it("SendGrid: _metadata.next for page_token lists, offsets for limit/offset lists", () => {
    const found = corpus("sendgrid/oai_v3_stoplight.json");
    expect(byStyle(found)).toEqual({ "nextUrl:page_token": 12, "offset:offset": 25 });
    expect(found["get_automation_stat"]).toEqual({ style: "nextUrl", arg: "page_token", next: "_metadata.next", items: "results" });
    // The schema names the list `result`, an example `results`: the schema wins.
    expect(found["get_v3_teammates"]).toEqual({ style: "offset", arg: "offset", items: "result", pageSizeArg: "limit", defaultPageSize: 500 });
  });

  it("the styles detected before are unchanged", () => {
    expect(byStyle(corpus("stripe/spec3.json"))).toEqual({ "lastItemId:starting_after": 91, "cursor:page": 7 });
    expect(byStyle(corpus("asana/asana_oas.yaml"))).toEqual({ "cursor:offset": 62 });
    expect(byStyle(corpus("digitalocean/digitalocean-openapi.yaml"))).toEqual({ "page:page": 28 });
  });
});

// ---------------------------------------------------------------------------------------
// Small documents shaped like Discord's: ids are `SnowflakeType` strings, lists bare arrays.

const snowflake = { $ref: "#/components/schemas/SnowflakeType" };

function discordLike(operations: Record<string, { query: Record<string, unknown>; answer: unknown }>): unknown {
  const paths: Record<string, unknown> = {};
  for (const [path, { query, answer }] of Object.entries(operations)) {
    paths[path] = {
      get: {
        operationId: path.replace(/\W+/g, "_").replace(/^_|_$/g, ""),
        parameters: Object.entries(query).map(([name, schema]) => ({ name, in: "query", schema })),
        responses: { "200": { description: "ok", content: { "application/json": { schema: answer } } } },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Discord-like", version: "1" },
    servers: [{ url: "https://discord.example.invalid/api" }],
    paths,
    components: {
      schemas: {
        SnowflakeType: { type: "string", pattern: "^(0|[1-9][0-9]*)$", format: "snowflake" },
        User: { type: "object", properties: { id: snowflake, username: { type: "string" } } },
        ThreadMember: { type: "object", properties: { id: snowflake, user_id: snowflake } },
      },
    },
  };
}

const limit = { type: "integer", minimum: 1, maximum: 100 };
const users = { type: "array", items: { $ref: "#/components/schemas/User" } };

describe("id-keyed pages (Discord's after/before + limit)", () => {
  it("declares the last item's id for a one-direction marker, the bare array as the list", () => {
    const found = detect(
      discordLike({
        "/reactions": { query: { after: snowflake, limit }, answer: users },
        "/voters": { query: { after: snowflake, limit: { ...limit, default: 25 } }, answer: { type: "object", properties: { users } } },
        "/pins": { query: { before: snowflake, limit }, answer: { type: "object", properties: { items: users, has_more: { type: "boolean" } } } },
      }),
    );
    expect(found).toEqual({
      pins: { style: "lastItemId", arg: "before", items: "items", hasMore: "has_more", pageSizeArg: "limit" },
      reactions: { style: "lastItemId", arg: "after", items: "$", pageSizeArg: "limit" },
      voters: { style: "lastItemId", arg: "after", items: "users", pageSizeArg: "limit", defaultPageSize: 25 },
    });
  });

  it("declares nothing the answer does not confirm", () => {
    const found = detect(
      discordLike({
        // Both directions: whether the list runs oldest or newest first decides which one pages.
        "/messages": { query: { before: snowflake, after: snowflake, limit }, answer: users },
        // Items with two members of the marker's type: which one `after` means is not said.
        "/thread_members": { query: { after: snowflake, limit }, answer: { type: "array", items: { $ref: "#/components/schemas/ThreadMember" } } },
        // A date is no id.
        "/archived": { query: { before: { type: "string", format: "date-time" }, limit }, answer: users },
        // No size argument.
        "/no_limit": { query: { after: snowflake }, answer: users },
        // Items without ids.
        "/names": { query: { after: snowflake, limit }, answer: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } } },
        // An offset without a list in the answer, and a bare `next` that no container or format calls a URL.
        "/offset_no_list": { query: { offset: { type: "integer" }, limit }, answer: { type: "object", properties: { total: { type: "integer" } } } },
        "/bare_next": { query: { page_token: { type: "string" } }, answer: { type: "object", properties: { next: { type: "string" }, results: users } } },
      }),
    );
    expect(found).toEqual({});
  });

  it("a next-page URL needs a marker argument; a bare `next` counts when its format is a URL", () => {
    const found = detect(
      discordLike({
        "/no_marker": { query: { limit }, answer: { type: "object", properties: { next_page_uri: { type: "string" }, results: users } } },
        "/typed_next": { query: { page_token: { type: "string" } }, answer: { type: "object", properties: { next: { type: "string", format: "uri" }, results: users } } },
      }),
    );
    expect(found).toEqual({ typed_next: { style: "nextUrl", arg: "page_token", next: "next", items: "results" } });
  });
});

// ---------------------------------------------------------------------------------------
// End to end: one generated pack, three styles, pages walked from nextPageArgs.

const ALL = Array.from({ length: 7 }, (_, i) => ({ id: String(101 + i), name: `item ${i + 1}` }));

const walkDocument = {
  openapi: "3.0.3",
  info: { title: "Paged", version: "1" },
  servers: [{ url: "https://api.example.invalid" }],
  paths: {
    "/issues": {
      get: {
        operationId: "list_issues",
        parameters: [
          { name: "startAt", in: "query", schema: { type: "integer", default: 0 } },
          { name: "maxResults", in: "query", schema: { type: "integer", default: 50 } },
        ],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { startAt: { type: "integer" }, total: { type: "integer" }, isLast: { type: "boolean" }, values: { type: "array", items: { $ref: "#/components/schemas/Item" } } } } } },
          },
        },
      },
    },
    "/calls": {
      get: {
        operationId: "list_calls",
        parameters: [
          { name: "PageSize", in: "query", schema: { type: "integer" } },
          { name: "PageToken", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { next_page_uri: { type: "string", nullable: true }, calls: { type: "array", items: { $ref: "#/components/schemas/Item" } } } } } },
          },
        },
      },
    },
    "/members": {
      get: {
        operationId: "list_members",
        parameters: [
          { name: "after", in: "query", schema: { $ref: "#/components/schemas/Id" } },
          { name: "limit", in: "query", schema: { type: "integer", maximum: 100 } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Item" } } } } } },
      },
    },
  },
  components: { schemas: { Id: { type: "string" }, Item: { type: "object", properties: { id: { $ref: "#/components/schemas/Id" }, name: { type: "string" } } } } },
};

describe("end to end: pages walked from nextPageArgs against a local server", () => {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    seen.push(`${url.pathname}${url.search}`);
    const q = url.searchParams;
    let body: unknown;
    if (url.pathname === "/issues") {
      // The server caps the page at 3 whatever maxResults asks (as Jira does).
      const start = Number(q.get("startAt") ?? 0);
      const values = ALL.slice(start, start + Math.min(3, Number(q.get("maxResults") ?? 50)));
      body = { startAt: start, total: ALL.length, isLast: start + values.length >= ALL.length, values };
    } else if (url.pathname === "/calls") {
      const start = Number((q.get("PageToken") ?? "PA0").slice(2));
      const size = Number(q.get("PageSize") ?? 3);
      const calls = ALL.slice(start, start + size);
      // A URL on a host that does not exist: the walk must read its query, never fetch it.
      body = { calls, next_page_uri: start + size < ALL.length ? `https://elsewhere.invalid/2010-04-01/Calls.json?PageSize=${size}&Page=1&PageToken=PA${start + size}` : null };
    } else if (url.pathname === "/members") {
      const after = q.get("after");
      const from = after === null ? 0 : ALL.findIndex((item) => item.id === after) + 1;
      body = ALL.slice(from, from + Number(q.get("limit") ?? 100));
    }
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { message: "not found" }));
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ir = buildOpenAPIPackIR(walkDocument, { name: "paged", file: "paged.json", sha256: "0".repeat(64) }, {});
  const facts = openapiRuntimeFacts(walkDocument, ir);
  const pack = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts, { env: {} }) });

  /** Calls the tool from `args` until nextPageArgs says there is no next page; the ids of every page, in order. */
  async function walk(tool: string, args: Record<string, unknown>, pick: (body: unknown) => { id: string }[]): Promise<string[]> {
    const ids: string[] = [];
    const hosts = new Set<string>();
    const fetchLocal: typeof fetch = (input, init) => {
      hosts.add(new URL(input instanceof Request ? input.url : String(input)).host);
      return fetch(input, init);
    };
    let next: Record<string, unknown> | undefined = args;
    for (let calls = 0; next !== undefined && calls < 20; calls += 1) {
      const result = await pack.tool(tool).invoke(next, { baseUrl: base, fetch: fetchLocal });
      ids.push(...pick(result.body).map((item) => item.id));
      next = result.nextPageArgs;
    }
    expect([...hosts]).toEqual([new URL(base).host]);
    return ids;
  }

  it("detects the three styles", () => {
    expect(facts.pagination).toEqual({
      list_calls: { style: "nextUrl", arg: "PageToken", next: "next_page_uri", items: "calls" },
      list_issues: { style: "offset", arg: "startAt", items: "values", total: "total", isLast: "isLast", pageSizeArg: "maxResults", defaultPageSize: 50 },
      list_members: { style: "lastItemId", arg: "after", items: "$", pageSizeArg: "limit" },
    });
  });

  it("offset: advances by the items received under a capped page size, stops on isLast", async () => {
    seen.length = 0;
    expect(await walk("list_issues", { maxResults: 50 }, (body) => (body as { values: { id: string }[] }).values)).toEqual(ALL.map((item) => item.id));
    expect(seen).toEqual(["/issues?maxResults=50", "/issues?startAt=3&maxResults=50", "/issues?startAt=6&maxResults=50"]);
  });

  it("nextUrl: the token is read from a URL on another host; every call goes to the pack's server", async () => {
    seen.length = 0;
    expect(await walk("list_calls", { PageSize: 3 }, (body) => (body as { calls: { id: string }[] }).calls)).toEqual(ALL.map((item) => item.id));
    expect(seen).toEqual(["/calls?PageSize=3", "/calls?PageSize=3&PageToken=PA3", "/calls?PageSize=3&PageToken=PA6"]);
  });

  it("id-keyed: the last id goes back in `after` until a short page", async () => {
    seen.length = 0;
    expect(await walk("list_members", { limit: 2 }, (body) => body as { id: string }[])).toEqual(ALL.map((item) => item.id));
    expect(seen).toEqual(["/members?limit=2", "/members?after=102&limit=2", "/members?after=104&limit=2", "/members?after=106&limit=2"]);
  });

  it("a projection can declare the new styles, checked field by field", () => {
    const tool = pack.tool("list_members");
    const derived = tool.derived({ name: "members_offset", pagination: { style: "offset", arg: "limit", items: "$", total: "total", pageSizeArg: "limit" } });
    expect(derived.pagination).toEqual({ style: "offset", arg: "limit", items: "$", total: "total", pageSizeArg: "limit" });
    expect(() => tool.derived({ name: "bad", pagination: { style: "nextUrl", arg: "after", nxt: "next" } as unknown as Pagination })).toThrow(/no field "nxt"/);
    expect(() => tool.derived({ name: "bad", pagination: { style: "nextUrl", arg: "after" } as unknown as Pagination })).toThrow(/next/);
  });
});
