/**
 * Screening by wire name (issue 21, items 1 and 3): what a request writes is checked under
 * the name it has on the wire. Tools are generated from small specs shaped like real ones
 * (an exploded query filter beside plain parameters, an apiKey in the query; header
 * parameters named like credentials; Jira's create_issue for `__proto__`), and each guard is
 * switched off to show that it is what refuses: screening first, the request builder behind
 * it, and the wire when both are off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHttpRequest, definePack, egressMap, formatEgressMap, isSluiceError, type HttpBinding, type Tool } from "@sluice/core";
import { WIRE_NAME_RULES } from "../packages/core/src/http/wire-name-rules.ts";
import { guards, withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { startRecordingServer, wireText, type RecordingServer } from "./support/recording-server.ts";
import { readableCanary } from "./support/server-name-readers.ts";
import { corpusDocument } from "./support/corpus-document.ts";

const CANARY = "CANARY_wire_7f3a";

function toolsOf(document: unknown, name = "wire"): Tool<object>[] {
  return [...definePack(buildOpenAPIPackIR(document, { name, file: "wire.json", sha256: "0".repeat(64) })).tools];
}

const filterSpec = {
  openapi: "3.0.3",
  info: { title: "wire", version: "1" },
  servers: [{ url: "https://api.example.test" }],
  components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" } } },
  security: [{ key: [] }],
  paths: {
    "/items": {
      get: {
        operationId: "listItems",
        parameters: [
          // style form, explode true: OpenAPI's default for a query object.
          { name: "filter", in: "query", schema: { type: "object", properties: { color: { type: "string" }, limit: { type: "string" } }, additionalProperties: { type: "string" } } },
          { name: "admin", in: "query", schema: { type: "string" } },
          { name: "pinme", in: "query", schema: { type: "string" } },
          { name: "Limit", in: "query", schema: { type: "string" } },
          { name: "prefs", in: "cookie", schema: { type: "object", additionalProperties: { type: "string" } }, explode: true },
          { name: "session", in: "cookie", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

const credentials = { key: { token: "real-api-key" } };

function narrowed(): Tool<object> {
  const tool = toolsOf(filterSpec)[0]!;
  return tool.derived({ name: "list_items_narrow", drop: ["admin", "session"], pin: { pinme: "PINNED" } });
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  try {
    await promise;
  } catch (error) {
    if (!isSluiceError(error)) throw error;
    return { code: error.code, paths: (error.issues ?? []).map((issue) => issue.path) };
  }
  throw new Error("expected a refusal");
}

describe("exploded objects never re-create another name", () => {
  const cases: Array<[string, { given: Record<string, unknown>; path: string }]> = [
    ["a withheld parameter", { given: { filter: { admin: CANARY } }, path: "/filter/admin" }],
    ["a withheld parameter in another case", { given: { filter: { ADMIN: CANARY } }, path: "/filter/ADMIN" }],
    ["a withheld parameter as a bracket member", { given: { filter: { "admin[x]": CANARY } }, path: "/filter/admin[x]" }],
    ["a pinned parameter", { given: { filter: { pinme: CANARY } }, path: "/filter/pinme" }],
    ["the apiKey in the query", { given: { filter: { api_key: CANARY } }, path: "/filter/api_key" }],
    ["a visible parameter, by a declared member", { given: { filter: { limit: CANARY } }, path: "/filter/limit" }],
    ["a withheld cookie", { given: { prefs: { Session: CANARY } }, path: "/prefs/Session" }],
  ];

  it.each(cases)("refuses a key naming %s (EGRESS_DENIED, the key's path)", async (_, { given, path }) => {
    const tool = narrowed();
    expect(tool.check(given)).toEqual([expect.objectContaining({ code: "reserved", path })]);
    expect(await refusal(tool.request(given, { credentials }))).toEqual({ code: "EGRESS_DENIED", paths: [path] });
  });

  it("sends other keys as top-level names, and the pin and the credential once each, after them", async () => {
    const request = await narrowed().request({ filter: { color: "red", shade: "dark" }, prefs: { theme: "x" } }, { credentials, revealCredentials: true });
    expect(request.url).toBe("https://api.example.test/items?color=red&shade=dark&pinme=PINNED&api_key=real-api-key");
    expect(request.headers["cookie"]).toBe("theme=x");
  });

  it("guard wireNameScreening: off, check() accepts the key and the request builder still refuses it", async () => {
    const tool = narrowed();
    const given = { filter: { admin: CANARY } };
    await withoutGuard("wireNameScreening", async () => {
      expect(tool.check(given)).toEqual([]);
      expect(await refusal(tool.request(given, { credentials }))).toEqual({ code: "EGRESS_DENIED", paths: ["/filter"] });
    });
  });

  it("guard wireNames: off with screening off too, the key reaches the wire (so both guards are what keep it off)", async () => {
    const tool = narrowed();
    const request = await withoutGuard("wireNameScreening", () => withoutGuard("wireNames", () => tool.request({ filter: { admin: CANARY, pinme: CANARY } }, { credentials })));
    expect(request.url).toContain(`admin=${CANARY}`);
    expect(request.url).toContain(`pinme=${CANARY}&pinme=PINNED`);
    expect(guards.wireNames && guards.wireNameScreening).toBe(true);
  });

  it("the builder alone refuses an exploded key that re-creates a reserved name (a binding made by hand)", () => {
    const binding: HttpBinding = {
      kind: "http",
      method: "GET",
      path: "/items",
      parameters: [
        { arg: "filter", name: "filter", in: "query", style: "form", explode: true },
        { arg: "limit", name: "limit", in: "query", style: "form", explode: true },
      ],
      withheldParameters: [{ arg: "admin", name: "admin", in: "query" }],
      auth: [[{ scheme: "key", type: "apiKey", in: "cookie", name: "sid" }]],
    };
    const build = (filter: Record<string, string>, cookie?: Record<string, string>) => () =>
      buildHttpRequest({ ...binding, parameters: [...binding.parameters, ...(cookie === undefined ? [] : [{ arg: "prefs", name: "prefs", in: "cookie" as const, style: "form" as const, explode: true }])] }, { filter, ...(cookie === undefined ? {} : { prefs: cookie }) });
    for (const key of ["admin", "Admin", "LIMIT", "admin[0]"]) expect(build({ [key]: "x" }), key).toThrow(expect.objectContaining({ code: "EGRESS_DENIED" }));
    expect(build({ color: "x" })).not.toThrow();
    expect(build({ color: "x" }, { SID: "x" })).toThrow(expect.objectContaining({ code: "EGRESS_DENIED" }));
    // PHP reads `ad.min` as `ad_min`.
    const phpBinding: HttpBinding = { ...binding, withheldParameters: [{ arg: "ad_min", name: "ad_min", in: "query" }] };
    expect(() => buildHttpRequest(phpBinding, { filter: { "ad.min": "x" } })).toThrow(expect.objectContaining({ code: "EGRESS_DENIED" }));
  });

  it("deepObject and unexploded objects keep their keys under their own name", async () => {
    const spec = structuredClone(filterSpec) as typeof filterSpec;
    const parameters = spec.paths["/items"].get.parameters as Array<Record<string, unknown>>;
    parameters[0] = { ...parameters[0], style: "deepObject", explode: true };
    const tool = toolsOf(spec)[0]!.derived({ name: "deep", drop: ["admin"] });
    expect(tool.check({ filter: { admin: "x" } })).toEqual([]);
    expect((await tool.request({ filter: { admin: "x" } }, { credentials })).url).toContain("?filter[admin]=x&");
  });

  it("the egress map lists the reserved keys instead of claiming every key of filter is sendable", () => {
    const text = formatEgressMap(egressMap([narrowed()]));
    expect(text).toContain("  - filter.admin: wire name (withheld admin)\n");
    expect(text).toContain("  - filter.api_key: wire name (credential)\n");
    expect(text).toContain("  - filter.pinme: wire name (pinned pinme)\n");
    expect(text).toContain("  - filter.limit: wire name (argument Limit)\n");
    expect(text).toContain("  - prefs.session: wire name (withheld session)\n");
    // The declared member `limit` is refused (it writes Limit's name): not listed as visible.
    expect(text).not.toContain("+ filter.limit");
    expect(text).toContain("  + filter.color: string\n");
    expect(text).toContain("  + filter.*: string\n");
  });
});

/**
 * Issue 39 item 3: the spellings servers fold. Each key below is read by some server as a
 * withheld, pinned or credential name (test/support/server-name-readers.ts says which and
 * why); the rule list is packages/core/src/http/wire-name-rules.ts.
 */
describe("names as servers fold them", () => {
  // `reader`: a listed server that reads the key as the protected name; refused either way.
  const cases: Array<[string, { key: string; reader?: string }]> = [
    ["a leading space (PHP)", { key: " admin", reader: "php" }],
    ["leading spaces (PHP)", { key: "   admin", reader: "php" }],
    ["a tab (a control character: never written)", { key: "\tadmin" }],
    ["a trailing NUL (PHP ends the name there)", { key: "admin\u0000", reader: "php" }],
    ["NUL and more", { key: "admin\u0000junk", reader: "php" }],
    ["a trailing space (cookie parsers trim names)", { key: "admin " }],
    ["a no-break space (Python's strip, JavaScript's trim)", { key: "\u00a0admin" }],
    ["a leading bracket (Rack 2)", { key: "]admin", reader: "rack" }],
    ["all in brackets (qs)", { key: "[admin]", reader: "express-qs" }],
    ["a dotted member (qs allowDots, Spring, ASP.NET)", { key: "admin.x", reader: "express-qs-dots" }],
    ["Spring's field default prefix", { key: "!admin", reader: "spring" }],
    ["Spring's field marker prefix", { key: "_pinme", reader: "spring" }],
    ["an unmatched bracket (PHP reads `_`)", { key: "page[size", reader: "php" }],
    ["a dotless i (ASP.NET upper-cases it to I)", { key: "adm\u0131n", reader: "aspnet-core" }],
    ["the apiKey with a leading space", { key: " api_key", reader: "php" }],
    ["the pin with a leading space", { key: " pinme", reader: "php" }],
  ];
  const tool = () => {
    const spec = structuredClone(filterSpec) as typeof filterSpec;
    (spec.paths["/items"].get.parameters as Array<Record<string, unknown>>).push({ name: "page_size", in: "query", schema: { type: "string" } });
    return toolsOf(spec)[0]!.derived({ name: "list_items_folded", drop: ["admin", "session", "page_size"], pin: { pinme: "PINNED" } });
  };

  it.each(cases)("refuses %s in an exploded object: check() and request(), EGRESS_DENIED at the key", async (_, { key }) => {
    const given = { filter: { [key]: CANARY } };
    expect(tool().check(given)).toEqual([expect.objectContaining({ code: "reserved", path: `/filter/${key}` })]);
    expect(await refusal(tool().request(given, { credentials }))).toEqual({ code: "EGRESS_DENIED", paths: [`/filter/${key}`] });
  });

  it.each(cases.filter(([, c]) => c.reader !== undefined))("guards off, %s reaches the wire and the server named reads the canary as the protected name", async (_, { key, reader }) => {
    const request = await withoutGuard("wireNameScreening", () => withoutGuard("wireNames", () => tool().request({ filter: { [key]: CANARY } }, { credentials, revealCredentials: true })));
    const read = readableCanary(request, { query: ["admin", "pinme", "api_key", "page_size"], cookie: [], form: [] }, CANARY);
    expect(read.map((r) => r.server)).toContain(reader);
    // Screening alone off: the builder refuses it on its own.
    await withoutGuard("wireNameScreening", async () => expect((await refusal(tool().request({ filter: { [key]: CANARY } }, { credentials }))).code).toBe("EGRESS_DENIED"));
  });

  it.each(cases.filter(([, c]) => c.reader !== undefined))("guard wireNameFolding: off, %s passes screening and the builder and the server named reads it", async (_, { key, reader }) => {
    const given = { filter: { [key]: CANARY } };
    await withoutGuard("wireNameFolding", async () => {
      expect(tool().check(given)).toEqual([]);
      const request = await tool().request(given, { credentials, revealCredentials: true });
      expect(readableCanary(request, { query: ["admin", "pinme", "api_key", "page_size"], cookie: [], form: [] }, CANARY).map((r) => r.server)).toContain(reader);
    });
    expect(guards.wireNameFolding).toBe(true);
  });

  it("with the pin, PHP keeps the last pair: the model's value would replace the pin, so the key is refused", async () => {
    const request = await withoutGuard("wireNameScreening", () => withoutGuard("wireNames", () => tool().request({ filter: { " pinme": "MODEL" } }, { credentials })));
    expect(request.url).toContain("?%20pinme=MODEL&pinme=PINNED");
    // Here the key's piece comes first: PHP reads it (it drops the leading space), and a server that keeps the first value would read the model's.
    expect(readableCanary(request, { query: ["pinme"], cookie: [], form: [] }, "MODEL").map((r) => r.server)).toContain("php");
  });

  it("a control character anywhere a key becomes a name is refused, even clashing with nothing; so are keys deep inside a deepObject", async () => {
    expect(tool().check({ filter: { "zz\u0001": "x" } })).toEqual([expect.objectContaining({ code: "reserved", path: "/filter/zz\u0001" })]);
    const spec = structuredClone(filterSpec) as typeof filterSpec;
    (spec.paths["/items"].get.parameters as Array<Record<string, unknown>>)[0] = { ...spec.paths["/items"].get.parameters[0], style: "deepObject", explode: true };
    const deep = toolsOf(spec)[0]!;
    expect(deep.check({ filter: { "color\u0000": "x" } })).toEqual([expect.objectContaining({ code: "reserved", path: "/filter/color\u0000" })]);
    await withoutGuard("wireNameScreening", async () => expect((await refusal(deep.request({ filter: { "color\u0000": "x" } }, { credentials }))).code).toBe("EGRESS_DENIED"));
    // Keys that only look odd are still fine.
    expect(tool().check({ filter: { "color red": "x", "a-b": "y" } })).toEqual([]);
  });

  it("an exploded query key never re-creates a withheld body member (PHP's $_REQUEST, Rails' params read the body with the query)", async () => {
    const spec = structuredClone(filterSpec) as Record<string, any>;
    delete spec.security;
    spec.paths["/items"].post = {
      operationId: "postItems",
      parameters: [spec.paths["/items"].get.parameters[0]],
      requestBody: { content: { "application/json": { schema: { type: "object", properties: { secret: { type: "string" }, note: { type: "string" } } } } } },
      responses: { "200": { description: "ok" } },
    };
    const post = toolsOf(spec).find((t) => t.name === "post_items")!.derived({ name: "post_no_secret", drop: ["secret"] });
    for (const key of ["secret", " secret", "SECRET", "secret\u0000"]) {
      expect(post.check({ filter: { [key]: CANARY } }), JSON.stringify(key)).toEqual([expect.objectContaining({ code: "reserved", path: `/filter/${key}` })]);
      await withoutGuard("wireNameScreening", async () => expect((await refusal(post.request({ filter: { [key]: CANARY } }))).code).toBe("EGRESS_DENIED"));
    }
    expect(post.check({ filter: { note: "n" }, note: "n" })).toEqual([]);
  });

  it("the rule list: each rule has an id and its servers, and every id is distinct", () => {
    const ids = WIRE_NAME_RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of WIRE_NAME_RULES) expect(rule.servers.length, rule.id).toBeGreaterThan(20);
  });
});

const headerSpec = {
  openapi: "3.0.3",
  info: { title: "headers", version: "1" },
  servers: [{ url: "https://api.example.test" }],
  components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Api-Key" }, sess: { type: "apiKey", in: "cookie", name: "sid" } } },
  security: [{ key: [] }],
  paths: {
    "/tenants": {
      get: {
        operationId: "getTenant",
        parameters: [
          { name: "x-tenant", in: "header", schema: { type: "string" } },
          { name: "X-Tenant", in: "header", schema: { type: "string" } },
          { name: "Cookie", in: "header", schema: { type: "string" } },
          { name: "Authorization", in: "header", schema: { type: "string" } },
          { name: "Proxy-Authorization", in: "header", schema: { type: "string" } },
          { name: "x-api-key", in: "header", schema: { type: "string" } },
          { name: "sid", in: "cookie", schema: { type: "string" } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

describe("credential headers and header case", () => {
  it("the generator withholds credential headers and keeps one of two headers equal but for case", () => {
    const ir = buildOpenAPIPackIR(headerSpec, { name: "h", file: "h.json", sha256: "0".repeat(64) });
    const tool = ir.tools[0]!;
    expect(Object.keys(tool.parameters.properties)).toEqual(["X-Tenant", "X-Trace"]);
    expect(tool.withheld).toEqual([
      { path: "x-tenant", reason: "duplicate_header" },
      { path: "Cookie", reason: "credential_header" },
      { path: "Authorization", reason: "credential_header" },
      { path: "Proxy-Authorization", reason: "credential_header" },
      { path: "x-api-key", reason: "credential_header" },
      { path: "sid", reason: "credential_header" },
    ]);
    const binding = tool.binding as HttpBinding;
    expect(binding.parameters.map((p) => p.name)).toEqual(["X-Tenant", "X-Trace"]);
    expect(binding.withheldParameters?.map((p) => `${p.in}:${p.name}`)).toEqual(["header:x-tenant", "header:Cookie", "header:Authorization", "header:Proxy-Authorization", "header:x-api-key", "cookie:sid"]);
  });

  it("refuses the withheld headers by any spelling the model sends (EGRESS_DENIED)", async () => {
    const tool = toolsOf(headerSpec)[0]!;
    for (const arg of ["Cookie", "Authorization", "Proxy-Authorization", "x-api-key", "sid", "x-tenant"]) {
      expect((await refusal(tool.request({ [arg]: CANARY }, { credentials: { key: { token: "k" } } }))).code, arg).toBe("EGRESS_DENIED");
    }
    const request = await tool.request({ "X-Tenant": "t1" }, { credentials: { key: { token: "k" } }, revealCredentials: true });
    expect(request.headers).toMatchObject({ "x-tenant": "t1", "x-api-key": "k" });
  });

  // A binding made by hand (or by another generator) can still hold such parameters: the runtime refuses them itself.
  const handBinding: HttpBinding = {
    kind: "http",
    method: "GET",
    path: "/t",
    server: "https://api.example.test",
    parameters: [
      { arg: "a", name: "X-Tenant", in: "header", style: "simple", explode: false },
      { arg: "b", name: "x-tenant", in: "header", style: "simple", explode: false },
      { arg: "c", name: "Cookie", in: "header", style: "simple", explode: false },
      { arg: "d", name: "proxy-authorization", in: "header", style: "simple", explode: false },
    ],
  };
  const handTool = () =>
    definePack({
      name: "hand",
      defs: {},
      tools: [{ name: "hand", description: "d", parameters: { properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" }, d: { type: "string" } }, required: [] }, binding: handBinding, annotations: {} }],
    }).tools[0]!;

  it.each([
    ["two parameters writing one header", { a: "t1", b: CANARY }, "/b"],
    ["a parameter writing Cookie", { c: CANARY }, "/c"],
    ["a parameter writing Proxy-Authorization", { d: CANARY }, "/d"],
  ])("screening refuses %s; off, the builder does; both off, it is sent", async (_, given, path) => {
    const tool = handTool();
    expect(tool.check(given)).toEqual([expect.objectContaining({ code: "reserved", path })]);
    await withoutGuard("wireNameScreening", async () => {
      expect(tool.check(given)).toEqual([]);
      expect((await refusal(tool.request(given))).code).toBe("EGRESS_DENIED");
      const sent = await withoutGuard("wireNames", () => tool.request(given));
      expect(JSON.stringify(sent.headers)).toContain(CANARY);
    });
    expect(tool.check({ a: "t1" })).toEqual([]);
  });
});

describe("prototype keys", () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const jira = () => {
    const file = "jira/jira-openapi.yaml";
    const document = corpusDocument(new URL(`../../shared/specs/${file}`, import.meta.url), file);
    const ir = buildOpenAPIPackIR(document, { name: "jira", file, sha256: "0".repeat(64) }, { select: (op) => op.operationId === "createIssue" });
    return definePack(ir).tools[0]!.derived({ name: "create_issue_narrow", drop: ["body.historyMetadata.type"] });
  };
  // As an MCP client's JSON text arrives: JSON.parse makes `__proto__` an own key. (Jira's
  // IssueUpdateDetails is an open object, so its members stay together in one `body` argument.)
  const smuggled = () => JSON.parse(`{"body": {"fields": {}, "historyMetadata": {"__proto__": {"type": "${CANARY}"}}}}`) as Record<string, unknown>;

  it("Jira create_issue with historyMetadata.type dropped refuses the member inside __proto__", async () => {
    const tool = jira();
    expect(tool.check({ body: { fields: {}, historyMetadata: { type: CANARY } } })).toEqual([expect.objectContaining({ code: "withheld" })]);
    expect(tool.check(smuggled())).toEqual([expect.objectContaining({ code: "prototype_key", path: "/body/historyMetadata/__proto__" })]);
    expect(await refusal(tool.request(smuggled()))).toEqual({ code: "EGRESS_DENIED", paths: ["/body/historyMetadata/__proto__"] });
    const before = server.received.length;
    expect((await refusal(tool.call(smuggled(), { baseUrl: server.url, credentials: { basicAuth: { username: "u", password: "p" }, OAuth2: { token: "t" } } }))).code).toBe("EGRESS_DENIED");
    expect(server.received.length).toBe(before);
  });

  it("guard prototypeKeys: off, check() accepts __proto__ and the builder's second filter refuses it; with requestFilter off too, it is sent", async () => {
    const tool = jira();
    await withoutGuard("prototypeKeys", async () => {
      expect(tool.check(smuggled())).toEqual([]);
      expect((await refusal(tool.request(smuggled()))).code).toBe("EGRESS_DENIED");
      const request = await withoutGuard("requestFilter", () => tool.request(smuggled()));
      expect(String(request.body)).toContain(`"__proto__":{"type":"${CANARY}"}`);
    });
  });

  it("constructor and prototype: refused where only openness admits them, accepted where the schema declares them", () => {
    const spec = {
      openapi: "3.0.3",
      info: { title: "p", version: "1" },
      paths: {
        "/build": {
          post: {
            operationId: "build",
            requestBody: {
              content: {
                "application/json": {
                  schema: { type: "object", properties: { constructor: { type: "string" }, labels: { type: "object", additionalProperties: true } } },
                },
              },
            },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    };
    const tool = toolsOf(spec)[0]!;
    expect(tool.check({ constructor: "gcc" })).toEqual([]);
    expect(tool.check(JSON.parse('{"labels": {"constructor": {"prototype": {"admin": true}}}}'))).toEqual([expect.objectContaining({ code: "prototype_key", path: "/labels/constructor" })]);
    expect(tool.check({ labels: { prototype: 1 } })).toEqual([expect.objectContaining({ code: "prototype_key", path: "/labels/prototype" })]);
    expect(tool.check(JSON.parse('{"labels": {"__proto__": 1}}'))).toEqual([expect.objectContaining({ code: "prototype_key" })]);
    expect(tool.check({ labels: { color: "red" } })).toEqual([]);
  });

  it("the wire check of every request the recording server saw holds no canary", () => {
    for (const request of server.received) expect(wireText(request)).not.toContain(CANARY);
  });
});

describe("form bodies", () => {
  const formSpec = (schema: unknown) => ({
    openapi: "3.0.3",
    info: { title: "f", version: "1" },
    servers: [{ url: "https://api.example.test" }],
    paths: { "/f": { post: { operationId: "postForm", requestBody: { content: { "application/x-www-form-urlencoded": { schema } } }, responses: { "200": { description: "ok" } } } } },
  });

  it("an object field is written in brackets under its own name, never as top-level names", async () => {
    const tool = toolsOf(formSpec({ type: "object", properties: { extra: { type: "object", additionalProperties: { type: "string" } }, secret: { type: "string" } } }))[0]!.derived({ name: "no_secret", drop: ["secret"] });
    const request = await tool.request({ extra: { secret: "x", Secret: "y" } });
    expect(request.body).toBe("extra[secret]=x&extra[Secret]=y");
  });

  it("a whole free-form body refuses other spellings of a withheld member", async () => {
    const tool = toolsOf(formSpec({ allOf: [{ type: "object", properties: { secret: { type: "string" }, note: { type: "string" } } }], additionalProperties: { type: "string" } }))[0]!;
    const narrowed = tool.derived({ name: "no_secret", drop: ["body.secret"] });
    expect(narrowed.check({ body: { secret: "x" } })).toEqual([expect.objectContaining({ code: "withheld" })]);
    for (const key of ["SECRET", "secret[0]", "Secret"]) {
      expect(narrowed.check({ body: { [key]: CANARY } }), key).toEqual([expect.objectContaining({ code: "reserved", path: `/body/${key}` })]);
      expect((await refusal(narrowed.request({ body: { [key]: CANARY } }))).code).toBe("EGRESS_DENIED");
    }
    expect(narrowed.check({ body: { note: "n", other: "o" } })).toEqual([]);
  });

  it("a whole free-form body refuses the folded spellings of a withheld member and of withheld, pinned and credential query names; screening off, the builder does; both off, PHP reads them", async () => {
    const spec = formSpec({ allOf: [{ type: "object", properties: { secret: { type: "string" }, note: { type: "string" } } }], additionalProperties: { type: "string" } }) as Record<string, any>;
    spec.paths["/f"].post.parameters = [{ name: "admin", in: "query", schema: { type: "string" } }, { name: "mode", in: "query", schema: { type: "string" } }];
    spec.components = { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" } } };
    spec.security = [{ key: [] }];
    const narrowed = toolsOf(spec)[0]!.derived({ name: "no_secret", drop: ["body.secret", "admin"], pin: { mode: "safe" } });
    const auth = { credentials: { key: { token: "k" } } };
    for (const key of [" secret", "secret\u0000", "!secret", " admin", "admin\u0000", "[admin]", " mode", " api_key"]) {
      const given = { body: { [key]: CANARY } };
      expect(narrowed.check(given), JSON.stringify(key)).toEqual([expect.objectContaining({ code: "reserved", path: `/body/${key}` })]);
      expect((await refusal(narrowed.request(given, auth))).code).toBe("EGRESS_DENIED");
      await withoutGuard("wireNameScreening", async () => expect((await refusal(narrowed.request(given, auth))).code).toBe("EGRESS_DENIED"));
    }
    const sent = await withoutGuard("wireNameScreening", () => withoutGuard("wireNames", () => narrowed.request({ body: { " secret": CANARY } }, auth)));
    expect(readableCanary(sent, { query: ["admin", "mode", "api_key"], cookie: [], form: ["secret", "admin", "mode", "api_key"] }, CANARY)).toEqual([expect.objectContaining({ server: "php", where: "form", target: "secret" })]);
    // A visible query parameter's name is the model's to send either way.
    expect(narrowed.check({ body: { note: "n", other: "o" } })).toEqual([]);
  });
});
