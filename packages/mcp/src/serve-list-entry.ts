// @sluice/mcp/serve-list: what `sluice serve` needs to answer tools/list from a pack's stored
// list, and nothing of the call runtime: the list's server, the stdio transport, the server's
// defaults and call slots. The server loads the rest (@sluice/mcp/serve's createServer call
// path, the catalog, @sluice/core) at the first tools/call.
export { createServedListServer, type PrelistedCatalog } from "./served-list-server.ts";
export { DEFAULT_PAGE_SIZE, SERVER_VERSION } from "./server-protocol.ts";
export { DEFAULT_MAX_MESSAGE_BYTES } from "./stdio.ts";
export { serveHttp, checkHttpAccess, DEFAULT_HTTP_HOST } from "./serve-http.ts";
export type { CallerCredentials, SessionCaller } from "./http.ts";
export { serveStdio, type StdioHandle } from "./serve-stdio.ts";
export { CallSlots, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS } from "./call-slots.ts";
export { DEFAULT_MAX_RESULT_BYTES } from "./result-bounds.ts";
export type { CallOptions, SessionOptions } from "./server.ts";
