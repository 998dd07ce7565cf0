import type { OAuth2Settings, PackIR, RuntimeFacts, ServerVariableFact } from "@sluice/core";
import { envVariableNames, secretLookingArguments } from "@sluice/emit";
import { getOwn } from "@sluice/schema";
import { credentialArguments, declaredSchemes } from "./credential-arguments.ts";
import { detectPagination } from "./pagination-facts.ts";
import { RefResolver } from "@sluice/schema-convert";
import { loadReferencedFile } from "./referenced-file.ts";
import { serverUrl, swagger2ServerUrl } from "./server-object.ts";

export interface OpenAPIRuntimeFactsOptions {
  /** The same external `$ref` map the pack was built with (nothing is ever fetched). */
  externalRefs?: Readonly<Record<string, string>>;
  /** Pagination also where the answer is left open but the API's convention is clear (see `DetectPaginationOptions`). Default false. */
  paginationByConvention?: boolean;
}

/**
 * What a generated OpenAPI pack's runtime learns from its spec: the base URL, one
 * credential (and its environment variable) per security scheme, pagination where the
 * responses confirm a known pattern, arguments that duplicate a credential, and
 * arguments that look like secrets. `ir` is the pack built from `document`.
 */
export function openapiRuntimeFacts(document: unknown, ir: PackIR, options: OpenAPIRuntimeFactsOptions = {}): RuntimeFacts {
  const resolver = new RefResolver(document, options.externalRefs, loadReferencedFile);
  const schemes = declaredSchemes(document, resolver);
  const envNames = envVariableNames(ir.name, schemes.map((s) => s.scheme));
  const duplicates = credentialArguments(ir.tools, schemes, ir.name, ir.defs);
  // Arguments already filled from a credential (explicit `credentialParameters`) are not warned about.
  const filled = new Set(Object.keys(duplicates));
  for (const tool of ir.tools) {
    if (tool.binding.kind !== "http") continue;
    for (const parameter of tool.binding.parameters) if (parameter.credential !== undefined) filled.add(parameter.name);
    for (const arg of Object.keys(tool.binding.body?.credentialFields ?? {})) filled.add(tool.binding.body?.fields?.[arg] ?? arg);
  }
  return {
    kind: "openapi",
    name: ir.name,
    server: serverFacts(document, ir),
    credentials: schemes.map((s) => ({
      scheme: s.scheme,
      type: s.type,
      ...(s.in === undefined ? {} : { in: s.in }),
      ...(s.name === undefined ? {} : { name: s.name }),
      env: envNames.get(s.scheme)!,
      ...(s.tokenUrl === undefined ? {} : { oauth2: oauth2Settings(s.tokenUrl, envNames.get(s.scheme)!) }),
    })),
    pagination: detectPagination(document, ir.tools, resolver, { byConvention: options.paginationByConvention === true }),
    credentialArguments: duplicates,
    secretLooking: secretLookingArguments(ir.tools, filled),
  };
}

/** The OAuth 2 client's variables: the token variable's name with `_CLIENT_ID`, `_CLIENT_SECRET`, `_REFRESH_TOKEN`. */
function oauth2Settings(tokenUrl: string, env: string): OAuth2Settings {
  return { tokenUrl, clientIdEnv: `${env}_CLIENT_ID`, clientSecretEnv: `${env}_CLIENT_SECRET`, refreshTokenEnv: `${env}_REFRESH_TOKEN` };
}

/**
 * The document's base URL as the bindings use it (the first Server Object, variables at
 * their defaults; or Swagger 2.0's `host` + `basePath`), with the server's variables.
 * https://spec.openapis.org/oas/v3.1.0#server-variable-object
 */
function serverFacts(document: unknown, ir: PackIR): NonNullable<RuntimeFacts["server"]> {
  if (typeof getOwn(document, "swagger") === "string") {
    const url = swagger2ServerUrl(document);
    return url === undefined ? { url: "", from: "none", variables: [] } : { url, from: "host+basePath", variables: [] };
  }
  const servers = getOwn(document, "servers");
  const url = serverUrl(servers);
  if (url !== undefined) return { url, from: "servers", variables: serverVariables(Array.isArray(servers) ? servers[0] : undefined) };
  // No document-level server: the one most operations name, if any (ties: the first by text).
  const counts = new Map<string, number>();
  for (const tool of ir.tools) if (tool.binding.kind === "http" && tool.binding.server !== undefined) counts.set(tool.binding.server, (counts.get(tool.binding.server) ?? 0) + 1);
  const common = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))[0];
  return common === undefined ? { url: "", from: "none", variables: [] } : { url: common[0], from: "servers", variables: [] };
}

function serverVariables(server: unknown): ServerVariableFact[] {
  const variables = getOwn(server, "variables");
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) return [];
  const out: ServerVariableFact[] = [];
  for (const [name, variable] of Object.entries(variables)) {
    const value = getOwn(variable, "default");
    const choices = getOwn(variable, "enum");
    out.push({
      name,
      default: typeof value === "string" || typeof value === "number" ? String(value) : "",
      ...(Array.isArray(choices) ? { enum: choices.filter((c) => typeof c === "string" || typeof c === "number").map(String) } : {}),
    });
  }
  return out;
}
