import { performance } from "node:perf_hooks";
import { SluiceError, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import { authAdditions, type HttpCredential } from "../http/auth.ts";
import { isJsonMediaType } from "../http/body.ts";
import { buildHttpRequest, type HttpRequest } from "../http/build-request.ts";
import type { Binding, HttpAuthScheme, HttpBinding, WithheldPath } from "../tool-ir.ts";
import { currentCollector, ratioOf, type CallCollector } from "./collector.ts";
import { apiMessage, graphqlErrors } from "./failures.ts";
import { nextPageArgs } from "./pagination.ts";
import { screenArguments } from "./screen-arguments.ts";
import { validateArguments } from "./validate-arguments.ts";
import { retryAfterSeconds, send, type RawResponse } from "./transport.ts";
import {
  DEFAULT_MAX_ARGUMENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type CallContext,
  type CredentialSource,
  type FailureCheck,
  type Pagination,
  type ResponseHandler,
  type ResponseInfo,
} from "./types.ts";

/** What the call runtime needs of a tool (the Tool class provides it). */
export interface CallableTool {
  readonly name: string;
  readonly inputSchema: JsonSchemaObject;
  readonly binding: Binding;
  readonly withheld: readonly WithheldPath[];
  readonly pins: Readonly<Record<string, unknown>>;
  readonly definitionOrigins: ReadonlyMap<string, string>;
  readonly responseHandler: ResponseHandler | undefined;
  readonly pagination: Pagination | undefined;
  readonly endpoint: string | undefined;
  /** Effective authentication requirements (binding's, else the pack runtime's). */
  readonly auth: readonly HttpAuthScheme[][] | undefined;
  readonly failure: FailureCheck | undefined;
}

/** Everything about one successful call. `output` is what the model sees. */
export interface CallResult {
  output: unknown;
  /** The parsed body before the handler. */
  body: unknown;
  status: number;
  headers: Readonly<Record<string, string>>;
  payloadBytes: number;
  contextBytes: number;
  durationMs: number;
  /** Arguments for the next page, when the tool declares pagination and there is one. */
  nextPageArgs?: Record<string, unknown>;
}

const NO_ISSUES: readonly ArgumentIssue[] = [];

/**
 * Screens arguments against the tool's schema. `allowed` holds only what the schema lets
 * through, with pins applied; `issues` lists everything refused or invalid.
 */
export function checkArguments(tool: CallableTool, args: unknown, ctx: CallContext = {}): { allowed: Record<string, unknown>; issues: readonly ArgumentIssue[] } {
  const withheld = new Map<string, string>();
  for (const entry of tool.withheld) if (!withheld.has(entry.path)) withheld.set(entry.path, entry.reason);
  const screened = screenArguments(tool.inputSchema, args, {
    withheld,
    pins: tool.pins,
    origins: tool.definitionOrigins,
    maxBytes: ctx.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES,
  });
  for (const [arg, value] of Object.entries(tool.pins)) {
    Object.defineProperty(screened.allowed, arg, { value, enumerable: true, writable: true, configurable: true });
  }
  return { allowed: screened.allowed, issues: screened.issues.length === 0 ? NO_ISSUES : screened.issues };
}

/** Every problem a call would be refused for: screening first, then schema validation. */
export function argumentIssues(tool: CallableTool, args: unknown, ctx: CallContext = {}): { allowed: Record<string, unknown>; issues: readonly ArgumentIssue[] } {
  const screened = checkArguments(tool, args, ctx);
  if (screened.issues.some((issue) => issue.code === "too_large" || issue.code === "too_deep")) return screened;
  // `allowed` is what the model sent less what screening refused (as JSON: properties
  // holding undefined are left out), pins aside: pins are not in the schema. Reporting
  // both lists at once lets the model fix everything in one retry.
  const invalid = validateArguments(tool.inputSchema, withoutPins(screened.allowed, tool.pins));
  if (invalid.length === 0) return screened;
  const seen = new Set(screened.issues.map((issue) => issue.path));
  return { allowed: screened.allowed, issues: [...screened.issues, ...invalid.filter((issue) => !seen.has(issue.path))] };
}

/** Throws the call error for a list of issues: EGRESS_DENIED when anything withheld was sent, else INVALID_ARGUMENTS. */
export function refuse(tool: string, issues: readonly ArgumentIssue[]): never {
  const denied = issues.some((issue) => issue.code === "withheld" || issue.code === "pinned");
  const shown = issues.slice(0, 20);
  const lines = shown.map((issue) => `- ${issue.path === "" ? "(arguments)" : issue.path}: ${issue.message}`);
  if (issues.length > shown.length) lines.push(`- ... and ${issues.length - shown.length} more`);
  const head = denied
    ? `${tool} refused the call: it sends fields this tool withholds. Remove them and call again.`
    : `${tool} refused the call: the arguments do not match the tool's schema. Fix them and call again.`;
  throw new SluiceError(denied ? "EGRESS_DENIED" : "INVALID_ARGUMENTS", `${head}\n${lines.join("\n")}`, { tool, issues });
}

/**
 * The request a call would send for these arguments, without sending it and without
 * validating them: it is built from the screened copy, so whatever `args` holds,
 * nothing the tool withholds can be in it. Authentication is added when the tool needs it.
 */
export async function prepareRequest(tool: CallableTool, args: unknown, ctx: CallContext = {}): Promise<HttpRequest> {
  return buildRequest(tool, checkArguments(tool, args, ctx).allowed, ctx);
}

async function buildRequest(tool: CallableTool, screened: Record<string, unknown>, ctx: CallContext): Promise<HttpRequest> {
  const binding = tool.binding;
  let allowed = screened;
  if (binding.kind === "http") {
    const auth = await authFor(tool.name, tool.auth, ctx.credentials);
    allowed = await withCredentialParameters(tool, binding, allowed, ctx.credentials);
    const headers = { ...lowerCase(ctx.headers), ...auth.headers };
    const request = buildHttpRequest(binding, allowed, {
      ...(ctx.baseUrl === undefined ? {} : { baseUrl: ctx.baseUrl }),
      additions: { headers, query: auth.query ?? [], cookies: auth.cookies ?? [] },
    });
    request.headers["accept"] ??= "application/json";
    return request;
  }
  const endpoint = ctx.baseUrl ?? tool.endpoint;
  if (endpoint === undefined) {
    throw new SluiceError("INVALID_OPTION", `${tool.name}: no GraphQL endpoint; pass ctx.baseUrl or declare one in the pack runtime`, { tool: tool.name });
  }
  const variables: Record<string, unknown> = {};
  for (const name of Object.keys(binding.variables)) {
    if (Object.prototype.hasOwnProperty.call(allowed, name)) {
      Object.defineProperty(variables, name, { value: allowed[name], enumerable: true, writable: true, configurable: true });
    }
  }
  const auth = await authFor(tool.name, tool.auth, ctx.credentials);
  const request = buildHttpRequest(
    { kind: "http", method: "POST", path: "", server: endpoint, parameters: [], body: { mediaType: "application/json", encoding: "json", wholeBodyArg: "body", required: true } },
    { body: { query: binding.document, variables } },
    { additions: { headers: { ...lowerCase(ctx.headers), ...auth.headers }, query: auth.query ?? [], cookies: auth.cookies ?? [] } },
  );
  request.headers["accept"] = "application/json";
  return request;
}

/**
 * Fills parameters that carry a credential (Slack's `token`) from the credential of their
 * scheme. They are not arguments of the tool, so whatever the model sent for them was
 * screened out before this point.
 */
async function withCredentialParameters(tool: CallableTool, binding: HttpBinding, allowed: Record<string, unknown>, source: CredentialSource | undefined): Promise<Record<string, unknown>> {
  const carriers = binding.parameters.flatMap((p) => (p.credential === undefined ? [] : [{ arg: p.arg, scheme: p.credential, where: `the ${p.in} parameter ${p.name}`, required: p.required === true }]));
  for (const [arg, scheme] of Object.entries(binding.body?.credentialFields ?? {})) carriers.push({ arg, scheme, where: `the body field ${binding.body?.fields?.[arg] ?? arg}`, required: false });
  if (carriers.length === 0) return allowed;
  const out = { ...allowed };
  for (const parameter of carriers) {
    const name = parameter.scheme;
    const scheme = binding.auth?.flat().find((s) => s.scheme === name) ?? { scheme: name, type: "bearer" as const };
    const credential = source === undefined ? undefined : typeof source === "function" ? await source(scheme, tool.name) : Object.prototype.hasOwnProperty.call(source, name) ? source[name] : undefined;
    if (credential !== undefined && "token" in credential) {
      Object.defineProperty(out, parameter.arg, { value: credential.token, enumerable: true, writable: true, configurable: true });
    } else if (parameter.required) {
      throw new SluiceError("AUTH_MISSING", `${tool.name} needs a token for ${name} (sent as ${parameter.where}); give it in ctx.credentials`, { tool: tool.name });
    }
  }
  return out;
}

function lowerCase(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/**
 * Picks the first security requirement whose every scheme has a credential. An empty
 * requirement (no authentication) is used when no other can be met. Credentials are
 * never put into messages.
 */
async function authFor(tool: string, requirements: readonly (readonly HttpAuthScheme[])[] | undefined, source: CredentialSource | undefined) {
  if (requirements === undefined || requirements.length === 0) return {};
  const lookup = async (scheme: HttpAuthScheme): Promise<HttpCredential | undefined> => {
    if (source === undefined) return undefined;
    if (typeof source === "function") return source(scheme, tool);
    return Object.prototype.hasOwnProperty.call(source, scheme.scheme) ? source[scheme.scheme] : undefined;
  };
  let anonymous = false;
  for (const requirement of requirements) {
    if (requirement.length === 0) {
      anonymous = true;
      continue;
    }
    const credentials: Record<string, HttpCredential> = {};
    let complete = true;
    for (const scheme of requirement) {
      const credential = await lookup(scheme);
      if (credential === undefined || !fits(scheme, credential)) {
        complete = false;
        break;
      }
      credentials[scheme.scheme] = credential;
    }
    if (complete) return authAdditions(requirement, credentials);
  }
  if (anonymous) return {};
  const options = requirements.map((requirement) => requirement.map((scheme) => `${scheme.scheme} (${scheme.type})`).join(" + ")).join("; or ");
  throw new SluiceError("AUTH_MISSING", `${tool} needs credentials for ${options}; give them in ctx.credentials`, { tool });
}

function fits(scheme: HttpAuthScheme, credential: HttpCredential): boolean {
  return scheme.type === "basic" ? "username" in credential : "token" in credential;
}

/**
 * Answers nest far less than this (the deepest real payloads are a few dozen levels);
 * deeper ones would overflow the stack of any recursive handler, and of JSON.stringify.
 */
const MAX_RESPONSE_DEPTH = 512;

/** Whether a parsed JSON value nests deeper than `limit`, walked without recursion. */
function nestingExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}

/** Parses an answer: JSON when it says so (or says nothing), text for text, a size note for anything else. */
function parseBody(tool: CallableTool, raw: RawResponse, strict: boolean): unknown {
  if (raw.bytes.byteLength === 0) return null;
  const type = raw.headers["content-type"];
  const text = new TextDecoder("utf-8").decode(raw.bytes);
  const expectJson = type === undefined || isJsonMediaType(type) || tool.binding.kind === "graphql";
  if (expectJson) {
    try {
      const value: unknown = JSON.parse(text);
      if (nestingExceeds(value, MAX_RESPONSE_DEPTH)) {
        throw new SluiceError("RESPONSE_INVALID", `${tool.name}: the API's answer nests deeper than ${MAX_RESPONSE_DEPTH} levels; no handler or model can use it`, { tool: tool.name, status: raw.status });
      }
      return value;
    } catch (cause) {
      if (cause instanceof SluiceError) throw cause;
      if (!strict) return text;
      const start = text.slice(0, 80).replace(/\s+/g, " ");
      throw new SluiceError(
        "RESPONSE_INVALID",
        `${tool.name}: the API's answer is not valid JSON (cut off, or not JSON at all; ${raw.bytes.byteLength} bytes starting "${start}")`,
        { tool: tool.name, status: raw.status, cause },
      );
    }
  }
  if (/^text\/|xml|yaml|csv/i.test(type)) return text;
  return { contentType: type, bytes: raw.bytes.byteLength };
}

function statusError(tool: CallableTool, raw: RawResponse, body: unknown): SluiceError {
  const retryAfter = retryAfterSeconds(raw.headers["retry-after"]);
  const message = apiMessage(body);
  const details = { tool: tool.name, status: raw.status, ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }) };
  const wait = retryAfter === undefined ? "" : ` Retry after ${retryAfter} s.`;
  if (raw.status === 429) return new SluiceError("RATE_LIMITED", `${tool.name}: rate limited by the API (429).${wait}${message ? ` ${message}` : ""}`, details);
  const where = raw.status >= 300 && raw.status < 400 && raw.headers["location"] !== undefined ? ` (redirect not followed)` : "";
  return new SluiceError("HTTP_ERROR", `${tool.name}: the API answered ${raw.status}${where}${message ? `: ${message}` : ""}.${wait}`, details);
}

function failureError(tool: CallableTool, raw: RawResponse, failure: { message: string; apiCode?: string; rateLimited?: boolean }): SluiceError {
  const retryAfter = retryAfterSeconds(raw.headers["retry-after"]);
  const details = { tool: tool.name, status: raw.status, ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }) };
  const code = failure.apiCode === undefined ? "" : ` [${failure.apiCode}]`;
  return new SluiceError(failure.rateLimited || raw.status === 429 ? "RATE_LIMITED" : "API_ERROR", `${tool.name}: the API reported a failure${code}: ${failure.message}`, details);
}

/** Bytes of a value as the model gets it: compact JSON. */
export function contextBytesOf(output: unknown): number {
  const json = JSON.stringify(output);
  return json === undefined ? 0 : Buffer.byteLength(json, "utf8");
}

/** Validates, enforces egress, sends, checks the answer, runs the handler, records. */
export async function invoke(tool: CallableTool, args: unknown, ctx: CallContext = {}): Promise<CallResult> {
  const started = performance.now();
  const collectors = new Set<CallCollector>();
  if (ctx.collector !== undefined) collectors.add(ctx.collector);
  const scoped = currentCollector();
  if (scoped !== undefined) collectors.add(scoped);
  let payloadBytes = 0;
  let status: number | undefined;
  const record = (outcome: string, contextBytes: number) => {
    if (collectors.size === 0) return;
    const entry = {
      tool: tool.name,
      outcome,
      payloadBytes,
      contextBytes,
      savedBytes: payloadBytes - contextBytes,
      ratio: ratioOf(payloadBytes, contextBytes),
      durationMs: performance.now() - started,
      ...(status === undefined ? {} : { status }),
    };
    for (const collector of collectors) collector.record(entry);
  };

  try {
    const { allowed, issues } = argumentIssues(tool, args, ctx);
    if (issues.length > 0) refuse(tool.name, issues);

    const request = await buildRequest(tool, allowed, ctx);
    const raw = await send(request, {
      tool: tool.name,
      fetch: ctx.fetch ?? globalThis.fetch,
      timeoutMs: ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: ctx.signal,
      maxResponseBytes: ctx.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    });
    payloadBytes = raw.bytes.byteLength;
    status = raw.status;
    const ok = raw.status >= 200 && raw.status < 300;
    const body = parseBody(tool, raw, ok);
    const info: ResponseInfo = { tool: tool.name, status: raw.status, headers: raw.headers, args: allowed };
    if (tool.binding.kind === "graphql") {
      const failure = graphqlErrors(body, info);
      if (failure !== undefined) throw failureError(tool, raw, failure);
    }
    if (!ok) throw statusError(tool, raw, body);
    const failure = tool.failure?.(body, info);
    if (failure !== undefined) throw failureError(tool, raw, failure);

    let output: unknown = body;
    if (tool.responseHandler !== undefined) {
      try {
        output = await tool.responseHandler(body, info);
      } catch (cause) {
        throw new SluiceError("HANDLER_FAILED", `${tool.name}: the response handler failed (${(cause as Error).message}); the answer was not passed on`, { tool: tool.name, status: raw.status, cause });
      }
    }
    const contextBytes = contextBytesOf(output);
    record("ok", contextBytes);
    const result: CallResult = { output, body, status: raw.status, headers: raw.headers, payloadBytes, contextBytes, durationMs: performance.now() - started };
    if (tool.pagination !== undefined) {
      const next = nextPageArgs(tool.pagination, { body, headers: raw.headers }, withoutPins(allowed, tool.pins));
      if (next !== undefined) result.nextPageArgs = next;
    }
    return result;
  } catch (error) {
    const wrapped = error instanceof SluiceError ? error : new SluiceError("NETWORK_ERROR", `${tool.name}: the call failed (${(error as Error)?.message ?? String(error)})`, { tool: tool.name, cause: error });
    record(wrapped.code, Buffer.byteLength(wrapped.message, "utf8"));
    throw wrapped;
  }
}

function withoutPins(args: Record<string, unknown>, pins: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    if (!Object.prototype.hasOwnProperty.call(pins, key)) Object.defineProperty(out, key, { value: args[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}
