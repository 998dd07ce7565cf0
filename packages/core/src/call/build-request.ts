import { hasOwn, SluiceError } from "@sluice/schema";
import { guards } from "../guards.ts";
import { authAdditions, type HttpCredential } from "../http/auth.ts";
import { buildHttpRequest, type HttpRequest } from "../http/build-request.ts";
import { checkHeaderText } from "../http/style.ts";
import type { HttpAuthScheme, HttpBinding } from "../tool-ir.ts";
import { withCredentialVariables } from "./credential-variables.ts";
import { isOAuth2Credential } from "./oauth2.ts";
import { withheldPointers } from "./screen-arguments.ts";
import { mcpArguments } from "./mcp-call.ts";
import { withoutPins, type CallableTool } from "./arguments.ts";
import type { CallContext, CredentialSource, SchemeCredential } from "./types.ts";

/**
 * The request of one call, from its screened arguments: the binding's wire request
 * (http/build-request.ts) with the credentials, credential parameters and `ctx.headers`
 * added, behind a last check that nothing withheld is in it.
 */

/**
 * The request builder's own check, behind screening: no key may sit where the tool
 * withholds it (by dotted path or `Type.key`), and no prototype key (`__proto__` anywhere,
 * undeclared `constructor` / `prototype`) may be sent. Screening already refused such arguments;
 * finding one here means screening let it through, so the call fails closed instead of
 * sending it.
 */
export function assertNothingWithheld(tool: Pick<CallableTool, "name" | "inputSchema" | "withheld" | "pins" | "definitionOrigins">, allowed: Record<string, unknown>): void {
  if (!guards.requestFilter) return;
  const withheld = new Map<string, string>();
  for (const entry of tool.withheld) if (entry.reason !== "pinned") withheld.set(entry.path, entry.reason);
  const found = withheldPointers(tool.inputSchema, withoutPins(allowed, tool.pins), withheld, tool.definitionOrigins, { prototypeKeys: true });
  if (found.length === 0) return;
  const issues = found.map((path) =>
    /\/(?:__proto__|constructor|prototype)$/.test(path) && !withheld.has(path.slice(1).split("/").join("."))
      ? { code: "prototype_key", path, message: "is a prototype key and cannot be sent; remove it" }
      : { code: "withheld", path, message: "is withheld from this tool and cannot be sent; remove it" },
  );
  throw new SluiceError("EGRESS_DENIED", `${tool.name} refused the call: it sends fields this tool withholds (${found.slice(0, 5).join(", ")}). Remove them and call again.`, { tool: tool.name, issues });
}

export async function buildRequest(tool: CallableTool, screened: Record<string, unknown>, ctx: CallContext): Promise<HttpRequest> {
  assertNothingWithheld(tool, screened);
  const binding = tool.binding;
  let allowed = screened;
  if (binding.kind === "mcp") {
    // What request() shows of an MCP call: the tools/call params that would be sent.
    return { method: "POST", url: `mcp:tools/call`, headers: {}, body: JSON.stringify({ name: binding.tool, arguments: mcpArguments(binding, allowed) }) };
  }
  if (binding.kind === "http") {
    const auth = await authFor(tool.name, tool.auth, ctx.credentials);
    allowed = await withCredentialParameters(tool, binding, allowed, ctx.credentials);
    // Checked: ctx.headers join after the request is built and may not replace what it set.
    const checked = guards.headerOverride;
    const headers = checked ? { ...auth.headers } : { ...lowerCase(ctx.headers), ...auth.headers };
    const request = buildHttpRequest(binding, allowed, {
      ...(ctx.baseUrl === undefined ? {} : { baseUrl: ctx.baseUrl }),
      ...(tool.auth === undefined ? {} : { schemes: tool.auth }),
      ...withheldBodyMembers(tool, binding),
      ...(Object.keys(tool.pins).length === 0 ? {} : { pinnedArguments: Object.keys(tool.pins) }),
      additions: { headers, query: auth.query ?? [], cookies: auth.cookies ?? [] },
    });
    if (checked) addContextHeaders(tool, request, ctx.headers, auth);
    request.headers["accept"] ??= "application/json";
    return request;
  }
  const endpoint = ctx.baseUrl ?? tool.endpoint;
  if (endpoint === undefined) {
    // A generated pack reads its endpoint from a variable (serve names it too): name that first, it is what a user sets.
    const variable = (tool as { readonly callSettings?: { readonly endpointEnv?: string | undefined } }).callSettings?.endpointEnv;
    const fix = variable === undefined ? "pass ctx.baseUrl or declare one in the pack runtime" : `set ${variable} to the GraphQL endpoint's URL before the pack is loaded (or endpoint in its sluice.config entry, then regenerate), or pass ctx.baseUrl on the call`;
    throw new SluiceError("INVALID_OPTION", `${tool.name}: no GraphQL endpoint; ${fix}`, { tool: tool.name });
  }
  const variables: Record<string, unknown> = {};
  for (const name of Object.keys(binding.variables)) {
    if (Object.prototype.hasOwnProperty.call(allowed, name)) {
      Object.defineProperty(variables, name, { value: allowed[name], enumerable: true, writable: true, configurable: true });
    }
  }
  const auth = await authFor(tool.name, tool.auth, ctx.credentials);
  const filled = await withCredentialVariables(tool, binding, variables, ctx.credentials);
  const checked = guards.headerOverride;
  const request = buildHttpRequest(
    { kind: "http", method: "POST", path: "", server: endpoint, parameters: [], body: { mediaType: "application/json", encoding: "json", wholeBodyArg: "body", required: true } },
    { body: { query: binding.document, variables: filled } },
    { additions: { headers: checked ? { ...auth.headers } : { ...lowerCase(ctx.headers), ...auth.headers }, query: auth.query ?? [], cookies: auth.cookies ?? [] } },
  );
  request.headers["accept"] = "application/json";
  if (checked) addContextHeaders(tool, request, ctx.headers, auth);
  return request;
}

/** The top-level members of a body sent whole that the tool withholds, for the builder's own wire-name check. */
function withheldBodyMembers(tool: CallableTool, binding: HttpBinding): { withheldBodyMembers?: string[]; withheldArguments?: string[] } {
  const whole = binding.body?.wholeBodyArg;
  if (whole === undefined) return withheldBodyFields(tool, binding);
  const prefix = `${whole}.`;
  const members = tool.withheld.filter((w) => w.path.startsWith(prefix) && !w.path.slice(prefix.length).includes(".")).map((w) => w.path.slice(prefix.length));
  return members.length === 0 ? {} : { withheldBodyMembers: members };
}

/** Withheld top-level arguments of a tool with a flattened body: those that are body fields keep their names reserved on the wire (see withheldBodyNames). */
function withheldBodyFields(tool: CallableTool, binding: HttpBinding): { withheldArguments?: string[] } {
  if (binding.body?.fields === undefined) return {};
  const args = tool.withheld.map((w) => w.path).filter((path) => !path.includes("."));
  return args.length === 0 ? {} : { withheldArguments: args };
}

/**
 * Fills parameters that carry a credential (Slack's `token`) from the credential of their
 * scheme. They are not arguments of the tool, so whatever the model sent for them was
 * screened out before this point.
 */
async function withCredentialParameters(tool: CallableTool, binding: HttpBinding, allowed: Record<string, unknown>, source: CredentialSource | undefined): Promise<Record<string, unknown>> {
  const carriers = binding.parameters.flatMap((p) => (p.credential === undefined ? [] : [{ arg: p.arg, scheme: p.credential, where: `the ${p.in} parameter ${p.name}`, required: p.required === true }]));
  for (const [arg, scheme] of Object.entries(binding.body?.credentialFields ?? {})) carriers.push({ arg, scheme, where: `the body field ${binding.body?.fields?.[arg] ?? arg}`, required: false });
  if (carriers.length === 0) return allowed;
  const out = { ...allowed };
  for (const parameter of carriers) {
    const name = parameter.scheme;
    const scheme = binding.auth?.flat().find((s) => s.scheme === name) ?? { scheme: name, type: "bearer" as const };
    const credential = plain(source === undefined ? undefined : typeof source === "function" ? await source(scheme, tool.name) : Object.prototype.hasOwnProperty.call(source, name) ? source[name] : undefined);
    if (credential !== undefined && "token" in credential) {
      Object.defineProperty(out, parameter.arg, { value: credential.token, enumerable: true, writable: true, configurable: true });
    } else if (parameter.required) {
      throw new SluiceError("AUTH_MISSING", `${tool.name} needs a token for ${name} (sent as ${parameter.where}); give it in ctx.credentials`, { tool: tool.name, schemes: [name] });
    }
  }
  return out;
}

type AuthAdditions = { headers?: Readonly<Record<string, string>> | undefined; cookies?: readonly (readonly [string, string])[] | undefined };

/**
 * Adds `ctx.headers` to a built request. A header the request already carries, or one
 * the binding declares (a header parameter, pinned or not; the body's content type; a
 * cookie parameter), is the binding's to set: replacing it would bypass a pin or the
 * authentication, so it is refused before anything is sent. Names compare case-insensitively.
 */
function addContextHeaders(tool: CallableTool, request: HttpRequest, given: Readonly<Record<string, string>> | undefined, auth: AuthAdditions): void {
  const fromContext = new Set<string>();
  for (const [name, value] of Object.entries(given ?? {})) {
    const lower = name.toLowerCase();
    if (!fromContext.has(lower)) {
      const owner = headerOwner(tool, lower, auth) ?? (hasOwn(request.headers, lower) ? "the request itself" : undefined);
      if (owner !== undefined) {
        throw new SluiceError("HEADER_OVERRIDE", `${tool.name}: "${name}" in ctx.headers would replace the header set by ${owner}; ctx.headers cannot override it. Remove "${name}" from ctx.headers.`, {
          tool: tool.name,
        });
      }
    }
    fromContext.add(lower);
    request.headers[lower] = checkHeaderText(name, value);
  }
}

/** What in the binding or the authentication sets a header (lower-case name), said for a person; undefined when nothing does. */
function headerOwner(tool: CallableTool, lower: string, auth: AuthAdditions): string | undefined {
  const binding = tool.binding;
  if (auth.headers !== undefined && hasOwn(auth.headers, lower)) return "authentication";
  if (lower === "cookie" && (auth.cookies?.length ?? 0) > 0) return "authentication (a cookie)";
  if (binding.kind === "graphql") return lower === "content-type" || lower === "accept" ? "the GraphQL runtime" : undefined;
  if (binding.kind === "mcp") return undefined;
  const parameter = binding.parameters.find((p) => (p.in === "header" && p.name.toLowerCase() === lower) || (p.in === "cookie" && lower === "cookie"));
  if (parameter !== undefined) {
    const how = hasOwn(tool.pins, parameter.arg) ? `pinned to ${JSON.stringify(tool.pins[parameter.arg])}` : `argument ${parameter.arg}; to fix its value, pin it with derived()`;
    return `the ${parameter.in} parameter "${parameter.name}" (${how})`;
  }
  if (lower === "content-type" && binding.body !== undefined) return "the request body (its content type)";
  return undefined;
}

function lowerCase(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/**
 * Picks the first security requirement whose every scheme has a credential. An empty
 * requirement (no authentication) is used when no other can be met. Credentials are
 * never put into messages.
 */
async function authFor(tool: string, requirements: readonly (readonly HttpAuthScheme[])[] | undefined, source: CredentialSource | undefined) {
  if (requirements === undefined || requirements.length === 0) return {};
  const lookup = async (scheme: HttpAuthScheme): Promise<HttpCredential | undefined> => {
    if (source === undefined) return undefined;
    if (typeof source === "function") return plain(await source(scheme, tool));
    return plain(Object.prototype.hasOwnProperty.call(source, scheme.scheme) ? source[scheme.scheme] : undefined);
  };
  let anonymous = false;
  for (const requirement of requirements) {
    if (requirement.length === 0) {
      anonymous = true;
      continue;
    }
    const credentials: Record<string, HttpCredential> = {};
    let complete = true;
    for (const scheme of requirement) {
      const credential = await lookup(scheme);
      if (credential === undefined || !fits(scheme, credential)) {
        complete = false;
        break;
      }
      credentials[scheme.scheme] = credential;
    }
    if (complete) return authAdditions(requirement, credentials);
  }
  if (anonymous) return {};
  const options = requirements.map((requirement) => requirement.map((scheme) => `${scheme.scheme} (${scheme.type})`).join(" + ")).join("; or ");
  const schemes = [...new Set(requirements.flat().map((scheme) => scheme.scheme))];
  throw new SluiceError("AUTH_MISSING", `${tool} needs credentials for ${options}; give them in ctx.credentials`, { tool, schemes });
}

/**
 * A credential as the request carries it. The call runtime builds requests only through
 * `CallSecrets.watching`, which has already turned an OAuth 2 client into its current
 * access token; one reaching here would be a bug, so it fails closed.
 */
function plain(credential: SchemeCredential | undefined): HttpCredential | undefined {
  if (isOAuth2Credential(credential)) throw new SluiceError("INVALID_OPTION", "an OAuth 2 credential reached the request builder unresolved");
  return credential;
}

function fits(scheme: HttpAuthScheme, credential: HttpCredential): boolean {
  return scheme.type === "basic" ? "username" in credential : "token" in credential;
}
