// @sluice/mcp/serve: the root entry without the MCP proxy (McpProxy, UpstreamManager,
// SnapshotLock, the snapshot readers). Those load the SDK's client and @sluice/generator-mcp
// (with the OpenAPI generator and the emitter behind it: about 150 modules, and a second copy
// of the SDK built against zod 4), which a pack of HTTP or GraphQL tools never uses. `sluice
// serve` imports this and loads the root entry only for a pack made from an MCP server.
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
export { CallSlots, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } from "./call-slots.ts";
export { DEFAULT_MAX_RESULT_BYTES } from "./result-bounds.ts";
