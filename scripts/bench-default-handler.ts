/**
 * The default response handler measured: payload bytes against context bytes for packs
 * generated in memory from every OpenAPI and GraphQL document of the corpus
 * (../shared/specs), called against local mock servers, and on the vendored packs'
 * workload of bench-calls beside their hand-written handlers. Every answer is checked: every
 * `id` anywhere in the raw answer, the cursor or next-page marker and the more-pages flag
 * of the tool's pagination must still be in what the handler returns.
 *
 * Pagination of a generated tool is found here by hand (a marker argument of the tool and a
 * matching field in its answer, a `Link` header, a Relay connection), the way a generated
 * runtime will declare it from the spec; its paths go into the tool's response hints.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-default-handler.ts [--per-kind N] [--list-length N] [--out bench/DEFAULT-HANDLER.md]
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { printSchema } from "graphql";
import {
  bindingResponseHints,
  defaultResponseHandler,
  definePack,
  isRecord,
  missingMarkers,
  nextPageArgs,
  pageMarkers,
  relayPagination,
  specPatternTest,
  valueAt,
  type CallContext,
  type CallResult,
  type CredentialSource,
  type Pagination,
  type ResponseHints,
  type ResponseInfo,
  type Tool,
} from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument, openapiPackResponseHints, openapiResponseHints } from "@sluice/generator-openapi";
import { buildGraphQLPackIR, loadGraphQLSchema } from "@sluice/generator-graphql";
import { startGraphQLServer, startOpenApiMockServer, type LocalServer } from "../test/support/servers/index.ts";

const SPECS_DIR = fileURLToPath(new URL("../../shared/specs/", import.meta.url));
const PACKS_DIR = fileURLToPath(new URL("../packs/", import.meta.url));

export interface CorpusSpec {
  /** `<folder>/<file>` under the specs folder. */
  name: string;
  file: string;
  kind: "openapi" | "graphql";
}

/** Every OpenAPI and GraphQL document of the corpus, in name order. */
export function corpusSpecs(dir = SPECS_DIR): CorpusSpec[] {
  const specs: CorpusSpec[] = [];
  for (const folder of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const file of readdirSync(join(dir, folder)).sort()) {
      if (!/\.(json|ya?ml|graphql|gz)$/.test(file)) continue;
      const graphql = file.endsWith(".graphql") || folder.startsWith("shopify");
      specs.push({ name: `${folder}/${file}`, file: join(dir, folder, file), kind: graphql ? "graphql" : "openapi" });
    }
  }
  return specs;
}

/** One call of a sampled tool and what the default handler made of it. */
export interface CallRow {
  spec: string;
  tool: string;
  kind: "list" | "get";
  page: number;
  pagination: Pagination["style"] | "none";
  payloadBytes: number;
  contextBytes: number;
  /** Markers checked: ids, cursor, more-pages flag. */
  markers: number;
  missing: string[];
  /** The hand-written handler's context bytes and losses (vendored packs only). */
  handwritten?: { contextBytes: number; missing: string[] };
}

export interface SpecRun {
  spec: string;
  kind: "openapi" | "graphql";
  tools: number;
  rows: CallRow[];
  /** Calls that did not get a usable answer (invalid arguments for the mock, GraphQL errors), with the reason. */
  failures: string[];
  /** Set when the spec could not be generated or served at all. */
  error?: string;
  /** The per-tool hints of every tool of the pack (not only the sampled ones), as compact JSON: how many are not `{}`, total and largest bytes. */
  hints?: { nonEmpty: number; bytes: number; max: number };
}

type AnyTool = Tool<object>;

const PAGE_SIZE_ARGS = ["limit", "per_page", "page_size", "pageSize", "maxResults", "max_results", "first", "count"];
const CURSOR_FIELDS = ["next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next_token", "nextToken", "next_marker", "nextMarker", "continuation_token", "continuationToken", "endCursor", "end_cursor", "offset"];
const CURSOR_CONTAINERS = ["response_metadata", "meta", "metadata", "pagination", "paging", "page_info", "pageInfo", "next_page", "nextPage"];
const CURSOR_ARGS = ["cursor", "start_cursor", "after", "page_token", "pageToken", "next_token", "nextToken", "continuation_token", "continuationToken", "marker", "offset"];
const HAS_MORE_FIELDS = ["has_more", "hasMore", "has_next", "hasNext", "has_next_page", "hasNextPage", "more"];
const ITEM_FIELDS = ["data", "items", "results", "records", "entries", "values", "elements", "nodes"];

/** A schema's minimal valid-looking value, or undefined when this cannot make one (a pattern, a nested required object too deep). */
function minimalValue(schema: unknown, defs: Readonly<Record<string, unknown>>, depth: number): unknown {
  if (!isRecord(schema) || depth > 6) return undefined;
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    const name = /^#\/\$defs\/(.+)$/.exec(ref)?.[1];
    return name === undefined ? undefined : minimalValue(defs[decodeURIComponent(name).replace(/~1/g, "/").replace(/~0/g, "~")], defs, depth + 1);
  }
  if ("const" in schema) return schema["const"];
  if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) return schema["enum"].find((v) => v !== null) ?? schema["enum"][0];
  if ("default" in schema && schema["default"] !== null) return schema["default"];
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      for (const branch of branches) {
        const value = minimalValue(branch, defs, depth + 1);
        if (value !== undefined) return value;
      }
      return undefined;
    }
  }
  const types = Array.isArray(schema["type"]) ? (schema["type"] as unknown[]) : [schema["type"]];
  const type = types.find((t) => t !== "null");
  switch (type) {
    case "string": {
      const format = schema["format"];
      if (format === "uuid") return "00000000-0000-4000-8000-000000000001";
      if (format === "date-time") return "2024-01-02T03:04:05Z";
      if (format === "date") return "2024-01-02";
      if (format === "email") return "someone@example.com";
      if (format === "uri" || format === "url") return "https://example.com/x";
      if (typeof schema["pattern"] === "string" && !specMatches(schema["pattern"] as string, "abc1")) return fromPattern(schema["pattern"] as string);
      const min = typeof schema["minLength"] === "number" ? schema["minLength"] : 0;
      return "abc1".padEnd(min, "x");
    }
    case "integer":
    case "number": {
      const min = typeof schema["minimum"] === "number" ? schema["minimum"] : typeof schema["exclusiveMinimum"] === "number" ? schema["exclusiveMinimum"] + 1 : 1;
      return type === "integer" ? Math.ceil(Math.max(min, 1)) : Math.max(min, 1);
    }
    case "boolean":
      return true;
    case "array": {
      const min = typeof schema["minItems"] === "number" ? schema["minItems"] : 0;
      if (min === 0) return [];
      const item = minimalValue(schema["items"], defs, depth + 1);
      return item === undefined ? undefined : Array.from({ length: min }, () => item);
    }
    case "object":
    case undefined: {
      const out: Record<string, unknown> = {};
      const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
      for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
        const value = minimalValue(properties[name], defs, depth + 1);
        if (value === undefined) return undefined;
        out[name] = value;
      }
      return type === undefined && Object.keys(out).length === 0 ? "abc1" : out;
    }
    default:
      return undefined;
  }
}

/**
 * A string matching a simple anchored pattern (`^AC[0-9a-fA-F]{32}$`: literals, classes,
 * `{n}` / `{n,m}` / `+` / `*` / `?`), or undefined for anything richer.
 */
function fromPattern(pattern: string): string | undefined {
  const body = pattern.replace(/^\^/, "").replace(/\$$/, "");
  let out = "";
  let i = 0;
  while (i < body.length) {
    let unit: string;
    if (body[i] === "[") {
      const end = body.indexOf("]", i);
      if (end === -1) return undefined;
      const klass = body.slice(i + 1, end);
      if (klass.startsWith("^")) return undefined;
      unit = klass.startsWith("\\d") ? "1" : klass[0]!;
      i = end + 1;
    } else if (body[i] === "\\") {
      const escaped = body[i + 1];
      unit = escaped === "d" ? "1" : escaped === "w" ? "a" : escaped ?? "";
      i += 2;
    } else if (/[A-Za-z0-9_\-.:\/]/.test(body[i]!)) {
      unit = body[i]!;
      i++;
    } else return undefined;
    const quantifier = /^(\{(\d+)(,\d*)?\}|\+|\*|\?)/.exec(body.slice(i));
    let count = 1;
    if (quantifier !== null) {
      count = quantifier[2] !== undefined ? Number(quantifier[2]) : quantifier[1] === "+" ? 1 : 0;
      i += quantifier[1]!.length;
    }
    out += unit.repeat(count);
  }
  return specMatches(pattern, out) ? out : undefined;
}

/** Arguments with every required argument filled minimally, or undefined. */
export function minimalArgs(tool: AnyTool): Record<string, unknown> | undefined {
  const schema = tool.inputSchema;
  const defs = isRecord(schema["$defs"]) ? (schema["$defs"] as Record<string, unknown>) : {};
  const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
  const args: Record<string, unknown> = {};
  for (const name of Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []) {
    const value = minimalValue(properties[name], defs, 0);
    if (value === undefined) return undefined;
    args[name] = value;
  }
  return args;
}

/** Whether a tool answers with a list (rather than one object). */
function kindOf(tool: AnyTool): "list" | "get" {
  const binding = tool.binding;
  if (binding.kind === "mcp") return "get";
  if (binding.kind === "http") return binding.path.replace(/\.(json|xml)$/, "").endsWith("}") ? "get" : "list";
  return relayPagination(binding) !== undefined || /\bnodes\b|\bedges\b/.test(binding.document) || Object.prototype.hasOwnProperty.call(binding.variables, "first") ? "list" : "get";
}

/** Read-only tools, split in lists and gets, each sampled by stride over name order (deterministic), the rest kept as fallbacks. */
export function sampleTools(tools: readonly AnyTool[], perKind: number): { list: AnyTool[]; get: AnyTool[] } {
  const readOnly = tools
    .filter((t) => (t.binding.kind === "http" ? t.binding.method === "GET" : t.binding.kind === "graphql" ? t.binding.operationType === "query" : t.annotations.readOnly === true))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const order = (list: AnyTool[]): AnyTool[] => {
    const picked: AnyTool[] = [];
    for (let i = 0; i < Math.min(perKind, list.length); i++) picked.push(list[Math.floor((i * list.length) / Math.min(perKind, list.length))]!);
    return [...picked, ...list.filter((t) => !picked.includes(t))];
  };
  return { list: order(readOnly.filter((t) => kindOf(t) === "list")), get: order(readOnly.filter((t) => kindOf(t) === "get")) };
}

/**
 * The tool's pagination, found by hand: a Relay connection (GraphQL); a `Link` header with
 * `rel="next"` and a `page` argument; a cursor field in the answer (at the top or in a
 * paging container) and a cursor argument; Stripe's `has_more` + list + `starting_after`.
 */
export function detectPagination(tool: AnyTool, body: unknown, headers: Readonly<Record<string, string>>): Pagination | undefined {
  if (tool.binding.kind === "graphql") return relayPagination(tool.binding);
  const args = new Set(Object.keys(isRecord(tool.inputSchema["properties"]) ? tool.inputSchema["properties"] : {}));
  if (/rel="?next/.test(headers["link"] ?? "") && args.has("page")) return { style: "link", arg: "page" };
  if (!isRecord(body)) return undefined;
  const find = (names: readonly string[]): string | undefined => {
    for (const name of names) if (Object.prototype.hasOwnProperty.call(body, name) && !isRecord(body[name])) return name;
    for (const container of CURSOR_CONTAINERS) {
      const inner = body[container];
      if (!Object.prototype.hasOwnProperty.call(body, container) || !isRecord(inner)) continue;
      for (const name of names) if (Object.prototype.hasOwnProperty.call(inner, name) && !isRecord(inner[name])) return `${container}.${name}`;
    }
    return undefined;
  };
  const items = ITEM_FIELDS.find((name) => Object.prototype.hasOwnProperty.call(body, name) && Array.isArray(body[name]));
  const hasMore = find(HAS_MORE_FIELDS);
  const cursor = find(CURSOR_FIELDS);
  const arg = CURSOR_ARGS.find((name) => args.has(name));
  if (cursor !== undefined && arg !== undefined) {
    return { style: "cursor", arg, cursor, ...(hasMore !== undefined ? { hasMore } : {}), ...(items !== undefined ? { items } : {}) };
  }
  if (hasMore !== undefined && items !== undefined && args.has("starting_after")) return { style: "lastItemId", arg: "starting_after", items, hasMore };
  return undefined;
}

/** Every non-empty scalar under an id key (`id`, or one the hints name) anywhere in the answer, plus the pagination's markers. */
export function answerMarkers(pagination: Pagination | undefined, body: unknown, headers: Readonly<Record<string, string>>, hints: ResponseHints) {
  const markers = pageMarkers(pagination, body, headers);
  const idKeys = new Set(["id", ...(hints.ids ?? [])]);
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (isRecord(value)) {
      for (const key of Object.keys(value)) {
        const member = value[key];
        if (idKeys.has(key) && ((typeof member === "string" && member !== "") || typeof member === "number")) markers.ids.push(member);
        else stack.push(member);
      }
    }
  }
  return markers;
}

/**
 * The markers bench-calls checks (the pagination's, and the answer's own id): what the
 * hand-written handlers promise. They summarise list items, so ids of nested objects are
 * theirs to drop; the default handler is held to every id.
 */
function callsMarkers(tool: AnyTool, pagination: Pagination | undefined, result: CallResult): ReturnType<typeof pageMarkers> {
  const markers = pageMarkers(pagination, result.body, result.headers);
  const id = tool.binding.kind === "graphql" ? valueAt(result.body, `data.${tool.binding.field}.id`) : valueAt(result.body, "id");
  if (typeof id === "string" || typeof id === "number") markers.ids.push(id);
  return markers;
}

function markerCount(markers: ReturnType<typeof pageMarkers>): number {
  return markers.ids.length + (markers.cursor === undefined ? 0 : 1) + (markers.hasMore === undefined ? 0 : 1);
}

const credentials: CredentialSource = (scheme) => (scheme.type === "basic" ? { username: "user", password: "secret" } : { token: "test-token" });

function contextBytesOf(output: unknown): number {
  const json = JSON.stringify(output);
  return json === undefined ? 0 : Buffer.byteLength(json);
}

/** The rows of one successful call: the default handler applied to the raw answer, checked. */
function measure(spec: string, tool: AnyTool, result: CallResult, page: number, pagination: Pagination | undefined, hints: ResponseHints, handwritten: boolean): CallRow {
  const info: ResponseInfo = { tool: tool.name, status: result.status, headers: result.headers, args: {} };
  const output = defaultResponseHandler(hints)(result.body, info);
  const markers = answerMarkers(pagination, result.body, result.headers, hints);
  return {
    spec,
    tool: tool.name,
    kind: kindOf(tool),
    page,
    pagination: pagination?.style ?? "none",
    payloadBytes: result.payloadBytes,
    contextBytes: contextBytesOf(output),
    markers: markerCount(markers),
    missing: missingMarkers(markers, output),
    ...(handwritten ? { handwritten: { contextBytes: result.contextBytes, missing: missingMarkers(callsMarkers(tool, pagination, result), result.output) } } : {}),
  };
}

function isGraphQLFailure(body: unknown): boolean {
  return isRecord(body) && Array.isArray(body["errors"]) && body["errors"].length > 0;
}

function hintSizes(all: readonly ResponseHints[]): { nonEmpty: number; bytes: number; max: number } {
  const sizes = all.filter((h) => Object.keys(h).length > 0).map((h) => JSON.stringify(h).length);
  return { nonEmpty: sizes.length, bytes: sizes.reduce((a, b) => a + b, 0), max: Math.max(0, ...sizes) };
}

export interface RunOptions {
  /** Tools called per kind (list, get). Default 5. */
  perKind?: number;
  listLength?: number;
}

/** Generates the pack of one corpus spec in memory, serves the spec from a mock, and calls a sample of its read tools. */
export async function runSpec(spec: CorpusSpec, options: RunOptions = {}): Promise<SpecRun> {
  const perKind = options.perKind ?? 5;
  const listLength = options.listLength ?? 10;
  const run: SpecRun = { spec: spec.name, kind: spec.kind, tools: 0, rows: [], failures: [] };
  const bytes = readFileSync(spec.file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  let tools: AnyTool[];
  let packHints: ResponseHints = {};
  let hintsFor: (tool: AnyTool, pagination: Pagination | undefined) => ResponseHints;
  let server: LocalServer;
  let baseUrl: string;
  let scratch: string | undefined;
  try {
    if (spec.kind === "openapi") {
      const document = loadDocument(bytes, basename(spec.file));
      tools = [...definePack(buildOpenAPIPackIR(document, { name: "corpus", file: basename(spec.file), sha256 })).tools] as AnyTool[];
      packHints = openapiPackResponseHints(document);
      hintsFor = (tool, pagination) => ({ ...packHints, ...bindingResponseHints(tool.binding), ...openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination }) });
      run.hints = hintSizes(tools.map((tool) => openapiResponseHints(document, tool)));
      if (sampleTools(tools, perKind).list.length + sampleTools(tools, perKind).get.length === 0) return { ...run, tools: tools.length };
      server = await startOpenApiMockServer({ specFile: spec.file, listLength });
      baseUrl = server.url;
    } else {
      const schema = loadGraphQLSchema(bytes, { fileName: basename(spec.file) });
      tools = [...definePack(buildGraphQLPackIR(schema, { name: "corpus", file: basename(spec.file), sha256 })).tools] as AnyTool[];
      // Everything a GraphQL tool's hints say comes from its binding: nothing is stored per tool.
      hintsFor = (tool) => bindingResponseHints(tool.binding);
      run.hints = hintSizes(tools.map(() => ({})));
      // The mock server reads SDL; introspection documents are printed to a scratch file first.
      let sdlFile = spec.file;
      if (!spec.file.endsWith(".graphql")) {
        scratch = mkdtempSync(join(tmpdir(), "sluice-bench-"));
        sdlFile = join(scratch, "schema.graphql");
        writeFileSync(sdlFile, printSchema(schema));
      }
      server = await startGraphQLServer({ sdlFile, listLength });
      baseUrl = `${server.url}/graphql`;
    }
  } catch (error) {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    return { ...run, error: (error as Error).message.split("\n")[0]! };
  }
  run.tools = tools.length;
  const context = (): CallContext => ({ baseUrl, credentials, timeoutMs: 20_000 });
  try {
    const sample = sampleTools(tools, perKind);
    for (const candidates of [sample.list, sample.get]) {
      let done = 0;
      for (const tool of candidates.slice(0, perKind * 3)) {
        if (done >= perKind) break;
        const args = minimalArgs(tool);
        if (args === undefined) {
          run.failures.push(`${tool.name}: no minimal arguments`);
          continue;
        }
        const properties = isRecord(tool.inputSchema["properties"]) ? tool.inputSchema["properties"] : {};
        const size = PAGE_SIZE_ARGS.find((name) => Object.prototype.hasOwnProperty.call(properties, name) && !(name in args));
        if (size !== undefined && minimalValue(properties[size], {}, 0) !== undefined && typeof minimalValue(properties[size], {}, 0) === "number") args[size] = listLength;
        let result: CallResult;
        try {
          result = await tool.invoke(args, context());
        } catch (error) {
          // A size argument the spec bounds lower than the list length: retry without it.
          run.failures.push(`${tool.name}: ${(error as Error).message.split("\n")[0]!.slice(0, 160)}`);
          continue;
        }
        if (isGraphQLFailure(result.body)) {
          run.failures.push(`${tool.name}: GraphQL errors`);
          continue;
        }
        done++;
        const pagination = detectPagination(tool, result.body, result.headers);
        const hints = hintsFor(tool, pagination);
        run.rows.push(measure(spec.name, tool, result, 1, pagination, hints, false));
        if (pagination === undefined) continue;
        const next = nextPageArgs(pagination, result, args);
        if (next === undefined) continue;
        try {
          const second = await tool.invoke(next, context());
          if (!isGraphQLFailure(second.body)) run.rows.push(measure(spec.name, tool, second, 2, pagination, hints, false));
        } catch (error) {
          run.failures.push(`${tool.name} page 2: ${(error as Error).message.split("\n")[0]!.slice(0, 160)}`);
        }
      }
    }
  } finally {
    await server.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  }
  return run;
}

/** The vendored packs' workload of bench-calls (scripts/bench-calls.ts), with their hand-written handlers beside the default one. */
export async function runVendored(listLength = 10): Promise<SpecRun> {
  const [{ allTools: linear }, { tools: github }, { tools: stripe }, { tools: githubRest }, { tools: slack }, { tools: gmail }, { tools: notion }] = await Promise.all([
    import("@sluice/pack-linear"),
    import("@sluice/pack-github"),
    import("@sluice/pack-stripe"),
    import("@sluice/pack-github-rest"),
    import("@sluice/pack-slack"),
    import("@sluice/pack-gmail"),
    import("@sluice/pack-notion"),
  ]);
  const spec = (path: string) => join(PACKS_DIR, path);
  const openapi: Record<string, string> = {
    stripe: "stripe/spec/spec3.json",
    "github-rest": "github-rest/spec/api.github.com.json",
    slack: "slack/spec/slack_web_openapi_v2_without_examples.json",
    gmail: "gmail/spec/gmail-v1.yaml",
    notion: "notion/spec/notion-openapi.json",
  };
  const servers: Record<string, LocalServer> = {};
  const [linearServer, githubServer] = await Promise.all([
    startGraphQLServer({ sdlFile: spec("linear/spec/schema.graphql"), listLength }),
    startGraphQLServer({ sdlFile: spec("github/spec/schema.graphql"), listLength }),
  ]);
  servers.linear = linearServer;
  servers.github = githubServer;
  const documents: Record<string, unknown> = {};
  for (const [pack, path] of Object.entries(openapi)) {
    servers[pack] = await startOpenApiMockServer({ specFile: spec(path), listLength });
    documents[pack] = loadDocument(readFileSync(spec(path)), basename(path));
  }
  const find = (tools: readonly AnyTool[], name: string): AnyTool => {
    const tool = tools.find((t) => t.name === name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return tool;
  };
  const repo = { owner: "octo", repo: "hello" };
  const L = listLength;
  const steps: Array<[string, AnyTool, Record<string, unknown>, boolean?]> = [
    ["linear", find(linear, "issues_list"), { first: L }, true],
    ["linear", find(linear, "issues_list_full"), { first: L }],
    ["linear", find(linear, "issue"), { id: "issue-1" }],
    ["linear", find(linear, "teams_list"), { first: L }, true],
    ["linear", find(linear, "projects_list"), { first: L }],
    ["linear", find(linear, "comments_list"), { first: L }],
    ["linear", find(linear, "users_list"), { first: L }],
    ["linear", find(linear, "cycles_list"), { first: L }],
    ["github", find(github, "repository"), { owner: "octo", name: "hello" }],
    ["github", find(github, "viewer"), {}],
    ["stripe", find(stripe, "get_customers"), { limit: L }, true],
    ["stripe", find(stripe, "get_charges"), { limit: L }, true],
    ["stripe", find(stripe, "get_invoices"), { limit: L }],
    ["stripe", find(stripe, "get_payment_intents"), { limit: L }],
    ["stripe", find(stripe, "get_subscriptions"), { limit: L }],
    ["stripe", find(stripe, "get_customers_customer"), { customer: "cus_1" }],
    ["github-rest", find(githubRest, "issues_list_for_repo"), { ...repo, per_page: L }, true],
    ["github-rest", find(githubRest, "pulls_list"), { ...repo, per_page: L }],
    ["github-rest", find(githubRest, "repos_list_commits"), { ...repo, per_page: L }],
    ["github-rest", find(githubRest, "issues_list_comments"), { ...repo, issue_number: 1 }],
    ["github-rest", find(githubRest, "repos_get"), repo],
    ["github-rest", find(githubRest, "issues_get"), { ...repo, issue_number: 1 }],
    ["slack", find(slack, "conversations_history"), { channel: "C123", limit: L }],
    ["slack", find(slack, "conversations_list"), { limit: L }],
    ["slack", find(slack, "conversations_replies"), { channel: "C123", ts: 1700000000.0001 }],
    ["slack", find(slack, "users_list"), { limit: L }],
    ["gmail", find(gmail, "gmail_users_messages_list"), { userId: "me", maxResults: L }, true],
    ["gmail", find(gmail, "gmail_users_messages_get"), { userId: "me", id: "m1" }],
    ["gmail", find(gmail, "gmail_users_threads_get"), { userId: "me", id: "t1" }],
    ["gmail", find(gmail, "gmail_users_threads_list"), { userId: "me", maxResults: L }],
    ["notion", find(notion, "query_data_source"), { data_source_id: "ds1", page_size: L }, true],
    ["notion", find(notion, "post_search"), { query: "roadmap", page_size: L }],
    ["notion", find(notion, "retrieve_a_page"), { page_id: "p1" }],
  ];
  const run: SpecRun = { spec: "vendored packs (bench-calls workload)", kind: "openapi", tools: steps.length, rows: [], failures: [] };
  const contextFor = (pack: string): CallContext => ({ baseUrl: pack === "linear" || pack === "github" ? `${servers[pack]!.url}/graphql` : servers[pack]!.url, credentials });
  try {
    for (const [pack, tool, args, nextPage] of steps) {
      const document = documents[pack];
      const hints: ResponseHints =
        tool.binding.kind === "graphql"
          ? bindingResponseHints(tool.binding)
          : { ...openapiPackResponseHints(document), ...openapiResponseHints(document, tool, tool.pagination === undefined ? {} : { pagination: tool.pagination }) };
      try {
        const result = await tool.invoke(args, contextFor(pack));
        run.rows.push({ ...measure(`${pack}`, tool, result, 1, tool.pagination, hints, true) });
        if (nextPage === true && result.nextPageArgs !== undefined) {
          const second = await tool.invoke(result.nextPageArgs, contextFor(pack));
          run.rows.push(measure(`${pack}`, tool, second, 2, tool.pagination, hints, true));
        }
      } catch (error) {
        run.failures.push(`${pack}/${tool.name}: ${(error as Error).message.split("\n")[0]}`);
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.close()));
  }
  return run;
}

function sum(rows: readonly CallRow[], pick: (row: CallRow) => number): number {
  return rows.reduce((total, row) => total + pick(row), 0);
}

const ratio = (payload: number, context: number): string => `${(payload / Math.max(1, context)).toFixed(2)}x`;
const kib = (bytes: number): string => (bytes / 1024).toFixed(1);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { "per-kind": { type: "string", default: "5" }, "list-length": { type: "string", default: "10" }, out: { type: "string", default: "bench/DEFAULT-HANDLER.md" }, only: { type: "string" } },
  });
  const perKind = Number(values["per-kind"]);
  const listLength = Number(values["list-length"]);
  const runs: SpecRun[] = [];
  for (const spec of corpusSpecs().filter((s) => values.only === undefined || s.name.includes(values.only))) {
    const started = Date.now();
    const run = await runSpec(spec, { perKind, listLength });
    runs.push(run);
    const payload = sum(run.rows, (r) => r.payloadBytes);
    const context = sum(run.rows, (r) => r.contextBytes);
    console.error(`${spec.name}: ${run.rows.length} calls, ${payload} -> ${context} B (${ratio(payload, context)}), lost ${run.rows.filter((r) => r.missing.length > 0).length}${run.error ? `, error: ${run.error}` : ""} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
  }
  const vendored = values.only === undefined ? await runVendored(listLength) : undefined;

  const rows = runs.flatMap((r) => r.rows);
  const payload = sum(rows, (r) => r.payloadBytes);
  const context = sum(rows, (r) => r.contextBytes);
  const lost = rows.filter((r) => r.missing.length > 0);
  const lines = [
    "# Default response handler: payload bytes against context bytes",
    "",
    `Command: \`node --conditions=@sluice/source --import tsx scripts/bench-default-handler.ts --per-kind ${perKind} --list-length ${listLength}\``,
    "",
    "Packs generated in memory from every OpenAPI and GraphQL document of `../shared/specs` (nothing",
    "written to disk), served by the local mocks of test/support/servers (OpenAPI: requests validated",
    "against the spec, answers from its examples or filled from its schemas; GraphQL: the schema executed",
    `with deterministic mocks), lists of ${listLength} items. Per spec, up to ${perKind} list tools and ${perKind} get tools`,
    "(read-only: GET / query), taken by stride over name order, called with minimal arguments (a tool",
    "whose minimal arguments the mock refuses is replaced by the next one). A tool whose answer shows",
    "pagination (a Relay connection; a `Link` header; a cursor field and cursor argument; Stripe's",
    "`has_more` + `starting_after`) is also called for its next page. Payload: the body as read; context:",
    "`defaultResponseHandler(hints)` of it as compact JSON, hints from `bindingResponseHints` (the GraphQL",
    "envelope) and, for OpenAPI, `openapiPackResponseHints` and `openapiResponseHints`. `markers`: every `id` anywhere in the raw answer, the cursor or next-page",
    "marker and the more-pages flag; `lost` counts answers where one of them is missing from the output.",
    "",
    `**Overall (corpus): ${rows.length} calls, ${kib(payload)} KiB -> ${kib(context)} KiB, ${ratio(payload, context)}; markers checked: ${sum(rows, (r) => r.markers)}; answers losing a marker: ${lost.length}.**`,
    "",
    "Reading it: the mocks fill every property a schema declares (no nulls, no empty lists or",
    "objects), so the noise the default handler removes first from real answers is mostly absent",
    "here; what it finds is hypermedia (GitHub REST, Twilio), repeated nested objects and envelopes.",
    "The hand-written handlers (bench/CALLS.md) get most of their 4x by summarising list items, a",
    "choice of fields per type that needs knowledge of the API; the default handler removes only what",
    "the same answer carries elsewhere or what carries nothing, and is held to every id in the answer.",
    "",
    "`hints`: over every tool of the pack, how many tools have per-tool hints that are not `{}`, and the",
    "bytes of those as compact JSON (total / largest): what a generated runtime would carry (the pack's",
    "`api` hint once, and what `bindingResponseHints` derives at load time, come on top and cost nothing per tool).",
    "",
    "| spec | kind | tools | calls (page 2) | paginated | payload B | context B | ratio | markers | lost | hints: tools, B total / max | not called |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ...runs.map((run) => {
      const p = sum(run.rows, (r) => r.payloadBytes);
      const c = sum(run.rows, (r) => r.contextBytes);
      const paginated = new Set(run.rows.filter((r) => r.pagination !== "none").map((r) => r.tool)).size;
      const note = run.error !== undefined ? `error: ${run.error}` : run.failures.length > 0 ? `${run.failures.length}` : "";
      const hints = run.hints === undefined ? "-" : `${run.hints.nonEmpty}, ${run.hints.bytes} / ${run.hints.max}`;
      return `| ${run.spec} | ${run.kind} | ${run.tools} | ${run.rows.length} (${run.rows.filter((r) => r.page === 2).length}) | ${paginated} | ${p} | ${c} | ${run.rows.length === 0 ? "-" : ratio(p, c)} | ${sum(run.rows, (r) => r.markers)} | ${run.rows.filter((r) => r.missing.length > 0).length} | ${hints} | ${note} |`;
    }),
    "",
  ];
  if (vendored !== undefined) {
    const vp = sum(vendored.rows, (r) => r.payloadBytes);
    const vd = sum(vendored.rows, (r) => r.contextBytes);
    const vh = sum(vendored.rows, (r) => r.handwritten?.contextBytes ?? 0);
    lines.push(
      "## The vendored packs: default handler beside the hand-written ones",
      "",
      "The workload of `scripts/bench-calls.ts` (bench/CALLS.md) on the same tools and mocks; payload and",
      "hand-written context as there, default context = `defaultResponseHandler(hints)` of the same raw answer.",
      "",
      `**${vendored.rows.length} calls: payload ${kib(vp)} KiB; hand-written ${kib(vh)} KiB (${ratio(vp, vh)}); default ${kib(vd)} KiB (${ratio(vp, vd)}); answers losing a marker: hand-written ${vendored.rows.filter((r) => (r.handwritten?.missing.length ?? 0) > 0).length} (bench-calls' markers: the pagination's and the answer's own id), default ${vendored.rows.filter((r) => r.missing.length > 0).length} (every id anywhere in the answer, and the pagination's markers).**`,
      "",
      "| pack | tool | page | payload B | hand-written B | default B | hand-written ratio | default ratio | default kept |",
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
      ...vendored.rows.map(
        (r) =>
          `| ${r.spec} | ${r.tool} | ${r.page} | ${r.payloadBytes} | ${r.handwritten?.contextBytes ?? "-"} | ${r.contextBytes} | ${ratio(r.payloadBytes, r.handwritten?.contextBytes ?? 0)} | ${ratio(r.payloadBytes, r.contextBytes)} | ${r.missing.length === 0 ? `yes (${r.markers})` : `NO: ${r.missing.slice(0, 3).join(", ")}`} |`,
      ),
      "",
      "By pack:",
      "",
      "| pack | calls | payload B | hand-written B | default B | hand-written ratio | default ratio |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...[...new Set(vendored.rows.map((r) => r.spec))].map((pack) => {
        const own = vendored.rows.filter((r) => r.spec === pack);
        const p = sum(own, (r) => r.payloadBytes);
        const h = sum(own, (r) => r.handwritten?.contextBytes ?? 0);
        const d = sum(own, (r) => r.contextBytes);
        return `| ${pack} | ${own.length} | ${p} | ${h} | ${d} | ${ratio(p, h)} | ${ratio(p, d)} |`;
      }),
      "",
      ...(vendored.failures.length > 0 ? ["Failed calls:", "", ...vendored.failures.map((f) => `- ${f}`), ""] : []),
    );
  }
  const failing = runs.filter((r) => r.failures.length > 0 || r.error !== undefined);
  if (failing.length > 0) {
    lines.push("## Tools not called", "", "Sampled tools the mock refused (minimal arguments it rejects) or that could not be called; each was replaced by the next candidate.", "");
    for (const run of failing) {
      if (run.error !== undefined) lines.push(`- ${run.spec}: ${run.error}`);
      for (const failure of run.failures) lines.push(`- ${run.spec}: ${failure.replace(/\|/g, "\\|")}`);
    }
    lines.push("");
  }
  if (lost.length > 0) {
    lines.push("## Lost markers", "", ...lost.map((r) => `- ${r.spec} ${r.tool} page ${r.page}: ${r.missing.join(", ")}`), "");
  }
  writeFileSync(values.out!, lines.join("\n"));
  console.log(lines.slice(0, 18).join("\n"));
  if (lost.length > 0 || vendored?.rows.some((r) => r.missing.length > 0)) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

/** Spec patterns run on sluice's linear-time engine here too; one it refuses matches nothing. */
function specMatches(pattern: string, text: string): boolean {
  try {
    return specPatternTest(pattern, text);
  } catch {
    return false;
  }
}
