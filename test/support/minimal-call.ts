/**
 * "Every generated tool is callable": the minimal argument set built from a tool's own input
 * schema (required members only; const/enum first, then formats, bounds and patterns; see
 * `minimalArguments`) passes `check()`, and `request()` builds a request from it. Used by the
 * vendored directory slice (test/directory-slice.test.ts) and the breadth sample
 * (scripts/breadth.ts), so both count the same thing.
 */
import { egressMap, isSluiceError, type HttpAuthScheme, type Tool } from "@sluice/core";
import { minimalArguments } from "./egress-fuzz.ts";

/** Where a tool without an absolute server URL is pointed for the build; request() sends nothing. */
export const PLACEHOLDER_BASE = "https://placeholder.invalid";

/** A credential for every scheme a tool names (request() only builds, so none is ever sent). */
const credentials = (scheme: HttpAuthScheme) => (scheme.type === "basic" ? { username: "user", password: "pass" } : { token: "token" });

export type Callability = { ok: true; args: Record<string, unknown> } | { ok: false; reason: string; detail: string };

export async function minimalCall(tool: Tool<object>): Promise<Callability> {
  let args: Record<string, unknown>;
  try {
    args = minimalArguments(tool);
  } catch (error) {
    return { ok: false, reason: "NO_MINIMAL_VALUE", detail: String(error).slice(0, 200) };
  }
  const shown = JSON.stringify(args).slice(0, 200);
  const issues = tool.check(args);
  if (issues.length > 0) {
    const first = issues[0]!;
    return { ok: false, reason: `check:${first.code}`, detail: `${first.path} ${first.message}`.slice(0, 240) + ` args=${shown}` };
  }
  const server = tool.server;
  const absolute = server !== undefined && /^https?:\/\//.test(server);
  try {
    await tool.request(args, { credentials, ...(absolute ? {} : { baseUrl: PLACEHOLDER_BASE }) });
    return { ok: true, args };
  } catch (error) {
    const code = isSluiceError(error) ? error.code : ((error as { code?: string }).code ?? "uncoded");
    return { ok: false, reason: `request:${code}`, detail: `${String((error as Error).message).slice(0, 240)} args=${shown}` };
  }
}

/** Tools that offer and withhold one argument: a withheld path that is also a visible argument path. */
export function clashes(tools: readonly Tool<object>[]): string[] {
  const visible = new Map(egressMap(tools).map((entry) => [entry.name, new Set(entry.visible.map((path) => path.path))]));
  return tools.flatMap((tool) => tool.withheld.filter((w) => visible.get(tool.name)?.has(w.path) === true).map((w) => `${tool.name}: ${w.path} (${w.reason})`));
}
