/**
 * Reading one JSON-RPC 2.0 message as the MCP SDK's `JSONRPCMessageSchema` reads it, faster.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic#messages
 *
 * The SDK checks every message of a stdio stream with that zod union (four strict object
 * schemas); on a proxy that is four checks per forwarded call, a good part of what the
 * proxy adds to a round trip. The common shapes (a request or notification whose params are
 * an object, a result that is an object) are checked here by hand, accepting exactly what
 * the schema accepts and returning what it returns (the same members: its objects there are
 * strict at the top and loose below); everything else, errors included, goes to the schema.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export type JsonRpcParse = { success: true; data: JSONRPCMessage } | { success: false };

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);
const RESULT_KEYS = new Set(["jsonrpc", "id", "result"]);
/** The one `_meta` member the SDK's schema reads as an object of its own (and strips unknown members of). */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** A parsed JSON value checked as a JSON-RPC message; the SDK's schema decides whatever the fast path does not. */
export function parseJsonRpcMessage(value: unknown): JsonRpcParse {
  if (fastShape(value)) return { success: true, data: value as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data } : { success: false };
}

/** `JSON.parse(line)` then {@link parseJsonRpcMessage}; throws as the SDK's `deserializeMessage` does. */
export function deserializeJsonRpc(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (fastShape(value)) return value as JSONRPCMessage;
  return JSONRPCMessageSchema.parse(value);
}

/** True only for values the SDK's schema accepts unchanged: a request, a notification, or a result response. */
function fastShape(value: unknown): boolean {
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
