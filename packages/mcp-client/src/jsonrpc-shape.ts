/**
 * The common JSON-RPC 2.0 shapes an MCP stream carries (a request or notification whose
 * params are an object, a result that is an object), checked by hand: true only for values
 * the MCP SDK's `JSONRPCMessageSchema` accepts unchanged (its objects are strict at the top
 * and loose below). No imports, so that `sluice serve` can use it without loading this
 * package's copy of the SDK (built against another zod); jsonrpc-message.ts gives the rest
 * to the schema.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic#messages
 */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);
const RESULT_KEYS = new Set(["jsonrpc", "id", "result"]);
/** The one `_meta` member the SDK's schema reads as an object of its own (and strips unknown members of). */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** True only for values the SDK's schema accepts unchanged: a request, a notification, or a result response. */
export function isCommonJsonRpcMessage(value: unknown): boolean {
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") return false;
  const hasId = Object.hasOwn(value, "id");
  if (hasId && !isRequestId(value["id"])) return false;
  if (typeof value["method"] === "string") {
    if (!onlyKeys(value, hasId ? REQUEST_KEYS : NOTIFICATION_KEYS)) return false;
    return !Object.hasOwn(value, "params") || looseWithMeta(value["params"]);
  }
  if (hasId && Object.hasOwn(value, "result")) return onlyKeys(value, RESULT_KEYS) && looseWithMeta(value["result"]);
  return false;
}

/** A loose object whose optional `_meta` holds nothing the schema would rewrite or refuse. */
function looseWithMeta(value: unknown): boolean {
  if (!isRecord(value) || Object.hasOwn(value, "__proto__")) return false;
  if (!Object.hasOwn(value, "_meta")) return true;
  const meta = value["_meta"];
  if (!isRecord(meta) || Object.hasOwn(meta, "__proto__") || Object.hasOwn(meta, RELATED_TASK)) return false;
  return !Object.hasOwn(meta, "progressToken") || isRequestId(meta["progressToken"]);
}

function isRequestId(value: unknown): boolean {
  return typeof value === "string" || Number.isSafeInteger(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return !Object.hasOwn(value, "__proto__");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
