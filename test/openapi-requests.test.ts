/**
 * Requests are proven right against the spec, not against our own idea of it: for every
 * Petstore operation and a deterministic sample of Stripe, GitHub REST and Slack
 * operations, arguments are generated from the tool's own `inputSchema`, turned into the
 * request the binding sends, and that request is validated against the ORIGINAL OpenAPI
 * document by openapi-backend (its own router, parameter parsing and Ajv schemas).
 * Slack's Swagger 2.0 is converted with swagger2openapi, for the validator only.
 * Nothing here uses the network: documents are read from disk, every `$ref` handed to the
 * validator is checked to be local first.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import addFormats from "ajv-formats";
import OpenAPIBackend from "openapi-backend";
import { parse as parseQs } from "qs";
import { parse as parseYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { stripExamples } from "./support/servers/openapi-spec.ts";
import { LONG, sweep } from "./support/tier.ts";
import { buildHttpRequest, definePack, type HttpBinding, type HttpRequest, type Tool } from "@sluice/core";

// swagger2openapi ships no types: its one function used here, typed.
const swagger2openapi = createRequire(import.meta.url)("swagger2openapi") as {
  convertObj(doc: unknown, options: Record<string, unknown>): Promise<{ openapi: unknown }>;
};

const specsDir = new URL("../../shared/specs/", import.meta.url);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Operations excluded from the check, each because of a defect in the spec itself (a
 * request the spec allows cannot validate against the same spec). Keyed `spec: METHOD path`.
 */
const WORKFLOW_ID =
  "path parameter workflow_id is `oneOf: [integer, string]`: on the wire an integer is also a string, so every integer id matches both branches and fails oneOf (should be anyOf)";
const EXCLUDED: Record<string, string> = {
  "github-rest: GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}": WORKFLOW_ID,
  "github-rest: PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/disable": WORKFLOW_ID,
  "github-rest: POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": WORKFLOW_ID,
  "github-rest: PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/enable": WORKFLOW_ID,
  "github-rest: GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs": WORKFLOW_ID,
  "github-rest: GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/timing": WORKFLOW_ID,
};

// ---------------------------------------------------------------------------------------
// Deterministic argument sampler over the tool's inputSchema (2020-12, local #/$defs refs)
// ---------------------------------------------------------------------------------------

function hash(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** A string that makes percent-encoding matter: space, slash, &, =, ?, # and a non-ASCII letter. */
const TRICKY = "a b/c&d=e?f#g+h";

const FORMATS: Record<string, string> = {
  "date-time": "2024-01-02T03:04:05Z",
  date: "2024-01-02",
  time: "03:04:05Z",
  email: "user@example.com",
  uri: "https://example.com/a",
  url: "https://example.com/a",
  "uri-reference": "/a/b",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
  byte: "aGVsbG8=",
  binary: "binary-content",
  password: "secret",
};

const PATTERN_CANDIDATES = ["abc", "a", "A", "1", "0", "abc123", "a-b", "a_b", "ab.c", "2024-01-02", "#ffffff", "ffffff", "v1.0.0", "1.0.0", "a/b", "A1", "aa:bb"];

/** Whether a schema says anything about the value's shape (annotations alone do not). */
function hasShape(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return schema === false;
  return ["type", "properties", "required", "items", "$ref", "enum", "const", "allOf", "anyOf", "oneOf", "format", "pattern"].some((k) => k in schema);
}

class Sampler {
  constructor(
    private readonly root: Doc,
    private readonly seed: string,
  ) {}

  private resolve(ref: string): Doc {
    const parts = ref.replace(/^#\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    let node: unknown = this.root;
    for (const p of parts) node = (node as Doc)[p];
    if (node === undefined) throw new Error(`sampler: unresolved ${ref}`);
    return node as Doc;
  }

  sample(schema: unknown, path: string, depth: number): Json | undefined {
    if (schema === true || schema === undefined) return "x";
    if (schema === false || typeof schema !== "object" || schema === null) return undefined;
    const s = schema as Doc;
    if (depth > 14) return undefined;
    if (typeof s.$ref === "string") {
      const target = this.resolve(s.$ref);
      const { $ref: _, ...rest } = s;
      return this.sample(Object.keys(rest).length > 0 ? { allOf: [target, rest] } : target, path, depth + 1);
    }
    if ("const" in s) return s.const as Json;
    if (Array.isArray(s.enum) && s.enum.length > 0) {
      const options = s.enum.filter((v: unknown) => v !== null);
      const list = options.length > 0 ? options : s.enum;
      return list[hash(this.seed + path) % list.length] as Json;
    }
    if (Array.isArray(s.allOf)) {
      let merged: Json | undefined;
      for (const branch of s.allOf) {
        if (!hasShape(branch)) continue;
        const v = this.sample(branch, path, depth + 1);
        if (v !== null && typeof v === "object" && !Array.isArray(v) && merged !== null && typeof merged === "object" && !Array.isArray(merged)) merged = { ...merged, ...v };
        else if (v !== undefined && merged === undefined) merged = v;
      }
      const own = { ...s };
      delete own.allOf;
      if (own.properties !== undefined || own.type !== undefined) {
        const v = this.sample(own, path, depth + 1);
        if (v !== null && typeof v === "object" && !Array.isArray(v) && merged !== null && typeof merged === "object" && !Array.isArray(merged)) merged = { ...merged, ...v };
        else if (merged === undefined) merged = v;
      }
      return merged;
    }
    for (const key of ["oneOf", "anyOf"] as const) {
      if (Array.isArray(s[key]) && s[key].length > 0) {
        const branches = (s[key] as unknown[]).filter((b) => !(typeof b === "object" && b !== null && (b as Doc).type === "null"));
        const branch = branches[0] ?? s[key][0];
        const rest = { ...s };
        delete rest[key];
        // Sibling keywords (type, properties) apply together with the branch.
        return this.sample(hasShape(rest) ? { allOf: [rest, branch] } : branch, path, depth + 1);
      }
    }
    let type = s.type;
    if (Array.isArray(type)) type = type.find((t: string) => t !== "null") ?? "null";
    if (type === undefined) type = s.properties !== undefined || s.required !== undefined ? "object" : s.items !== undefined ? "array" : "string";
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return (hash(this.seed + path) & 1) === 0;
      case "integer":
      case "number": {
        let v = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? Math.floor(s.exclusiveMinimum) + 1 : 1;
        if (typeof s.maximum === "number" && v > s.maximum) v = s.maximum;
        if (typeof s.multipleOf === "number") v = Math.ceil(v / s.multipleOf) * s.multipleOf;
        return v;
      }
      case "string":
        return this.string(s);
      case "array": {
        const min = typeof s.minItems === "number" ? s.minItems : 1;
        const count = Math.max(min, Math.min(1, typeof s.maxItems === "number" ? s.maxItems : 1));
        const out: Json[] = [];
        for (let i = 0; i < count; i++) {
          const v = this.sample(s.items ?? {}, `${path}[${i}]`, depth + 1);
          if (v !== undefined) out.push(v);
        }
        return out;
      }
      case "object":
      default:
        return this.object(s, path, depth);
    }
  }

  private string(s: Doc): string {
    if (typeof s.format === "string" && FORMATS[s.format] !== undefined) return FORMATS[s.format]!;
    let v = TRICKY;
    if (typeof s.pattern === "string") {
      const re = new RegExp(s.pattern, "u");
      v = [TRICKY, ...PATTERN_CANDIDATES].find((c) => re.test(c)) ?? "abc";
    }
    if (typeof s.maxLength === "number" && v.length > s.maxLength) v = v.slice(0, s.maxLength);
    if (typeof s.minLength === "number" && v.length < s.minLength) v = v.padEnd(s.minLength, "x");
    return v;
  }

  /** Required properties always; a few optional ones (chosen by hash) near the root. */
  private object(s: Doc, path: string, depth: number): Json {
    const out: Record<string, Json> = {};
    const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
    const properties = (s.properties ?? {}) as Doc;
    for (const name of Object.keys(properties)) {
      const p = `${path}.${name}`;
      const optionalPick = depth <= 2 && hash(this.seed + "?" + p) % 3 === 0;
      if (!required.has(name) && !optionalPick) continue;
      const prop = properties[name];
      if (prop && typeof prop === "object" && (prop.readOnly === true || prop.deprecated === true) && !required.has(name)) continue;
      const v = this.sample(prop, p, depth + 1);
      if (v !== undefined) out[name] = v;
    }
    // An empty object sends nothing in bracket notation (`address` would be absent): give it one member.
    const names = Object.keys(properties);
    if (Object.keys(out).length === 0 && names.length > 0 && depth <= 10) {
      const name = names[hash(this.seed + "!" + path) % names.length]!;
      const v = this.sample(properties[name], `${path}.${name}`, depth + 1);
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------
// The validator's copy of the original document
// ---------------------------------------------------------------------------------------

function assertLocalRefs(node: unknown, where: string): void {
  if (Array.isArray(node)) return node.forEach((n) => assertLocalRefs(n, where));
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node as Doc)) {
    if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) throw new Error(`${where}: non-local $ref ${value} would be fetched`);
    assertLocalRefs(value, where);
  }
}

/**
 * OAS 3.1 schemas may be addressed by `$id` (and `$anchor` inside them), as the 3.1
 * Petstore does: `/api/v31/components/schemas/petdetails#pet_details_id`. The ref parser
 * would take those for files or URLs, so they are rewritten to the local pointer of the
 * schema that declares that `$id` / `$anchor` (same target, per JSON Schema 2020-12).
 */
function localizeIdRefs(doc: Doc): void {
  const ids = new Map<string, string>();
  const collect = (node: unknown, pointer: string, base: string): void => {
    if (node === null || typeof node !== "object") return;
    const n = node as Doc;
    let here = base;
    if (typeof n.$id === "string") {
      here = n.$id;
      ids.set(here, pointer);
    }
    if (typeof n.$anchor === "string") ids.set(`${here}#${n.$anchor}`, pointer);
    for (const [k, v] of Object.entries(n)) collect(v, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, here);
  };
  collect(doc, "#", "");
  const rewrite = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const n = node as Doc;
    if (typeof n.$ref === "string" && !n.$ref.startsWith("#") && ids.has(n.$ref)) n.$ref = ids.get(n.$ref);
    Object.values(n).forEach(rewrite);
    // Once every ref is a local pointer, `$id` would only make Ajv resolve them against the wrong base.
    if (ids.size > 0 && typeof n.$id === "string") delete n.$id;
  };
  rewrite(doc);
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Validator {
  /** Operation id in the validator's document for method + path template. */
  ids: Map<string, string>;
  strict: OpenAPIBackend;
  /** Coerces body strings by schema, as a server decoding a form or multipart body does. */
  coercing: OpenAPIBackend;
  doc: Doc;
}

async function makeValidator(original: Doc, name: string): Promise<Validator> {
  let doc = structuredClone(original) as Doc;
  if (typeof doc.swagger === "string") {
    doc = (await swagger2openapi.convertObj(doc, { patch: true, warnOnly: true, resolve: false })).openapi as Doc;
  }
  doc = stripExamples(doc) as Doc;
  localizeIdRefs(doc);
  assertLocalRefs(doc, name);
  const ids = new Map<string, string>();
  let n = 0;
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Doc)) {
    for (const method of METHODS) {
      const op = (item as Doc)[method] as Doc | undefined;
      if (op === undefined) continue;
      // openapi-backend addresses operations by id; the copy gives every one a unique id.
      op.operationId = `op${n++}`;
      ids.set(`${method.toUpperCase()} ${path}`, op.operationId);
    }
  }
  const make = async (coerce: boolean): Promise<OpenAPIBackend> => {
    const api = new OpenAPIBackend({
      definition: structuredClone(doc) as never,
      quick: true, // lazy validators, no meta-validation of the (large) document
      strict: true,
      ajvOpts: { strict: false, validateFormats: true, ...(coerce ? { coerceTypes: "array" } : {}) },
      customizeAjv: (ajv) => {
        addFormats(ajv as never);
        // OpenAPI's own formats, and Stripe's (`unix-time` on integers, `decimal` on strings).
        for (const f of ["binary", "byte", "int32", "int64", "float", "double", "password", "unix-time", "decimal"]) ajv.addFormat(f, true);
        return ajv;
      },
    });
    await api.init();
    return api;
  };
  return { ids, strict: await make(false), coercing: await make(true), doc };
}

// ---------------------------------------------------------------------------------------
// Turning our request into what the validator reads, and checking it
// ---------------------------------------------------------------------------------------

function serverPrefix(binding: HttpBinding): string {
  return new URL(binding.server ?? "/", "http://127.0.0.1").pathname.replace(/\/+$/, "");
}

async function decodeMultipart(request: HttpRequest): Promise<Doc> {
  const form = await new Response(request.body as Uint8Array, { headers: { "content-type": request.headers["content-type"]! } }).formData();
  const out: Doc = {};
  for (const key of new Set(form.keys())) {
    const values = form.getAll(key).map((v) => {
      if (typeof v !== "string") return "file";
      try {
        const parsed: unknown = JSON.parse(v);
        return typeof parsed === "object" && parsed !== null ? parsed : v;
      } catch {
        return v;
      }
    });
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

interface Outcome {
  ok: boolean;
  problems: string[];
}

async function check(v: Validator, binding: HttpBinding, request: HttpRequest): Promise<Outcome> {
  const problems: string[] = [];
  const opId = v.ids.get(`${binding.method} ${binding.path}`);
  if (opId === undefined) return { ok: false, problems: [`no operation ${binding.method} ${binding.path} in the document`] };
  const operation = v.strict.router.getOperation(opId) as Doc;
  const url = new URL(request.url, "http://127.0.0.1");
  const prefix = serverPrefix(binding);
  if (!url.pathname.startsWith(prefix)) problems.push(`URL ${request.url} is not under the server ${binding.server ?? ""}`);
  const path = url.pathname.slice(prefix.length) + url.search;

  // The router, given only method and URL, must find this very operation (or one with the same template).
  const matched = v.strict.router.matchOperation({ method: request.method, path, headers: {} });
  if (matched === undefined) problems.push(`no operation in the document routes ${request.method} ${path}`);

  let body: unknown = request.body;
  let api = v.strict;
  const contentType = request.headers["content-type"];
  const declared = Object.keys((operation.requestBody?.content ?? {}) as Doc);
  if (contentType !== undefined) {
    const base = contentType.split(";")[0]!.trim().toLowerCase();
    if (!declared.some((d) => d.toLowerCase() === base || d === "*/*")) problems.push(`content-type ${base} is not one the operation accepts (${declared.join(", ")})`);
    if (base === "application/x-www-form-urlencoded") {
      body = parseQs(request.body as string, { depth: 20, arrayLimit: 100, allowEmptyArrays: false });
      api = v.coercing;
    } else if (base === "multipart/form-data") {
      body = await decodeMultipart(request);
      api = v.coercing;
    }
  } else if (operation.requestBody?.required === true) {
    problems.push("the operation requires a body and none was sent");
  }
  const result = api.validateRequest({ method: request.method, path, headers: request.headers, body: body as never }, opId);
  for (const e of result.errors ?? []) problems.push(`${e.instancePath} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
  return { ok: problems.length === 0, problems };
}

// ---------------------------------------------------------------------------------------
// The specs and the samples
// ---------------------------------------------------------------------------------------

function loadDoc(file: string): Doc {
  const text = readFileSync(new URL(file, specsDir), "utf8");
  return (file.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as Doc;
}

function toolsOf(doc: Doc, name: string, file: string): Tool[] {
  const sha256 = createHash("sha256").update(JSON.stringify(doc)).digest("hex");
  const ir = buildOpenAPIPackIR(structuredClone(doc), { name, file, sha256 });
  return [...definePack(ir).tools].filter((t) => t.binding.kind === "http").sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every k-th tool by name, k chosen so at least `min` are taken. */
function everyKth<T>(items: readonly T[], min: number): T[] {
  if (items.length <= min) return [...items];
  const k = Math.max(1, Math.floor(items.length / min));
  return items.filter((_, i) => i % k === 0);
}

const petstoreFiles = readdirSync(fileURLToPath(new URL("petstore/", specsDir)))
  .filter((f) => /\.(json|ya?ml)$/.test(f))
  .sort()
  .filter((f) => {
    const doc = loadDoc(`petstore/${f}`);
    return typeof doc.openapi === "string" && doc.openapi.startsWith("3.") && Object.keys((doc.paths ?? {}) as Doc).length > 0;
  });

interface SpecCase {
  label: string;
  file: string;
  min: number | "all";
}

// About 5 s per large document: the quick tier leaves GitHub REST to the long tier (its JSON
// bodies and path parameters are Petstore's kinds; Stripe's form bodies and Slack's Swagger 2.0 stay),
// and samples at least 30 tools of Stripe and Slack where the long tier takes at least 60.
const LARGE_MIN = LONG ? 60 : 30;
const cases: SpecCase[] = sweep(
  [
    ...petstoreFiles.map((f): SpecCase => ({ label: `petstore/${f}`, file: `petstore/${f}`, min: "all" })),
    { label: "stripe", file: "stripe/spec3.json", min: LARGE_MIN },
    { label: "github-rest", file: "github-rest/api.github.com.json", min: LARGE_MIN },
    { label: "slack", file: "slack/slack_web_openapi_v2_without_examples.json", min: LARGE_MIN },
  ],
  (c) => c.label !== "github-rest",
);

const report: string[] = [];
afterAll(() => {
  console.log(["requests validated against the original documents:", ...report].join("\n  "));
});

describe("requests built from bindings validate against the original OpenAPI documents", () => {
  for (const c of cases) {
    it(c.label, async () => {
      const doc = loadDoc(c.file);
      const tools = toolsOf(doc, c.label.replace(/[^a-z0-9]+/gi, "-"), c.file.split("/").pop()!);
      const sample = c.min === "all" ? tools : everyKth(tools, c.min);
      if (c.min !== "all") expect(sample.length).toBeGreaterThanOrEqual(c.min);
      const validator = await makeValidator(doc, c.label);
      const failures: string[] = [];
      let passed = 0;
      let excluded = 0;
      for (const [index, tool] of sample.entries()) {
        // Seconds of validation in all: vitest's RPC gets a turn now and then (a worker held longer than 60 s fails the run).
        if (index % 25 === 24) await new Promise((resolve) => setImmediate(resolve));
        const binding = tool.binding as HttpBinding;
        const key = `${c.label}: ${binding.method} ${binding.path}`;
        if (EXCLUDED[key] !== undefined) {
          excluded++;
          continue;
        }
        const args = new Sampler(tool.inputSchema as Doc, tool.name).sample(tool.inputSchema, "", 0) as Record<string, unknown>;
        let request: HttpRequest;
        try {
          request = buildHttpRequest(binding, args);
        } catch (e) {
          failures.push(`${tool.name}: build failed: ${(e as Error).message}`);
          continue;
        }
        const outcome = await check(validator, binding, request);
        if (outcome.ok) passed++;
        else failures.push(`${tool.name} ${request.method} ${request.url}\n      args ${JSON.stringify(args).slice(0, 400)}\n      ${outcome.problems.slice(0, 4).join("\n      ")}`);
      }
      report.push(`${c.label}: ${passed}/${sample.length - excluded} valid (${tools.length} tools, ${excluded} excluded)`);
      expect(failures, failures.join("\n")).toEqual([]);
      expect(passed).toBeGreaterThan(0);
    });
  }
});
