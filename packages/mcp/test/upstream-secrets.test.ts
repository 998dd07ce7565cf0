/**
 * Which values given to an upstream count as its secrets (redacted from whatever it
 * answers): every `fromEnv` value, literal values under credential names, a URL's user
 * info and credential-named query values; not flags or paths under such names.
 */
import { describe, expect, it } from "vitest";
import { upstreamSecrets } from "../src/upstream-secrets.ts";

describe("upstreamSecrets", () => {
  it.each([
    ["fromEnv values, whatever their name", { command: "x", env: { MODE: { fromEnv: "A" } } }, ["resolved-value-1"], ["resolved-value-1"]],
    ["a literal env value under a credential name; a plain one is not", { command: "x", env: { GITHUB_TOKEN: "ghp_literal_123", LOG_LEVEL: "debug", MAPS_KEY: "mk_1234567" } }, [], ["ghp_literal_123", "mk_1234567"]],
    ["flags and paths under credential names are not secrets", { command: "x", env: { SSH_AUTH_SOCK: "/tmp/ssh-1/agent.1", USE_TOKEN: "true" } }, [], []],
    ["credential flags on the command line, as --flag=value and as --flag value; other flags are not", { command: "x", args: ["--api-key=ak_123456", "--token", "tk_7654321", "--port", "8080", "--verbose", "--auth-file", "/etc/key"] }, [], ["ak_123456", "tk_7654321"]],
    ["a URL server's literal Authorization header, whole (core takes the scheme word off)", { url: "https://mcp.example/mcp", headers: { Authorization: "Bearer abc.def.ghi", "X-Trace": "t1" } }, [], ["Bearer abc.def.ghi"]],
    ["a URL's password and credential-named query values", { url: "https://u:p%40ss-word@mcp.example/mcp?api_key=k_123456&page=2" }, [], ["p@ss-word", "k_123456"]],
  ] as const)("%s", (_name, source, resolved, want) => {
    expect(upstreamSecrets(source as never, resolved).sort()).toEqual([...want].sort());
  });
});
