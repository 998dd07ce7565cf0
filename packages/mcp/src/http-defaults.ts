// The HTTP server's defaults, apart from both `serve-http.ts` (which loads the server
// lazily and re-exports them) and `http.ts` (the server): neither imports the other's values.
export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PATH = "/mcp";
export const DEFAULT_MAX_SESSIONS = 64;
