import { SluiceError } from "@sluice/schema";
import type { McpBinding } from "../tool-ir.ts";
import type { CallSecrets } from "./redact.ts";
import type { CallContext, McpContentBlock, McpToolResult } from "./types.ts";

/**
 * The arguments an MCP-bound tool forwards: the screened arguments (pins included) cut down
 * to the binding's argument names. Screening already refused anything else; this is the
 * request filter behind it, as the HTTP request builder copies only what its binding names.
 */
export function mcpArguments(binding: McpBinding, allowed: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of binding.arguments) {
    if (Object.prototype.hasOwnProperty.call(allowed, arg)) Object.defineProperty(out, arg, { value: allowed[arg], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * One `tools/call` on the upstream under one deadline. The wait ends at the deadline or on
 * cancellation even when the upstream ignores the signal, so a hung server is a TIMEOUT,
 * never a hang.
 */
export async function callMcpUpstream(toolName: string, binding: McpBinding, args: Record<string, unknown>, ctx: CallContext, timeoutMs: number): Promise<McpToolResult> {
  const upstream = ctx.mcp;
  if (upstream === undefined) {
    throw new SluiceError("MCP_UPSTREAM_MISSING", `${toolName} forwards to an MCP server (tool ${JSON.stringify(binding.tool)}), but the call context has none; pass ctx.mcp (a connected client), or serve the pack with \`sluice serve\`, which starts the upstream`, { tool: toolName });
  }
  // One controller for both ends of the wait, the deadline and the caller's cancellation:
  // AbortSignal.any costs more than the rest of this function on Node 20 (weak references,
  // a signal that outlives the call), and it ran on every forwarded call.
  const deadline = new AbortController();
  const caller = ctx.signal;
  let cancelled = false;
  const onCancel = () => {
    if (deadline.signal.aborted) return; // the deadline came first: a TIMEOUT stays one
    cancelled = true;
    deadline.abort(caller?.reason);
  };
  const timer = setTimeout(() => deadline.abort(new SluiceError("TIMEOUT", `${toolName}: the MCP server did not answer within ${timeoutMs} ms`, { tool: toolName })), timeoutMs);
  const signal = deadline.signal;
  const stopped = (cause?: unknown): SluiceError =>
    signal.aborted && !cancelled ? (signal.reason as SluiceError) : new SluiceError("ABORTED", `${toolName}: the call was cancelled`, { tool: toolName, cause });
  let onAbort: (() => void) | undefined;
  try {
    if (caller?.aborted === true) onCancel();
    else caller?.addEventListener("abort", onCancel, { once: true });
    if (signal.aborted) throw stopped();
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(stopped());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    const options: { signal: AbortSignal; onProgress?: CallContext["onProgress"] & {} } = { signal };
    if (ctx.onProgress !== undefined) options.onProgress = ctx.onProgress;
    const call = upstream.callTool({ name: binding.tool, arguments: args }, options);
    // The losing promise must not become an unhandled rejection.
    call.catch(() => undefined);
    let result: unknown;
    try {
      result = await Promise.race([call, aborted]);
    } catch (cause) {
      if (signal.aborted) throw stopped(cause);
      if (cause instanceof SluiceError) throw cause;
      throw new SluiceError("MCP_UPSTREAM_ERROR", `${toolName}: the MCP server failed the call (${(cause as Error)?.message ?? String(cause)})`, { tool: toolName, cause });
    }
    return checkedResult(toolName, result);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCancel);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}

function checkedResult(toolName: string, result: unknown): McpToolResult {
  const record = typeof result === "object" && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : undefined;
  const content = record?.["content"];
  const structured = record?.["structuredContent"];
  if (record === undefined || !Array.isArray(content) || !content.every((block) => typeof block === "object" && block !== null && typeof (block as { type?: unknown }).type === "string")) {
    throw new SluiceError("RESPONSE_INVALID", `${toolName}: the MCP server's answer is not a tools/call result (content must be a list of typed blocks)`, { tool: toolName });
  }
  if (structured !== undefined && (typeof structured !== "object" || structured === null || Array.isArray(structured))) {
    throw new SluiceError("RESPONSE_INVALID", `${toolName}: the MCP server's structuredContent is not a JSON object`, { tool: toolName });
  }
  return record as McpToolResult;
}

/** The text of a result's text blocks, for messages. */
export function resultText(result: McpToolResult): string {
  return result.content.flatMap((block) => (block.type === "text" && typeof block["text"] === "string" ? [block["text"]] : [])).join("\n");
}

/**
 * What a response handler reads of an MCP result, as it reads a parsed HTTP body: the
 * structured content when there is some; else a lone text block's JSON (many servers send
 * JSON as text), or its text; else several text blocks as a list of those; null when there
 * is no text at all. Other blocks (images, audio, resource links, embedded resources) are
 * never a handler's to read: they pass to the client as the server sent them, so no handler
 * can turn a binary into text.
 */
export function mcpResultBody(result: McpToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const texts = result.content.filter((block) => block.type === "text" && typeof block["text"] === "string");
  if (texts.length === 0) return null;
  const values = texts.map((block) => jsonOrText(block["text"] as string));
  return values.length === 1 ? values[0] : values;
}

function jsonOrText(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{"]/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

/** Where a content block carries base64 bytes: redacting inside them would break the encoding. */
function binaryOf(block: McpContentBlock): string | undefined {
  if ((block.type === "image" || block.type === "audio") && typeof block["data"] === "string") return block["data"];
  const resource = block.type === "resource" ? block["resource"] : undefined;
  if (typeof resource === "object" && resource !== null && typeof (resource as Record<string, unknown>)["blob"] === "string") return (resource as Record<string, unknown>)["blob"] as string;
  return undefined;
}

/**
 * A result whose binary blocks (image, audio, embedded blob) hold a recorded secret, found
 * in the base64 text (the secret's own base64 at each alignment, see credential-pattern.ts),
 * has each such block replaced by a text block saying so; the result itself when none does.
 * A secret cannot be cut out of base64 without breaking the bytes, so the block goes whole;
 * texts are redacted afterwards by the JSON walk.
 */
export function withoutSecretBinaries(result: McpToolResult, secrets: CallSecrets): McpToolResult {
  if (secrets.size === 0) return result;
  let changed = false;
  const content = result.content.map((block): McpContentBlock => {
    const bytes = binaryOf(block);
    if (bytes === undefined || !secrets.mentions(bytes)) return block;
    changed = true;
    const mime = block.type === "resource" ? (block["resource"] as Record<string, unknown>)["mimeType"] : block["mimeType"];
    return { type: "text", text: `[redacted: the upstream's ${block.type} block${typeof mime === "string" ? ` (${mime.slice(0, 80)})` : ""} held a secret it was given; it was left out]` };
  });
  return changed ? { ...result, content } : result;
}
