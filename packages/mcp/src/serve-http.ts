import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { HttpHandle, HttpOptions, SessionCaller } from "./http.ts";

export { checkHttpAccess, isLoopbackHost, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PATH, DEFAULT_MAX_SESSIONS } from "./http-defaults.ts";

/**
 * Serves MCP over Streamable HTTP (see http.ts). The HTTP server and node:http load on
 * the first call: a stdio server, the common case, never pays for them at start-up.
 */
export async function serveHttp(newServer: (caller: SessionCaller) => Server, options: HttpOptions): Promise<HttpHandle> {
  const http = await import("./http.ts");
  return http.serveHttp(newServer, options);
}
