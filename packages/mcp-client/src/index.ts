export { makeSnapshot, formatSnapshot, parseSnapshot, readSnapshot, writeSnapshot, escapePointer, SNAPSHOT_FILE, SNAPSHOT_FORMAT, type McpSnapshot, type McpSnapshotTool } from "./snapshot.ts";
export { diffSnapshot, diffBlocks, formatSnapshotDiff, type SnapshotDiff, type ToolChange, type TextChange } from "./diff-snapshot.ts";
export { connectMcp, listMcpTools, listConnected, listToolPages, upstreamOf, type ListingClient, resolveSecrets, DEFAULT_LIST_TIMEOUT_MS, type McpConnection, type McpSource, type SecretValue, type ListOptions } from "./connect.ts";
export { openMcpTransport, connectWithin, withDeadline, describeMcpSource, ChildTransport, OVERSIZED_ERROR_CODE, type ConnectingClient, type McpTransport, type OpenOptions } from "./mcp-transport.ts";
export { parseJsonRpcMessage, deserializeJsonRpc, type JsonRpcParse } from "./jsonrpc-message.ts";
