import { getOwn, hasOwn } from "@sluice/schema";
import type { HttpCredential } from "../http/auth.ts";
import type { Binding, HttpAuthScheme, PackSelection } from "../tool-ir.ts";
import type { FromEnv, McpServerFact, OAuth2Settings, PackRuntime, Pagination, ResponseHandler, SchemeCredential, ToolRuntime } from "../call/types.ts";

export type { FromEnv, McpServerFact } from "../call/types.ts";
import { oauth2Credential, type OAuth2Credential } from "../call/oauth2.ts";
import { bindingResponseHints, defaultResponseHandler } from "../responses/default-handler.ts";
import type { ResponseHints } from "../responses/response-hints.ts";
import type { ReformatChoice } from "../responses/reformat/reformatter.ts";

/** How a credential is sent. OAuth 2 and OpenID Connect tokens go as bearer tokens. */
export type CredentialType = "apiKey" | "bearer" | "basic" | "oauth2" | "openIdConnect";

/** One credential a generated pack's calls can carry, and the environment variable holding it. */
export interface CredentialFact {
  /** Security scheme name (OpenAPI), or `token` for a GraphQL pack's default bearer token. */
  scheme: string;
  type: CredentialType;
  /** apiKey only: where the key goes and under which name. */
  in?: "header" | "query" | "cookie";
  name?: string;
  /** Variable holding the value: a token, or `user:password` for basic. */
  env: string;
  /**
   * The scheme of a GraphQL pack's credential arguments only (`credentialArguments:
   * { customerAccessToken: "customer" }`): its token is filled into the variables that
   * carry it and never sent as authentication.
   */
  argumentOnly?: boolean;
  /**
   * OAuth 2 schemes whose spec names a token endpoint (`flows.clientCredentials`,
   * `authorizationCode` or `password`, Swagger 2.0 `tokenUrl`): where tokens are fetched and
   * the variables of the client. Without `env` set, a call gets its token from there.
   */
  oauth2?: OAuth2Settings;
}

/** A variable of an OpenAPI Server Object (`{region}` in `https://{region}.api.example.com`). */
export interface ServerVariableFact {
  name: string;
  default: string;
  enum?: string[];
}

/**
 * What a generated pack's runtime learns from its spec, as plain JSON data
 * (`src/runtime.gen.ts`). The generator fills it; `generatedRuntime` turns it into a
 * `PackRuntime`; the CLI prints `credentialStatus` from it.
 */
export interface RuntimeFacts {
  kind: "openapi" | "graphql" | "mcp";
  /** MCP: the upstream server (what `sluice serve` starts or connects to). */
  mcp?: McpServerFact;
  /** The pack's name: how start-up messages name the API. */
  name?: string;
  /** OpenAPI: the base URL as the bindings use it, where it came from, and its variables. */
  server?: { url: string; from: "servers" | "host+basePath" | "none" | "config"; variables: ServerVariableFact[] };
  /** GraphQL: the endpoint is a setting the user gives, through this environment variable (or fixed in the config: `url`). */
  endpoint?: { env: string; url?: string };
  /** One per security scheme the spec declares (OpenAPI), or a default bearer token (GraphQL). */
  credentials: CredentialFact[];
  /** Tool name -> pagination, where the spec shows a known pattern. */
  pagination: Record<string, Pagination>;
  /** Arguments that duplicate a declared credential: name on the wire -> security scheme. */
  credentialArguments: Record<string, string>;
  /** Arguments whose names look like secrets but duplicate no declared scheme. */
  secretLooking: { tool: string; argument: string }[];
  /**
   * What the spec says about the answers (ids, API links, envelopes, pagination fields), for
   * the default response handler: hints every tool shares, and per tool (only tools with
   * more to say). `"off"`: the config switched the default handler off.
   */
  responses?: { shared: ResponseHints; tools: Record<string, ResponseHints> } | "off";
  /** The config's reformatter choices: the pack's, and per tool by final name (docs/reformatters.md). */
  reformatters?: { pack?: ReformatChoice; tools?: Record<string, ReformatChoice> };
  /** The config's tool-level choices (what was left out and why, renames, descriptions), for the egress map. */
  selection?: PackSelection;
}

export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

export interface GeneratedRuntimeOptions {
  /** Response handler per tool (e.g. a default handler built from the spec); none when it answers undefined. */
  responseHandler?: (name: string, binding: Binding) => ResponseHandler | undefined;
  /** GraphQL endpoint; wins over the environment variable the facts name. */
  endpoint?: string;
  /** Where variables are read; defaults to `process.env`. */
  env?: EnvironmentVariables;
}

function environment(env: EnvironmentVariables | undefined): EnvironmentVariables {
  return env ?? (process.env as EnvironmentVariables);
}

/** A variable's value, own properties only, empty counting as unset. */
function variable(env: EnvironmentVariables, name: string): string | undefined {
  const value = getOwn(env, name);
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The scheme as the call runtime sends it. */
function authScheme(credential: CredentialFact): HttpAuthScheme | undefined {
  switch (credential.type) {
    case "basic":
      return { scheme: credential.scheme, type: "basic" };
    case "apiKey":
      return credential.in === undefined || credential.name === undefined ? undefined : { scheme: credential.scheme, type: "apiKey", in: credential.in, name: credential.name };
    default:
      return { scheme: credential.scheme, type: "bearer" };
  }
}

/**
 * A `PackRuntime` from a generated pack's facts: the GraphQL endpoint (from `options`,
 * else its environment variable) and its authentication, and per tool the declared
 * pagination and the handler `options.responseHandler` gives. HTTP tools carry their
 * own server and security in their bindings.
 */
export function generatedRuntime(facts: RuntimeFacts, options: GeneratedRuntimeOptions = {}): PackRuntime {
  const env = environment(options.env);
  const runtime: PackRuntime = {};
  if (facts.name !== undefined) runtime.api = facts.name;
  if (facts.selection !== undefined) runtime.selection = facts.selection;
  if (facts.mcp !== undefined) runtime.mcp = facts.mcp;
  // A server reads each scheme's credential from the variable the facts name.
  if (facts.credentials.length > 0) runtime.credentialEnv = Object.fromEntries(facts.credentials.map((credential) => [credential.scheme, credential.env]));
  const oauth2 = facts.credentials.filter((credential) => credential.oauth2 !== undefined);
  if (oauth2.length > 0) runtime.credentialOAuth2 = Object.fromEntries(oauth2.map((credential) => [credential.scheme, credential.oauth2!]));
  if (facts.endpoint !== undefined && options.endpoint === undefined) runtime.endpointEnv = facts.endpoint.env;
  if (facts.kind === "graphql") {
    const endpoint = options.endpoint ?? (facts.endpoint === undefined ? undefined : (variable(env, facts.endpoint.env) ?? facts.endpoint.url));
    if (endpoint !== undefined) runtime.endpoint = endpoint;
    const alternatives = facts.credentials.flatMap((credential) => {
      if (credential.argumentOnly === true) return [];
      const scheme = authScheme(credential);
      return scheme === undefined ? [] : [[scheme]];
    });
    if (alternatives.length > 0) runtime.auth = alternatives;
  }
  if (facts.reformatters?.pack !== undefined) runtime.reformatters = facts.reformatters.pack;
  const reformatters = facts.reformatters?.tools ?? {};
  const pagination = facts.pagination;
  const handlerFor = options.responseHandler ?? defaultHandlers(facts);
  runtime.forTool = (name: string, binding: Binding): ToolRuntime | undefined => {
    const own: ToolRuntime = {};
    if (hasOwn(pagination, name)) own.pagination = pagination[name]!;
    const handler = handlerFor?.(name, binding);
    if (handler !== undefined) own.responseHandler = handler;
    if (hasOwn(reformatters, name)) own.reformatters = reformatters[name]!;
    return own.pagination === undefined && own.responseHandler === undefined && own.reformatters === undefined ? undefined : own;
  };
  return runtime;
}

/**
 * The default response handler per tool, from the facts' response hints (none when the
 * facts say `"off"`). Handlers are made once per tool, when the pack defines its tools.
 */
function defaultHandlers(facts: RuntimeFacts): ((name: string, binding: Binding) => ResponseHandler) | undefined {
  const responses = facts.responses;
  if (responses === "off") return undefined;
  const shared = responses?.shared ?? {};
  const tools = responses?.tools ?? {};
  // The binding adds what it alone knows (a GraphQL tool's answer sits under data.<field>).
  return (name, binding) => defaultResponseHandler({ ...shared, ...bindingResponseHints(binding), ...(hasOwn(tools, name) ? tools[name] : {}) });
}

/**
 * Credentials by scheme name from the variables the facts name (unset ones left out), as
 * `CallContext.credentials` takes them:
 *  - `<PACK>_<SCHEME>` holds the token (bearer, API key, OAuth 2 access token), or
 *    `user:password` for a basic scheme;
 *  - for an OAuth 2 scheme with a token endpoint in its spec, when that variable is unset:
 *    `<PACK>_<SCHEME>_CLIENT_ID`, `<PACK>_<SCHEME>_CLIENT_SECRET` and optionally
 *    `<PACK>_<SCHEME>_REFRESH_TOKEN` make an OAuth 2 client (refresh-token grant with a
 *    refresh token, client credentials without), which fetches and refreshes tokens.
 * The same variables give the same client (one token cache shared by every caller).
 */
export function credentialsFromEnv(facts: RuntimeFacts, env?: EnvironmentVariables): Record<string, SchemeCredential> {
  const vars = environment(env);
  const out: Record<string, SchemeCredential> = {};
  for (const credential of facts.credentials) {
    const entry = credentialFromEnv(credential.scheme, credential.type, credential.env, credential.oauth2, vars, facts.name);
    if (entry === undefined) continue;
    Object.defineProperty(out, credential.scheme, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** One scheme's credential from its variables (see `credentialsFromEnv`); undefined when they are unset. */
export function credentialFromEnv(
  scheme: string,
  type: CredentialType | HttpAuthScheme["type"],
  envName: string,
  oauth2: OAuth2Settings | undefined,
  env: EnvironmentVariables,
  api?: string,
): SchemeCredential | undefined {
  const value = variable(env, envName);
  if (value !== undefined) {
    if (type !== "basic") return { token: value };
    const colon = value.indexOf(":");
    return colon === -1 ? { username: value, password: "" } : { username: value.slice(0, colon), password: value.slice(colon + 1) };
  }
  if (oauth2 === undefined) return undefined;
  const clientId = variable(env, oauth2.clientIdEnv);
  if (clientId === undefined) return undefined;
  const clientSecret = variable(env, oauth2.clientSecretEnv);
  const refreshToken = variable(env, oauth2.refreshTokenEnv);
  const key = JSON.stringify([scheme, oauth2.tokenUrl, clientId, clientSecret ?? null, refreshToken ?? null]);
  let client = OAUTH2_CLIENTS.get(key);
  if (client === undefined) {
    client = oauth2Credential({ tokenUrl: oauth2.tokenUrl, clientId, clientSecret, refreshToken, ...(api === undefined ? {} : { api }) });
    OAUTH2_CLIENTS.set(key, client);
  }
  return client;
}

/** OAuth 2 clients by scheme, token URL and client variables: the same settings share one token cache and one refresh. */
const OAUTH2_CLIENTS = new Map<string, OAuth2Credential>();

export interface CredentialStatus {
  /** Credential variables that are set (names only, never values). */
  set: string[];
  /** Credential variables that are not set. */
  missing: string[];
  /** GraphQL: the endpoint variable and whether it is set. */
  endpoint?: { env: string; set: boolean };
}

/** Which of a pack's variables are set and which are missing, for `serve` and the CLI to print. */
export function credentialStatus(facts: RuntimeFacts, env?: EnvironmentVariables): CredentialStatus {
  const vars = environment(env);
  const names = [...new Set(facts.credentials.map((credential) => credential.env))];
  // An OAuth 2 client's variables stand in for an unset token variable.
  for (const credential of facts.credentials) {
    const settings = credential.oauth2;
    if (settings === undefined || variable(vars, settings.clientIdEnv) === undefined) continue;
    const at = names.indexOf(credential.env);
    if (at >= 0 && variable(vars, credential.env) === undefined) names.splice(at, 1, settings.clientIdEnv);
  }
  const status: CredentialStatus = {
    set: names.filter((name) => variable(vars, name) !== undefined),
    missing: names.filter((name) => variable(vars, name) === undefined),
  };
  if (facts.endpoint !== undefined) status.endpoint = { env: facts.endpoint.env, set: variable(vars, facts.endpoint.env) !== undefined };
  return status;
}
