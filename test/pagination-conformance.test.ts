/**
 * Pagination conformance, over every pack and every tool with a pagination declaration
 * (curated tools and `*_full` twins included, as the packs ship them):
 *  - statically: the declaration's argument is an argument of the tool, its paths are
 *    dotted property paths, every tool that takes a page marker declares pagination
 *    (or is a listed exception), and, for the OpenAPI packs, the declared paths exist in
 *    the operation's response schema (or the spec leaves them undescribed);
 *  - end to end against local servers on 127.0.0.1: a deterministic sample of tools per
 *    pack (all the ones with hand-written handlers, plus up to 20 of the rest) is called
 *    on an answer that has more pages and on one that does not. The handler's output must
 *    still carry the cursor or page marker, the more-pages flag (true and false) and the
 *    id of every raw item, and `nextPageArgs` must be set to the right marker exactly
 *    when there are more pages. The GraphQL servers page for real (page 3 is the last);
 *    the OpenAPI mocks' answers are given their paging state by a fetch wrapper.
 */
import { basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack, generatedRuntime, missingMarkers, pageMarkers, relayPagination, type CallResult, type Pagination, type Tool } from "@sluice/core";
import { buildPack } from "@sluice/pipeline";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import * as stripe from "@sluice/pack-stripe";
import * as githubRest from "@sluice/pack-github-rest";
import * as slack from "@sluice/pack-slack";
import * as gmail from "@sluice/pack-gmail";
import * as gdocs from "@sluice/pack-gdocs";
import * as gsheets from "@sluice/pack-gsheets";
import * as notion from "@sluice/pack-notion";
import { startGraphQLServer, startOpenApiMockServer, type LocalServer } from "./support/servers/index.ts";
import { LONG } from "./support/tier.ts";
import { corpusDocument } from "./support/corpus-document.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface PackCase {
  name: string;
  tools: readonly Tool<object>[];
  kind: "graphql" | "openapi";
  spec: string;
  /** Tools with hand-written handlers or paging rules: always in the long tier's end-to-end sample. */
  hand: readonly string[];
  /** The ones of `hand` the quick tier calls, where the others run the same handler code on other data (all of `hand` when absent). */
  quickHand?: readonly string[];
  /**
   * A pack as `sluice generate` makes it for a user (default response handler, pagination
   * detected from the spec). Detection declares only what the response schema confirms, so
   * a marker argument without a declaration is expected there.
   */
  generated?: boolean;
}

/** A corpus spec through the same code as `sluice generate`, in memory: its tools with the generated runtime. */
async function generatedCase(name: string, spec: string): Promise<PackCase> {
  const file = fileURLToPath(new URL(`../../shared/specs/${spec}`, import.meta.url));
  const { ir, facts } = await buildPack({ name, spec: file, out: "/nonexistent", regenerate: "" }, "0.0.0");
  const tools = definePack({ name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools, runtime: generatedRuntime(facts) }).tools;
  return { name: `generated-${name}`, tools, kind: "openapi", spec: file, hand: [], generated: true };
}

const GENERATED: readonly PackCase[] = [
  await generatedCase("jira", "jira/jira-openapi.yaml"),
  // The workspace's stripe and github-rest packs (below) come from the same generator: the quick tier leaves their in-memory twins out.
  // Twilio (nextUrl) and SendGrid (nextUrl, offset) repeat styles Jira already brings (offset, nextUrl): long tier only.
  ...(LONG
    ? [
        await generatedCase("twilio", "twilio/twilio_api_v2010.json"),
        await generatedCase("sendgrid", "sendgrid/oai_v3_stoplight.json"),
        await generatedCase("stripe", "stripe/spec3.json"),
        await generatedCase("github-rest", "github-rest/api.github.com.json"),
      ]
    : []),
  await generatedCase("gcalendar", "google/calendar-v3.yaml"),
  await generatedCase("digitalocean", "digitalocean/digitalocean-openapi.yaml"),
];

const PACKS: readonly PackCase[] = [
  {
    name: "linear",
    tools: linear.allTools,
    kind: "graphql",
    spec: "packs/linear/spec/schema.graphql",
    hand: ["issues_list", "issues_list_full", "projects_list", "comments_list", "teams_list", "issue", "project"],
    // Linear's runtime gives every tool one handler per root field, built by the same code:
    // a connection's items cut to the summary fields of their type, a single object cleared
    // of noise. `issues_list` (a connection of a summarised type) and `issue` (a single
    // object) meet both in the quick tier, and the generic sample adds a connection of
    // another summarised type (administrable teams) and of one with no summary (issue
    // relations); the other hand tools only change the data (about a second of CPU each
    // against the Linear mock server), so they run in the long tier.
    quickHand: ["issues_list", "issue"],
  },
  { name: "github", tools: github.allTools, kind: "graphql", spec: "packs/github/spec/schema.graphql", hand: ["search_list", "security_advisories_list", "repository"] },
  { name: "stripe", tools: stripe.allTools, kind: "openapi", spec: "packs/stripe/spec/spec3.json", hand: ["get_customers", "get_charges", "get_payment_intents", "get_invoices", "get_subscriptions", "get_customers_search", "get_customers_customer"] },
  {
    name: "github-rest",
    tools: githubRest.allTools,
    kind: "openapi",
    spec: "packs/github-rest/spec/api.github.com.json",
    hand: ["issues_list_for_repo", "pulls_list", "repos_list_for_org", "repos_list_commits", "search_issues_and_pull_requests", "repos_list_webhook_deliveries", "orgs_get_audit_log", "users_list", "issues_get", "pulls_get", "repos_get"],
  },
  {
    name: "slack",
    tools: slack.allTools,
    kind: "openapi",
    spec: "packs/slack/spec/slack_web_openapi_v2_without_examples.json",
    hand: ["conversations_history", "conversations_replies", "conversations_list", "users_conversations", "users_list", "conversations_members", "search_messages", "admin_conversations_search"],
  },
  {
    name: "gmail",
    tools: gmail.allTools,
    kind: "openapi",
    spec: "packs/gmail/spec/gmail-v1.yaml",
    hand: ["gmail_users_messages_list", "gmail_users_threads_list", "gmail_users_drafts_list", "gmail_users_history_list", "gmail_users_messages_get", "gmail_users_threads_get", "gmail_users_drafts_get", "gmail_users_messages_attachments_get"],
  },
  { name: "gdocs", tools: gdocs.allTools, kind: "openapi", spec: "packs/gdocs/spec/docs-v1.yaml", hand: [] },
  { name: "gsheets", tools: gsheets.allTools, kind: "openapi", spec: "packs/gsheets/spec/sheets-v4.yaml", hand: [] },
  { name: "notion", tools: notion.allTools, kind: "openapi", spec: "packs/notion/spec/notion-openapi.json", hand: ["query_data_source", "post_search", "get_block_children", "get_users", "retrieve_a_comment", "list_data_source_templates", "retrieve_a_page_property", "retrieve_a_page"] },
];

/**
 * Generic sample size per pack, on top of the hand-written ones (the quick tier takes 4 of
 * the same spread; 8 until the quick tier passed its 5-minute budget, bench/QUICK-TIER.md).
 */
const SAMPLE = 20;
const OPENAPI_QUICK_SAMPLE = 4;
/**
 * The quick tier's generic sample of a GraphQL pack: a call against the mock server of a
 * large schema (Linear) costs about a second, so two there (beside the hand-written ones,
 * which are all connections too), and SAMPLE under LONG.
 */
const GRAPHQL_QUICK_SAMPLE = 2;

/** Argument names that carry a page marker back, and where a tool takes one but declares no pagination, why. */
const MARKER_ARGS = new Set(["after", "cursor", "starting_after", "page", "pageToken", "start_cursor"]);
const UNDECLARED: Readonly<Record<string, string>> = {
  // The spec types `page` (and `count`) as strings here; page-style paging counts in numbers,
  // so the next call would fail validation. Slack also answers these with `paging.pages`.
  "slack/files_list": "page typed as string",
  "slack/files_list_full": "page typed as string",
  "slack/team_access_logs": "page typed as string",
  "slack/team_access_logs_full": "page typed as string",
  "slack/team_integration_logs": "page typed as string",
  "slack/team_integration_logs_full": "page typed as string",
  // `after` here is the block to insert the children after, not a page marker.
  "notion/patch_block_children": "after is a position",
  "notion/patch_block_children_full": "after is a position",
};

/** Declared body paths the spec's response schema lacks although Slack sends them (api.slack.com/docs/pagination). */
const SPEC_GAPS: Readonly<Record<string, string>> = {
  "slack GET /conversations.history response_metadata.next_cursor": "Slack sends response_metadata; the schema omits it",
  "slack GET /conversations.replies response_metadata.next_cursor": "Slack sends response_metadata; the schema omits it",
  "slack GET /stars.list response_metadata.next_cursor": "Slack sends response_metadata; the schema omits it",
};

const PATH = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/;

function bodyPaths(p: Pagination): string[] {
  switch (p.style) {
    case "cursor":
      return [p.cursor, ...(p.hasMore === undefined ? [] : [p.hasMore]), ...(p.items === undefined ? [] : [p.items])];
    case "lastItemId":
      return [p.items, ...(p.hasMore === undefined ? [] : [p.hasMore])].filter((path) => path !== "$");
    case "link":
      return p.items === undefined ? [] : [p.items];
    case "nextUrl":
      return [p.next, ...(p.items === undefined ? [] : [p.items])];
    case "offset":
      return [p.items, p.total, p.isLast, p.hasMore].filter((path): path is string => path !== undefined && path !== "$");
    case "page":
      return [p.items, ...(p.hasMore === undefined ? [] : [p.hasMore])];
  }
}

function argNames(tool: Tool<object>): string[] {
  const props = tool.inputSchema.properties;
  return typeof props === "object" && props !== null ? Object.keys(props) : [];
}

// ---------------------------------------------------------------------------------------
// Response schemas of the OpenAPI specs

/** The spec as the generator reads it, parsed once per worker (shared with the other files that read it). */
function loadSpecDoc(file: string): Json {
  return corpusDocument(resolve(file), basename(file)) as Json;
}

function deref(doc: Json, node: Json, seen = 0): Json {
  while (node && typeof node.$ref === "string" && seen++ < 32) {
    let target: Json = doc;
    for (const raw of node.$ref.slice(2).split("/")) target = target?.[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    node = target;
  }
  return node;
}

/** The 2xx JSON response schema of an operation (OpenAPI 3 or Swagger 2), or undefined. */
function responseSchema(doc: Json, method: string, path: string, prefix: string): Json {
  const paths = doc.paths ?? {};
  const item = paths[path] ?? paths[path.startsWith(prefix) ? path.slice(prefix.length) : path];
  const op = item?.[method.toLowerCase()];
  if (op === undefined) return undefined;
  const responses = op.responses ?? {};
  const code = Object.keys(responses).find((c) => /^2/.test(c));
  if (code === undefined) return undefined;
  const response = deref(doc, responses[code]);
  if (response?.schema !== undefined) return response.schema;
  const content = response?.content ?? {};
  const type = Object.keys(content).find((t) => /json/.test(t));
  return type === undefined ? undefined : content[type].schema;
}

/**
 * Whether a dotted path is described by a schema: "yes", "no" (an object schema that
 * lists its properties and not this one), or "untyped" (the schema says nothing there).
 */
function describes(doc: Json, schema: Json, path: string): "yes" | "no" | "untyped" {
  let nodes: Json[] = [schema];
  // Slack's document answers many methods with a stub that lists only `ok`: that describes nothing.
  const top = deref(doc, schema);
  const stub = top?.properties !== undefined && Object.keys(top.properties).join() === "ok";
  for (const segment of path.split(".")) {
    const next: Json[] = [];
    let listed = false;
    const visit = (raw: Json, depth: number) => {
      const node = deref(doc, raw);
      if (node === null || typeof node !== "object" || depth > 16) return;
      for (const key of ["allOf", "anyOf", "oneOf"]) for (const branch of node[key] ?? []) visit(branch, depth + 1);
      if (node.properties !== undefined) {
        listed = true;
        if (Object.prototype.hasOwnProperty.call(node.properties, segment)) next.push(node.properties[segment]);
      }
    };
    for (const node of nodes) visit(node, 0);
    if (next.length === 0) return listed && !stub ? "no" : "untyped";
    nodes = next;
  }
  return "yes";
}

// ---------------------------------------------------------------------------------------
// Static checks

describe.each([...PACKS, ...GENERATED])("pagination declarations: $name", (pack) => {
  const paginated = pack.tools.filter((t) => t.pagination !== undefined);

  it("every declaration names an argument of the tool and well-formed paths", () => {
    for (const tool of paginated) {
      const p = tool.pagination!;
      expect(argNames(tool), `${tool.name}: ${p.arg}`).toContain(p.arg);
      for (const path of bodyPaths(p)) expect(path, tool.name).toMatch(PATH);
      if (p.style === "page" && p.pageSizeArg !== undefined) expect(argNames(tool), tool.name).toContain(p.pageSizeArg);
      if (p.style === "link" && p.param !== undefined) expect(p.param).toMatch(/^[\w.-]+$/);
    }
  });

  it.runIf(pack.generated !== true)("every tool that takes a page marker declares pagination, or is a listed exception", () => {
    const undeclared: string[] = [];
    for (const tool of pack.tools) {
      if (tool.pagination !== undefined) continue;
      const markers = argNames(tool).filter((arg) => MARKER_ARGS.has(arg));
      if (markers.length === 0) continue;
      // A GraphQL `after` pages only when the root field is a connection with pageInfo.
      if (tool.binding.kind === "graphql" && !/pageInfo/.test(tool.binding.document)) continue;
      if (Object.prototype.hasOwnProperty.call(UNDECLARED, `${pack.name}/${tool.name}`)) continue;
      undeclared.push(`${tool.name} (${markers.join(", ")})`);
    }
    expect(undeclared).toEqual([]);
  });

  it.runIf(pack.kind === "graphql")("GraphQL declarations follow the connection the document selects", () => {
    for (const tool of paginated) {
      const field = tool.binding.kind === "graphql" ? tool.binding.field : "";
      expect(tool.pagination, tool.name).toEqual(relayPagination(tool.binding));
      expect(tool.pagination, tool.name).toMatchObject({ style: "cursor", arg: "after", cursor: `data.${field}.pageInfo.endCursor`, hasMore: `data.${field}.pageInfo.hasNextPage` });
    }
  });

  it.runIf(pack.kind === "openapi")("declared body paths exist in the spec's response schemas (or the spec leaves them undescribed)", () => {
    const doc = loadSpecDoc(pack.spec);
    const prefix = (() => {
      const server = doc.servers?.[0]?.url ?? (doc.basePath as string | undefined) ?? "";
      try {
        return new URL(server, "http://x").pathname.replace(/\/+$/, "");
      } catch {
        return "";
      }
    })();
    const missing: string[] = [];
    const gaps: string[] = [];
    const untyped: string[] = [];
    let described = 0;
    const seen = new Set<string>();
    for (const tool of paginated) {
      if (tool.binding.kind !== "http") continue;
      const schema = responseSchema(doc, tool.binding.method, tool.binding.path, prefix);
      for (const path of bodyPaths(tool.pagination!)) {
        const key = `${pack.name} ${tool.binding.method} ${tool.binding.path} ${path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const verdict = schema === undefined ? "untyped" : describes(doc, schema, path);
        if (verdict === "yes") described++;
        else if (verdict === "untyped") untyped.push(key);
        else if (!Object.prototype.hasOwnProperty.call(SPEC_GAPS, key)) missing.push(key);
        else gaps.push(key);
      }
    }
    expect(missing).toEqual([]);
    // Every listed gap is still a gap: the list cannot rot into excuses for nothing.
    expect(gaps.sort()).toEqual(Object.keys(SPEC_GAPS).filter((k) => k.startsWith(`${pack.name} `)).sort());
    if (paginated.length > 0) console.log(`${pack.name}: ${described} declared paths found in response schemas, ${untyped.length} where the spec describes no body`);
  });
});

// ---------------------------------------------------------------------------------------
// End to end

/** Deterministic arguments for a tool's required inputs, from its input schema. */
function sampleArgs(tool: Tool<object>): Record<string, unknown> {
  const root = tool.inputSchema as Json;
  const sample = (raw: Json, name: string, depth: number): unknown => {
    let schema = raw;
    for (let i = 0; schema && typeof schema.$ref === "string" && i < 16; i++) schema = root.$defs?.[schema.$ref.replace("#/$defs/", "")];
    if (schema === undefined || schema === null || typeof schema !== "object" || depth > 8) return "sample";
    if ("const" in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
    for (const key of ["anyOf", "oneOf"]) {
      if (Array.isArray(schema[key])) return sample(schema[key].find((b: Json) => b?.type !== "null") ?? schema[key][0], name, depth + 1);
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0 && schema.type === undefined) return sample(schema.allOf[0], name, depth + 1);
    const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
    switch (type) {
      case "integer":
      case "number":
        return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1;
      case "boolean":
        return true;
      case "array":
        return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items ?? {}, name, depth + 1));
      case "object": {
        const out: Record<string, unknown> = {};
        for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key] ?? {}, key, depth + 1);
        return out;
      }
      default: {
        switch (schema.format) {
          case "date-time":
            return "2024-01-15T09:30:00Z";
          case "date":
            return "2024-01-15";
          case "email":
            return "ada@example.com";
          case "uri":
          case "url":
            return "https://example.com/x";
          case "uuid":
            return "123e4567-e89b-42d3-a456-426614174000";
        }
        // Twilio's SIDs: a two-letter prefix and 32 hex digits.
        const sid = typeof schema.pattern === "string" ? /^\^([A-Z]{2})\[0-9a-fA-F\]\{(\d+)\}\$$/.exec(schema.pattern) : null;
        if (sid !== null) return sid[1] + "0".repeat(Number(sid[2]));
        const text = /id$/i.test(name) ? `${name}-1` : "sample";
        return typeof schema.minLength === "number" && schema.minLength > text.length ? text.padEnd(schema.minLength, "x") : text;
      }
    }
  };
  return sample({ type: "object", required: root.required ?? [], properties: root.properties ?? {} }, "", 0) as Record<string, unknown>;
}

/** The hand-written ones, then every k-th of the other paginated tools (by name), up to SAMPLE of them (see GRAPHQL_QUICK_SAMPLE). */
function sampleOf(pack: PackCase): Tool<object>[] {
  const byName = new Map(pack.tools.map((t) => [t.name, t]));
  const called = LONG ? pack.hand : (pack.quickHand ?? pack.hand);
  // Every hand-named tool must exist in both tiers, called or not.
  const hand = pack.hand.map((name) => {
    const tool = byName.get(name);
    if (tool === undefined) throw new Error(`${pack.name} has no tool ${name}`);
    return tool;
  }).filter((tool) => called.includes(tool.name));
  const rest = pack.tools.filter((t) => t.pagination !== undefined && !pack.hand.includes(t.name));
  const size = LONG ? SAMPLE : pack.kind === "openapi" ? OPENAPI_QUICK_SAMPLE : GRAPHQL_QUICK_SAMPLE;
  const step = Math.max(1, Math.ceil(rest.length / size));
  return [...hand, ...rest.filter((_, i) => i % step === 0).slice(0, size)];
}

function setAt(body: Json, path: string, value: unknown): void {
  const segments = path.split(".");
  let node = body;
  for (const segment of segments.slice(0, -1)) {
    if (node[segment] === null || typeof node[segment] !== "object" || Array.isArray(node[segment])) node[segment] = {};
    node = node[segment];
  }
  node[segments[segments.length - 1]!] = value;
}

function getAt(body: Json, path: string): unknown {
  let node = body;
  for (const segment of path.split(".")) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = node[segment];
  }
  return node;
}

/** The next-page marker a wrapped answer advertises. */
function markerFor(p: Pagination, tool: string): string | number {
  if (p.style === "nextUrl") return `${tool}-token-2`;
  if (p.style === "link") return p.arg === "page" ? 2 : p.arg === "since" ? 4321 : `${tool}-next`;
  return `${tool}-cursor-2`;
}

/**
 * A fetch that passes the request to the mock and gives its answer the paging state of
 * `scenario`: more pages (flag true, a cursor, a `Link: rel="next"`, a full page) or the
 * last page (flag false, no cursor, no next link, a short page).
 */
function shapingFetch(tool: Tool<object>, scenario: "more" | "last", pageSize: number): typeof fetch {
  const p = tool.pagination!;
  return async (input, init) => {
    const answer = await fetch(input, init);
    const headers = new Headers(answer.headers);
    headers.delete("content-length");
    const text = await answer.text();
    let body: Json;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, { status: answer.status, headers });
    }
    // Jira's spec writes its examples as JSON text, which the mock sends as a JSON string: read the text.
    if (typeof body === "string" && /^\s*[[{]/.test(body)) {
      try {
        body = JSON.parse(body);
      } catch {
        // Not JSON text after all: left as it is.
      }
    }
    if (!answer.ok || body === null || typeof body !== "object") return new Response(text, { status: answer.status, headers });
    const fillItems = (path: string | undefined, count: number) => {
      if (path === undefined || (Array.isArray(body) && path !== "$")) return;
      const items = path === "$" ? body : getAt(body, path);
      const list: Json[] = Array.isArray(items) ? items.slice(0, count) : [];
      // Pad with copies of the mock's own first item (a fresh id where items have ids), so items keep their shape.
      const model = list[0];
      while (list.length < count) {
        const n = list.length + 1;
        if (model !== null && typeof model === "object" && !Array.isArray(model)) list.push({ ...model, ...("id" in model ? { id: `${tool.name}-item-${n}` } : {}) });
        else list.push({ id: `${tool.name}-item-${n}` });
      }
      if (path === "$") body = list;
      else setAt(body, path, list);
    };
    switch (p.style) {
      case "cursor":
        fillItems(p.items, 3);
        if (scenario === "more") setAt(body, p.cursor, markerFor(p, tool.name));
        // Without a flag the cursor is the signal: Slack sends "" on the last page, Google and Notion nothing (null).
        else setAt(body, p.cursor, p.hasMore === undefined ? "" : null);
        if (p.hasMore !== undefined) setAt(body, p.hasMore, scenario === "more");
        break;
      case "lastItemId":
        // Without a flag, a short page is the last one.
        fillItems(p.items, p.hasMore === undefined && scenario === "last" ? pageSize - 1 : pageSize);
        if (p.hasMore !== undefined) setAt(body, p.hasMore, scenario === "more");
        break;
      case "offset": {
        // The authoritative signal says "more" even on a short page (servers cap sizes); without one, a full page is "more".
        const signalled = p.isLast !== undefined || p.hasMore !== undefined || p.total !== undefined;
        const count = scenario === "more" ? (signalled ? pageSize - 1 : pageSize) : pageSize - 1;
        fillItems(p.items, count);
        if (Array.isArray(body)) break;
        if (p.isLast !== undefined) setAt(body, p.isLast, scenario === "last");
        else if (p.hasMore !== undefined) setAt(body, p.hasMore, scenario === "more");
        if (p.total !== undefined) setAt(body, p.total, scenario === "more" ? 100 : count);
        break;
      }
      case "nextUrl":
        fillItems(p.items, 3);
        // A URL on another host: only its query is read, nothing is fetched from it.
        setAt(body, p.next, scenario === "more" ? `https://elsewhere.invalid/v1/list.json?Page=1&${p.param ?? p.arg}=${markerFor(p, tool.name)}` : null);
        break;
      case "page":
        fillItems(p.items, scenario === "more" ? pageSize : Math.max(0, pageSize - 1));
        if (p.hasMore !== undefined) setAt(body, p.hasMore, scenario === "more");
        break;
      case "link": {
        const param = p.param ?? p.arg;
        const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
        if (scenario === "more") {
          url.searchParams.set(param, String(markerFor(p, tool.name)));
          headers.set("link", `<${url.href}>; rel="next", <${url.origin}${url.pathname}?${param}=9>; rel="last"`);
        } else {
          url.searchParams.set(param, "1");
          headers.set("link", `<${url.href}>; rel="prev", <${url.href}>; rel="first"`);
        }
        break;
      }
    }
    headers.set("content-type", "application/json; charset=utf-8");
    return new Response(JSON.stringify(body), { status: answer.status, headers });
  };
}

const credentials = (scheme: { type: string }) => (scheme.type === "basic" ? { username: "user", password: "pass" } : { token: "test-token-123" });

/**
 * Ids of a list answer whose declaration names no items path (GitHub's `Link` paging):
 * the items are the answer itself when it is an array, else its one array member
 * (`items`, `workflow_runs`, ...).
 */
function rawItemIds(body: Json): Array<string | number> {
  let items: Json[] | undefined;
  if (Array.isArray(body)) items = body;
  else if (body !== null && typeof body === "object") {
    const lists = Object.values(body).filter(Array.isArray);
    if (lists.length === 1) items = lists[0] as Json[];
  }
  return (items ?? []).map((item) => item?.id).filter((id): id is string | number => typeof id === "string" || typeof id === "number");
}

/** What a result must still say, checked against the raw answer. */
function checkKept(tool: Tool<object>, result: CallResult, scenario: "more" | "last"): { ids: number } {
  const p = tool.pagination!;
  const markers = pageMarkers(p, result.body, result.headers);
  if (markers.ids.length === 0 && p.items === undefined) markers.ids = rawItemIds(result.body);
  expect(missingMarkers(markers, result.output), `${tool.name} (${scenario}) lost`).toEqual([]);
  // The handler ran to the end: a handler that threw would have passed the body on as is.
  if (typeof result.body === "object" && result.body !== null) expect(result.output, `${tool.name} fell back to the raw body`).not.toBe(result.body);
  if (p.style === "cursor" || p.style === "lastItemId" || (p.style === "page" && p.hasMore !== undefined)) {
    if ("hasMore" in p && p.hasMore !== undefined) expect(markers.hasMore?.value, `${tool.name} (${scenario}) flag`).toBe(scenario === "more");
  }
  if (p.style === "offset" && !Array.isArray(result.body)) {
    if (p.isLast !== undefined) expect(markers.hasMore?.value, `${tool.name} (${scenario}) isLast`).toBe(scenario === "last");
    if (p.total !== undefined) expect(markers.total?.value, `${tool.name} (${scenario}) total`).toBeDefined();
  }
  if (scenario === "more" && (p.style === "cursor" || p.style === "link" || p.style === "nextUrl")) expect(markers.cursor, `${tool.name} marker`).toBeDefined();
  return { ids: markers.ids.length };
}

/** The marker `nextPageArgs` must carry after `result`. */
function expectedMarker(tool: string, p: Pagination, result: CallResult, args: Record<string, unknown>): unknown {
  switch (p.style) {
    case "cursor":
      return getAt(result.body, p.cursor);
    case "lastItemId": {
      const items = (p.items === "$" ? result.body : getAt(result.body, p.items)) as Json[];
      return items[items.length - 1][p.idField ?? "id"];
    }
    case "offset": {
      const items = (p.items === "$" ? result.body : getAt(result.body, p.items)) as Json[];
      return (typeof args[p.arg] === "number" ? (args[p.arg] as number) : 0) + items.length;
    }
    case "link":
    case "nextUrl":
      return markerFor(p, tool);
    case "page":
      return (typeof args[p.arg] === "number" ? (args[p.arg] as number) : (p.firstPage ?? 1)) + 1;
  }
}

function checkNext(tool: Tool<object>, result: CallResult, args: Record<string, unknown>, scenario: "more" | "last"): void {
  const p = tool.pagination!;
  if (scenario === "last") {
    expect(result.nextPageArgs, `${tool.name}: no next page on the last page`).toBeUndefined();
    return;
  }
  expect(result.nextPageArgs, `${tool.name}: a next page`).toBeDefined();
  const next = result.nextPageArgs!;
  expect(next[p.arg], `${tool.name} next ${p.arg}`).toEqual(expectedMarker(tool.name, p, result, args));
  for (const [key, value] of Object.entries(args)) if (key !== p.arg) expect(next[key], `${tool.name} keeps ${key}`).toEqual(value);
}

const report: string[] = [];
afterAll(() => console.log(`pagination conformance, end to end\n${report.join("\n")}`));

describe.each([...PACKS, ...GENERATED].filter((p) => p.tools.some((t) => t.pagination !== undefined)))("end to end: $name", (pack) => {
  let server: LocalServer;
  const sample = sampleOf(pack);
  const stats = { calls: 0, ids: 0, payload: 0, context: 0, paginated: 0 };

  beforeAll(async () => {
    server = pack.kind === "graphql" ? await startGraphQLServer({ sdlFile: pack.spec, listLength: 3 }) : await startOpenApiMockServer({ specFile: pack.spec, listLength: 3 });
  });
  afterAll(async () => {
    await server?.close();
    report.push(
      `${pack.name.padEnd(12)} ${String(sample.length).padStart(3)} tools (${stats.paginated} paginated), ${String(stats.calls).padStart(3)} calls, ${String(stats.ids).padStart(4)} item ids kept, payload ${stats.payload} -> context ${stats.context} bytes (${(stats.payload / Math.max(1, stats.context)).toFixed(2)}x)`,
      ...[...perTool].map(([tool, { payload, context }]) => `    ${tool.padEnd(40)} ${String(payload).padStart(7)} -> ${String(context).padStart(7)} bytes (${(payload / Math.max(1, context)).toFixed(2)}x)`),
    );
  });

  const perTool = new Map<string, { payload: number; context: number }>();
  const record = (result: CallResult, tool?: string) => {
    if (tool !== undefined && pack.hand.includes(tool)) {
      const entry = perTool.get(tool) ?? { payload: 0, context: 0 };
      entry.payload += result.payloadBytes;
      entry.context += result.contextBytes;
      perTool.set(tool, entry);
    }
    stats.calls++;
    stats.payload += result.payloadBytes;
    stats.context += result.contextBytes;
  };

  it.each(sample.map((tool) => [tool.name, tool] as const))("%s", async (_name, tool) => {
    const args = sampleArgs(tool);
    const baseUrl = pack.kind === "graphql" ? `${server.url}/graphql` : server.url;
    if (tool.pagination === undefined) {
      // A hand-written handler on a single object: it runs to the end and keeps the object's id.
      const result = await tool.invoke(args, { baseUrl, credentials });
      record(result, tool.name);
      if (typeof result.body === "object" && result.body !== null) expect(result.output).not.toBe(result.body);
      const id = (result.body as Json)?.id ?? (result.body as Json)?.data?.[tool.binding.kind === "graphql" ? tool.binding.field : ""]?.id;
      if (typeof id === "string" || typeof id === "number") expect(JSON.stringify(result.output)).toContain(JSON.stringify(id));
      return;
    }
    stats.paginated++;
    if (pack.kind === "graphql") {
      // Pages 1 and 2 have more; page 3 is the last. Each next call is made from nextPageArgs.
      let callArgs = args;
      for (const scenario of ["more", "more", "last"] as const) {
        const result = await tool.invoke(callArgs, { baseUrl, credentials });
        record(result, tool.name);
        stats.ids += checkKept(tool, result, scenario).ids;
        checkNext(tool, result, callArgs, scenario);
        if (result.nextPageArgs !== undefined) callArgs = result.nextPageArgs;
      }
      return;
    }
    const p = tool.pagination;
    const pageSize = 3;
    if ((p.style === "page" || p.style === "offset" || p.style === "lastItemId") && p.pageSizeArg !== undefined) args[p.pageSizeArg] = pageSize;
    for (const scenario of ["more", "last"] as const) {
      const result = await tool.invoke(args, { baseUrl, credentials, fetch: shapingFetch(tool, scenario, pageSize) });
      record(result, tool.name);
      stats.ids += checkKept(tool, result, scenario).ids;
      checkNext(tool, result, args, scenario);
    }
  });

  it("checked real ids, not empty pages", () => {
    if (sample.some((t) => t.pagination?.items !== undefined)) expect(stats.ids).toBeGreaterThan(0);
  });
});
