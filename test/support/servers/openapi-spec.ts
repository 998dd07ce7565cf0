/**
 * One OpenAPI document prepared for serving: Swagger 2.0 converted to 3.0, every operation
 * given a matcher, and openapi-backend's router and request validator built over a
 * locally dereferenced copy. Preparing Stripe's 4 MB spec takes seconds, so each file is
 * prepared once per process and shared by every server started on it.
 *
 * Nothing here can reach the network: `$ref`s are resolved by a JSON-pointer walk over
 * the document itself, and a `$ref` that is not a local pointer is never followed.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve as resolvePath } from "node:path";
import addFormats from "ajv-formats";
import { OpenAPIRouter, OpenAPIValidator, type Document, type Operation } from "openapi-backend";
import { parse as parseQs } from "qs";
import { parse as parseYaml } from "yaml";

// swagger2openapi ships no types; the one function used, typed.
const swagger2openapi = createRequire(import.meta.url)("swagger2openapi") as {
  convertObj(doc: unknown, options: Record<string, unknown>): Promise<{ openapi: unknown }>;
};

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface SpecOperation {
  operationId: string;
  method: string;
  /** Path template as written in the spec. */
  path: string;
  /** The operation object from the converted document, `$ref`s intact (examples live here). */
  raw: Doc;
  /** The same operation as openapi-backend's router sees it (dereferenced, path parameters merged). */
  routed: Operation;
  literal: boolean;
  pattern: RegExp;
  /** Characters outside `{...}`: the more, the more specific the template. */
  specificity: number;
}

export interface PreparedSpec {
  file: string;
  /** The OpenAPI 3.x document (converted when the file is Swagger 2.0), `$ref`s intact. */
  doc: Doc;
  /** Path of the spec's first server URL ("" when it is the host root), e.g. "/api". */
  prefix: string;
  operations: SpecOperation[];
  /** Validates JSON (and bodiless) requests. */
  strict: OpenAPIValidator;
  /** Same, but coerces body strings by schema, as a server decoding form fields does. */
  coercing: OpenAPIValidator;
}

/** Follows a local JSON pointer (`#/components/schemas/x`); undefined for anything else. */
export function pointer(root: Doc, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Doc)[key];
  }
  return node;
}

/** Examples are data, not constraints (GitHub's hold URL `$ref`s); the validator never needs them. */
export function stripExamples(node: unknown, parentKey = ""): unknown {
  if (Array.isArray(node)) return node.map((n) => stripExamples(n));
  if (node === null || typeof node !== "object") return node;
  const out: Doc = {};
  const isPropertyMap = parentKey === "properties" || parentKey === "patternProperties";
  for (const [key, value] of Object.entries(node as Doc)) {
    if (!isPropertyMap && (key === "example" || key === "examples" || key === "x-examples")) continue;
    out[key] = stripExamples(value, isPropertyMap ? "" : key);
  }
  return out;
}

/**
 * Replaces every local `$ref` by its target, in place, so the result has cycles where the
 * schema is recursive (openapi-backend decycles before compiling). A `$ref` with sibling
 * keywords (OpenAPI 3.1) becomes `allOf: [target]` next to them; a non-local `$ref`
 * becomes an empty schema rather than something to fetch.
 */
function dereference(root: Doc): Doc {
  const visited = new Set<object>();
  const targets = new Map<string, unknown>();

  const target = (ref: string): unknown => {
    if (targets.has(ref)) return targets.get(ref);
    let node = pointer(root, ref);
    const seen = new Set<string>([ref]);
    while (node !== null && typeof node === "object" && typeof (node as Doc).$ref === "string" && Object.keys(node as Doc).length === 1) {
      const next = (node as Doc).$ref as string;
      if (seen.has(next)) break;
      seen.add(next);
      node = pointer(root, next);
    }
    const value = node === undefined ? {} : node;
    targets.set(ref, value);
    walk(value);
    return value;
  };

  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = walk(node[i]);
      return node;
    }
    const obj = node as Doc;
    if (typeof obj.$ref === "string") {
      const ref = obj.$ref;
      const resolved = ref.startsWith("#") ? target(ref) : {};
      const siblings = Object.keys(obj).filter((k) => k !== "$ref" && k !== "description" && k !== "summary");
      if (siblings.length === 0) return resolved;
      const rest: Doc = {};
      for (const k of siblings) rest[k] = walk(obj[k]);
      return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), resolved] };
    }
    if (visited.has(obj)) return obj;
    visited.add(obj);
    for (const key of Object.keys(obj)) obj[key] = walk(obj[key]);
    return obj;
  };

  walk(root);
  return root;
}

const ANNOTATIONS = new Set(["description", "title", "example", "deprecated", "readOnly", "writeOnly", "default"]);

/**
 * Ajv refuses `nullable` without `type`, which OpenAPI 3.0 documents use freely (Stripe's
 * nullable `anyOf`s, swagger2openapi's rendering of Swagger's `type: null`). Rewrites
 * each to the JSON Schema it means: a null alternative.
 */
function fixNullable(node: unknown, seen = new Set<object>()): void {
  if (node === null || typeof node !== "object" || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) fixNullable(item, seen);
    return;
  }
  const obj = node as Doc;
  for (const value of Object.values(obj)) fixNullable(value, seen);
  if (typeof obj.nullable !== "boolean") return;
  const types = Array.isArray(obj.type) ? obj.type : typeof obj.type === "string" ? [obj.type] : [];
  if (types.length > 0) {
    if (types.includes("null") && obj.nullable === false) delete obj.nullable;
    return;
  }
  const nullable = obj.nullable;
  delete obj.nullable;
  if (!nullable) return;
  if (Array.isArray(obj.anyOf)) obj.anyOf.push({ type: "null" });
  else if (Array.isArray(obj.oneOf)) obj.oneOf.push({ type: "null" });
  else if (Object.keys(obj).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-"))) obj.type = "null";
  else {
    const rest: Doc = {};
    for (const key of Object.keys(obj)) {
      if (!ANNOTATIONS.has(key)) {
        rest[key] = obj[key];
        delete obj[key];
      }
    }
    obj.anyOf = [rest, { type: "null" }];
  }
}

/** Parameter names that carry credentials; their `required` is dropped so auth stays out of validation. */
const CREDENTIAL_NAMES = new Set(["authorization", "token", "access_token", "oauth_token", "api_key", "apikey", "x-api-key"]);

/** Loosens parameters for validation: credentials optional, ambiguous `oneOf`s made `anyOf`. */
function relaxParameters(doc: Doc): void {
  const names = new Set(CREDENTIAL_NAMES);
  const schemes = (doc.components?.securitySchemes ?? {}) as Doc;
  for (const scheme of Object.values(schemes)) {
    if (scheme && scheme.type === "apiKey" && typeof scheme.name === "string") names.add(scheme.name.toLowerCase());
  }
  const relaxParameter = (p: unknown) => {
    if (p === null || typeof p !== "object") return;
    const param = p as Doc;
    if (typeof param.name === "string" && param.in !== "path" && names.has(param.name.toLowerCase())) param.required = false;
    // On the wire every parameter is text, so `oneOf: [integer, string]` (GitHub's
    // workflow_id) matches both branches for "42" and always fails; either will do.
    const schema = param.schema as Doc | undefined;
    if (schema && Array.isArray(schema.oneOf)) {
      schema.anyOf = schema.oneOf;
      delete schema.oneOf;
    }
  };
  for (const p of Object.values((doc.components?.parameters ?? {}) as Doc)) relaxParameter(p);
  for (const item of Object.values((doc.paths ?? {}) as Doc)) {
    if (item === null || typeof item !== "object") continue;
    for (const p of (item as Doc).parameters ?? []) relaxParameter(p);
    for (const method of METHODS) {
      const op = (item as Doc)[method] as Doc | undefined;
      if (!op) continue;
      for (const p of op.parameters ?? []) relaxParameter(p);
    }
  }
}

/** Slack also sends its token as a form field; a required one is not the request's business here. */
function relaxBodyCredentials(operation: Operation): void {
  const content = ((operation.requestBody as Doc | undefined)?.content ?? {}) as Doc;
  for (const [type, media] of Object.entries(content)) {
    if (!/form/.test(type)) continue;
    const schema = (media as Doc)?.schema as Doc | undefined;
    if (schema && Array.isArray(schema.required)) schema.required = schema.required.filter((n: string) => !CREDENTIAL_NAMES.has(n.toLowerCase()));
  }
}

function templatePattern(path: string): RegExp {
  const source = path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/]+");
  return new RegExp(`^${source}$`);
}

function serverPrefix(doc: Doc): string {
  const server = Array.isArray(doc.servers) ? (doc.servers[0] as Doc | undefined) : undefined;
  if (!server || typeof server.url !== "string") return "";
  const url = server.url.replace(/\{([^}]+)\}/g, (_: string, name: string) => String(server.variables?.[name]?.default ?? name));
  try {
    return new URL(url, "http://placeholder").pathname.replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/** Each Swagger 2.0 operation's `consumes` (its own, else the document's), by "METHOD path". */
function swaggerConsumes(doc: Doc): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Doc)) {
    for (const method of METHODS) {
      const op = (item as Doc | undefined)?.[method] as Doc | undefined;
      const consumes = op?.consumes ?? doc.consumes;
      if (Array.isArray(consumes)) out.set(`${method} ${path}`, consumes as string[]);
    }
  }
  return out;
}

/**
 * swagger2openapi turns `formData` parameters into a form body only, even when the
 * operation also `consumes` JSON (most Slack write methods do). The JSON media type is
 * put back, with the same schema, so a JSON body is as valid as the spec says it is.
 */
function restoreJsonBodies(doc: Doc, consumes: Map<string, string[]>): void {
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Doc)) {
    for (const method of METHODS) {
      const content = ((item as Doc | undefined)?.[method] as Doc | undefined)?.requestBody?.content as Doc | undefined;
      if (!content || content["application/json"] || !consumes.get(`${method} ${path}`)?.includes("application/json")) continue;
      const form = content["application/x-www-form-urlencoded"] ?? content["multipart/form-data"];
      if (form?.schema) content["application/json"] = { schema: form.schema };
    }
  }
}

async function loadDocument(file: string): Promise<Doc> {
  const text = readFileSync(file, "utf8");
  let doc = (/\.ya?ml$/i.test(file) ? parseYaml(text, { maxAliasCount: -1 }) : JSON.parse(text)) as Doc;
  if (typeof doc.swagger === "string") {
    const consumes = swaggerConsumes(doc);
    doc = (await swagger2openapi.convertObj(doc, { patch: true, warnOnly: true, resolve: false })).openapi as Doc;
    restoreJsonBodies(doc, consumes);
  }
  // openapi-backend addresses operations by id: make sure each has a unique one.
  const used = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Doc)) {
    for (const method of METHODS) {
      const op = (item as Doc | undefined)?.[method] as Doc | undefined;
      if (!op) continue;
      let id = typeof op.operationId === "string" && op.operationId !== "" ? op.operationId : `${method.toUpperCase()} ${path}`;
      while (used.has(id)) id += "_";
      used.add(id);
      op.operationId = id;
    }
  }
  return doc;
}

async function prepare(file: string): Promise<PreparedSpec> {
  const doc = await loadDocument(file);
  const validatorDoc = stripExamples(structuredClone(doc)) as Doc;
  relaxParameters(validatorDoc);
  fixNullable(validatorDoc);
  dereference(validatorDoc);

  const definition = validatorDoc as unknown as Document;
  const router = new OpenAPIRouter({ definition, apiRoot: "/", ignoreTrailingSlashes: true });
  const ajvOpts = { strict: false, validateFormats: true, logger: false as const };
  const customizeAjv = (ajv: Parameters<typeof addFormats>[0]) => {
    addFormats(ajv);
    // OpenAPI's own formats and Stripe's (`unix-time` on integers, `decimal` on strings) accept anything.
    for (const format of ["binary", "byte", "int32", "int64", "float", "double", "password", "unix-time", "decimal"]) ajv.addFormat(format, true);
    return ajv;
  };
  const strict = new OpenAPIValidator({ definition, router, lazyCompileValidators: true, ajvOpts, customizeAjv: customizeAjv as never });
  const coercing = new OpenAPIValidator({
    definition,
    router,
    lazyCompileValidators: true,
    ajvOpts: { ...ajvOpts, coerceTypes: "array" },
    customizeAjv: customizeAjv as never,
  });

  const operations: SpecOperation[] = [];
  for (const routed of router.getOperations()) {
    relaxBodyCredentials(routed);
    const raw = (doc.paths as Doc)[routed.path][routed.method] as Doc;
    operations.push({
      operationId: routed.operationId!,
      method: routed.method,
      path: routed.path,
      raw,
      routed,
      literal: !routed.path.includes("{"),
      pattern: templatePattern(routed.path),
      specificity: routed.path.replace(/\{[^}]*\}/g, "").length,
    });
  }
  // Literal paths win over templates; among templates the most literal text wins.
  operations.sort((a, b) => Number(b.literal) - Number(a.literal) || b.specificity - a.specificity);
  return { file, doc, prefix: serverPrefix(doc), operations, strict, coercing };
}

const prepared = new Map<string, Promise<PreparedSpec>>();

/** The prepared spec for `specFile`, built on first use and cached for the process. */
export function loadSpec(specFile: string): Promise<PreparedSpec> {
  const key = resolvePath(specFile);
  let entry = prepared.get(key);
  if (entry === undefined) {
    entry = prepare(key);
    prepared.set(key, entry);
    entry.catch(() => prepared.delete(key));
  }
  return entry;
}

export type RouteMatch =
  | { kind: "found"; operation: SpecOperation; /** The path relative to the spec's paths (prefix removed). */ path: string }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/**
 * Finds the operation for a request. Paths are tried as received first, then with the
 * server's path prefix (Slack's `/api`) removed, so either form reaches the operation.
 */
export function matchRoute(spec: PreparedSpec, method: string, pathname: string): RouteMatch {
  const candidates = [pathname];
  if (spec.prefix !== "" && (pathname === spec.prefix || pathname.startsWith(spec.prefix + "/"))) candidates.push(pathname.slice(spec.prefix.length) || "/");
  const lower = method.toLowerCase();
  let allowed: string[] | undefined;
  for (const candidate of candidates) {
    const path = candidate.length > 1 ? candidate.replace(/\/+$/, "") : candidate;
    const onPath = spec.operations.filter((op) => (op.literal ? op.path === path : op.pattern.test(path)));
    if (onPath.length === 0) continue;
    const operation = onPath.find((op) => op.method === lower);
    if (operation) return { kind: "found", operation, path };
    allowed ??= [...new Set(onPath.map((op) => op.method.toUpperCase()))];
  }
  return allowed ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
}

const QS_OPTIONS = { depth: 20, arrayLimit: 1000, parameterLimit: 10_000 } as const;

/** Bracket notation (`metadata[key]=v`, `items[0][price]=p`, `expand[]=x`) as Stripe reads it. */
export function parseBracketed(text: string): Doc {
  return parseQs(text, QS_OPTIONS) as Doc;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

function accepts(declared: string[], actual: string): boolean {
  return declared.some((d) => {
    const type = d.toLowerCase();
    if (type === "*/*" || type === actual) return true;
    if (type.endsWith("/*")) return actual.startsWith(type.slice(0, -1));
    return false;
  });
}

export interface ValidationOutcome {
  valid: boolean;
  errors: unknown[];
}

/** Turns a multipart body into the same bracketed object a form body gives. */
async function multipartFields(body: string, contentType: string): Promise<Doc> {
  const form = await new Response(Buffer.from(body, "utf8"), { headers: { "content-type": contentType } }).formData();
  const pairs: string[] = [];
  for (const [name, value] of form.entries()) {
    const text = typeof value === "string" ? value : `(file ${value.name || "upload"}, ${value.size} bytes)`;
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(text)}`);
  }
  return parseBracketed(pairs.join("&"));
}

/**
 * Validates a request against its operation with openapi-backend: path, query (bracket
 * notation parsed by qs), headers and body. Form and multipart bodies are decoded first
 * and validated with type coercion, as their fields arrive as text; a body whose media
 * type the operation does not declare is an error of its own. Security requirements
 * are not checked (the server records auth headers; it does not judge them).
 */
export async function validateAgainstSpec(
  spec: PreparedSpec,
  operation: SpecOperation,
  request: { method: string; path: string; query: string; headers: Record<string, string>; body: string },
): Promise<ValidationOutcome> {
  const errors: unknown[] = [];
  const contentType = request.headers["content-type"];
  const type = mediaType(contentType);
  const declared = Object.keys(((operation.routed.requestBody as Doc | undefined)?.content ?? {}) as Doc);
  let body: unknown;
  let form = false;
  if (request.body !== "") {
    if (declared.length > 0 && !accepts(declared, type)) {
      errors.push({ keyword: "contentType", instancePath: "/requestBody", message: `content-type "${type || "(none)"}" is not one of ${declared.join(", ")}` });
    }
    if (/json/.test(type) || type === "") {
      try {
        body = JSON.parse(request.body);
      } catch {
        if (/json/.test(type)) errors.push({ keyword: "parse", instancePath: "/requestBody", message: "body is not valid JSON" });
        body = request.body;
      }
    } else if (type === "application/x-www-form-urlencoded") {
      body = parseBracketed(request.body);
      form = true;
    } else if (type === "multipart/form-data") {
      try {
        body = await multipartFields(request.body, contentType!);
        form = true;
      } catch {
        errors.push({ keyword: "parse", instancePath: "/requestBody", message: "multipart body could not be parsed" });
      }
    } else {
      body = request.body;
    }
  } else if (type === "application/x-www-form-urlencoded") {
    body = {};
    form = true;
  }
  const validator = form ? spec.coercing : spec.strict;
  const result = validator.validateRequest(
    {
      method: request.method,
      path: request.path,
      headers: request.headers,
      query: parseBracketed(request.query) as never,
      body,
    },
    operation.routed,
  );
  if (!result.valid && result.errors) errors.push(...result.errors);
  return { valid: errors.length === 0, errors };
}
