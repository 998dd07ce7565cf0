import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { HttpHandle, HttpOptions } from "./http.ts";

export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PATH = "/mcp";
export const DEFAULT_MAX_SESSIONS = 64;

/**
 * Serves MCP over Streamable HTTP (see http.ts). The HTTP server and node:http load on
 * the first call: a stdio server, the common case, never pays for them at start-up.
 */
export async function serveHttp(newServer: () => Server, options: HttpOptions): Promise<HttpHandle> {
  const http = await import("./http.ts");
  return http.serveHttp(newServer, options);
}
