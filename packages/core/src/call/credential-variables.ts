import { getOwn, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { GraphQLBinding } from "../tool-ir.ts";
import type { CredentialSource } from "./types.ts";

/** What the fill needs of a tool: its name, its (visible) input schema and where its defs came from. */
export interface CredentialVariablesTool {
  readonly name: string;
  readonly inputSchema: JsonSchemaObject;
  readonly definitionOrigins: ReadonlyMap<string, string>;
}

/**
 * The GraphQL variables of a call with the credential-carrying ones filled in: each
 * credential variable (Shopify Storefront's `customerAccessToken`) from the token of its
 * scheme, and each credential member (`CartBuyerIdentityInput.customerAccessToken`) in
 * every value of its type the arguments hold. Whatever sits there beforehand is removed
 * first: screening refused the model's value already, and this makes the wire carry the
 * credential or nothing even if screening were bypassed. A required one without a
 * credential is AUTH_MISSING, naming the scheme (never a value).
 */
export async function withCredentialVariables(tool: CredentialVariablesTool, binding: GraphQLBinding, variables: Record<string, unknown>, source: CredentialSource | undefined): Promise<Record<string, unknown>> {
  const direct = Object.entries(binding.credentialVariables ?? {});
  const members = Object.entries(binding.credentialMembers ?? {});
  if (direct.length === 0 && members.length === 0) return variables;
  const tokens = new Map<string, string | undefined>();
  const tokenOf = async (scheme: string): Promise<string | undefined> => {
    if (!tokens.has(scheme)) {
      const credential =
        source === undefined ? undefined : typeof source === "function" ? await source({ scheme, type: "bearer" }, tool.name) : Object.prototype.hasOwnProperty.call(source, scheme) ? source[scheme] : undefined;
      tokens.set(scheme, credential !== undefined && "token" in credential ? credential.token : undefined);
    }
    return tokens.get(scheme);
  };
  const missing = (scheme: string, where: string): never => {
    throw new SluiceError("AUTH_MISSING", `${tool.name} needs a token for ${scheme} (sent as ${where}); give it in ctx.credentials`, { tool: tool.name, schemes: [scheme] });
  };

  const out = { ...variables };
  for (const [name, scheme] of direct) {
    const token = await tokenOf(scheme);
    fill(out, name, token);
    if (token === undefined && binding.variables[name]?.endsWith("!") === true) missing(scheme, `the GraphQL variable $${name}`);
  }
  if (members.length === 0) return out;
  // Filled into a copy: the screened arguments also feed the response handler and the next
  // page's arguments, which reach the model and must never hold a credential.
  for (const name of Object.keys(out)) define(out, name, structuredClone(out[name]));

  const byType = new Map<string, { member: string; scheme: string; required: boolean }[]>();
  for (const [path, { scheme, required }] of members) {
    const dot = path.indexOf(".");
    const type = path.slice(0, dot);
    byType.set(type, [...(byType.get(type) ?? []), { member: path.slice(dot + 1), scheme, required }]);
  }
  for (const scheme of new Set(members.map(([, entry]) => entry.scheme))) await tokenOf(scheme);
  const defs = getOwn(tool.inputSchema, "$defs");
  const properties = getOwn(tool.inputSchema, "properties");
  // The arguments are a finite JSON value (screened for size and depth): walking them, not the
  // schema, ends even where the input types are recursive.
  const stack: { value: unknown; schema: unknown }[] = [];
  for (const name of Object.keys(out)) stack.push({ value: out[name], schema: getOwn(properties, name) });
  while (stack.length > 0) {
    const { value, schema } = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    const { schema: resolved, type } = resolveRef(schema, defs, tool.definitionOrigins);
    if (Array.isArray(value)) {
      const items = getOwn(resolved, "items");
      for (const item of value) stack.push({ value: item, schema: items });
      continue;
    }
    const record = value as Record<string, unknown>;
    const nested = getOwn(resolved, "properties");
    for (const key of Object.keys(record)) stack.push({ value: record[key], schema: getOwn(nested, key) });
    for (const { member, scheme, required } of (type === undefined ? undefined : byType.get(type)) ?? []) {
      const token = tokens.get(scheme);
      fill(record, member, token);
      if (token === undefined && required) missing(scheme, `${type}.${member} in the GraphQL variables`);
    }
  }
  return out;
}

/** A schema with its local `$ref` followed (one step: GraphQL input defs never alias one another), and the input type it stands for. */
function resolveRef(schema: unknown, defs: unknown, origins: ReadonlyMap<string, string>): { schema: unknown; type?: string } {
  const ref = getOwn(schema, "$ref");
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) return { schema };
  const name = ref.slice("#/$defs/".length);
  return { schema: getOwn(defs, name), type: origins.get(name) ?? name };
}

/**
 * The credential, or nothing, at `key`. Without the guard this is the naive fill, a
 * default that keeps a value already there, which the guard's test tells apart.
 */
function fill(target: Record<string, unknown>, key: string, token: string | undefined): void {
  if (!guards.credentialVariables) {
    if (token !== undefined && !Object.prototype.hasOwnProperty.call(target, key)) define(target, key, token);
    return;
  }
  delete target[key];
  if (token !== undefined) define(target, key, token);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
