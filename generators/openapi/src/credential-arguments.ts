import type { CredentialType, PackIR, ToolIR } from "@sluice/core";
import { compareText, isBooleanSchema, squashName } from "@sluice/emit";
import { getOwn } from "@sluice/schema";
import { RefResolver } from "@sluice/schema-convert";

/**
 * Security schemes as a generated pack's credentials see them, and the arguments that
 * duplicate one (a fintech API asking for `client_id` and `secret` in the body beside
 * its `PLAID-CLIENT-ID` / `PLAID-SECRET` apiKey headers).
 * https://spec.openapis.org/oas/v3.1.0#security-scheme-object
 * https://swagger.io/specification/v2/#security-definitions-object
 */

export interface DeclaredScheme {
  scheme: string;
  type: CredentialType;
  in?: "header" | "query" | "cookie";
  name?: string;
  /** OAuth 2: the token endpoint of the first flow that has one (absolute URLs only). */
  tokenUrl?: string;
}

/**
 * Every security scheme the document declares that sluice can send, sorted by name.
 * HTTP schemes other than bearer and basic (digest, ...) and mutual TLS are left out:
 * no variable could satisfy them.
 */
export function declaredSchemes(document: unknown, resolver = new RefResolver(document)): DeclaredScheme[] {
  const swagger = typeof getOwn(document, "swagger") === "string";
  const table = swagger ? getOwn(document, "securityDefinitions") : getOwn(getOwn(document, "components"), "securitySchemes");
  if (typeof table !== "object" || table === null || Array.isArray(table)) return [];
  const out: DeclaredScheme[] = [];
  for (const [scheme, raw] of Object.entries(table)) {
    let definition: unknown;
    try {
      definition = resolver.deref(raw, resolver.main, `/components/securitySchemes/${scheme}`).value;
    } catch {
      continue;
    }
    const declared = declaredScheme(scheme, definition);
    if (declared !== undefined) out.push(declared);
  }
  return out.sort((a, b) => compareText(a.scheme, b.scheme));
}

function declaredScheme(scheme: string, definition: unknown): DeclaredScheme | undefined {
  switch (getOwn(definition, "type")) {
    case "http": {
      const kind = String(getOwn(definition, "scheme") ?? "").toLowerCase();
      return kind === "bearer" || kind === "basic" ? { scheme, type: kind } : undefined;
    }
    case "basic":
      return { scheme, type: "basic" };
    case "oauth2": {
      const tokenUrl = oauth2TokenUrl(definition);
      return tokenUrl === undefined ? { scheme, type: "oauth2" } : { scheme, type: "oauth2", tokenUrl };
    }
    case "openIdConnect":
      return { scheme, type: "openIdConnect" };
    case "apiKey": {
      const where = getOwn(definition, "in");
      const name = getOwn(definition, "name");
      return (where === "header" || where === "query" || where === "cookie") && typeof name === "string" ? { scheme, type: "apiKey", in: where, name } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Where an OAuth 2 scheme's tokens are fetched: the `tokenUrl` of its client-credentials
 * flow, else of its authorization-code flow (whose refresh tokens it redeems), else of its
 * password flow; Swagger 2.0 names one per scheme (flows `application`, `accessCode`,
 * `password`). The implicit flow has none. A relative or non-http(s) URL is left out: a
 * token endpoint is taken only as the spec spells it, never resolved against anything.
 * https://spec.openapis.org/oas/v3.1.0#oauth-flows-object
 * https://swagger.io/specification/v2/#security-scheme-object
 */
function oauth2TokenUrl(definition: unknown): string | undefined {
  const flows = getOwn(definition, "flows");
  const candidates = flows === undefined ? [getOwn(definition, "tokenUrl")] : ["clientCredentials", "authorizationCode", "password"].map((flow) => getOwn(getOwn(flows, flow), "tokenUrl"));
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    try {
      const url = new URL(candidate);
      if (url.protocol === "https:" || url.protocol === "http:") return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Words of a name, lower case: `PLAID-CLIENT-ID` -> plaid, client, id; `xApiKey` -> x, api, key. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/**
 * The squashed forms an argument may take to duplicate an apiKey named `name`: the
 * whole name, and the name without each run of leading vendor words (`X-Api-Key` ->
 * `apikey`; `PLAID-CLIENT-ID` -> `clientid`). At least one word always stays.
 */
function duplicateForms(name: string, vendor: ReadonlySet<string>): string[] {
  const parts = words(name);
  const forms = [parts.join("")];
  for (let i = 0; i < parts.length - 1 && vendor.has(parts[i]!); i += 1) forms.push(parts.slice(i + 1).join(""));
  return forms;
}

/**
 * Vendor words: `x`, the words of the pack's name, and a leading word two or more apiKey
 * names share (`PLAID` in `PLAID-CLIENT-ID` and `PLAID-SECRET`).
 */
function vendorWords(pack: string, schemes: readonly DeclaredScheme[]): Set<string> {
  const vendor = new Set(["x", ...words(pack)]);
  const leading = new Map<string, number>();
  for (const scheme of schemes) {
    const first = words(scheme.name ?? "")[0];
    if (first !== undefined) leading.set(first, (leading.get(first) ?? 0) + 1);
  }
  for (const [word, count] of leading) if (count >= 2) vendor.add(word);
  return vendor;
}

/**
 * Names on the wire an argument of this tool is sent under (non-path parameters and
 * top-level body members), leaving out flags: a boolean named `secret` says whether, never
 * what, and cannot carry the key (the rule secretLookingArguments applies). Names in `known`
 * are passed over unjudged: their verdict is already taken (Kubernetes sends `pretty` and
 * `dryRun` from a thousand operations, each a schema to judge).
 */
function sentNames(tool: ToolIR, known: ReadonlySet<string>): string[] {
  if (tool.binding.kind !== "http") return [];
  const properties = tool.parameters.properties;
  const mayCarry = (arg: string) => !isBooleanSchema(Object.hasOwn(properties, arg) ? properties[arg] : undefined);
  const names: string[] = [];
  for (const p of tool.binding.parameters) if (p.in !== "path" && !known.has(p.name) && mayCarry(p.arg)) names.push(p.name);
  for (const [arg, wire] of Object.entries(tool.binding.body?.fields ?? {})) if (!known.has(wire) && mayCarry(arg)) names.push(wire);
  return names;
}

/**
 * Member names at any depth of a schema (properties of objects, through unions and items),
 * without following `$ref`s: a body that stays whole or a nested object sends these too.
 * Boolean members are left out, as in sentNames. Tools share converted schemas (a shared
 * parameter, a body many operations send): `walked` holds each object with the least depth
 * it was walked at, and one met again no deeper is not walked again, its names already found.
 */
function memberNames(schema: unknown, out: Set<string>, known: ReadonlySet<string>, walked: WeakMap<object, number>, depth = 0): void {
  if (typeof schema !== "object" || schema === null || depth > 200) return;
  const before = walked.get(schema);
  if (before !== undefined && before <= depth) return;
  walked.set(schema, depth);
  if (Array.isArray(schema)) {
    for (let i = 0; i < schema.length; i += 1) memberNames(schema[i], out, known, walked, depth + 1);
    return;
  }
  const node = schema as Record<string, unknown>;
  const keywords = Object.keys(node);
  for (let k = 0; k < keywords.length; k += 1) {
    const keyword = keywords[k]!;
    const value = node[keyword];
    if (keyword === "properties" && typeof value === "object" && value !== null) {
      const members = Object.keys(value);
      for (let m = 0; m < members.length; m += 1) {
        const member = members[m]!;
        const sub = (value as Record<string, unknown>)[member];
        // A name already judged is not judged again (see sentNames).
        if (!known.has(member) && !out.has(member) && !isBooleanSchema(sub)) out.add(member);
        memberNames(sub, out, known, walked, depth + 1);
      }
    } else if (NESTING_KEYWORDS.has(keyword)) {
      memberNames(value, out, known, walked, depth + 1);
    }
  }
}

/** The keywords memberNames descends through besides `properties`. */
const NESTING_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "items", "prefixItems", "contains", "not", "if", "then", "else"]);

/**
 * Arguments that duplicate a declared apiKey credential: name on the wire -> scheme, for
 * parameters, body members at any depth (a body kept whole, a nested object, a union
 * branch; `defs` are the pack's shared definitions). An argument duplicates a key when their names agree modulo case, `-`/`_` and leading
 * vendor words (`client_id` ~ `PLAID-CLIENT-ID`, `api_key` ~ `X-Api-Key`). Where two
 * schemes fit, the first by name wins.
 */
export function credentialArguments(tools: readonly ToolIR[], schemes: readonly DeclaredScheme[], pack: string, defs: Readonly<Record<string, unknown>> = {}): Record<string, string> {
  const apiKeys = schemes.filter((s) => s.type === "apiKey" && s.name !== undefined);
  if (apiKeys.length === 0) return {};
  const vendor = vendorWords(pack, apiKeys);
  const byForm = new Map<string, string>();
  for (const scheme of apiKeys) {
    for (const form of duplicateForms(scheme.name!, vendor)) if (form !== "" && !byForm.has(form)) byForm.set(form, scheme.scheme);
  }
  const found = new Map<string, string>();
  // Operations send the same few names again and again (Kubernetes: `pretty`, `dryRun` on a thousand operations): each is looked at once.
  const seen = new Set<string>();
  const walked = new WeakMap<object, number>();
  const consider = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const scheme = byForm.get(squashName(name));
    if (scheme !== undefined) found.set(name, scheme);
  };
  for (const tool of tools) {
    for (const name of sentNames(tool, seen)) consider(name);
    // Members of bodies kept whole, nested members and union branches (credential-members.ts withholds them).
    const nested = new Set<string>();
    for (const schema of Object.values(tool.parameters.properties)) memberNames(schema, nested, seen, walked);
    for (const name of nested) consider(name);
  }
  const inDefs = new Set<string>();
  for (const schema of Object.values(defs)) memberNames(schema, inDefs, seen, walked);
  for (const name of inDefs) consider(name);
  const out: Record<string, string> = {};
  for (const name of [...found.keys()].sort(compareText)) Object.defineProperty(out, name, { value: found.get(name), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * `credentialParameters` for a rebuild of `ir` with the detected duplicates added
 * (`explicit` entries win), or undefined when detection adds nothing.
 */
export function detectedCredentialParameters(document: unknown, ir: PackIR, explicit: Readonly<Record<string, string>>): Record<string, string> | undefined {
  const detected = credentialArguments(ir.tools, declaredSchemes(document), ir.name, ir.defs);
  const added = Object.keys(detected).filter((name) => !Object.prototype.hasOwnProperty.call(explicit, name));
  if (added.length === 0) return undefined;
  const merged: Record<string, string> = {};
  for (const name of added) Object.defineProperty(merged, name, { value: detected[name], enumerable: true, writable: true, configurable: true });
  for (const [name, scheme] of Object.entries(explicit)) Object.defineProperty(merged, name, { value: scheme, enumerable: true, writable: true, configurable: true });
  return merged;
}
