import { performance } from "node:perf_hooks";
import { getOwn, hasOwn, SluiceError, withinLimits, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import { guards } from "../guards.ts";
import { authAdditions, type HttpCredential } from "../http/auth.ts";
import { isJsonMediaType } from "../http/body.ts";
import { buildHttpRequest, type HttpRequest } from "../http/build-request.ts";
import { checkHeaderText } from "../http/style.ts";
import type { Binding, HttpAuthScheme, HttpBinding, WithheldPath } from "../tool-ir.ts";
import { currentCollector, ratioOf, type CallCollector } from "./collector.ts";
import { apiMessage, graphqlErrors } from "./failures.ts";
import { nextPageArgs } from "./pagination.ts";
import { withCredentialVariables } from "./credential-variables.ts";
import { CallSecrets } from "./redact.ts";
import { isOAuth2Credential } from "./oauth2.ts";
import { withheldPointers } from "./screen-arguments.ts";
import { callMcpUpstream, mcpArguments, mcpResultBody, resultText, withoutSecretBinaries } from "./mcp-call.ts";
import { retryAfterSeconds, send, type RawResponse } from "./transport.ts";
import { argumentIssues, checkArguments, NO_ISSUES, ownArgumentIssues, withoutPins, type CallableTool } from "./arguments.ts";
import { argumentRefusal } from "./call-error-text.ts";
import { enabledReformatters } from "../responses/reformat/reformat-choice.ts";
import { outputText, reformatText } from "../responses/reformat/reformat.ts";
import { modelContent } from "../responses/reformat/model-content.ts";
import type { ReformatStage } from "../responses/reformat/reformatter.ts";
import {
  DEFAULT_MAX_ARGUMENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type CallContext,
  type CredentialSource,
  type SchemeCredential,
  type ApiFailure,
  type FailureCheck,
  type McpContentBlock,
  type McpToolResult,
  type Pagination,
  type ResponseHandler,
  type ResponseInfo,
} from "./types.ts";

// The argument checks moved to arguments.ts; importers of call.ts keep finding them here.
export { argumentIssues, checkArguments, ownArgumentIssues, type CallableTool };


/**
 * Everything about one successful call. `output` is what the model sees. No credential
 * of the call is in `output` or `nextPageArgs`, in any spelling (docs/credentials.md);
 * `body` and `headers` are redacted the same way unless `ctx.revealCredentials` is true.
 */
export interface CallResult {
  output: unknown;
  /**
   * `output` as the text the model reads: compact JSON (a string as it is) after the tool's
   * lossless reformatters (docs/reformatters.md). Redacted like `output`.
   */
  text: string;
  /** What each enabled reformatter did on the way to `text` (or, for an MCP tool, to `content`). */
  reformat: readonly ReformatStage[];
  /**
   * MCP-bound tools: the content blocks the model reads (text blocks reformatted, every
   * other block as the upstream sent it, redacted), what `sluice serve` answers with.
   */
  content?: McpContentBlock[];
  /** The parsed body before the handler (redacted unless `ctx.revealCredentials`). */
  body: unknown;
  status: number;
  /** Response headers, lower-case names (redacted unless `ctx.revealCredentials`). */
  headers: Readonly<Record<string, string>>;
  payloadBytes: number;
  contextBytes: number;
  durationMs: number;
  /** Arguments for the next page, when the tool declares pagination and there is one. */
  nextPageArgs?: Record<string, unknown>;
  /**
   * MCP-bound tools: the upstream's result as it came (redacted unless
   * `ctx.revealCredentials`), for a proxy that passes content blocks on. `status` is 200
   * and `headers` empty for these calls: MCP has neither.
   */
  mcpResult?: McpToolResult;
}

/** Throws the call error for a list of issues: EGRESS_DENIED when anything withheld was sent, else INVALID_ARGUMENTS. */
export function refuse(tool: string, issues: readonly ArgumentIssue[]): never {
  throw argumentRefusal(tool, issues);
}

/**
 * The request a call would send for these arguments, without sending it: the arguments
 * are screened and validated exactly as `call` does (the same EGRESS_DENIED and
 * INVALID_ARGUMENTS), and the request is built from the screened copy, so nothing the
 * tool withholds can be in it. Authentication is added when the tool needs it.
 */
export async function prepareRequest(tool: CallableTool, args: unknown, ctx: CallContext = {}): Promise<HttpRequest> {
  const { allowed, issues } = withinLimits(`request() of ${tool.name}`, () => argumentIssues(tool, args, ctx));
  if (issues.length > 0) refuse(tool.name, issues);
  const secrets = new CallSecrets();
  const reveal = ctx.revealCredentials === true;
  if (reveal) return buildRequest(tool, allowed, secrets.watching(ctx));
  // A redacted preview needs no credential: an OAuth 2 client (which would have to ask its
  // token endpoint) and, when the given credentials meet no requirement, each missing one are
  // shown as the scheme's name in brackets (`Bearer [petstore_auth]`).
  let request: HttpRequest;
  try {
    request = await buildRequest(tool, allowed, secrets.watching(ctx, { placeholders: "oauth2" }));
  } catch (error) {
    if (!(error instanceof SluiceError) || error.code !== "AUTH_MISSING") throw error;
    request = await buildRequest(tool, allowed, secrets.watching(ctx, { placeholders: "all" }));
  }
  return secrets.redactRequest(request);
}

/**
 * The request builder's own check, behind screening: no key may sit where the tool
 * withholds it (by dotted path or `Type.key`), and no prototype key (`__proto__` anywhere,
 * undeclared `constructor` / `prototype`) may be sent. Screening already refused such arguments;
 * finding one here means screening let it through, so the call fails closed instead of
 * sending it.
 */
export function assertNothingWithheld(tool: Pick<CallableTool, "name" | "inputSchema" | "withheld" | "pins" | "definitionOrigins">, allowed: Record<string, unknown>): void {
  if (!guards.requestFilter) return;
  const withheld = new Map<string, string>();
  for (const entry of tool.withheld) if (entry.reason !== "pinned") withheld.set(entry.path, entry.reason);
  const found = withheldPointers(tool.inputSchema, withoutPins(allowed, tool.pins), withheld, tool.definitionOrigins, { prototypeKeys: true });
  if (found.length === 0) return;
  const issues = found.map((path) =>
    /\/(?:__proto__|constructor|prototype)$/.test(path) && !withheld.has(path.slice(1).split("/").join("."))
      ? { code: "prototype_key", path, message: "is a prototype key and cannot be sent; remove it" }
      : { code: "withheld", path, message: "is withheld from this tool and cannot be sent; remove it" },
  );
  throw new SluiceError("EGRESS_DENIED", `${tool.name} refused the call: it sends fields this tool withholds (${found.slice(0, 5).join(", ")}). Remove them and call again.`, { tool: tool.name, issues });
}

async function buildRequest(tool: CallableTool, screened: Record<string, unknown>, ctx: CallContext): Promise<HttpRequest> {
  assertNothingWithheld(tool, screened);
  const binding = tool.binding;
  let allowed = screened;
  if (binding.kind === "mcp") {
    // What request() shows of an MCP call: the tools/call params that would be sent.
    return { method: "POST", url: `mcp:tools/call`, headers: {}, body: JSON.stringify({ name: binding.tool, arguments: mcpArguments(binding, allowed) }) };
  }
  if (binding.kind === "http") {
    const auth = await authFor(tool.name, tool.auth, ctx.credentials);
    allowed = await withCredentialParameters(tool, binding, allowed, ctx.credentials);
    // Checked: ctx.headers join after the request is built and may not replace what it set.
    const checked = guards.headerOverride;
    const headers = checked ? { ...auth.headers } : { ...lowerCase(ctx.headers), ...auth.headers };
    const request = buildHttpRequest(binding, allowed, {
      ...(ctx.baseUrl === undefined ? {} : { baseUrl: ctx.baseUrl }),
      ...(tool.auth === undefined ? {} : { schemes: tool.auth }),
      ...withheldBodyMembers(tool, binding),
      ...(Object.keys(tool.pins).length === 0 ? {} : { pinnedArguments: Object.keys(tool.pins) }),
      additions: { headers, query: auth.query ?? [], cookies: auth.cookies ?? [] },
    });
    if (checked) addContextHeaders(tool, request, ctx.headers, auth);
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
  const filled = await withCredentialVariables(tool, binding, variables, ctx.credentials);
  const checked = guards.headerOverride;
  const request = buildHttpRequest(
    { kind: "http", method: "POST", path: "", server: endpoint, parameters: [], body: { mediaType: "application/json", encoding: "json", wholeBodyArg: "body", required: true } },
    { body: { query: binding.document, variables: filled } },
    { additions: { headers: checked ? { ...auth.headers } : { ...lowerCase(ctx.headers), ...auth.headers }, query: auth.query ?? [], cookies: auth.cookies ?? [] } },
  );
  request.headers["accept"] = "application/json";
  if (checked) addContextHeaders(tool, request, ctx.headers, auth);
  return request;
}

/** The top-level members of a body sent whole that the tool withholds, for the builder's own wire-name check. */
function withheldBodyMembers(tool: CallableTool, binding: HttpBinding): { withheldBodyMembers?: string[]; withheldArguments?: string[] } {
  const whole = binding.body?.wholeBodyArg;
  if (whole === undefined) return withheldBodyFields(tool, binding);
  const prefix = `${whole}.`;
  const members = tool.withheld.filter((w) => w.path.startsWith(prefix) && !w.path.slice(prefix.length).includes(".")).map((w) => w.path.slice(prefix.length));
  return members.length === 0 ? {} : { withheldBodyMembers: members };
}

/** Withheld top-level arguments of a tool with a flattened body: those that are body fields keep their names reserved on the wire (see withheldBodyNames). */
function withheldBodyFields(tool: CallableTool, binding: HttpBinding): { withheldArguments?: string[] } {
  if (binding.body?.fields === undefined) return {};
  const args = tool.withheld.map((w) => w.path).filter((path) => !path.includes("."));
  return args.length === 0 ? {} : { withheldArguments: args };
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
    const credential = plain(source === undefined ? undefined : typeof source === "function" ? await source(scheme, tool.name) : Object.prototype.hasOwnProperty.call(source, name) ? source[name] : undefined);
    if (credential !== undefined && "token" in credential) {
      Object.defineProperty(out, parameter.arg, { value: credential.token, enumerable: true, writable: true, configurable: true });
    } else if (parameter.required) {
      throw new SluiceError("AUTH_MISSING", `${tool.name} needs a token for ${name} (sent as ${parameter.where}); give it in ctx.credentials`, { tool: tool.name, schemes: [name] });
    }
  }
  return out;
}

type AuthAdditions = { headers?: Readonly<Record<string, string>> | undefined; cookies?: readonly (readonly [string, string])[] | undefined };

/**
 * Adds `ctx.headers` to a built request. A header the request already carries, or one
 * the binding declares (a header parameter, pinned or not; the body's content type; a
 * cookie parameter), is the binding's to set: replacing it would bypass a pin or the
 * authentication, so it is refused before anything is sent. Names compare case-insensitively.
 */
function addContextHeaders(tool: CallableTool, request: HttpRequest, given: Readonly<Record<string, string>> | undefined, auth: AuthAdditions): void {
  const fromContext = new Set<string>();
  for (const [name, value] of Object.entries(given ?? {})) {
    const lower = name.toLowerCase();
    if (!fromContext.has(lower)) {
      const owner = headerOwner(tool, lower, auth) ?? (hasOwn(request.headers, lower) ? "the request itself" : undefined);
      if (owner !== undefined) {
        throw new SluiceError("HEADER_OVERRIDE", `${tool.name}: "${name}" in ctx.headers would replace the header set by ${owner}; ctx.headers cannot override it. Remove "${name}" from ctx.headers.`, {
          tool: tool.name,
        });
      }
    }
    fromContext.add(lower);
    request.headers[lower] = checkHeaderText(name, value);
  }
}

/** What in the binding or the authentication sets a header (lower-case name), said for a person; undefined when nothing does. */
function headerOwner(tool: CallableTool, lower: string, auth: AuthAdditions): string | undefined {
  const binding = tool.binding;
  if (auth.headers !== undefined && hasOwn(auth.headers, lower)) return "authentication";
  if (lower === "cookie" && (auth.cookies?.length ?? 0) > 0) return "authentication (a cookie)";
  if (binding.kind === "graphql") return lower === "content-type" || lower === "accept" ? "the GraphQL runtime" : undefined;
  if (binding.kind === "mcp") return undefined;
  const parameter = binding.parameters.find((p) => (p.in === "header" && p.name.toLowerCase() === lower) || (p.in === "cookie" && lower === "cookie"));
  if (parameter !== undefined) {
    const how = hasOwn(tool.pins, parameter.arg) ? `pinned to ${JSON.stringify(tool.pins[parameter.arg])}` : `argument ${parameter.arg}; to fix its value, pin it with derived()`;
    return `the ${parameter.in} parameter "${parameter.name}" (${how})`;
  }
  if (lower === "content-type" && binding.body !== undefined) return "the request body (its content type)";
  return undefined;
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
    if (typeof source === "function") return plain(await source(scheme, tool));
    return plain(Object.prototype.hasOwnProperty.call(source, scheme.scheme) ? source[scheme.scheme] : undefined);
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
  const schemes = [...new Set(requirements.flat().map((scheme) => scheme.scheme))];
  throw new SluiceError("AUTH_MISSING", `${tool} needs credentials for ${options}; give them in ctx.credentials`, { tool, schemes });
}

/**
 * A credential as the request carries it. The call runtime builds requests only through
 * `CallSecrets.watching`, which has already turned an OAuth 2 client into its current
 * access token; one reaching here would be a bug, so it fails closed.
 */
function plain(credential: SchemeCredential | undefined): HttpCredential | undefined {
  if (isOAuth2Credential(credential)) throw new SluiceError("INVALID_OPTION", "an OAuth 2 credential reached the request builder unresolved");
  return credential;
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

/**
 * The answer as the model sees it: the response handler's output (HANDLER_FAILED if it
 * throws), redacted whoever produced it (an echoing API, a handler), and its byte count.
 * Without a handler the output is the parsed body itself: one redaction walk serves both.
 */
async function present(tool: CallableTool, body: unknown, info: ResponseInfo, secrets: CallSecrets): Promise<{ output: unknown; redactedBody: unknown; contextBytes: number }> {
  let output: unknown = body;
  if (tool.responseHandler !== undefined) {
    try {
      output = await tool.responseHandler(body, info);
    } catch (cause) {
      throw new SluiceError("HANDLER_FAILED", `${tool.name}: the response handler failed (${(cause as Error).message}); the answer was not passed on`, { tool: tool.name, status: info.status, cause });
    }
  }
  const redactedBody = secrets.redactJson(body);
  const shown = output === body ? { output: redactedBody, json: undefined } : secrets.redactOutput(output);
  const contextBytes = shown.json === undefined ? contextBytesOf(shown.output) : Buffer.byteLength(shown.json, "utf8");
  return { output: shown.output, redactedBody, contextBytes };
}

/** Parses an answer: JSON when it says so (or says nothing), text for text, a size note for anything else. */
function parseBody(tool: CallableTool, raw: RawResponse, strict: boolean, secrets: CallSecrets): unknown {
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
      // Redacted before it is cut to 80 characters, so no part of a credential survives the cut.
      const start = secrets.redact(text.slice(0, 80 + secrets.longest)).slice(0, 80).replace(/\s+/g, " ");
      // The parser's own message quotes a piece of the answer, possibly a cut-off credential: left out once the call used one.
      throw new SluiceError(
        "RESPONSE_INVALID",
        `${tool.name}: the API's answer is not valid JSON (cut off, or not JSON at all; ${raw.bytes.byteLength} bytes starting "${start}")`,
        { tool: tool.name, status: raw.status, ...(secrets.size === 0 ? { cause } : {}) },
      );
    }
  }
  if (/^text\/|xml|yaml|csv/i.test(type)) return text;
  return { contentType: type, bytes: raw.bytes.byteLength };
}

function statusError(tool: CallableTool, raw: RawResponse, body: unknown, secrets: CallSecrets): SluiceError {
  const retryAfter = retryAfterSeconds(raw.headers["retry-after"]);
  // Read from a redacted copy: the message is cut to 500 characters, which could halve a credential.
  const message = apiMessage(secrets.redactJson(body));
  const details = { tool: tool.name, status: raw.status, ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }) };
  const wait = retryAfter === undefined ? "" : ` Retry after ${retryAfter} s.`;
  if (raw.status === 429) return new SluiceError("RATE_LIMITED", `${tool.name}: rate limited by the API (429).${wait}${message ? ` ${message}` : ""}`, details);
  const where = raw.status >= 300 && raw.status < 400 && raw.headers["location"] !== undefined ? ` (redirect not followed)` : "";
  return new SluiceError("HTTP_ERROR", `${tool.name}: the API answered ${raw.status}${where}${message ? `: ${message}` : ""}.${wait}`, details);
}

/**
 * The error for a failure a check found in an answer. The check is run again on a
 * redacted copy of the body for the texts (a check may cut messages short, which could
 * halve a credential); the first verdict stands when the copy reads differently.
 */
function failureError(tool: CallableTool, raw: RawResponse, check: FailureCheck, body: unknown, info: ResponseInfo, found: ApiFailure, secrets: CallSecrets): SluiceError {
  let failure = found;
  if (secrets.size > 0) {
    let again: ApiFailure | undefined;
    try {
      again = check(secrets.redactJson(body), info);
    } catch {
      again = undefined;
    }
    failure = again ?? { ...found, message: secrets.redact(found.message) };
  }
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
  const secrets = new CallSecrets();
  const record = (outcome: string, contextBytes: number, reformat?: readonly ReformatStage[]) => {
    if (collectors.size === 0) return;
    const entry = {
      ...(reformat === undefined || reformat.length === 0 ? {} : { reformat }),
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
    const { allowed, issues } = withinLimits(`call() of ${tool.name}`, () => argumentIssues(tool, args, ctx));
    if (issues.length > 0) refuse(tool.name, issues);

    if (tool.binding.kind === "mcp") {
      assertNothingWithheld(tool, allowed);
      // The upstream's own secrets (its API key): recorded before the call and again after it
      // (an upstream reads them when it first connects), so the answer, an error from any
      // layer and every progress message are redacted of them like a credential of this call.
      const upstreamSecrets = () => {
        for (const value of ctx.mcp?.secrets?.() ?? []) secrets.addUpstreamSecret(value);
      };
      upstreamSecrets();
      const onProgress = ctx.onProgress;
      const forward: CallContext =
        onProgress === undefined
          ? ctx
          : { ...ctx, onProgress: (progress) => onProgress(progress.message === undefined ? progress : { ...progress, message: secrets.redact(progress.message) }) };
      let result: McpToolResult;
      try {
        result = await callMcpUpstream(tool.name, tool.binding, mcpArguments(tool.binding, allowed), forward, ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      } finally {
        upstreamSecrets();
      }
      result = withoutSecretBinaries(result, secrets);
      payloadBytes = contextBytesOf(result);
      status = 200;
      if (result.isError === true) {
        const text = secrets.redact(resultText(result)).slice(0, 500);
        throw new SluiceError("MCP_TOOL_ERROR", `${tool.name}: the tool reported an error${text === "" ? "" : `: ${text}`}`, { tool: tool.name });
      }
      // A handler reads text and structured content only; without one, an answer with neither
      // (an image alone) is its blocks as sent, for code that calls the tool (a server passes blocks anyway).
      const read = mcpResultBody(result);
      const body = read === null && tool.responseHandler === undefined && result.content.length > 0 ? result.content : read;
      const info: ResponseInfo = { tool: tool.name, status: 200, headers: {}, args: allowed };
      const failure = tool.failure?.(body, info);
      if (failure !== undefined) throw new SluiceError("API_ERROR", `${tool.name}: the tool reported a failure${failure.apiCode === undefined ? "" : ` [${failure.apiCode}]`}: ${failure.message}`, { tool: tool.name });
      const { output, redactedBody, contextBytes } = await present(tool, body, info, secrets);
      // After the handler and after redaction: reformatters only ever see what the model may see.
      const enabled = enabledReformatters(tool.reformatters);
      const redactedResult = secrets.redactJson(result) as McpToolResult;
      const counted = { tokens: collectors.size > 0 || ctx.reformatTokens === true };
      const shown = modelContent(redactedResult, output, tool.responseHandler !== undefined, enabled, counted);
      const text = reformatText(outputText(output), enabled, { tokens: false });
      record("ok", contextBytes, shown.stages);
      const reveal = ctx.revealCredentials === true;
      const mcpResult: CallResult = {
        output,
        text: text.text,
        reformat: shown.stages,
        content: shown.content,
        body: reveal ? body : redactedBody,
        status: 200,
        headers: {},
        payloadBytes,
        contextBytes,
        durationMs: performance.now() - started,
        mcpResult: reveal ? result : redactedResult,
      };
      return withNextPage(tool, mcpResult, body, {}, allowed, secrets);
    }
    const exchange = async () =>
      send(await buildRequest(tool, allowed, secrets.watching(ctx)), {
        tool: tool.name,
        fetch: ctx.fetch ?? globalThis.fetch,
        timeoutMs: ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        signal: ctx.signal,
        maxResponseBytes: ctx.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      });
    let raw = await exchange();
    if (raw.status === 401 && secrets.oauthTokens.size > 0) {
      // The API refused an OAuth 2 access token (revoked, or expired early): one fresh token
      // and one retry. The refused tokens stay recorded, so their echoes are redacted too.
      for (const [client, token] of secrets.oauthTokens) client.invalidate(token);
      secrets.oauthTokens.clear();
      raw = await exchange();
    }
    payloadBytes = raw.bytes.byteLength;
    status = raw.status;
    const ok = raw.status >= 200 && raw.status < 300;
    const body = parseBody(tool, raw, ok, secrets);
    const info: ResponseInfo = { tool: tool.name, status: raw.status, headers: raw.headers, args: allowed };
    if (tool.binding.kind === "graphql") {
      const failure = graphqlErrors(body, info);
      if (failure !== undefined) throw failureError(tool, raw, graphqlErrors, body, info, failure, secrets);
    }
    if (!ok) throw statusError(tool, raw, body, secrets);
    const failure = tool.failure?.(body, info);
    if (failure !== undefined) throw failureError(tool, raw, tool.failure!, body, info, failure, secrets);

    // The raw body and headers follow request(): redacted unless the caller asks to see credentials.
    const { output, redactedBody, contextBytes } = await present(tool, body, info, secrets);
    // After the handler and after redaction: reformatters only ever see what the model may see.
    const shown = reformatText(outputText(output), enabledReformatters(tool.reformatters), { tokens: collectors.size > 0 || ctx.reformatTokens === true });
    record("ok", contextBytes, shown.stages);
    const reveal = ctx.revealCredentials === true;
    const result: CallResult = {
      output,
      text: shown.text,
      reformat: shown.stages,
      body: reveal ? body : redactedBody,
      status: raw.status,
      headers: reveal ? raw.headers : secrets.redactHeaders(raw.headers),
      payloadBytes,
      contextBytes,
      durationMs: performance.now() - started,
    };
    return withNextPage(tool, result, body, raw.headers, allowed, secrets);
  } catch (error) {
    const thrown = error instanceof SluiceError ? error : new SluiceError("NETWORK_ERROR", `${tool.name}: the call failed (${(error as Error)?.message ?? String(error)})`, { tool: tool.name, cause: error });
    // Whatever the error says (an API's echo, a URL, a custom fetch's message, its causes), no credential of this call is in it.
    const wrapped = secrets.redactError(thrown);
    record(wrapped.code, Buffer.byteLength(wrapped.message, "utf8"));
    throw wrapped;
  }
}

/**
 * Sets `result.nextPageArgs` when the tool declares pagination and the answer has a next
 * page; the same for HTTP and MCP answers, which differ only in having headers (an MCP
 * answer has none, so `Link` paging never fires there). A pinned marker cannot move, so
 * such a tool offers no next page. The next page is worked out from what was sent, pins
 * included (a pinned page size is the size asked for, which the short-page rules compare
 * with), and offered without the pins: the model never sends them.
 */
function withNextPage(tool: CallableTool, result: CallResult, body: unknown, headers: Readonly<Record<string, string>>, allowed: Record<string, unknown>, secrets: CallSecrets): CallResult {
  if (tool.pagination === undefined || hasOwn(tool.pins, tool.pagination.arg)) return result;
  const next = nextPageArgs(tool.pagination, { body, headers }, allowed);
  // Offered to the model, so redacted too (a next-page URL may carry the key).
  if (next !== undefined) result.nextPageArgs = secrets.redactJson(markerAsDeclared(withoutPins(next, tool.pins), tool.pagination.arg, tool.inputSchema)) as Record<string, unknown>;
  return result;
}

/**
 * A marker read from a URL's query comes back as a number when it is written as one; an
 * argument declared as text (a page token made of digits) gets it back as text, as the
 * next call's validation expects.
 */
function markerAsDeclared(args: Record<string, unknown>, arg: string, schema: JsonSchemaObject): Record<string, unknown> {
  const marker = args[arg];
  if (typeof marker !== "number") return args;
  const declared = getOwn(getOwn(schema, "properties"), arg);
  const type = getOwn(declared, "type");
  const types = Array.isArray(type) ? type : [type];
  if (!types.includes("string") || types.includes("integer") || types.includes("number")) return args;
  Object.defineProperty(args, arg, { value: String(marker), enumerable: true, writable: true, configurable: true });
  return args;
}

