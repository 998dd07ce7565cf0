import { SluiceError } from "@sluice/schema";
import { isJsonMediaType } from "../http/body.ts";
import { apiMessage } from "./failures.ts";
import type { CallSecrets } from "./redact.ts";
import { retryAfterSeconds, type RawResponse } from "./transport.ts";
import type { CallableTool } from "./arguments.ts";
import type { ApiFailure, FailureCheck, ResponseInfo } from "./types.ts";

/** Reading an API's answer: the parsed body, the error for a refused or failed call, and the output the model sees. */

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
export async function present(tool: CallableTool, body: unknown, info: ResponseInfo, secrets: CallSecrets): Promise<{ output: unknown; redactedBody: unknown; contextBytes: number }> {
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
export function parseBody(tool: CallableTool, raw: RawResponse, strict: boolean, secrets: CallSecrets): unknown {
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

export function statusError(tool: CallableTool, raw: RawResponse, body: unknown, secrets: CallSecrets): SluiceError {
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
export function failureError(tool: CallableTool, raw: RawResponse, check: FailureCheck, body: unknown, info: ResponseInfo, found: ApiFailure, secrets: CallSecrets): SluiceError {
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
