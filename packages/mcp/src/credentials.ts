import { credentialFromEnv, type CredentialSource, type HttpAuthScheme, type HttpCredential, type OAuth2Settings, type SchemeCredential, type Tool } from "@sluice/core/pack";

/**
 * Where a served tool's credentials come from: one environment variable (or a short
 * list, first set wins) per API, chosen by the host the tool's binding talks to. Keying
 * on the host rather than on the pack name means a user module that narrows tools of
 * several packs (Linear and Gmail) still finds each tool's credential, and a `--base-url`
 * override (tests, a proxy) does not change which variable is read.
 */
export interface ApiCredentialEnv {
  /** The API, as documented (`Linear`, `Gmail`). */
  api: string;
  /** Workspace packs whose tools call this API. */
  packs: readonly string[];
  /** Hosts of the bindings' servers (HTTP) or of the pack's endpoint (GraphQL). */
  hosts: readonly string[];
  /** Variables holding a token sent the way the spec's security scheme says (bearer, or an API-key header). */
  token: readonly string[];
  /**
   * Variables for a scheme type other than the default, e.g. Linear's personal API key
   * (sent raw in `Authorization`, scheme type `apiKey`) beside its OAuth token (`bearer`).
   */
  byType?: Partial<Record<HttpAuthScheme["type"], readonly string[]>>;
  /**
   * When a tool declares no security at all (neither its spec nor its pack runtime), send
   * the token as `Authorization: Bearer` anyway: the API needs it.
   */
  bearerWhenUndeclared?: boolean;
}

/** The documented variables, by API. `docs/mcp.md` lists the same table. */
export const CREDENTIAL_ENV: readonly ApiCredentialEnv[] = [
  {
    api: "Linear",
    packs: ["linear"],
    hosts: ["api.linear.app"],
    token: ["LINEAR_ACCESS_TOKEN"],
    // A personal API key goes in Authorization as is (scheme `apiKey`); an OAuth token as a bearer token.
    byType: { apiKey: ["LINEAR_API_KEY"] },
  },
  { api: "GitHub", packs: ["github", "github-rest"], hosts: ["api.github.com"], token: ["GITHUB_TOKEN", "GH_TOKEN"], bearerWhenUndeclared: true },
  { api: "Stripe", packs: ["stripe"], hosts: ["api.stripe.com"], token: ["STRIPE_API_KEY", "STRIPE_SECRET_KEY"] },
  { api: "Slack", packs: ["slack"], hosts: ["slack.com"], token: ["SLACK_TOKEN", "SLACK_BOT_TOKEN"] },
  { api: "Gmail", packs: ["gmail"], hosts: ["gmail.googleapis.com"], token: ["GMAIL_ACCESS_TOKEN", "GOOGLE_ACCESS_TOKEN"] },
  { api: "Google Docs", packs: ["gdocs"], hosts: ["docs.googleapis.com"], token: ["GDOCS_ACCESS_TOKEN", "GOOGLE_ACCESS_TOKEN"] },
  { api: "Google Sheets", packs: ["gsheets"], hosts: ["sheets.googleapis.com"], token: ["GSHEETS_ACCESS_TOKEN", "GOOGLE_ACCESS_TOKEN"] },
  { api: "Notion", packs: ["notion"], hosts: ["api.notion.com"], token: ["NOTION_TOKEN", "NOTION_API_KEY"], bearerWhenUndeclared: true },
];

/** What `apiHostOf` reads: a Tool (its `server`), or any value with a binding and an endpoint. */
type ApiTarget = Pick<Tool<object>, "server"> | Pick<Tool<object>, "binding" | "endpoint">;

/** The host a tool's requests go to by default (before any base URL override), lower case. */
export function apiHostOf(tool: ApiTarget): string | undefined {
  // A Tool answers `server` without computing a curated projection (its parent's server).
  const url = "server" in tool ? tool.server : tool.binding.kind === "http" ? tool.binding.server : tool.endpoint;
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The table entry for a tool, by its API host. */
export function credentialEnvFor(tool: ApiTarget, table: readonly ApiCredentialEnv[] = CREDENTIAL_ENV): ApiCredentialEnv | undefined {
  const host = apiHostOf(tool);
  return host === undefined ? undefined : table.find((entry) => entry.hosts.includes(host));
}

function firstSet(env: Readonly<Record<string, string | undefined>>, names: readonly string[] | undefined): string | undefined {
  for (const name of names ?? []) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return value.trim();
  }
  return undefined;
}

/** What a call of one tool gets from the environment: a credential source and, for undeclared security, a header. */
export interface ToolAuth {
  credentials: CredentialSource;
  /** Extra headers (an `Authorization: Bearer` for APIs whose spec declares no security). */
  headers: Record<string, string>;
}

/**
 * Credentials for one tool from environment variables. A scheme the table has no
 * variable for gets nothing, so the call runtime moves on to the next security
 * requirement or answers AUTH_MISSING (naming the schemes, never a value). Basic-auth
 * schemes are left to the next requirement: every pack that offers basic also offers a
 * bearer scheme for the same key.
 */
export function toolAuthFromEnv(tool: Tool<object>, env: Readonly<Record<string, string | undefined>>, table: readonly ApiCredentialEnv[] = CREDENTIAL_ENV): ToolAuth {
  // A pack that names its own variables (every generated pack) wins over the table.
  const variables = tool.callSettings.credentialEnv;
  if (variables !== undefined) return { credentials: declaredCredentials(variables, env, tool.callSettings.credentialOAuth2, tool.callSettings.api), headers: {} };
  const entry = credentialEnvFor(tool, table);
  if (entry === undefined) return { credentials: {}, headers: {} };
  const credentials: CredentialSource = (scheme: HttpAuthScheme): HttpCredential | undefined => {
    if (scheme.type === "basic") return undefined;
    const typed = entry.byType?.[scheme.type];
    const token = typed !== undefined ? firstSet(env, typed) : firstSet(env, entry.token);
    return token === undefined ? undefined : { token };
  };
  const requirements = tool.auth;
  const declared = requirements !== undefined && requirements.some((requirement) => requirement.length > 0);
  const headers: Record<string, string> = {};
  if (!declared && entry.bearerWhenUndeclared) {
    const token = firstSet(env, entry.token);
    if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  }
  return { credentials, headers };
}

/**
 * Credentials from the variables a pack runtime names per scheme (the rule of
 * `credentialsFromEnv`): a basic scheme's variable holds `user:password`; an OAuth 2 scheme
 * with a token endpoint falls back to its client's variables, one token cache per client.
 */
function declaredCredentials(
  variables: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  oauth2: Readonly<Record<string, OAuth2Settings>> | undefined,
  api: string | undefined,
): CredentialSource {
  const trimmed: Record<string, string | undefined> = {};
  return (scheme: HttpAuthScheme): SchemeCredential | undefined => {
    const name = Object.hasOwn(variables, scheme.scheme) ? variables[scheme.scheme] : undefined;
    if (name === undefined) return undefined;
    const settings = oauth2 !== undefined && Object.hasOwn(oauth2, scheme.scheme) ? oauth2[scheme.scheme] : undefined;
    for (const variable of [name, ...(settings === undefined ? [] : [settings.clientIdEnv, settings.clientSecretEnv, settings.refreshTokenEnv])]) trimmed[variable] = firstSet(env, [variable]);
    return credentialFromEnv(scheme.scheme, scheme.type, name, settings, trimmed, api);
  };
}

/**
 * Names (never values) of the variables that are set for the APIs these tools call, and
 * of those that are missing, for the start-up line on stderr. A pack runtime that names
 * its variables (generated packs) is listed under its API name with those variables.
 */
export function describeCredentialEnv(
  tools: readonly Tool<object>[],
  env: Readonly<Record<string, string | undefined>>,
  table: readonly ApiCredentialEnv[] = CREDENTIAL_ENV,
): Array<{ api: string; set: string[]; expected: string[]; missing?: string[] }> {
  const entries = new Map<string, ApiCredentialEnv>();
  const declared = new Map<string, Set<string>>();
  for (const tool of tools) {
    const variables = tool.callSettings.credentialEnv;
    if (variables !== undefined) {
      const api = tool.callSettings.api ?? apiHostOf(tool) ?? tool.name;
      const names = declared.get(api) ?? new Set<string>();
      for (const name of Object.values(variables)) names.add(name);
      declared.set(api, names);
      continue;
    }
    const entry = credentialEnvFor(tool, table);
    if (entry !== undefined) entries.set(entry.api, entry);
  }
  const fromTable = [...entries.values()].map((entry) => {
    const expected = [...entry.token, ...Object.values(entry.byType ?? {}).flat()];
    return { api: entry.api, set: expected.filter((name) => firstSet(env, [name]) !== undefined), expected };
  });
  const fromPacks = [...declared].map(([api, names]) => {
    const expected = [...names].sort();
    const set = expected.filter((name) => firstSet(env, [name]) !== undefined);
    // One variable per scheme, and a requirement may need several (Plaid: client id, secret and version): each unset one is named.
    return { api, set, expected, missing: expected.filter((name) => !set.includes(name)) };
  });
  return [...fromTable, ...fromPacks];
}

/**
 * The text of an AUTH_MISSING answer of a served tool. The core's message tells code to
 * pass `ctx.credentials`; over MCP neither the model nor its user can, so this names the
 * variables `sluice serve` reads for the missing schemes (the pack's `<PACK>_<SCHEME>`, or
 * the documented table's), for the person running the server. Names only, never values.
 */
export function missingCredentialMessage(tool: Tool<object>, schemes: readonly string[] | undefined, table: readonly ApiCredentialEnv[] = CREDENTIAL_ENV): string {
  const missing = schemes ?? [];
  const declared = tool.callSettings.credentialEnv;
  const pairs: string[] = [];
  if (declared !== undefined) {
    for (const scheme of missing) if (Object.hasOwn(declared, scheme)) pairs.push(`${scheme} from ${declared[scheme]}`);
  } else {
    const entry = credentialEnvFor(tool, table);
    const byScheme = new Map((tool.auth ?? []).flat().map((scheme) => [scheme.scheme, scheme.type] as const));
    for (const scheme of missing) {
      const type = byScheme.get(scheme);
      if (entry === undefined || type === "basic") continue;
      const names = (type === undefined ? undefined : entry.byType?.[type]) ?? entry.token;
      pairs.push(`${scheme} from ${names.join(" or ")}`);
    }
  }
  const what = `${tool.name} needs a credential (security scheme ${missing.length === 0 ? "unnamed" : missing.join(" or ")}) and the server has none to send`;
  if (pairs.length === 0) return `${what}; the pack names no environment variable for it, so this server cannot call it. Retrying will not help.`;
  return `${what}. sluice serve reads ${pairs.join(", ")}: whoever runs the server sets ${pairs.length === 1 ? "it" : "one of them"} in its environment (or --env-file) and restarts it. Retrying will not help until then.`;
}
