/**
 * The default response handler of generated packs: what it removes (noise, hypermedia
 * twins, repeats, envelopes), what it must never remove (ids, cursors, more-pages flags,
 * next links), that it never throws, and the hints the generators read from a spec.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bindingResponseHints, defaultResponseHandler, dropEmpty, isPaginationKey, missingMarkers, omitKeysDeep, pageMarkers, pipe, type Pagination, type ResponseHandler, type ResponseHints, type ResponseInfo } from "@sluice/core";
import { openapiPackResponseHints, openapiResponseHints } from "@sluice/generator-openapi";

const info = (headers: Record<string, string> = {}): ResponseInfo => ({ tool: "t", status: 200, headers, args: {} });
const run = (body: unknown, hints?: ResponseHints, headers?: Record<string, string>) => defaultResponseHandler(hints)(body, info(headers));

const GH = "https://api.github.com";
const user = {
  login: "octocat",
  id: 1,
  node_id: "MDQ6VXNlcjE=",
  avatar_url: "https://github.com/images/octocat.gif",
  gravatar_id: "",
  url: `${GH}/users/octocat`,
  html_url: "https://github.com/octocat",
  followers_url: `${GH}/users/octocat/followers`,
  following_url: `${GH}/users/octocat/following{/other_user}`,
  type: "User",
  site_admin: false,
};
const trimmedUser = { login: "octocat", id: 1, avatar_url: "https://github.com/images/octocat.gif", html_url: "https://github.com/octocat", type: "User", site_admin: false };

describe("what the default handler removes and keeps", () => {
  const cases: Array<[string, { given: unknown; hints?: ResponseHints; headers?: Record<string, string>; want: unknown }]> = [
    ["nulls, empty strings, empty arrays and objects go; false and 0 stay", { given: { a: null, b: "", c: [], d: {}, e: { f: null }, g: false, h: 0, i: "x" }, want: { g: false, h: 0, i: "x" } }],
    ["array elements keep their positions, empty ones included", { given: { row: ["a", "", null, "b"] }, want: { row: ["a", "", null, "b"] } }],
    ["pagination fields stay when null, empty or false", { given: { items: [1], next_cursor: null, has_more: false, nextPageToken: "", pageInfo: { endCursor: null, hasNextPage: false } }, want: { items: [1], next_cursor: null, has_more: false, nextPageToken: "", pageInfo: { endCursor: null, hasNextPage: false } } }],
    ["GitHub hypermedia: url beside html_url, templates and sub-resources of the self link, node_id beside id", { given: user, want: trimmedUser }],
    [
      "links to the API under the server URL go only with an anchor (id or web link) and only for API-looking names",
      {
        given: { id: 7, repository_url: `${GH}/repos/o/r`, receipt_url: `${GH}/receipts/7`, other_url: "https://elsewhere.example/x", html_url: "https://github.com/o/r/issues/7" },
        hints: { api: [GH] },
        want: { id: 7, receipt_url: `${GH}/receipts/7`, other_url: "https://elsewhere.example/x", html_url: "https://github.com/o/r/issues/7" },
      },
    ],
    ["without an id or a web link, links stay", { given: { name: "x", url: `${GH}/x`, forks_url: `${GH}/x/forks` }, hints: { api: [GH] }, want: { name: "x", url: `${GH}/x`, forks_url: `${GH}/x/forks` } }],
    ["node_id without another id stays", { given: { node_id: "N1", name: "n" }, want: { node_id: "N1", name: "n" } }],
    ["HAL _links keep only the way to the next and previous page", { given: { total: 2, _links: { self: { href: "/a?p=2" }, next: { href: "/a?p=3" }, prev: { href: "/a?p=1" }, first: { href: "/a" } } }, want: { total: 2, _links: { next: { href: "/a?p=3" }, prev: { href: "/a?p=1" } } } }],
    ["a links object that is not all links is data", { given: { links: { self: "https://x.example/1", owner: { id: 5, name: "o" } } }, want: { links: { self: "https://x.example/1", owner: { id: 5, name: "o" } } } }],
    ["a self link that spells the object's id goes; one that does not stays", { given: [{ id: "10000", self: "https://jira.example/rest/api/3/issue/10000", key: "P-1" }, { id: "2", self: "https://jira.example/rest/api/3/issue/99" }], want: [{ id: "10000", key: "P-1" }, { id: "2", self: "https://jira.example/rest/api/3/issue/99" }] }],
    [
      "Twilio: a map of sub-resource links and the self uri go for an object with its sid",
      {
        given: { sid: "CA1", uri: "/2010-04-01/Accounts/AC1/Calls/CA1.json", subresource_uris: { notifications: "/2010-04-01/Accounts/AC1/Calls/CA1/Notifications.json" }, status: "completed" },
        hints: { ids: ["sid"] },
        want: { sid: "CA1", status: "completed" },
      },
    ],
    [
      "a nested object repeated with the same content becomes its id; list items never do",
      {
        given: [{ id: 1, author: { id: 9, name: "Ann", email: "ann@example.com", bio: "writes things" } }, { id: 2, author: { id: 9, name: "Ann", email: "ann@example.com", bio: "writes things" } }, { id: 1, author: { id: 9, name: "Ann", email: "ann@example.com", bio: "writes things" } }],
        want: [{ id: 1, author: { id: 9, name: "Ann", email: "ann@example.com", bio: "writes things" } }, { id: 2, author: 9 }, { id: 1, author: 9 }],
      },
    ],
    ["an object holding only a handle becomes the handle", { given: { id: 1, team: { id: "T1" }, kind: { __typename: "Bug" } }, want: { id: 1, team: "T1", kind: "Bug" } }],
    ["{ data } and { result } envelopes are unwrapped", { given: { data: { result: { id: 1, name: "a" } } }, want: { id: 1, name: "a" } }],
    ["an envelope with anything beside it stays", { given: { data: [{ id: 1 }], has_more: false }, want: { data: [1], has_more: false } }],
    ["a scalar in an envelope keeps its name", { given: { result: true }, want: { result: true } }],
    ["the envelope the hints name is unwrapped level by level", { given: { data: { issues: { nodes: [{ id: "a", title: "t" }] } } }, hints: { envelope: "data.issues" }, want: { nodes: [{ id: "a", title: "t" }] } }],
    ["a named envelope is not unwrapped past a level with something else in it", { given: { data: { issues: { nodes: [{ id: "a" }] }, other: 1 } }, hints: { envelope: "data.issues" }, want: { issues: { nodes: ["a"] }, other: 1 } }],
    ["a hinted pagination path stays when null, and links on its way stay", { given: { meta: { after: null }, _links: { more: { href: "https://x.example/p2" } } }, hints: { page: ["meta.after", "_links.more.href"] }, want: { meta: { after: null }, _links: { more: { href: "https://x.example/p2" } } } }],
    ["hinted ids stay and anchor their object", { given: { gid: "123", resource_type: "task", permalink_url: "https://app.example/0/123", url: "https://app.example/api/1.0/tasks/123" }, hints: { ids: ["gid"], api: ["https://app.example/api/1.0"] }, want: { gid: "123", resource_type: "task", permalink_url: "https://app.example/0/123" } }],
    [
      "a Link-paginated list says has_more and the next marker",
      { given: [{ id: 1 }], hints: { link: "page" }, headers: { link: '<https://api.example/x?page=2>; rel="next", <https://api.example/x?page=5>; rel="last"' }, want: { items: [1], has_more: true, next_page: 2 } },
    ],
    ["on the last page of a Link-paginated object has_more is false", { given: { total: 3 }, hints: { link: "page" }, headers: {}, want: { total: 3, has_more: false } }],
    ["scalars, strings and empty answers pass through", { given: "plain text", want: "plain text" }],
  ];
  it.each(cases)("%s", (_name, { given, hints, headers, want }) => {
    expect(run(given, hints, headers)).toEqual(want);
  });

  it("does not change its input and gives the same bytes for the same input", () => {
    const body = JSON.parse(JSON.stringify([{ id: 1, owner: user, data: null }, { id: 2, owner: user }])) as unknown;
    const before = JSON.stringify(body);
    const first = JSON.stringify(run(body, { api: [GH] }));
    expect(JSON.stringify(body)).toBe(before);
    expect(JSON.stringify(run(body, { api: [GH] }))).toBe(first);
  });

  it("keeps a `__proto__` member as data", () => {
    const body = JSON.parse('{"__proto__":{"polluted":true},"id":1}') as unknown;
    const out = run(body) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("never throws: 100 000 levels of nesting are walked, a hostile object passes through unchanged", () => {
    let deep: unknown = { id: "bottom", next_cursor: "c" };
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep, b: null };
    const out = run(deep);
    expect(missingMarkers({ ids: ["bottom"], cursor: "c" }, out)).toEqual([]);
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error("boom"); } });
    expect(run(hostile)).toBe(hostile);
    expect(run({ a: hostile })).toEqual({ a: hostile });
  });

  it("recognises pagination fields by name", () => {
    for (const name of ["has_more", "hasMore", "hasNextPage", "next", "next_cursor", "nextPageToken", "next_page_url", "endCursor", "cursor", "pageInfo", "continuation_token"]) expect(isPaginationKey(name), name).toBe(true);
    for (const name of ["id", "name", "url", "data", "total_count", "items"]) expect(isPaginationKey(name), name).toBe(false);
  });
});

/**
 * Random JSON with the keys the handler has rules for, a paginated answer put somewhere in
 * it (items with ids, a cursor, a more-pages flag at random paths), and random extra ids:
 * whatever the handler removes, `missingMarkers` must find every one of them.
 */
describe("the default handler never loses a marker (property, seeded)", () => {
  const specialKeys = ["id", "url", "html_url", "self", "uri", "node_id", "data", "result", "links", "_links", "href", "next", "items", "repos_url", "subresource_uris", "__typename", "gid"];
  const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...specialKeys) }, { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) });
  const linkish = fc.constantFrom("https://api.example.com/x/1", "https://api.example.com/x/1/sub", "https://api.example.com/x{/y}", "/x/1.json", "/x/1/kids.json", "https://web.example/x/1", "1", "");
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.string({ maxLength: 4 }), linkish);
  const json = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("node"), { maxLength: 3 }),
    object: fc.dictionary(key, tie("node"), { maxKeys: 4 }),
  })).node;
  const path = fc.array(key, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("."));

  /** Puts `value` at dotted `path` inside `root` (objects made on the way; an array or scalar there is replaced). */
  function put(root: Record<string, unknown>, dotted: string, value: unknown): void {
    const segments = dotted.split(".");
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      const next = Object.prototype.hasOwnProperty.call(node, segment) ? node[segment] : undefined;
      if (typeof next !== "object" || next === null || Array.isArray(next)) Object.defineProperty(node, segment, { value: {}, enumerable: true, writable: true, configurable: true });
      node = node[segment] as Record<string, unknown>;
    }
    Object.defineProperty(node, segments[segments.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
  }

  /** The hints a generator gives for this pagination: pagination paths whose names the defaults do not know. */
  const hintsFor = (pagination: Pagination, withHints: boolean): ResponseHints => {
    if (!withHints) return {};
    const paths = [pagination.style === "cursor" ? pagination.cursor : undefined, "hasMore" in pagination ? pagination.hasMore : undefined].filter((p): p is string => p !== undefined);
    const page = paths.filter((p) => !isPaginationKey(p.split(".").pop()!));
    return page.length > 0 ? { page } : {};
  };

  /** Every non-empty id under an `id` key anywhere. */
  function allIds(body: unknown): Array<string | number> {
    const ids: Array<string | number> = [];
    const stack = [body];
    while (stack.length > 0) {
      const value = stack.pop();
      if (Array.isArray(value)) stack.push(...value);
      else if (typeof value === "object" && value !== null) {
        for (const [k, v] of Object.entries(value)) {
          if (k === "id" && ((typeof v === "string" && v !== "") || typeof v === "number")) ids.push(v);
          else stack.push(v);
        }
      }
    }
    return ids;
  }

  const scenario = fc.record({
    base: fc.dictionary(key, json, { maxKeys: 5 }),
    itemsPath: path,
    cursorPath: fc.oneof(path, fc.constantFrom("next_cursor", "meta.next", "response_metadata.next_cursor", "pageInfo.endCursor")),
    hasMorePath: fc.oneof(path, fc.constantFrom("has_more", "meta.hasMore", "pageInfo.hasNextPage")),
    items: fc.array(fc.record({ id: fc.oneof(fc.string({ minLength: 1, maxLength: 5 }), fc.integer()), extra: json }), { minLength: 1, maxLength: 4 }),
    cursor: fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom("https://api.example.com/x/1?page=2", "/x/1.json")),
    hasMore: fc.boolean(),
    withHints: fc.boolean(),
    envelope: fc.option(path, { nil: undefined }),
  });

  /** The marker property for handlers made by `make` from the hints; throws with the counterexample when one loses a marker. */
  const keepsMarkers = (make: (hints: ResponseHints) => ResponseHandler) =>
    fc.property(scenario, (s) => {
      const paths = [s.itemsPath, s.cursorPath, s.hasMorePath];
      // Three distinct places, none inside another (else one marker would overwrite another).
      fc.pre(paths.every((a, i) => paths.every((b, j) => i === j || (a !== b && !b.startsWith(`${a}.`)))));
      const body = JSON.parse(JSON.stringify(s.base)) as Record<string, unknown>;
      put(body, s.itemsPath, s.items);
      put(body, s.cursorPath, s.cursor);
      put(body, s.hasMorePath, s.hasMore);
      const pagination: Pagination = { style: "cursor", arg: "after", cursor: s.cursorPath, hasMore: s.hasMorePath, items: s.itemsPath };
      // Without hints only markers under names the defaults know are promised: a generated
      // pack always has hints for the pagination it declares.
      const known = [s.cursorPath, s.hasMorePath].every((p) => isPaginationKey(p.split(".").pop()!));
      const hints = { ...hintsFor(pagination, s.withHints || !known), ...(s.envelope === undefined ? {} : { envelope: s.envelope }) };
      const out = make(hints)(body, info());
      const markers = pageMarkers(pagination, body);
      markers.ids.push(...allIds(body));
      expect(markers.cursor).toBe(s.cursor);
      expect(missingMarkers(markers, out)).toEqual([]);
    });

  it("keeps every id, the cursor and the more-pages flag, with and without hints", () => {
    fc.assert(keepsMarkers(defaultResponseHandler), { seed: 20261130, numRuns: 3000 });
  });

  it("the property notices handlers that lose a marker", () => {
    const lossy: Array<[string, (hints: ResponseHints) => ResponseHandler]> = [
      ["drops empty pagination fields", (hints) => pipe(defaultResponseHandler(hints), dropEmpty(), omitKeysDeep((_k, v) => v === false))],
      ["drops every link-looking string", (hints) => pipe(defaultResponseHandler(hints), omitKeysDeep((_k, v) => typeof v === "string" && /^(https?:|\/)/.test(v)))],
      ["drops node ids and _links wholesale", (hints) => pipe(defaultResponseHandler(hints), omitKeysDeep((k) => k === "_links" || k === "links" || k === "self" || k === "url"))],
      ["keeps only the first item", (hints) => pipe(defaultResponseHandler(hints), (body) => (Array.isArray(body) ? body.slice(0, 1) : body), omitKeysDeep((k, v) => k === "id" && typeof v === "number"))],
    ];
    for (const [name, make] of lossy) {
      expect(fc.check(keepsMarkers(make), { seed: 20261130, numRuns: 3000 }).failed, name).toBe(true);
    }
  });

  it("keeps a Link header's next marker (as next_<param>) and says whether there is more", () => {
    fc.assert(
      fc.property(json, fc.option(fc.integer({ min: 2, max: 99 }), { nil: undefined }), (body, page) => {
        const headers: Record<string, string> = page === undefined ? {} : { link: `<https://api.example.com/x?page=${page}>; rel="next"` };
        const pagination: Pagination = { style: "link", arg: "page" };
        const out = defaultResponseHandler({ link: "page" })(body, info(headers));
        const markers = pageMarkers(pagination, body, headers);
        expect(missingMarkers(markers, out)).toEqual([]);
        if (typeof out === "object" && out !== null && !Array.isArray(out) && (Array.isArray(body) || (typeof body === "object" && body !== null))) {
          expect((out as Record<string, unknown>)["has_more"] ?? "kept by the answer").toBeDefined();
        }
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it("never throws and never grows an answer it has no link paging for", () => {
    fc.assert(
      fc.property(json, fc.record({ api: fc.constant(["https://api.example.com"]), ids: fc.constant(["gid"]) }), (body, hints) => {
        const out = defaultResponseHandler(hints)(body, info());
        expect(JSON.stringify(out)?.length ?? 0).toBeLessThanOrEqual(JSON.stringify(body)?.length ?? 0);
      }),
      { seed: 11, numRuns: 2000 },
    );
  });
});

describe("response hints from a spec", () => {
  const document = {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    servers: [{ url: "https://api.example.com/v1/" }],
    paths: {
      "/tasks": {
        get: {
          parameters: [{ name: "page", in: "query", schema: { type: "integer" } }],
          responses: {
            "200": {
              description: "ok",
              headers: { Link: { schema: { type: "string" } } },
              content: { "application/json": { schema: { $ref: "#/components/schemas/TaskList" } } },
            },
          },
        },
      },
      "/tasks/{gid}": {
        get: {
          parameters: [{ name: "gid", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { payload: { $ref: "#/components/schemas/Task" } } } } } } },
        },
      },
      "/external": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "other.json#/X" } } } } } } },
    },
    components: {
      schemas: {
        TaskList: { type: "object", properties: { data: { type: "array", items: { $ref: "#/components/schemas/Task" } }, meta: { type: "object", properties: { after: { type: "string" } } } } },
        Task: {
          type: "object",
          properties: {
            gid: { type: "string", description: "Globally unique identifier of the resource." },
            uuid: { type: "string", format: "uuid" },
            target: { type: "string", format: "uri" },
            permalink: { type: "string", format: "uri" },
            next_page: { type: "string", format: "uri" },
            html_url: { type: "string", format: "uri" },
            parent: { $ref: "#/components/schemas/Task" },
          },
        },
      },
    },
  };
  const http = (method: string, path: string, parameters: Array<{ arg: string; name: string; in: "query" | "path" }> = []) => ({
    binding: { kind: "http" as const, method, path, parameters: parameters.map((p) => ({ ...p, style: "form" as const, explode: true })) },
  });

  it.each([
    ["a list: links and ids beyond the defaults (not links for people nor pagination fields), Link paging with `page`, a pagination path the defaults do not know", http("GET", "/tasks", [{ arg: "page", name: "page", in: "query" }]), { pagination: { style: "cursor", arg: "after", cursor: "meta.after" } as Pagination }, { links: ["target"], ids: ["gid", "uuid"], page: ["meta.after"] }],
    ["a Link header without a page argument says nothing of paging", http("GET", "/tasks"), {}, { links: ["target"], ids: ["gid", "uuid"] }],
    ["declared link pagination names its parameter", http("GET", "/tasks"), { pagination: { style: "link", arg: "p", param: "page" } as Pagination }, { links: ["target"], ids: ["gid", "uuid"], link: "page" }],
    ["a get: the one-member envelope", { method: "get", path: "/tasks/{gid}" }, {}, { links: ["target"], ids: ["gid", "uuid"], envelope: "payload" }],
    ["the same operation by JSON pointer", "/paths/~1tasks~1{gid}/get", {}, { links: ["target"], ids: ["gid", "uuid"], envelope: "payload" }],
    ["an external $ref or an unknown operation gives the defaults", { method: "GET", path: "/external" }, {}, {}],
    ["an unknown operation gives the defaults", { method: "GET", path: "/nowhere" }, {}, {}],
  ] as const)("%s", (_name, operation, options, want) => {
    expect(openapiResponseHints(document, operation as never, options)).toEqual(want);
  });

  it("the pack hint is the server URL; Swagger 2.0 host and basePath too; none for a relative or templated server", () => {
    expect(openapiPackResponseHints(document)).toEqual({ api: ["https://api.example.com/v1"] });
    expect(openapiPackResponseHints({ swagger: "2.0", host: "api.example.com", basePath: "/v2", schemes: ["https"], paths: {} })).toEqual({ api: ["https://api.example.com/v2"] });
    expect(openapiPackResponseHints({ openapi: "3.1.0", servers: [{ url: "/api" }], paths: {} })).toEqual({});
    expect(openapiPackResponseHints({ openapi: "3.1.0", servers: [{ url: "https://{region}.example.com" }], paths: {} })).toEqual({});
  });

  it("a GraphQL tool's envelope is data.<field>, from its binding; an HTTP binding implies nothing", () => {
    expect(bindingResponseHints({ kind: "graphql", operationType: "query", field: "issues", document: "query { issues { id } }", variables: {} })).toEqual({ envelope: "data.issues" });
    expect(bindingResponseHints({ kind: "http", method: "GET", path: "/x", parameters: [] })).toEqual({});
  });

  it("the hints are small JSON", () => {
    const hints = openapiResponseHints(document, http("GET", "/tasks", [{ arg: "page", name: "page", in: "query" }]) as never);
    expect(JSON.parse(JSON.stringify(hints))).toEqual(hints);
    expect(JSON.stringify(hints).length).toBeLessThan(120);
  });
});
