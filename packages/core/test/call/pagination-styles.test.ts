/**
 * `nextPageArgs` and the page markers for the styles real APIs use beside cursors:
 * item offsets (Jira's startAt/maxResults/total/isLast), a next-page URL in the body
 * (Twilio's `next_page_uri`, SendGrid's `_metadata.next`) and id-keyed pages without a
 * more-pages flag (Discord's `after` + `limit`, a bare array as the answer).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingMarkers, nextPageArgs, pageMarkers, Tool, type HttpBinding, type Pagination } from "@sluice/core";

type Case = [name: string, { pagination: Pagination; body: unknown; args: Record<string, unknown>; want: Record<string, unknown> | undefined }];

const jira: Pagination = { style: "offset", arg: "startAt", items: "values", total: "total", isLast: "isLast", pageSizeArg: "maxResults", defaultPageSize: 50 };
const bare: Pagination = { style: "offset", arg: "offset", items: "$", pageSizeArg: "limit", defaultPageSize: 3 };
const counted: Pagination = { style: "offset", arg: "offset", items: "records", total: "total", pageSizeArg: "limit" };
const flagged: Pagination = { style: "offset", arg: "offset", items: "threads", hasMore: "has_more", pageSizeArg: "limit" };
const twilio: Pagination = { style: "nextUrl", arg: "PageToken", next: "next_page_uri", items: "calls" };
const sendgrid: Pagination = { style: "nextUrl", arg: "page_token", next: "_metadata.next", items: "results" };
const discord: Pagination = { style: "lastItemId", arg: "after", items: "$", pageSizeArg: "limit" };
const voters: Pagination = { style: "lastItemId", arg: "after", items: "users", pageSizeArg: "limit", defaultPageSize: 25 };

const items = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: String(from + i) }));

const CASES: Case[] = [
  // Offsets
  ["offset: Jira, more pages", { pagination: jira, body: { values: items(50), total: 120, isLast: false }, args: { startAt: 0, maxResults: 50 }, want: { startAt: 50, maxResults: 50 } }],
  ["offset: a capped page advances by what came back, not by what was asked", { pagination: jira, body: { values: items(20), total: 120, isLast: false }, args: { startAt: 10, maxResults: 50 }, want: { startAt: 30, maxResults: 50 } }],
  ["offset: isLast true ends it, total or not", { pagination: jira, body: { values: items(50), total: 500, isLast: true }, args: { startAt: 0 }, want: undefined }],
  ["offset: the first call has no offset: it counts from 0", { pagination: jira, body: { values: items(50), isLast: false }, args: { projectKey: "EX" }, want: { projectKey: "EX", startAt: 50 } }],
  ["offset: total reached", { pagination: counted, body: { records: items(10), total: 50 }, args: { offset: 40, limit: 10 }, want: undefined }],
  ["offset: total not reached", { pagination: counted, body: { records: items(10), total: 51 }, args: { offset: 40, limit: 10 }, want: { offset: 50, limit: 10 } }],
  ["offset: total not reached although the page is short (a capped size)", { pagination: counted, body: { records: items(4), total: 51 }, args: { offset: 0, limit: 10 }, want: { offset: 4, limit: 10 } }],
  ["offset: a non-numeric total is no total: the short-page rule decides", { pagination: counted, body: { records: items(4), total: "many" }, args: { offset: 0, limit: 10 }, want: undefined }],
  ["offset: an empty page ends it although isLast says otherwise", { pagination: jira, body: { values: [], total: 500, isLast: false }, args: { startAt: 100 }, want: undefined }],
  ["offset: a bare array, full page", { pagination: bare, body: items(3), args: {}, want: { offset: 3 } }],
  ["offset: a bare array, short page (default size 3)", { pagination: bare, body: items(2), args: {}, want: undefined }],
  ["offset: the size asked for wins over the default", { pagination: bare, body: items(3), args: { offset: 6, limit: 10 }, want: undefined }],
  ["offset: has_more true", { pagination: flagged, body: { threads: items(2), has_more: true }, args: { offset: 0, limit: 25 }, want: { offset: 2, limit: 25 } }],
  ["offset: has_more false", { pagination: flagged, body: { threads: items(25), has_more: false }, args: { offset: 0, limit: 25 }, want: undefined }],
  ["page: a page size of 0 asked for is no size: the default decides (a short page ends the walk)", { pagination: { style: "page", arg: "page", items: "values", pageSizeArg: "limit", defaultPageSize: 10 }, body: { values: items(3) }, args: { page: 1, limit: 0 }, want: undefined }],
  ["page: a full page of the size asked for goes on", { pagination: { style: "page", arg: "page", items: "values", pageSizeArg: "limit", defaultPageSize: 10 }, body: { values: items(3) }, args: { page: 1, limit: 3 }, want: { page: 2, limit: 3 } }],
  ["offset: a non-numeric previous offset gives no next page", { pagination: bare, body: items(3), args: { offset: "ten" }, want: undefined }],
  ["offset: a negative previous offset gives no next page", { pagination: bare, body: items(3), args: { offset: -3 }, want: undefined }],
  ["offset: no list where declared", { pagination: jira, body: { total: 10, isLast: false }, args: {}, want: undefined }],
  ["offset: the list is not an array", { pagination: jira, body: { values: { "0": { id: 1 } }, isLast: false }, args: {}, want: undefined }],
  ["offset: __proto__ members of the answer are not read", { pagination: jira, body: JSON.parse('{"__proto__": {"values": [{"id": 1}], "isLast": false}}'), args: {}, want: undefined }],
  // Next-page URLs
  ["nextUrl: Twilio's relative URI", { pagination: twilio, body: { calls: items(2), next_page_uri: "/2010-04-01/Accounts/AC0/Calls.json?PageSize=2&Page=1&PageToken=PASCabc" }, args: { AccountSid: "AC0", PageSize: 2 }, want: { AccountSid: "AC0", PageSize: 2, PageToken: "PASCabc" } }],
  ["nextUrl: an absolute URL on another host is only read", { pagination: sendgrid, body: { results: [], _metadata: { next: "https://elsewhere.invalid/v3/stats?page_size=2&page_token=tok%2F2" } }, args: { page_size: 2 }, want: { page_size: 2, page_token: "tok/2" } }],
  ["nextUrl: a numeric marker comes back as a number", { pagination: { style: "nextUrl", arg: "offset", next: "next" }, body: { next: "https://x.invalid/?offset=40" }, args: { offset: 20 }, want: { offset: 40 } }],
  ["nextUrl: the query parameter may differ from the argument's name", { pagination: { style: "nextUrl", arg: "page_token", param: "pageToken", next: "next" }, body: { next: "/list?pageToken=p2" }, args: {}, want: { page_token: "p2" } }],
  ["nextUrl: null on the last page", { pagination: twilio, body: { calls: items(1), next_page_uri: null }, args: {}, want: undefined }],
  ["nextUrl: empty text", { pagination: twilio, body: { next_page_uri: "" }, args: {}, want: undefined }],
  ["nextUrl: text that is not a URL carries no marker", { pagination: twilio, body: { next_page_uri: "no more pages" }, args: {}, want: undefined }],
  ["nextUrl: a URL that does not parse", { pagination: twilio, body: { next_page_uri: "http://[::1/x?PageToken=p" }, args: {}, want: undefined }],
  ["nextUrl: a URL without the parameter", { pagination: twilio, body: { next_page_uri: "/Calls.json?Page=2" }, args: {}, want: undefined }],
  ["nextUrl: an empty parameter", { pagination: twilio, body: { next_page_uri: "/Calls.json?PageToken=" }, args: {}, want: undefined }],
  ["nextUrl: not text", { pagination: twilio, body: { next_page_uri: { href: "/Calls.json?PageToken=p" } }, args: {}, want: undefined }],
  ["nextUrl: __proto__ members of the answer are not read", { pagination: sendgrid, body: JSON.parse('{"_metadata": {"__proto__": {"next": "/x?page_token=p"}}}'), args: {}, want: undefined }],
  // Id-keyed pages without a flag
  ["lastItemId: a full page goes on from its last id", { pagination: discord, body: items(3), args: { limit: 3 }, want: { limit: 3, after: "3" } }],
  ["lastItemId: a short page is the last", { pagination: discord, body: items(2), args: { limit: 3 }, want: undefined }],
  ["lastItemId: an empty page is the last", { pagination: discord, body: [], args: {}, want: undefined }],
  ["lastItemId: without a known size, only an empty page ends it", { pagination: discord, body: items(1, 7), args: {}, want: { after: "7" } }],
  ["lastItemId: the default size when none was asked", { pagination: voters, body: { users: items(24) }, args: {}, want: undefined }],
  ["lastItemId: a non-numeric size falls back to the default", { pagination: voters, body: { users: items(25) }, args: { limit: "25" }, want: { limit: "25", after: "25" } }],
  ["lastItemId: the last item has no id", { pagination: discord, body: [{ id: "1" }, { name: "x" }], args: { limit: 2 }, want: undefined }],
  ["lastItemId: an id that is not a scalar", { pagination: discord, body: [{ id: "1" }, { id: { raw: 2 } }], args: { limit: 2 }, want: undefined }],
  ["lastItemId: a flag, when declared, still decides", { pagination: { style: "lastItemId", arg: "starting_after", items: "data", hasMore: "has_more" }, body: { data: items(1), has_more: true }, args: { limit: 10 }, want: { limit: 10, starting_after: "1" } }],
];

describe("nextPageArgs: offset, nextUrl and id-keyed pages", () => {
  it.each(CASES)("%s", (_name, { pagination, body, args, want }) => {
    expect(nextPageArgs(pagination, { body }, args)).toEqual(want);
  });

  it("keeps an own __proto__ argument as data and never touches a prototype", () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "startAt": 0}') as Record<string, unknown>;
    const next = nextPageArgs(jira, { body: { values: items(2), isLast: false } }, args)!;
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.keys(next)).toEqual(["__proto__", "startAt"]);
    expect(next["startAt"]).toBe(2);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("offsets: walking any answers, each next offset is the previous plus the items received, and a walk ends", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 10 }), (sizes, limit) => {
        let args: Record<string, unknown> | undefined = { limit };
        let offset = 0;
        for (const size of sizes) {
          const next = nextPageArgs(bare, { body: items(size) }, args!);
          if (size === 0 || size < limit) {
            expect(next).toBeUndefined();
            return;
          }
          offset += size;
          expect(next).toEqual({ limit, offset });
          args = next;
        }
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });
});

describe("page markers of the new styles", () => {
  it("offset: the total and isLast must survive the handler", () => {
    const body = { values: items(2), total: 7, isLast: false, startAt: 0 };
    const markers = pageMarkers(jira, body);
    expect(markers).toEqual({ ids: ["1", "2"], hasMore: { key: "isLast", value: false }, total: { key: "total", value: 7 } });
    expect(missingMarkers(markers, body)).toEqual([]);
    expect(missingMarkers(markers, { values: items(2), isLast: false })).toEqual(["total total: 7"]);
    expect(missingMarkers(markers, { values: items(2), total: 7 })).toEqual(["more-pages flag isLast: false"]);
  });

  it("offset without isLast: has_more is the flag", () => {
    expect(pageMarkers(flagged, { threads: [], has_more: true }).hasMore).toEqual({ key: "has_more", value: true });
  });

  it("nextUrl: the URL itself must survive", () => {
    const url = "/2010-04-01/Accounts/AC0/Calls.json?PageToken=PA2";
    const markers = pageMarkers(twilio, { calls: items(1), next_page_uri: url });
    expect(markers.cursor).toBe(url);
    expect(missingMarkers(markers, { calls: items(1) })).toEqual([`next page marker ${JSON.stringify(url)}`]);
    expect(pageMarkers(twilio, { calls: [], next_page_uri: null }).cursor).toBeUndefined();
  });

  it("a bare array answer: its items' ids are the markers", () => {
    const markers = pageMarkers(discord, items(2));
    expect(markers.ids).toEqual(["1", "2"]);
    expect(missingMarkers(markers, [{ id: "1" }])).toEqual(['id "2"']);
  });
});

describe("the next page of a call, with pins", () => {
  const binding: HttpBinding = {
    kind: "http",
    method: "GET",
    path: "/items",
    server: "https://api.example.invalid",
    parameters: [
      { arg: "offset", name: "offset", in: "query", style: "form", explode: true },
      { arg: "limit", name: "limit", in: "query", style: "form", explode: true },
      { arg: "q", name: "q", in: "query", style: "form", explode: true },
    ],
  };
  const listing = (pagination: Pagination) =>
    Tool.create({
      name: "list_items",
      description: "Lists items.",
      inputSchema: { type: "object", properties: { offset: { type: "integer" }, limit: { type: "integer" }, q: { type: "string" } } },
      binding,
      pagination,
    });
  /** A fetch that answers `count` items, never reaching a network. */
  const answering = (count: number) => (async () => new Response(JSON.stringify({ values: items(count) }), { status: 200, headers: { "content-type": "application/json" } })) as typeof globalThis.fetch;

  it("a pinned page size is the size asked for: a full page of it has a next page, offered without the pin", async () => {
    const tool = listing({ style: "offset", arg: "offset", items: "values", pageSizeArg: "limit", defaultPageSize: 50 }).derived({ name: "list_ten", pin: { limit: 10 } });
    const result = await tool.invoke({ q: "x" }, { fetch: answering(10) });
    expect(result.nextPageArgs).toEqual({ q: "x", offset: 10 });
    // A short page of the pinned size is the last.
    expect((await tool.invoke({ q: "x", offset: 10 }, { fetch: answering(4) })).nextPageArgs).toBeUndefined();
  });

  it("page style too: the pinned size, not the declared default, says whether a page was full", async () => {
    const tool = listing({ style: "page", arg: "offset", items: "values", pageSizeArg: "limit", defaultPageSize: 50 }).derived({ name: "pages_of_ten", pin: { limit: 10 } });
    expect((await tool.invoke({}, { fetch: answering(10) })).nextPageArgs).toEqual({ offset: 2 });
  });

  it("a digits-only token read from a next URL comes back as the text the argument declares", async () => {
    const tokenTool = Tool.create({
      name: "list_calls",
      description: "Lists calls.",
      inputSchema: { type: "object", properties: { PageToken: { type: "string" }, Page: { type: "integer" } } },
      binding: { ...binding, parameters: [{ arg: "PageToken", name: "PageToken", in: "query", style: "form", explode: true }, { arg: "Page", name: "Page", in: "query", style: "form", explode: true }] },
      pagination: { style: "nextUrl", arg: "PageToken", next: "next_page_uri", items: "values" },
    });
    const next = (uri: string) => (async () => new Response(JSON.stringify({ values: items(1), next_page_uri: uri }), { status: 200, headers: { "content-type": "application/json" } })) as typeof globalThis.fetch;
    expect((await tokenTool.invoke({}, { fetch: next("/Calls.json?PageToken=12345") })).nextPageArgs).toEqual({ PageToken: "12345" });
    expect((await tokenTool.invoke({}, { fetch: next("/Calls.json?PageToken=007") })).nextPageArgs).toEqual({ PageToken: "007" });
    const pageTool = Tool.create({ ...{ name: "list_pages", description: "Lists pages." }, inputSchema: tokenTool.inputSchema, binding: tokenTool.binding, pagination: { style: "nextUrl", arg: "Page", next: "next_page_uri", items: "values" } });
    expect((await pageTool.invoke({}, { fetch: next("/Calls.json?Page=3") })).nextPageArgs).toEqual({ Page: 3 });
  });
});
