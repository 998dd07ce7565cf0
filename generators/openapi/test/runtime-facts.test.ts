import { readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFromEnv, credentialStatus, definePack, generatedRuntime, type PackIR, type PackRuntime, type Pagination, type RuntimeFacts, type ToolIR } from "@sluice/core";
import { emitRuntimeFactsSource } from "@sluice/emit";
import { buildOpenAPIPackIR, openapiRuntimeFacts, type BuildOpenAPIOptions } from "../src/index.ts";
import { LONG, sweep } from "../../../test/support/tier.ts";
import { corpusDocument } from "../../../test/support/corpus-document.ts";

const specs = new URL("../../../../shared/specs/", import.meta.url);
const packsDir = new URL("../../../packs/", import.meta.url);

function load(file: string, base = specs): unknown {
  return corpusDocument(new URL(file, base), file);
}

function build(document: unknown, name: string, options: BuildOpenAPIOptions = {}): PackIR {
  return buildOpenAPIPackIR(document, { name, file: `${name}.json`, sha256: "0".repeat(64) }, options);
}

/** The tool of an operation, found by method and path (names are the generator's business). */
function toolFor(ir: PackIR, method: string, path: string): ToolIR {
  const tool = ir.tools.find((t) => t.binding.kind === "http" && t.binding.method === method && t.binding.path === path);
  if (tool === undefined) throw new Error(`no tool for ${method} ${path}`);
  return tool;
}

const cache = new Map<string, { document: unknown; ir: PackIR; facts: RuntimeFacts }>();
function corpus(file: string): { document: unknown; ir: PackIR; facts: RuntimeFacts } {
  let entry = cache.get(file);
  if (entry === undefined) {
    const document = load(file);
    const ir = build(document, file.split("/")[0]!);
    entry = { document, ir, facts: openapiRuntimeFacts(document, ir) };
    cache.set(file, entry);
  }
  return entry;
}

/**
 * A small document shaped like Plaid's (no Plaid spec is vendored): `client_id` and
 * `secret` in every request body, duplicating the `PLAID-CLIENT-ID` / `PLAID-SECRET`
 * apiKey headers; `access_token` (an item's token) in the body too; a cursor-paged sync.
 */
const plaidLike = {
  openapi: "3.0.0",
  info: { title: "The Plaid API", version: "2020-09-14" },
  servers: [{ url: "https://{environment}.plaid.com", variables: { environment: { default: "sandbox", enum: ["sandbox", "development", "production"] } } }],
  security: [{ clientId: [], secret: [] }],
  components: {
    securitySchemes: {
      clientId: { type: "apiKey", in: "header", name: "PLAID-CLIENT-ID" },
      secret: { type: "apiKey", in: "header", name: "PLAID-SECRET" },
      plaidVersion: { type: "apiKey", in: "header", name: "Plaid-Version" },
    },
    schemas: {
      Credentials: { type: "object", properties: { client_id: { type: "string" }, secret: { type: "string" } } },
      Transaction: { type: "object", properties: { transaction_id: { type: "string" }, amount: { type: "number" } } },
    },
  },
  paths: {
    "/transactions/sync": {
      post: {
        operationId: "transactionsSync",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["access_token"],
                properties: { client_id: { type: "string" }, secret: { type: "string" }, access_token: { type: "string" }, cursor: { type: "string" }, count: { type: "integer", default: 100 } },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { added: { type: "array", items: { $ref: "#/components/schemas/Transaction" } }, next_cursor: { type: "string" }, has_more: { type: "boolean" }, request_id: { type: "string" } },
                },
              },
            },
          },
        },
      },
    },
    "/accounts/get": {
      post: {
        operationId: "accountsGet",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", properties: { client_id: { type: "string" }, secret: { type: "string" }, access_token: { type: "string" } } } } },
        },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { accounts: { type: "array", items: {} } } } } } } },
      },
    },
  },
};

describe("facts of real specs", () => {
  it("Stripe: list tools page by the last item's id, searches by the next_page cursor", () => {
    const { ir, facts } = corpus("stripe/spec3.json");
    expect(facts.server).toEqual({ url: "https://api.stripe.com/", from: "servers", variables: [] });
    expect(facts.credentials).toEqual([
      { scheme: "basicAuth", type: "basic", env: "STRIPE_BASIC_AUTH" },
      { scheme: "bearerAuth", type: "bearer", env: "STRIPE_BEARER_AUTH" },
    ]);
    expect(facts.pagination[toolFor(ir, "GET", "/v1/customers").name]).toEqual({ style: "lastItemId", arg: "starting_after", items: "data", hasMore: "has_more" });
    expect(facts.pagination[toolFor(ir, "GET", "/v1/customers/search").name]).toEqual({ style: "cursor", arg: "page", cursor: "next_page", hasMore: "has_more", items: "data" });
    const declared = Object.values(facts.pagination);
    expect(declared.filter((p) => p.style === "lastItemId" && p.arg === "starting_after" && p.items === "data" && p.hasMore === "has_more")).toHaveLength(91);
    expect(declared.filter((p) => p.style === "cursor" && p.arg === "page")).toHaveLength(7);
    // Every GET taking starting_after is declared; nothing that is not a GET is.
    const takers = ir.tools.filter((t) => t.binding.kind === "http" && t.binding.method === "GET" && Object.hasOwn(t.parameters.properties, "starting_after"));
    expect(takers.every((t) => facts.pagination[t.name]?.style === "lastItemId")).toBe(true);
    expect(Object.keys(facts.pagination).every((name) => ir.tools.find((t) => t.name === name)!.binding.kind === "http" && (ir.tools.find((t) => t.name === name)!.binding as { method: string }).method === "GET")).toBe(true);
    expect(facts.credentialArguments).toEqual({});
  });

  it("GitHub REST: list tools page through the Link header", () => {
    const { ir, facts } = corpus("github-rest/api.github.com.json");
    expect(facts.server?.url).toBe("https://api.github.com");
    // The document declares no security scheme.
    expect(facts.credentials).toEqual([]);
    expect(facts.pagination[toolFor(ir, "GET", "/repos/{owner}/{repo}/issues").name]).toEqual({ style: "link", arg: "page" });
    expect(facts.pagination[toolFor(ir, "GET", "/users").name]).toEqual({ style: "link", arg: "since" });
    const links = Object.values(facts.pagination).filter((p) => p.style === "link");
    expect(links.length).toBe(150);
    // A search answers `items` and declares no Link header: pages by number, per_page at its default of 30.
    expect(facts.pagination[toolFor(ir, "GET", "/search/issues").name]).toEqual({ style: "page", arg: "page", items: "items", pageSizeArg: "per_page", defaultPageSize: 30 });
  });

  it("Gmail: pageToken / nextPageToken, items under the collection", () => {
    const { ir, facts } = corpus("google/gmail-v1.yaml");
    expect(facts.server).toEqual({ url: "https://gmail.googleapis.com", from: "host+basePath", variables: [] });
    expect(facts.pagination[toolFor(ir, "GET", "/gmail/v1/users/{userId}/messages").name]).toEqual({ style: "cursor", arg: "pageToken", cursor: "nextPageToken", items: "messages" });
    // Google's standard query parameters carry tokens: warned about, not withheld.
    const warned = new Set(facts.secretLooking.map((s) => s.argument));
    expect([...warned].sort()).toEqual(["access_token", "encryptedKeyPassword", "oauth_token"]);
  });

  it("Slack: response_metadata.next_cursor where the response schema declares it (through Slack's typeless items list)", () => {
    const document = load("slack/slack_web_openapi_v2_without_examples.json");
    const ir = build(document, "slack", { credentialParameters: { token: "slackAuth" } });
    const facts = openapiRuntimeFacts(document, ir);
    expect(facts.server).toEqual({ url: "https://slack.com/api", from: "host+basePath", variables: [] });
    // Swagger 2.0 flow accessCode: its tokenUrl is where refresh tokens are redeemed.
    expect(facts.credentials).toEqual([
      {
        scheme: "slackAuth",
        type: "oauth2",
        env: "SLACK_AUTH",
        oauth2: { tokenUrl: "https://slack.com/api/oauth.access", clientIdEnv: "SLACK_AUTH_CLIENT_ID", clientSecretEnv: "SLACK_AUTH_CLIENT_SECRET", refreshTokenEnv: "SLACK_AUTH_REFRESH_TOKEN" },
      },
    ]);
    expect(facts.pagination[toolFor(ir, "GET", "/users.list").name]).toEqual({ style: "cursor", arg: "cursor", cursor: "response_metadata.next_cursor", items: "members" });
    expect(facts.pagination[toolFor(ir, "GET", "/admin.conversations.search").name]).toEqual({ style: "cursor", arg: "cursor", cursor: "next_cursor", items: "channels" });
    // conversations.history's schema is closed and leaves response_metadata out: not confirmed.
    expect(facts.pagination[toolFor(ir, "GET", "/conversations.history").name]).toBeUndefined();
    // `token` is filled from the credential, so only oauth.access's client_secret is left to warn about.
    expect([...new Set(facts.secretLooking.map((s) => s.argument))]).toEqual(["client_secret"]);
  });

  it("Asana: `offset` comes back as next_page.offset", () => {
    const { ir, facts } = corpus("asana/asana_oas.yaml");
    expect(facts.pagination[toolFor(ir, "GET", "/tasks").name]).toEqual({ style: "cursor", arg: "offset", cursor: "next_page.offset", items: "data" });
    expect(facts.credentials.map((c) => c.env)).toEqual(["ASANA_OAUTH2", "ASANA_PERSONAL_ACCESS_TOKEN"]);
  });

  it("Notion: only the operation whose answer shows next_cursor is confirmed; by convention, all seven", () => {
    const { document, ir, facts } = corpus("notion/notion-openapi.json");
    expect(Object.keys(facts.pagination)).toEqual([toolFor(ir, "GET", "/v1/comments").name]);
    const wide = openapiRuntimeFacts(document, ir, { paginationByConvention: true });
    expect(Object.keys(wide.pagination)).toHaveLength(7);
    expect(wide.pagination[toolFor(ir, "POST", "/v1/search").name]).toEqual({ style: "cursor", arg: "start_cursor", cursor: "next_cursor", hasMore: "has_more", items: "results" });
  });

  it("JIRA's OAuth2 scheme and Twilio's basic scheme get readable variable names", () => {
    expect(corpus("jira/jira-openapi.yaml").facts.credentials.map((c) => c.env)).toEqual(["JIRA_OAUTH2", "JIRA_BASIC_AUTH"]);
    expect(corpus("twilio/twilio_api_v2010.json").facts.credentials).toEqual([{ scheme: "accountSid_authToken", type: "basic", env: "TWILIO_ACCOUNT_SID_AUTH_TOKEN" }]);
    expect(corpus("kubernetes/swagger.json").facts.credentials).toEqual([{ scheme: "BearerToken", type: "apiKey", in: "header", name: "authorization", env: "KUBERNETES_BEARER_TOKEN" }]);
  });
});

describe("credential arguments", () => {
  it("a Plaid-like spec: client_id and secret duplicate the apiKey headers; access_token only looks like a secret", () => {
    const ir = build(plaidLike, "plaid");
    const facts = openapiRuntimeFacts(plaidLike, ir);
    expect(facts.credentials).toEqual([
      { scheme: "clientId", type: "apiKey", in: "header", name: "PLAID-CLIENT-ID", env: "PLAID_CLIENT_ID" },
      { scheme: "plaidVersion", type: "apiKey", in: "header", name: "Plaid-Version", env: "PLAID_VERSION" },
      { scheme: "secret", type: "apiKey", in: "header", name: "PLAID-SECRET", env: "PLAID_SECRET" },
    ]);
    expect(facts.credentialArguments).toEqual({ client_id: "clientId", secret: "secret" });
    expect(facts.secretLooking).toEqual([
      { tool: "accounts_get", argument: "access_token" },
      { tool: "transactions_sync", argument: "access_token" },
    ]);
    expect(facts.server).toEqual({
      url: "https://sandbox.plaid.com",
      from: "servers",
      variables: [{ name: "environment", default: "sandbox", enum: ["sandbox", "development", "production"] }],
    });
    expect(facts.pagination).toEqual({ transactions_sync: { style: "cursor", arg: "cursor", cursor: "next_cursor", hasMore: "has_more", items: "added" } });
  });

  it.each([
    ["X-Api-Key ~ api_key", "X-Api-Key", "api_key", true],
    ["X-API-KEY ~ apiKey", "X-API-KEY", "apiKey", true],
    ["case and separators", "Api-Token", "API_TOKEN", true],
    ["vendor prefix from the pack name", "Acme-Account", "account", true],
    ["a lone remaining word is not stripped further", "X-Api-Key", "key", false],
    ["an unrelated name", "X-Api-Key", "api_version", false],
  ])("%s", (_label, header, argument, duplicates) => {
    const document = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      components: { securitySchemes: { key: { type: "apiKey", in: "header", name: header } } },
      paths: { "/things": { get: { parameters: [{ name: argument, in: "query", schema: { type: "string" } }], responses: { "200": { description: "ok" } } } } },
    };
    const facts = openapiRuntimeFacts(document, build(document, "acme"));
    expect(facts.credentialArguments).toEqual(duplicates ? { [argument]: "key" } : {});
  });

  it("detectCredentialParameters withholds the duplicates (reason credential) and fills them from the credential; explicit entries win", () => {
    const plain = build(plaidLike, "plaid");
    expect(Object.keys(toolFor(plain, "POST", "/transactions/sync").parameters.properties)).toEqual(["client_id", "secret", "access_token", "cursor", "count"]);
    const detected = build(plaidLike, "plaid", { detectCredentialParameters: true });
    const sync = toolFor(detected, "POST", "/transactions/sync");
    expect(Object.keys(sync.parameters.properties)).toEqual(["access_token", "cursor", "count"]);
    expect(sync.withheld).toEqual([
      { path: "client_id", reason: "credential" },
      { path: "secret", reason: "credential" },
    ]);
    expect(sync.binding.kind === "http" && sync.binding.body?.credentialFields).toEqual({ client_id: "clientId", secret: "secret" });
    const explicit = build(plaidLike, "plaid", { detectCredentialParameters: true, credentialParameters: { secret: "plaidVersion" } });
    const syncExplicit = toolFor(explicit, "POST", "/transactions/sync");
    expect(syncExplicit.binding.kind === "http" && syncExplicit.binding.body?.credentialFields).toEqual({ client_id: "clientId", secret: "plaidVersion" });
    // Off by default.
    expect(build(plaidLike, "plaid", { credentialParameters: {} })).toEqual(plain);
  });

  it("every corpus spec: duplicates only of apiKey schemes; what the option would withhold", () => {
    const found: Record<string, Record<string, string>> = {};
    for (const file of CORPUS) {
      const { facts } = corpus(file);
      if (Object.keys(facts.credentialArguments).length > 0) found[file] = facts.credentialArguments;
      const apiKeys = new Set(facts.credentials.filter((c) => c.type === "apiKey").map((c) => c.scheme));
      for (const scheme of Object.values(facts.credentialArguments)) expect(apiKeys.has(scheme)).toBe(true);
    }
    // The swagger-petstore documents send `api_key` both as the apiKey scheme and as a header
    // parameter of DELETE /pet/{petId}; that header is withheld as a credential header by
    // default now, so it is no argument the option could find.
    expect(found).toEqual({});
  });
});

describe("hostile response declarations", () => {
  const list = (responses: unknown, components: Record<string, unknown> = {}) => ({
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    components,
    paths: { "/things": { get: { parameters: [{ name: "cursor", in: "query", schema: { type: "string" } }], responses } } },
  });

  it.each([
    ["a $ref cycle", list({ "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } } }, { schemas: { A: { allOf: [{ $ref: "#/components/schemas/A" }] } } })],
    ["a dangling $ref", list({ "200": { $ref: "#/components/responses/Missing" } })],
    ["responses that are not objects", list({ "200": "ok", "201": null, "204": [] })],
    ["content that is not an object", list({ "200": { description: "ok", content: "json" } })],
    ["properties that are an array", list({ "200": { description: "ok", content: { "application/json": { schema: { properties: [1, 2] } } } } })],
  ])("%s: no pagination, no throw", (_label, document) => {
    const facts = openapiRuntimeFacts(document, build(document, "t"));
    expect(facts.pagination).toEqual({});
  });

  // No hang: a walk without its budget would not end within the test's deadline; no recursion: it would overflow the stack.
  it("a 20,000-long allOf chain is read within a fixed budget (no recursion, no hang)", { timeout: 30_000 }, () => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i += 1) schemas[`S${i}`] = { allOf: [{ $ref: `#/components/schemas/S${i + 1}` }] };
    schemas["S20000"] = { type: "object", properties: { next_cursor: { type: "string" } } };
    const document = list({ "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/S0" } } } } }, { schemas });
    const facts = openapiRuntimeFacts(document, build(document, "t"));
    // The confirming member lies beyond the budget: nothing is declared rather than guessed.
    expect(facts.pagination).toEqual({});
  });

  it("an example answer confirms as a schema does", () => {
    const document = list({ "200": { description: "ok", content: { "application/json": { examples: { one: { value: { results: [], next_cursor: "abc", has_more: true } } } } } } });
    expect(openapiRuntimeFacts(document, build(document, "t")).pagination).toEqual({ get_things: { style: "cursor", arg: "cursor", cursor: "next_cursor", hasMore: "has_more", items: "results" } });
  });
});

/** Every OpenAPI and Swagger document of the shared corpus (SOURCES.md): its JSON and YAML files but the GraphQL introspection results. */
const ALL_CORPUS: readonly string[] = readdirSync(fileURLToPath(specs), { recursive: true, encoding: "utf8" })
  .filter((file) => /\.(json|ya?ml)$/.test(file) && !file.startsWith("shopify-"))
  .sort();
/**
 * The quick tier leaves out three large specs no other test here builds from the corpus
 * (Slack's facts are held by its own test and by the vendored pack's agreement below); the
 * long tier sweeps every one.
 */
const CORPUS: readonly string[] = sweep(ALL_CORPUS, (file) => !["digitalocean/digitalocean-openapi.yaml", "sendgrid/oai_v3_stoplight.json", "slack/slack_web_openapi_v2_without_examples.json"].includes(file));

describe("every corpus spec", () => {
  it("facts are valid for definePack, deterministic, and tabulated", () => {
    const rows: string[] = ["| spec | tools | paginated (by convention) | styles | base URL (from) | credentials -> variables | credential args | secret-looking |", "|---|---|---|---|---|---|---|---|"];
    for (const file of CORPUS) {
      const { document, ir, facts } = corpus(file);
      // A declared marker is always an argument the model sees, so definePack accepts the runtime.
      for (const [name, pagination] of Object.entries(facts.pagination)) {
        const tool = ir.tools.find((t) => t.name === name)!;
        expect(Object.hasOwn(tool.parameters.properties, pagination.arg), `${file} ${name}`).toBe(true);
      }
      const pack = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts, { env: {} }) });
      expect(pack.tools.filter((t) => t.pagination !== undefined)).toHaveLength(Object.keys(facts.pagination).length);
      // Same input, same facts (and the same emitted text).
      const again = openapiRuntimeFacts(document, ir);
      expect(emitRuntimeFactsSource(again, "")).toBe(emitRuntimeFactsSource(facts, ""));
      const names = new Set(facts.credentials.map((c) => c.env));
      expect(names.size).toBe(facts.credentials.length);
      const wide = openapiRuntimeFacts(document, ir, { paginationByConvention: true });
      for (const [name, pagination] of Object.entries(facts.pagination)) expect(wide.pagination[name]).toEqual(pagination);
      const styles = new Map<string, number>();
      for (const p of Object.values(facts.pagination)) styles.set(`${p.style}:${p.arg}`, (styles.get(`${p.style}:${p.arg}`) ?? 0) + 1);
      rows.push(
        `| ${file} | ${ir.tools.length} | ${Object.keys(facts.pagination).length} (${Object.keys(wide.pagination).length}) | ${[...styles].map(([k, n]) => `${k} x${n}`).join(", ") || "-"} | ${facts.server!.url || "-"} (${facts.server!.from}) | ${facts.credentials.map((c) => `${c.scheme}:${c.type}${c.in === undefined ? "" : `(${c.in} ${c.name})`} -> ${c.env}`).join(", ") || "-"} | ${Object.entries(facts.credentialArguments).map(([a, s]) => `${a}->${s}`).join(", ") || "-"} | ${facts.secretLooking.length} |`,
      );
    }
    console.log(rows.join("\n"));
    const counts = Object.fromEntries(CORPUS.map((file) => [file, Object.keys(corpus(file).facts.pagination).length]));
    const expected: Record<string, number> = { "stripe/spec3.json": 98, "github-rest/api.github.com.json": 166, "google/gmail-v1.yaml": 4, "asana/asana_oas.yaml": 62, "digitalocean/digitalocean-openapi.yaml": 28, "jira/jira-openapi.yaml": 58, "twilio/twilio_api_v2010.json": 60, "sendgrid/oai_v3_stoplight.json": 37 };
    expect(counts).toMatchObject(Object.fromEntries(Object.entries(expected).filter(([file]) => CORPUS.includes(file))));
  });
});

/** The committed packs with hand-written pagination, as sluice generate builds them. */
const VENDORED: readonly { name: string; spec: string; credentialParameters?: Record<string, string> }[] = [
  { name: "stripe", spec: "spec3.json" },
  { name: "github-rest", spec: "api.github.com.json" },
  { name: "slack", spec: "slack_web_openapi_v2_without_examples.json", credentialParameters: { token: "slackAuth" } },
  { name: "gmail", spec: "gmail-v1.yaml" },
  { name: "gsheets", spec: "sheets-v4.yaml" },
  { name: "gdocs", spec: "docs-v1.yaml" },
  { name: "notion", spec: "notion-openapi.json" },
];

/** A vendored pack's document and IR as it is committed, built once for the two tests that read it. */
const vendoredCache = new Map<string, { document: unknown; ir: PackIR }>();
function vendored(entry: (typeof VENDORED)[number]): { document: unknown; ir: PackIR } {
  let built = vendoredCache.get(entry.name);
  if (built === undefined) {
    const document = load(`${entry.name}/spec/${entry.spec}`, packsDir);
    built = { document, ir: build(document, entry.name, entry.credentialParameters === undefined ? {} : { credentialParameters: entry.credentialParameters }) };
    vendoredCache.set(entry.name, built);
  }
  return built;
}

describe("agreement with the vendored packs' hand-written runtimes", () => {
  it("per pack: declarations reproduced (identical, same style and argument), missed, extra", async () => {
    const rows = ["| pack | mode | hand-written | detected | identical | same style+arg | missed | extra |", "|---|---|---|---|---|---|---|---|"];
    const measured: Record<string, { strict: number[]; convention: number[] }> = {};
    for (const entry of VENDORED) {
      const { document, ir } = vendored(entry);
      const { runtime } = (await import(fileURLToPath(new URL(`${entry.name}/src/runtime.ts`, packsDir)))) as { runtime: PackRuntime };
      const hand = new Map<string, Pagination>();
      for (const tool of ir.tools) {
        const own = { ...runtime.forTool?.(tool.name, tool.binding), ...(runtime.tools?.[tool.name] ?? {}) };
        if (own.pagination !== undefined) hand.set(tool.name, own.pagination);
      }
      measured[entry.name] = { strict: [], convention: [] };
      for (const mode of ["strict", "convention"] as const) {
        const facts = openapiRuntimeFacts(document, ir, { paginationByConvention: mode === "convention" });
        const detected = new Map(Object.entries(facts.pagination));
        const both = [...hand].filter(([name]) => detected.has(name));
        const identical = both.filter(([name, p]) => JSON.stringify(p) === JSON.stringify(detected.get(name))).length;
        const sameArg = both.filter(([name, p]) => p.style === detected.get(name)!.style && p.arg === detected.get(name)!.arg).length;
        const extra = [...detected.keys()].filter((name) => !hand.has(name)).length;
        measured[entry.name]![mode] = [hand.size, detected.size, identical, sameArg, hand.size - both.length, extra];
        rows.push(`| ${entry.name} | ${mode} | ${hand.size} | ${detected.size} | ${identical} | ${sameArg} | ${hand.size - both.length} | ${extra} |`);
      }
    }
    console.log(rows.join("\n"));
    // [hand-written, detected, identical, same style+arg, missed, extra]
    expect(measured).toEqual({
      stripe: { strict: [98, 98, 98, 98, 0, 0], convention: [98, 98, 98, 98, 0, 0] },
      "github-rest": { strict: [191, 166, 150, 150, 25, 0], convention: [191, 188, 170, 170, 3, 0] },
      slack: { strict: [29, 10, 4, 10, 19, 0], convention: [29, 25, 19, 25, 4, 0] },
      gmail: { strict: [4, 4, 4, 4, 0, 0], convention: [4, 4, 4, 4, 0, 0] },
      gsheets: { strict: [0, 0, 0, 0, 0, 0], convention: [0, 0, 0, 0, 0, 0] },
      gdocs: { strict: [0, 0, 0, 0, 0, 0], convention: [0, 0, 0, 0, 0, 0] },
      notion: { strict: [7, 1, 1, 1, 6, 0], convention: [7, 7, 7, 7, 0, 0] },
    });
  });

  it("detectCredentialParameters would change no committed pack", () => {
    for (const entry of VENDORED) {
      const { document, ir: before } = vendored(entry);
      const options = entry.credentialParameters === undefined ? {} : { credentialParameters: entry.credentialParameters };
      const after = build(document, entry.name, { ...options, detectCredentialParameters: true });
      expect(after, entry.name).toEqual(before);
    }
  });
});

describe("emitted src/runtime.gen.ts", () => {
  const header = "// Generated by @sluice/generator-openapi 0.0.0 — do not edit.\n// Source: spec/plaid.json (sha256 0)\n";

  it("has a stable text: header, type import, the facts with double quotes and two spaces", () => {
    const facts = openapiRuntimeFacts(plaidLike, build(plaidLike, "plaid"));
    expect(emitRuntimeFactsSource(facts, header)).toMatchInlineSnapshot(`
      "// Generated by @sluice/generator-openapi 0.0.0 — do not edit.
      // Source: spec/plaid.json (sha256 0)
      import type { RuntimeFacts } from "@sluice/core";

      export const facts: RuntimeFacts = JSON.parse(\`{
        "kind": "openapi",
        "name": "plaid",
        "server": {
          "url": "https://sandbox.plaid.com",
          "from": "servers",
          "variables": [
            {
              "name": "environment",
              "default": "sandbox",
              "enum": [
                "sandbox",
                "development",
                "production"
              ]
            }
          ]
        },
        "credentials": [
          {
            "scheme": "clientId",
            "type": "apiKey",
            "in": "header",
            "name": "PLAID-CLIENT-ID",
            "env": "PLAID_CLIENT_ID"
          },
          {
            "scheme": "plaidVersion",
            "type": "apiKey",
            "in": "header",
            "name": "Plaid-Version",
            "env": "PLAID_VERSION"
          },
          {
            "scheme": "secret",
            "type": "apiKey",
            "in": "header",
            "name": "PLAID-SECRET",
            "env": "PLAID_SECRET"
          }
        ],
        "pagination": {
          "transactions_sync": {
            "style": "cursor",
            "arg": "cursor",
            "cursor": "next_cursor",
            "hasMore": "has_more",
            "items": "added"
          }
        },
        "credentialArguments": {
          "client_id": "clientId",
          "secret": "secret"
        },
        "secretLooking": [
          {
            "tool": "accounts_get",
            "argument": "access_token"
          },
          {
            "tool": "transactions_sync",
            "argument": "access_token"
          }
        ]
      }\`);
      "
    `);
  });

  // Long tier: a compiler program over core's sources costs about 4 s. The quick tier's tsc run
  // type-checks the committed packs' emitted runtime.gen.ts (Stripe's among them) the same way.
  it.runIf(LONG)("type-checks against @sluice/core under the repository's strict options (Stripe's and a Plaid-like spec's facts)", () => {
    const here = fileURLToPath(new URL("./", import.meta.url));
    const files = new Map<string, string>([
      [`${here}__facts_stripe.gen.ts`, emitRuntimeFactsSource(corpus("stripe/spec3.json").facts, header)],
      [`${here}__facts_plaid.gen.ts`, emitRuntimeFactsSource(openapiRuntimeFacts(plaidLike, build(plaidLike, "plaid")), header)],
      [`${here}__facts_use.ts`, 'import { generatedRuntime } from "@sluice/core";\nimport { facts } from "./__facts_plaid.gen.ts";\nexport const runtime = generatedRuntime(facts);\n'],
    ]);
    const config = ts.getParsedCommandLineOfConfigFile(fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    // Node's types are left out to keep this fast: the facts module and its use need none.
    config.options.types = [];
    const host = ts.createCompilerHost(config.options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
    host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
    host.getSourceFile = (name, language, ...rest) => (files.has(name) ? ts.createSourceFile(name, files.get(name)!, language) : getSourceFile.call(host, name, language, ...rest));
    // Only the emitted files are checked (core's own sources are checked by the repository's tsc run).
    const problems = (program: ts.Program): string[] =>
      [...files.keys()].flatMap((name) => {
        const file = program.getSourceFile(name)!;
        return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      });
    const program = ts.createProgram([...files.keys()], config.options, host);
    expect(problems(program)).toEqual([]);
    // The check can fail: a use that does not fit the declared type is reported. (The data is
    // JSON text the checker does not read; that it is the facts is checked below.)
    files.set(`${here}__facts_use.ts`, `${files.get(`${here}__facts_use.ts`)!}export const kind: "graphql" = facts.kind;\n`);
    expect(problems(ts.createProgram([...files.keys()], config.options, host, program)).join("\n")).toMatch(/"openapi"/);
  });

  it("evaluates back to the facts it was emitted from (Stripe's)", () => {
    const facts = corpus("stripe/spec3.json").facts;
    const text = emitRuntimeFactsSource(facts, header);
    const expression = /export const facts: RuntimeFacts = (JSON\.parse\(`[^`]*`\));\n$/.exec(text)![1]!;
    expect(new Function(`return ${expression};`)()).toEqual(JSON.parse(JSON.stringify(facts)));
  });
});

describe("end to end: a generated pack's runtime, credentials from the environment, pages from a local server", () => {
  const seen: { headers: IncomingMessage["headers"]; body: Record<string, unknown> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      seen.push({ headers: req.headers, body });
      const page = body["cursor"] === undefined ? 0 : Number(String(body["cursor"]).slice(1));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ added: [{ transaction_id: `t${page}`, amount: page }], next_cursor: page < 2 ? `c${page + 1}` : "", has_more: page < 2, request_id: "r" }));
    });
  });
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("transactions_sync carries both keys in headers and body, and follows next_cursor to the last page", async () => {
    const ir = build(plaidLike, "plaid", { detectCredentialParameters: true });
    const facts = openapiRuntimeFacts(plaidLike, ir);
    const env = { PLAID_CLIENT_ID: "client-123", PLAID_SECRET: "secret-456", PLAID_VERSION: "2020-09-14" };
    expect(credentialStatus(facts, { PLAID_CLIENT_ID: "x" })).toEqual({ set: ["PLAID_CLIENT_ID"], missing: ["PLAID_VERSION", "PLAID_SECRET"] });
    const pack = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts, { env }) });
    const sync = pack.tool("transactions_sync");
    const ctx = { baseUrl: base, credentials: credentialsFromEnv(facts, env) };
    const ids: unknown[] = [];
    let args: Record<string, unknown> | undefined = { access_token: "access-sandbox-1" };
    for (let calls = 0; args !== undefined && calls < 10; calls += 1) {
      const result = await sync.invoke(args, ctx);
      ids.push(...((result.body as { added: { transaction_id: string }[] }).added.map((t) => t.transaction_id)));
      args = result.nextPageArgs;
    }
    expect(ids).toEqual(["t0", "t1", "t2"]);
    expect(seen.map((s) => s.body["cursor"])).toEqual([undefined, "c1", "c2"]);
    for (const request of seen) {
      expect(request.headers["plaid-client-id"]).toBe("client-123");
      expect(request.headers["plaid-secret"]).toBe("secret-456");
      expect(request.body).toMatchObject({ client_id: "client-123", secret: "secret-456", access_token: "access-sandbox-1" });
    }
    // The model can neither see nor send the duplicated keys.
    expect(Object.keys(sync.inputSchema.properties ?? {})).toEqual(["access_token", "cursor", "count"]);
    await expect(sync.call({ access_token: "a", secret: "mine" }, ctx)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});
