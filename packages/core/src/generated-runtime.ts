import { getOwn, hasOwn } from "@sluice/schema";
import type { HttpCredential } from "./http/auth.ts";
import type { Binding, HttpAuthScheme } from "./tool-ir.ts";
import type { PackRuntime, Pagination, ResponseHandler, ToolRuntime } from "./call/types.ts";
import { bindingResponseHints, defaultResponseHandler } from "./responses/default-handler.ts";
import type { ResponseHints } from "./responses/response-hints.ts";

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
/** A configured value read from the environment when the upstream starts: the variable's name, never its value. */
export interface FromEnv {
  fromEnv: string;
}

/**
 * MCP packs: how the upstream server is started (stdio) or reached (Streamable HTTP), as the
 * config says. `env` and `headers` values are literal strings or `{ fromEnv }`: a secret is
 * written as the name of its variable, never as its value.
 */
export type McpServerFact =
  | { command: string; args: string[]; env?: Record<string, string | FromEnv>; cwd?: string }
  | { url: string; headers?: Record<string, string | FromEnv> };

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
  if (facts.mcp !== undefined) runtime.mcp = facts.mcp;
  // A server reads each scheme's credential from the variable the facts name.
  if (facts.credentials.length > 0) runtime.credentialEnv = Object.fromEntries(facts.credentials.map((credential) => [credential.scheme, credential.env]));
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
  const pagination = facts.pagination;
  const handlerFor = options.responseHandler ?? defaultHandlers(facts);
  runtime.forTool = (name: string, binding: Binding): ToolRuntime | undefined => {
    const own: ToolRuntime = {};
    if (hasOwn(pagination, name)) own.pagination = pagination[name]!;
    const handler = handlerFor?.(name, binding);
    if (handler !== undefined) own.responseHandler = handler;
    return own.pagination === undefined && own.responseHandler === undefined ? undefined : own;
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
 * `CallContext.credentials` takes them. A basic scheme's variable holds `user:password`.
 */
export function credentialsFromEnv(facts: RuntimeFacts, env?: EnvironmentVariables): Record<string, HttpCredential> {
  const vars = environment(env);
  const out: Record<string, HttpCredential> = {};
  for (const credential of facts.credentials) {
    const value = variable(vars, credential.env);
    if (value === undefined) continue;
    let entry: HttpCredential;
    if (credential.type === "basic") {
      const colon = value.indexOf(":");
      entry = colon === -1 ? { username: value, password: "" } : { username: value.slice(0, colon), password: value.slice(colon + 1) };
    } else entry = { token: value };
    Object.defineProperty(out, credential.scheme, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

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
  const status: CredentialStatus = {
    set: names.filter((name) => variable(vars, name) !== undefined),
    missing: names.filter((name) => variable(vars, name) === undefined),
  };
  if (facts.endpoint !== undefined) status.endpoint = { env: facts.endpoint.env, set: variable(vars, facts.endpoint.env) !== undefined };
  return status;
}
