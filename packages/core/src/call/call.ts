import { performance } from "node:perf_hooks";
import { getOwn, hasOwn, SluiceError, withinLimits, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import type { HttpRequest } from "../http/build-request.ts";
import { currentCollector, ratioOf, type CallCollector } from "./collector.ts";
import { graphqlErrors } from "./failures.ts";
import { nextPageArgs } from "./pagination.ts";
import { CallSecrets } from "./redact.ts";
import { callMcpUpstream, mcpArguments, mcpResultBody, resultText, withoutSecretBinaries } from "./mcp-call.ts";
import { send } from "./transport.ts";
import { argumentIssues, checkArguments, ownArgumentIssues, withoutPins, type CallableTool } from "./arguments.ts";
import { argumentRefusal } from "./call-error-text.ts";
import { assertNothingWithheld, buildRequest } from "./build-request.ts";
import { contextBytesOf, failureError, parseBody, present, statusError } from "./read-answer.ts";
import { enabledReformatters } from "../responses/reformat/reformat-choice.ts";
import { outputText, reformatText } from "../responses/reformat/reformat.ts";
import { modelContent } from "../responses/reformat/model-content.ts";
import type { ReformatStage } from "../responses/reformat/reformatter.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, type CallContext, type McpContentBlock, type McpToolResult, type ResponseInfo } from "./types.ts";

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

