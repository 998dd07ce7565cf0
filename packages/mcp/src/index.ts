// @sluice/mcp: serve sluice tools (whole packs, or modules of projections) to MCP clients.
export { ServedCatalog, type CatalogOptions } from "./served-catalog.ts";
export { createServer, toolCallHandler, type CallOptions, type SessionOptions } from "./server.ts";
export { DEFAULT_PAGE_SIZE, SERVER_VERSION } from "./server-protocol.ts";
export { createServedListServer, type PrelistedCatalog } from "./served-list-server.ts";
export { LineTransport, DEFAULT_MAX_MESSAGE_BYTES, type LineTransportOptions } from "./stdio.ts";
export { serveHttp, checkHttpAccess, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PATH, DEFAULT_MAX_SESSIONS } from "./serve-http.ts";
export type { HttpHandle, HttpOptions, CallerCredentials, SessionCaller } from "./http.ts";
export {
  CREDENTIAL_ENV,
  apiHostOf,
  credentialEnvFor,
  describeCredentialEnv,
  toolAuthFromEnv,
  type ApiCredentialEnv,
  type ToolAuth,
} from "./credentials.ts";
export { serveStdio, type StdioHandle } from "./serve-stdio.ts";
export { DEFAULT_MAX_RESULT_BYTES } from "./result-bounds.ts";
export { CallSlots, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } from "./call-slots.ts";
export { UpstreamManager, DEFAULT_UPSTREAM_CALL_TIMEOUT_MS, describeUpstream, type SecretValue, type UpstreamListing, type UpstreamOptions, type UpstreamSource } from "./upstream.ts";
export { SnapshotLock, type LockOptions, type LockState } from "./snapshot-lock.ts";
export { McpProxy, type ProxyOptions, type ServedGate } from "./mcp-proxy.ts";
export { readSnapshot, SNAPSHOT_FILE, type McpSnapshot } from "@sluice/mcp-client";
