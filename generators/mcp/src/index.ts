export { makeSnapshot, formatSnapshot, parseSnapshot, readSnapshot, writeSnapshot, SNAPSHOT_FILE, SNAPSHOT_FORMAT, type McpSnapshot, type McpSnapshotTool } from "./snapshot.ts";
export { diffSnapshot, diffBlocks, type SnapshotDiff, type ToolChange, type TextChange } from "./diff-snapshot.ts";
export { connectMcp, listMcpTools, listConnected, resolveSecrets, DEFAULT_LIST_TIMEOUT_MS, type McpConnection, type McpSource, type SecretValue, type ListOptions } from "./connect.ts";
