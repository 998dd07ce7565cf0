/**
 * sluice's request builder held against an established one: swagger-client's
 * `buildRequest` (the builder behind Swagger UI), fed the same spec operation and the same
 * argument values. This file draws the values, builds both requests, brings both to one
 * comparable form and lists what differs; `reference-differences.ts` says which
 * differences are known and why (the table in docs/reference-request-builder.md).
 *
 * What "equal" means is written once, in docs/reference-request-builder.md: in short, the
 * path after RFC 3986 normalization, the query and form bodies as the pairs a form parser
 * reads, headers by case-insensitive name, cookies as decoded pairs, JSON bodies JSON-equal,
 * multipart bodies part by part; `Accept` and credentials aside.
 */
import fc from "fast-check";
// The builder `SwaggerClient.buildRequest` is, without the resolver and HTTP client around it.
import { buildRequest } from "swagger-client/es/execute/index.js";
import type { HttpBinding, HttpParameter, HttpRequest, Tool } from "@sluice/core";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// ---------------------------------------------------------------------------------------
// The spec operation, as swagger-client reads it
// ---------------------------------------------------------------------------------------

function pointerTarget(doc: Doc, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Local `$ref`s resolved to a bounded depth (swagger-client's builder reads resolved objects; a full resolve of a 4 MB spec is not needed for one operation). */
function resolved(doc: Doc, node: unknown, depth: number, seen: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(node)) return node.map((item) => resolved(doc, item, depth, seen));
  if (typeof node !== "object" || node === null) return node;
  const ref = (node as Record<string, unknown>)["$ref"];
  if (typeof ref === "string") {
    if (seen.has(ref) || depth <= 0) return {};
    const target = pointerTarget(doc, ref);
    return target === undefined ? {} : resolved(doc, target, depth - 1, new Set([...seen, ref]));
  }
  if (depth <= 0) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = resolved(doc, value, depth - 1, seen);
  return out;
}

export type SpecKind = "openapi3" | "swagger2";

export function specKind(doc: Doc): SpecKind {
  return typeof doc["swagger"] === "string" ? "swagger2" : "openapi3";
}

/** The spec's operation for a binding, or undefined when the tool has none (a path the generator rewrote). */
export function specOperation(doc: Doc, binding: HttpBinding): { pathItem: Doc; operation: Doc } | undefined {
  const pathItem = doc["paths"]?.[binding.path];
  const operation = pathItem?.[binding.method.toLowerCase()];
  return typeof operation === "object" && operation !== null ? { pathItem, operation } : undefined;
}

/** A one-operation document with its parameters and body resolved: what the reference builds from. */
export function referenceSpec(doc: Doc, binding: HttpBinding): Doc {
  const found = specOperation(doc, binding);
  if (found === undefined) throw new Error(`no operation ${binding.method} ${binding.path}`);
  const operation: Doc = { ...found.operation, operationId: "op" };
  operation["parameters"] = resolved(doc, found.operation["parameters"] ?? [], 6);
  if (found.operation["requestBody"] !== undefined) operation["requestBody"] = resolved(doc, found.operation["requestBody"], 6);
  delete operation["security"];
  const pathItem: Doc = { [binding.method.toLowerCase()]: operation };
  if (found.pathItem["parameters"] !== undefined) pathItem["parameters"] = resolved(doc, found.pathItem["parameters"], 6);
  if (found.pathItem["servers"] !== undefined) pathItem["servers"] = found.pathItem["servers"];
  const out: Doc = { info: { title: "reference", version: "1" }, paths: { [binding.path]: pathItem } };
  for (const key of ["openapi", "swagger", "servers", "host", "basePath", "schemes", "consumes", "produces"]) if (doc[key] !== undefined) out[key] = doc[key];
  return out;
}

/** Spec parameters of the operation (path item's first, then the operation's overriding them), resolved. */
export function specParameters(spec: Doc, binding: HttpBinding): Doc[] {
  const pathItem = spec["paths"][binding.path];
  const operation = pathItem[binding.method.toLowerCase()];
  const byKey = new Map<string, Doc>();
  for (const p of [...(pathItem["parameters"] ?? []), ...(operation["parameters"] ?? [])] as Doc[]) byKey.set(`${p["in"]}:${p["name"]}`, p);
  return [...byKey.values()];
}

// ---------------------------------------------------------------------------------------
// Arguments -> the reference's inputs
// ---------------------------------------------------------------------------------------

function own(args: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(args, key) ? args[key] : undefined;
}

/** The body value the binding would send for these arguments (fields gathered, or the whole-body argument). */
export function bodyOf(binding: HttpBinding, args: Record<string, unknown>): unknown {
  const body = binding.body;
  if (body === undefined) return undefined;
  if (body.wholeBodyArg !== undefined) return own(args, body.wholeBodyArg);
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [arg, property] of Object.entries(body.fields ?? {})) {
    const value = own(args, arg);
    if (value === undefined) continue;
    Object.defineProperty(out, property, { value, enumerable: true, writable: true, configurable: true });
    any = true;
  }
  return any || body.required === true ? out : undefined;
}

interface ReferenceInput {
  spec: Doc;
  operationId: string;
  parameters: Record<string, unknown>;
  requestBody?: unknown;
  requestContentType?: string;
}

/** The same values, addressed the reference's way: parameters as `in.name`, the body as `requestBody` (3.x) or its `body` / `formData` parameters (2.0). */
export function referenceInput(doc: Doc, binding: HttpBinding, args: Record<string, unknown>): ReferenceInput {
  const spec = referenceSpec(doc, binding);
  const parameters: Record<string, unknown> = {};
  for (const parameter of binding.parameters) {
    const value = own(args, parameter.arg);
    if (value !== undefined) parameters[`${parameter.in}.${parameter.name}`] = value;
  }
  // Absent parameters are `null` to the reference; `undefined` would make it send the spec's `default`.
  for (const p of specParameters(spec, binding)) {
    const key = `${p["in"]}.${p["name"]}`;
    if (p["in"] !== "body" && p["in"] !== "formData" && !Object.hasOwn(parameters, key)) parameters[key] = null;
  }
  const input: ReferenceInput = { spec, operationId: "op", parameters };
  const body = bodyOf(binding, args);
  if (binding.body !== undefined) input.requestContentType = binding.body.mediaType;
  if (body === undefined) return input;
  if (specKind(doc) === "openapi3") {
    input.requestBody = body;
    return input;
  }
  const bodyParameter = specParameters(spec, binding).find((p) => p["in"] === "body");
  if (bodyParameter !== undefined) parameters[`body.${bodyParameter["name"]}`] = body;
  else if (typeof body === "object" && body !== null) for (const [k, v] of Object.entries(body)) parameters[`formData.${k}`] = v;
  return input;
}

// ---------------------------------------------------------------------------------------
// One comparable form
// ---------------------------------------------------------------------------------------

export type Pairs = Array<[string, string]>;

export interface WireBody {
  kind: "none" | "json" | "form" | "multipart" | "text";
  json?: unknown;
  pairs?: Pairs;
  parts?: Array<{ name: string; contentType: string; text: string }>;
  text?: string;
}

export interface WireRequest {
  method: string;
  origin: string;
  path: string;
  query: Pairs;
  headers: Record<string, string>;
  cookies: Pairs;
  contentType: string;
  body: WireBody;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** RFC 3986 §6.2.2.1-2: hex digits upper case, percent-encoded unreserved characters decoded. */
export function normalizeEncoding(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/**
 * `a=1&b=2` as the pairs a server's form parser reads: split on `&` and the first `=`,
 * `+` a space, then percent-decoded (WHATWG URLSearchParams does exactly this). Only
 * `&`, `=` and `+` delimit anything here, so whether `!` or `,` was encoded is no
 * difference to the server; a raw `&` or `=` inside a value is (it splits the pair).
 */
export function formPairs(text: string): Pairs {
  return [...new URLSearchParams(text)];
}

/** Pairs of one name keep their order; names are sorted (their order means nothing to a server). */
export function byName(pairs: Pairs): Pairs {
  return pairs.map((p, i) => [p, i] as const).sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j)).map(([p]) => p);
}

/** Percent-decoded (a cookie's `+` is itself); text that does not decode (a raw `%`) stays as it is, and so differs. */
function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function cookiePairs(header: string | undefined): Pairs {
  if (header === undefined || header === "") return [];
  return header.split(/;\s*/).filter((s) => s !== "").map((piece) => {
    const at = piece.indexOf("=");
    const [name, value] = at < 0 ? ["", piece] : [piece.slice(0, at), piece.slice(at + 1)];
    return [decodeOr(name.trim()), decodeOr(value.trim())] as [string, string];
  });
}

function mediaBase(type: string | undefined): string {
  return (type ?? "").split(";")[0]!.trim().toLowerCase();
}

function isJson(type: string): boolean {
  return type === "application/json" || type.endsWith("+json") || type === "text/json";
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Parts of a multipart body as sluice writes it (bytes, boundary in the content type). */
function multipartParts(bytes: Uint8Array, contentType: string): NonNullable<WireBody["parts"]> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (boundary === undefined) return [];
  const text = new TextDecoder().decode(bytes);
  const out: NonNullable<WireBody["parts"]> = [];
  for (const chunk of text.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const end = chunk.indexOf("\r\n\r\n");
    const head = chunk.slice(2, end);
    const data = chunk.slice(end + 4, chunk.length - 2);
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? "";
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
    out.push({ name: decodeURIComponent(name), contentType: partType(type), text: data });
  }
  return out;
}

/** A part without a type is text (RFC 7578 §4.4). */
function partType(type: string | undefined): string {
  const base = mediaBase(type);
  return base === "" ? "text/plain" : base;
}

function splitUrl(url: string): { origin: string; path: string; query: Pairs } {
  const parsed = new URL(url, "http://relative.invalid");
  return { origin: parsed.origin, path: normalizeEncoding(parsed.pathname), query: byName(formPairs(parsed.search.slice(1))) };
}

function headerMap(headers: Record<string, unknown>, skip: ReadonlySet<string>): { headers: Record<string, string>; cookie: string | undefined; contentType: string } {
  const out: Record<string, string> = {};
  let cookie: string | undefined;
  let contentType = "";
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "cookie") cookie = String(value);
    else if (lower === "content-type") contentType = mediaBase(String(value));
    else if (lower !== "accept" && !skip.has(lower)) out[lower] = String(value);
  }
  return { headers: Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1))), cookie, contentType };
}

/** Names written by authentication: not compared (the reference is given no credentials). */
export function credentialNames(binding: HttpBinding): { header: Set<string>; query: Set<string>; cookie: Set<string> } {
  const names = { header: new Set(["authorization"]), query: new Set<string>(), cookie: new Set<string>() };
  for (const option of binding.auth ?? []) for (const scheme of option) if (scheme.type === "apiKey") names[scheme.in].add(scheme.in === "header" ? scheme.name.toLowerCase() : scheme.name);
  for (const p of binding.parameters) if (p.credential !== undefined && p.in !== "path") names[p.in].add(p.in === "header" ? p.name.toLowerCase() : p.name);
  return names;
}

function withoutCredentials(pairs: Pairs, names: ReadonlySet<string>): Pairs {
  return pairs.filter(([name]) => !names.has(name));
}

export function wireOfSluice(request: HttpRequest, binding: HttpBinding): WireRequest {
  const skip = credentialNames(binding);
  const url = splitUrl(request.url);
  const { headers, cookie, contentType } = headerMap(request.headers, skip.header);
  let body: WireBody = { kind: "none" };
  if (request.body !== undefined) {
    const text = typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body);
    if (isJson(contentType)) body = { kind: "json", json: parseJsonOr(text) };
    else if (contentType === "application/x-www-form-urlencoded") body = { kind: "form", pairs: byName(formPairs(text)) };
    else if (contentType === "multipart/form-data") body = { kind: "multipart", parts: multipartParts(typeof request.body === "string" ? new TextEncoder().encode(request.body) : request.body, request.headers["content-type"] ?? "") };
    else body = { kind: "text", text };
  }
  return { method: request.method, origin: url.origin, path: url.path, query: withoutCredentials(url.query, skip.query), headers, cookies: withoutCredentials(cookiePairs(cookie), skip.cookie), contentType, body };
}

interface ReferenceRequest {
  url: string;
  method: string;
  headers: Record<string, unknown>;
  body?: unknown;
}

async function wireOfReference(request: ReferenceRequest, binding: HttpBinding): Promise<WireRequest> {
  const skip = credentialNames(binding);
  const url = splitUrl(request.url);
  const { headers, cookie, contentType } = headerMap(request.headers, skip.header);
  let body: WireBody = { kind: "none" };
  const raw = request.body;
  if (raw instanceof FormData) {
    const parts: NonNullable<WireBody["parts"]> = [];
    for (const [name, value] of raw.entries()) {
      if (typeof value === "string") parts.push({ name, contentType: "text/plain", text: value });
      else parts.push({ name, contentType: partType(value.type), text: await value.text() });
    }
    body = { kind: "multipart", parts };
  } else if (raw !== undefined) {
    const text = typeof raw === "string" ? raw : undefined;
    if (isJson(contentType)) body = { kind: "json", json: text === undefined ? raw : parseJsonOr(text) };
    else if (contentType === "application/x-www-form-urlencoded") body = { kind: "form", pairs: byName(formPairs(text ?? String(raw))) };
    else body = { kind: "text", text: text ?? (typeof raw === "object" ? JSON.stringify(raw) : String(raw)) };
  }
  return { method: request.method, origin: url.origin, path: url.path, query: withoutCredentials(url.query, skip.query), headers, cookies: withoutCredentials(cookiePairs(cookie), skip.cookie), contentType, body };
}

/** The reference's request for these arguments, or the error it threw (as text). */
export async function referenceRequest(doc: Doc, binding: HttpBinding, args: Record<string, unknown>): Promise<WireRequest | { error: string }> {
  const input = referenceInput(doc, binding, args);
  let built: ReferenceRequest;
  const warn = console.warn;
  try {
    console.warn = () => {}; // its ambiguity warnings are about `name` keys, which are not used here
    built = buildRequest({ ...input });
  } catch (error) {
    return { error: String((error as Error).message ?? error) };
  } finally {
    console.warn = warn;
  }
  return wireOfReference(built, binding);
}

// ---------------------------------------------------------------------------------------
// Differences
// ---------------------------------------------------------------------------------------

export type Part = "method" | "origin" | "path" | "query" | "header" | "cookie" | "content-type" | "body" | "build";

export interface Difference {
  part: Part;
  /** The wire name concerned (query, header, cookie, form pair or part name), when there is one. */
  name?: string;
  sluice: string;
  reference: string;
}

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? "undefined";
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || typeof a !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => jsonEqual(v, (b as unknown[])[i]));
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b as object).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Pair lists compared per name: one difference for each name whose values differ. */
function pairDifferences(part: Part, sluice: Pairs, reference: Pairs): Difference[] {
  const group = (pairs: Pairs): Map<string, string[]> => {
    const out = new Map<string, string[]>();
    for (const [n, v] of pairs) out.set(n, [...(out.get(n) ?? []), v]);
    return out;
  };
  const a = group(sluice);
  const b = group(reference);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  const out: Difference[] = [];
  for (const name of names) {
    const x = a.get(name) ?? [];
    const y = b.get(name) ?? [];
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) out.push({ part, name, sluice: x.map((v) => `${name}=${v}`).join("&"), reference: y.map((v) => `${name}=${v}`).join("&") });
  }
  return out;
}

export function differences(sluice: WireRequest, reference: WireRequest): Difference[] {
  const out: Difference[] = [];
  if (sluice.method !== reference.method) out.push({ part: "method", sluice: sluice.method, reference: reference.method });
  if (sluice.origin !== reference.origin) out.push({ part: "origin", sluice: sluice.origin, reference: reference.origin });
  if (sluice.path !== reference.path) out.push({ part: "path", sluice: sluice.path, reference: reference.path });
  out.push(...pairDifferences("query", sluice.query, reference.query));
  for (const name of [...new Set([...Object.keys(sluice.headers), ...Object.keys(reference.headers)])].sort()) {
    if (sluice.headers[name] !== reference.headers[name]) out.push({ part: "header", name, sluice: show(sluice.headers[name]), reference: show(reference.headers[name]) });
  }
  out.push(...pairDifferences("cookie", sluice.cookies, reference.cookies));
  const bodySent = sluice.body.kind !== "none" || reference.body.kind !== "none";
  if (bodySent && sluice.contentType !== reference.contentType) out.push({ part: "content-type", sluice: sluice.contentType, reference: reference.contentType });
  const sb = sluice.body;
  const rb = reference.body;
  if (sb.kind === "form" && rb.kind === "form") out.push(...pairDifferences("body", sb.pairs ?? [], rb.pairs ?? []));
  else if (sb.kind === "json" && rb.kind === "json") {
    if (!jsonEqual(sb.json, rb.json)) out.push({ part: "body", sluice: show(sb.json), reference: show(rb.json) });
  } else if (sb.kind === "multipart" && rb.kind === "multipart") {
    const text = (parts: NonNullable<WireBody["parts"]>): string[] => parts.map((p) => `${p.name} (${p.contentType}): ${p.text}`);
    const x = text(sb.parts ?? []);
    const y = text(rb.parts ?? []);
    const names = [...new Set([...(sb.parts ?? []), ...(rb.parts ?? [])].map((p) => p.name))].sort();
    for (const name of names) {
      const xs = x.filter((_, i) => sb.parts![i]!.name === name);
      const ys = y.filter((_, i) => rb.parts![i]!.name === name);
      if (xs.join("\n") !== ys.join("\n")) out.push({ part: "body", name, sluice: xs.join(" | "), reference: ys.join(" | ") });
    }
  } else if (sb.kind !== rb.kind || show(sb.text) !== show(rb.text)) {
    out.push({ part: "body", sluice: `${sb.kind}: ${show(sb.text ?? sb.json ?? sb.pairs ?? sb.parts)}`, reference: `${rb.kind}: ${show(rb.text ?? rb.json ?? rb.pairs ?? rb.parts)}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Argument values, drawn from the tool's input schema
// ---------------------------------------------------------------------------------------

/** A drawing function as `fc.gen()` gives one. */
export type Draw = <T>(arb: fc.Arbitrary<T>) => T;

/**
 * Strings that make encoding matter: a space, every RFC 3986 reserved character (the ones
 * that split a query, a path, a cookie or a delimited list), `%`, `+`, non-ASCII
 * (two-, three- and four-byte UTF-8) and plain ones, so both easy and hard cases are drawn.
 */
export const HARD_STRINGS: readonly string[] = [
  "plain",
  "a b",
  "x/y?z#w",
  "k&v=1",
  "a,b;c",
  "50% + 1",
  "[0]@host:8080",
  "!$'()*",
  "~-._",
  "Zürich",
  "東京",
  "👍 ok",
  "quote\"back\\slash",
];

const FORMAT_VALUES: Record<string, readonly string[]> = {
  "date-time": ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.678+02:00"],
  date: ["2024-01-02"],
  time: ["03:04:05Z"],
  email: ["a.b+c@example.com"],
  uri: ["https://example.com/a b?c=d&e=é"],
  url: ["https://example.com/a?b=c"],
  uuid: ["123e4567-e89b-12d3-a456-426614174000"],
  ipv4: ["192.0.2.1"],
  ipv6: ["2001:db8::1"],
  hostname: ["example.com"],
  byte: ["aGVsbG8="],
  int32: ["7"],
  int64: ["7"],
};

function defsOf(root: Record<string, unknown>): Record<string, unknown> {
  const defs = root["$defs"];
  return typeof defs === "object" && defs !== null ? (defs as Record<string, unknown>) : {};
}

/** A value meant to be valid for `schema`; the caller checks it with the tool and redraws what fails. */
export function drawValue(draw: Draw, root: Record<string, unknown>, schema: unknown, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[draw(fc.nat({ max: items.length - 1 }))]!;
  if (typeof schema !== "object" || schema === null) return pick(HARD_STRINGS);
  let node = schema as Record<string, unknown>;
  for (let hops = 0; typeof node["$ref"] === "string" && hops < 16; hops++) {
    const name = /^#\/\$defs\/(.+)$/.exec(node["$ref"] as string)?.[1];
    const target = name === undefined ? undefined : defsOf(root)[name.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (typeof target !== "object" || target === null) return {};
    node = target as Record<string, unknown>;
  }
  if (Object.hasOwn(node, "const")) return structuredClone(node["const"]);
  if (Array.isArray(node["enum"]) && node["enum"].length > 0) return structuredClone(pick(node["enum"]));
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const list = node[keyword];
    if (Array.isArray(list) && list.length > 0) return drawValue(draw, root, pick(list), depth + 1);
  }
  if (Array.isArray(node["allOf"]) && node["allOf"].length > 0 && node["properties"] === undefined) return drawValue(draw, root, node["allOf"][0], depth + 1);
  const declared = Array.isArray(node["type"]) ? (node["type"] as string[]).filter((t) => t !== "null") : typeof node["type"] === "string" ? [node["type"]] : node["properties"] !== undefined ? ["object"] : node["items"] !== undefined ? ["array"] : ["string"];
  const type = declared.length === 0 ? "null" : pick(declared);
  const num = (keyword: string): number | undefined => (typeof node[keyword] === "number" ? (node[keyword] as number) : undefined);
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      const properties = (typeof node["properties"] === "object" && node["properties"] !== null ? node["properties"] : {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(node["required"]) ? (node["required"] as string[]) : []);
      for (const key of Object.keys(properties).sort()) {
        if (!required.has(key) && draw(fc.nat({ max: 2 })) !== 0) continue;
        Object.defineProperty(out, key, { value: drawValue(draw, root, properties[key], depth + 1), enumerable: true, writable: true, configurable: true });
      }
      // A free-form object gets keys that need encoding too (an exploded object's keys become names on the wire).
      const extra = node["additionalProperties"];
      if (Object.keys(properties).length === 0 && extra !== false && draw(fc.nat({ max: 1 })) === 0) {
        for (const key of ["k", pick(["a b", "é", "x.y", "r[0]"])]) if (!Object.hasOwn(out, key)) out[key] = typeof extra === "object" && extra !== null ? drawValue(draw, root, extra, depth + 1) : pick(HARD_STRINGS);
      }
      return out;
    }
    case "array": {
      if (depth > 4) return [];
      const min = num("minItems") ?? 0;
      const max = Math.min(num("maxItems") ?? 3, Math.max(min, 3));
      const length = min + draw(fc.nat({ max: Math.max(0, max - min) }));
      const items = Array.from({ length }, () => drawValue(draw, root, node["items"] ?? { type: "string" }, depth + 1));
      return node["uniqueItems"] === true ? [...new Map(items.map((v) => [JSON.stringify(v), v])).values()] : items;
    }
    case "integer":
    case "number": {
      const min = num("minimum") ?? (num("exclusiveMinimum") === undefined ? undefined : num("exclusiveMinimum")! + 1);
      const max = num("maximum") ?? (num("exclusiveMaximum") === undefined ? undefined : num("exclusiveMaximum")! - 1);
      const lo = min ?? -5;
      const hi = max ?? Math.max(lo, 0) + 100;
      const candidates = [lo, hi, Math.floor((lo + hi) / 2), ...(type === "number" ? [lo + 0.5] : [])].filter((n) => n >= lo && n <= hi);
      const multiple = num("multipleOf");
      const value = pick(candidates.length > 0 ? candidates : [lo]);
      return multiple !== undefined ? Math.ceil(value / multiple) * multiple : value;
    }
    case "boolean":
      return pick([true, false]);
    case "null":
      return null;
    default: {
      const format = typeof node["format"] === "string" ? FORMAT_VALUES[node["format"]] : undefined;
      if (format !== undefined) return pick(format);
      if (typeof node["pattern"] === "string") {
        const pattern = regexOf(node["pattern"]);
        if (pattern !== undefined) {
          try {
            // Lengths are checked on the draw: a pattern with a length bound beside it (a 40-digit sha) needs a few tries.
            const fits = (t: string): boolean => [...t].length >= (num("minLength") ?? 0) && [...t].length <= (num("maxLength") ?? Infinity);
            let text = draw(fc.stringMatching(pattern, { size: "xsmall" }));
            for (let tries = 0; tries < 4 && !fits(text); tries++) text = draw(fc.stringMatching(pattern, { size: tries < 2 ? "medium" : "large" }));
            return text;
          } catch {
            // a pattern fast-check cannot draw from: fall through to the hard strings
          }
        }
      }
      const minLength = num("minLength") ?? 0;
      const maxLength = num("maxLength");
      let text = pick(HARD_STRINGS);
      if ([...text].length < minLength) text = text + "x".repeat(minLength - [...text].length);
      if (maxLength !== undefined && [...text].length > maxLength) text = [...text].slice(0, maxLength).join("");
      return text;
    }
  }
}

/**
 * Valid arguments for a tool: a draw from its input schema, then each argument `tool.check`
 * refuses is redrawn a few times, optional ones left out if they still fail (the case of an
 * optional parameter absent is drawn on purpose too). Undefined when no valid set is found.
 */
export function drawArguments(draw: Draw, tool: Tool<object>): Record<string, unknown> | undefined {
  const root = tool.inputSchema as Record<string, unknown>;
  const properties = (root["properties"] ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(root["required"]) ? (root["required"] as string[]) : []);
  const args: Record<string, unknown> = {};
  const names = Object.keys(properties).sort();
  for (const name of names) {
    if (!required.has(name) && draw(fc.nat({ max: 3 })) === 0) continue;
    Object.defineProperty(args, name, { value: drawValue(draw, root, properties[name]), enumerable: true, writable: true, configurable: true });
  }
  for (let round = 0; round < 6; round++) {
    const issues = tool.check(args);
    if (issues.length === 0) return args;
    const bad = new Set(issues.map((issue) => decodePointerHead(issue.path)).filter((n) => n !== ""));
    if (bad.size === 0) return undefined;
    for (const name of bad) {
      if (!Object.hasOwn(properties, name)) delete args[name];
      else if (round >= 4 && !required.has(name)) delete args[name];
      else Object.defineProperty(args, name, { value: drawValue(draw, root, properties[name]), enumerable: true, writable: true, configurable: true });
    }
  }
  return tool.check(args).length === 0 ? args : undefined;
}

function regexOf(source: string): RegExp | undefined {
  for (const flags of ["u", ""]) {
    try {
      return new RegExp(source, flags);
    } catch {
      // next
    }
  }
  return undefined;
}

function decodePointerHead(pointer: string | undefined): string {
  const head = (pointer ?? "").split("/")[1] ?? "";
  return head.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The binding parameter that wrote a (decoded) wire name: its own name, an exploded object's key, or a bracketed member of it. */
export function ownerOf(binding: HttpBinding, location: HttpParameter["in"], name: string, args: Record<string, unknown>): HttpParameter | undefined {
  const named = binding.parameters.find((p) => p.in === location && p.name === name);
  if (named !== undefined) return named;
  return binding.parameters.find((p) => {
    if (p.in !== location) return false;
    const value = own(args, p.arg);
    return typeof value === "object" && value !== null && !Array.isArray(value) && (Object.keys(value).includes(name) || name.startsWith(`${p.name}[`));
  });
}
