/**
 * The values sluice gives an upstream MCP server that a model must never read back: every
 * `{ fromEnv }` value of `mcp.env` / `mcp.headers` (read at connect time), and the literal
 * ones whose name says they are credentials (an `Authorization` header written in the
 * config, a `GITHUB_TOKEN` passed on by `serve -- <command>`), the value of a credential flag
 * on the command line (`--api-key=...`, `--token ...`), plus the user info and the
 * credential-named query values of a server URL. Core's call runtime records each and
 * redacts it from everything the upstream answers, in every spelling.
 */
import type { McpSource as UpstreamSource } from "@sluice/mcp-client";

/** Names of variables and headers whose values are credentials. */
const CREDENTIAL_NAME = /authorization|cookie|api[-_]?key|apikey|token|secret|password|passwd|credential|session|private[-_]?key|access[-_]?key|(?:^|[-_])(?:key|pat|auth)(?:$|[-_])/i;

/** Values under a credential-like name that hold none: flags, and absolute paths (`SSH_AUTH_SOCK`, `*_TOKEN_FILE`). */
const NOT_A_VALUE = /^(?:true|false|yes|no|on|off|0|1|)$|^(?:\/|[a-z]:[\\/])/i;

export function upstreamSecrets(source: UpstreamSource, resolved: readonly string[]): string[] {
  const out = new Set<string>(resolved.filter((value) => typeof value === "string" && value.trim() !== ""));
  const named = "command" in source ? source.env : source.headers;
  for (const [name, value] of Object.entries(named ?? {})) {
    if (typeof value === "string" && CREDENTIAL_NAME.test(name) && !NOT_A_VALUE.test(value.trim())) out.add(value);
  }
  if ("command" in source && Array.isArray(source.args)) {
    // A credential given on the command line: `--api-key=VALUE`, or `--token VALUE`.
    source.args.forEach((arg, i) => {
      const flag = /^--?([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(typeof arg === "string" ? arg : "");
      if (flag === null || !CREDENTIAL_NAME.test(flag[1]!)) return;
      const value = flag[2] ?? source.args![i + 1];
      if (typeof value === "string" && value !== "" && !value.startsWith("-") && !NOT_A_VALUE.test(value.trim())) out.add(value);
    });
  }
  if ("url" in source && typeof source.url === "string") {
    try {
      const url = new URL(source.url);
      if (url.password !== "") out.add(decodeURIComponent(url.password));
      if (url.username !== "" && url.password === "") out.add(decodeURIComponent(url.username));
      for (const [name, value] of url.searchParams) if (CREDENTIAL_NAME.test(name) && value !== "") out.add(value);
    } catch {
      // A URL that does not parse never connects: nothing was sent.
    }
  }
  return [...out];
}
