import { SluiceError } from "@sluice/schema";

// The HTTP server's defaults and access rules, apart from both `serve-http.ts` (which loads the server
// lazily and re-exports them) and `http.ts` (the server): neither imports the other's values.
export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PATH = "/mcp";
export const DEFAULT_MAX_SESSIONS = 64;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** RFC 6750 b64token, long enough that guessing it is hopeless. */
export const TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]{16,}=*$/;

/**
 * Refuses an HTTP binding serveHttp would refuse: a token that is not a bearer token, or an
 * address beyond loopback without a token the operator chose. Cheap and without I/O, so a
 * command can ask before it loads a pack (seconds for a large one) only to be refused.
 */
export function checkHttpAccess(host: string, authToken: string | undefined, callers = 0): void {
  if (authToken !== undefined && (typeof authToken !== "string" || !TOKEN_PATTERN.test(authToken))) {
    throw new SluiceError("INVALID_OPTION", "The MCP auth token must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token); generate one with `openssl rand -base64 32`.");
  }
  // Callers with tokens of their own (--callers) are tokens the operator chose too.
  if (authToken === undefined && callers === 0 && !isLoopbackHost(host)) {
    throw new SluiceError(
      "INVALID_OPTION",
      `Refusing to bind ${host} without an auth token chosen for it: beyond loopback, clients need a token you give them. Give one with --auth-token TOKEN or SLUICE_MCP_TOKEN (generate it with \`openssl rand -base64 32\`), or leave --host out to serve this machine only.`,
    );
  }
}
