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
import { isCommonJsonRpcMessage } from "./jsonrpc-shape.ts";

export type JsonRpcParse = { success: true; data: JSONRPCMessage } | { success: false };

/** A parsed JSON value checked as a JSON-RPC message; the SDK's schema decides whatever the fast path does not. */
export function parseJsonRpcMessage(value: unknown): JsonRpcParse {
  if (isCommonJsonRpcMessage(value)) return { success: true, data: value as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data } : { success: false };
}

/** `JSON.parse(line)` then {@link parseJsonRpcMessage}; throws as the SDK's `deserializeMessage` does. */
export function deserializeJsonRpc(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (isCommonJsonRpcMessage(value)) return value as JSONRPCMessage;
  return JSONRPCMessageSchema.parse(value);
}
