import { SluiceError } from "@sluice/schema";
import type { HttpRequest } from "../http/build-request.ts";

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, ` as `Headers` does. */
  headers: Record<string, string>;
  /** The body as read (fetch has already undone any content encoding). */
  bytes: Uint8Array;
}

export interface SendOptions {
  tool: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  maxResponseBytes: number;
}

/**
 * Sends one request and reads the whole answer under one deadline (headers and body),
 * so a server that never answers, or stops halfway through a body, becomes a TIMEOUT
 * instead of a hang. Bodies larger than the cap are abandoned, not buffered.
 */
export async function send(request: HttpRequest, options: SendOptions): Promise<RawResponse> {
  // Without this, fetch fails with ERR_INVALID_URL, which says nothing about the fix.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(request.url)) throw noBaseUrl(request, options.tool);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new SluiceError("TIMEOUT", `${options.tool}: no complete answer within ${options.timeoutMs} ms`, { tool: options.tool })), options.timeoutMs);
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
  const failure = (cause: unknown): SluiceError => {
    if (deadline.signal.aborted) return deadline.signal.reason as SluiceError;
    if (options.signal?.aborted) return new SluiceError("ABORTED", `${options.tool}: the call was cancelled`, { tool: options.tool, cause });
    if (cause instanceof SluiceError) return cause;
    const reason = (cause as { cause?: { code?: string } }).cause?.code ?? (cause as Error).message;
    return new SluiceError("NETWORK_ERROR", `${options.tool}: the request could not be completed (${reason})`, { tool: options.tool, cause });
  };
  try {
    let response: Response;
    try {
      const init: RequestInit = { method: request.method, headers: request.headers, signal, redirect: "manual" };
      if (request.body !== undefined) init.body = request.body;
      response = await options.fetch(request.url, init);
    } catch (cause) {
      throw failure(cause);
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const declared = Number(headers["content-length"]);
    if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(options, response.status);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (response.body !== null) {
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          total += value.byteLength;
          if (total > options.maxResponseBytes) {
            await reader.cancel().catch(() => undefined);
            throw tooLarge(options, response.status);
          }
          chunks.push(value);
        }
      } catch (cause) {
        throw failure(cause);
      }
    }
    return { status: response.status, headers, bytes: concat(chunks, total) };
  } finally {
    clearTimeout(timer);
  }
}

function tooLarge(options: SendOptions, status: number): SluiceError {
  return new SluiceError("RESPONSE_TOO_LARGE", `${options.tool}: the answer is larger than ${options.maxResponseBytes} bytes and was not read; ask for fewer items`, {
    tool: options.tool,
    status,
  });
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** `retry-after` as seconds: delta-seconds or an HTTP date (relative to `now`). */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The spec names no server (Kubernetes), or a relative one (`/api/v3`), and nothing set one. The query is left out: it may hold an API key. */
function noBaseUrl(request: HttpRequest, tool: string): SluiceError {
  return new SluiceError(
    "NO_BASE_URL",
    `${tool}: no base URL for ${request.method} ${request.url.split("?")[0]}: the spec names no absolute server URL. Set one with baseUrl in the pack's sluice.config entry (then regenerate), ctx.baseUrl on a call, or sluice serve --base-url URL (or SLUICE_BASE_URL).`,
    { tool },
  );
}
