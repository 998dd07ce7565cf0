import type { FromEnv, McpServerFact, RuntimeFacts, ToolIR } from "@sluice/core";
import { jsonTextExpression } from "./json-text.ts";
import { compareText } from "./tool-name-helpers.ts";

/**
 * What both generators share about a generated pack's runtime facts: the environment
 * variable names, the secret-looking argument names, and the text of `src/runtime.gen.ts`.
 */

/** Upper snake case words of a name: `clientId` -> `CLIENT_ID`, `github-rest` -> `GITHUB_REST`, `APIKey` -> `API_KEY`. */
export function upperSnake(name: string): string {
  return name
    // One word, not `O_AUTH`.
    .replace(/OAuth/g, "Oauth")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/**
 * `<PACK>_<SCHEME>` environment variable names for a pack's schemes, in upper snake
 * case, without doubling the pack name (`PlaidSecret` in pack `plaid` -> `PLAID_SECRET`).
 * Names that collide (two schemes, or a scheme and a `reserved` name such as the GraphQL
 * endpoint's) get `_2`, `_3`, ... in the order of the scheme names, so the result depends
 * on the set of names only.
 */
export function envVariableNames(pack: string, schemes: readonly string[], reserved: readonly string[] = []): Map<string, string> {
  const prefix = upperSnake(pack);
  const taken = new Set(reserved);
  const out = new Map<string, string>();
  for (const scheme of [...new Set(schemes)].sort(compareText)) {
    const words = upperSnake(scheme);
    const base = words === "" ? prefix : words === prefix || words.startsWith(`${prefix}_`) || prefix === "" ? words : `${prefix}_${words}`;
    let name = /^[0-9]/.test(base) ? `_${base}` : base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
    taken.add(name);
    out.set(scheme, name);
  }
  return out;
}

/** Letters and digits only, lower case: `X-Api-Key`, `x_api_key` and `xApiKey` all read `xapikey`. */
export function squashName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** Names (squashed) that are a credential whatever API they belong to. */
const SECRET_NAMES = new Set([
  "accesstoken",
  "apikey",
  "apisecret",
  "apitoken",
  "authtoken",
  "bearertoken",
  "clientsecret",
  "idtoken",
  "oauthtoken",
  "passphrase",
  "passwd",
  "password",
  "privatekey",
  "refreshtoken",
  "secret",
  "secretkey",
  "sessiontoken",
  "token",
  "xapikey",
]);

/** Endings (squashed) that make a name a credential: `webhook_secret`, `new_password`, `github_api_key`. */
const SECRET_ENDINGS = ["secret", "password", "apikey", "accesstoken", "refreshtoken", "privatekey", "secretkey", "apitoken", "authtoken"];

/**
 * Whether an argument's name looks like it carries a secret. Paging tokens
 * (`page_token`, `sync_token`) and names that merely mention one (`secret_name`,
 * `token_id`) do not.
 */
export function looksSecret(name: string): boolean {
  const squashed = squashName(name);
  return SECRET_NAMES.has(squashed) || SECRET_ENDINGS.some((ending) => squashed.endsWith(ending));
}

/** An `enum` of booleans (and perhaps null); module level, so no closure is made per schema judged. */
function onlyBooleans(values: unknown): boolean {
  return Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === "boolean" || value === null) && values.some((value) => typeof value === "boolean");
}

/**
 * Whether a schema admits only booleans (and perhaps null): `type: "boolean"`, a nullable
 * one, `const`/`enum` of booleans, a union of such branches. A flag named like a secret
 * (`is_secret`, `isSecret`, `has_password`) says whether, never what: no secret rides in it.
 */
export function isBooleanSchema(schema: unknown, depth = 0): boolean {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema) || depth > 20) return false;
  const node = schema as Record<string, unknown>;
  if (Object.hasOwn(node, "const")) return typeof node["const"] === "boolean";
  if (Object.hasOwn(node, "enum")) return onlyBooleans(node["enum"]);
  const type = node["type"];
  if (type === "boolean") return true;
  if (Array.isArray(type)) return type.length > 0 && type.every((t) => t === "boolean" || t === "null") && type.includes("boolean");
  if (type !== undefined) return false;
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = node[keyword];
    // Each branch a boolean or a bare null: `anyOf: [{ type: "boolean" }, { type: "null" }]`.
    if (Array.isArray(branches) && branches.length > 0) return branches.every((branch) => isBooleanSchema(branch, depth + 1) || (typeof branch === "object" && branch !== null && (branch as Record<string, unknown>)["type"] === "null")) && branches.some((branch) => isBooleanSchema(branch, depth + 1));
  }
  return false;
}

/**
 * Arguments the model sees whose names look like secrets, minus the `excluded` wire
 * names (those already filled from a declared credential) and boolean flags
 * (`is_secret: boolean`). Sorted by tool, then argument.
 */
export function secretLookingArguments(tools: readonly ToolIR[], excluded: ReadonlySet<string> = new Set()): { tool: string; argument: string }[] {
  const out: { tool: string; argument: string }[] = [];
  // Names repeat across operations (Kubernetes: the same dozen on a thousand): each is judged once.
  const judged = new Map<string, boolean>();
  const secret = (name: string): boolean => {
    let known = judged.get(name);
    if (known === undefined) judged.set(name, (known = looksSecret(name)));
    return known;
  };
  for (const tool of tools) {
    const wire = wireNames(tool);
    const headers = new Set(tool.binding.kind === "http" ? tool.binding.parameters.filter((p) => p.in === "header").map((p) => p.arg) : []);
    for (const argument of Object.keys(tool.parameters.properties)) {
      // `authorization` elsewhere is often a resource (Stripe's issuing authorizations); as a header it is the credential.
      const authorizationHeader = headers.has(argument) && squashName(wire.get(argument) ?? argument) === "authorization";
      if (!authorizationHeader && !secret(argument) && !secret(wire.get(argument) ?? argument)) continue;
      if (excluded.has(wire.get(argument) ?? argument)) continue;
      if (!authorizationHeader && isBooleanSchema(tool.parameters.properties[argument])) continue;
      out.push({ tool: tool.name, argument });
    }
  }
  return out.sort((a, b) => compareText(a.tool, b.tool) || compareText(a.argument, b.argument));
}

/** Argument -> name on the wire (HTTP parameters and body members; GraphQL arguments are their own names). */
export function wireNames(tool: ToolIR): Map<string, string> {
  const out = new Map<string, string>();
  if (tool.binding.kind !== "http") return out;
  for (const parameter of tool.binding.parameters) out.set(parameter.arg, parameter.name);
  for (const [arg, member] of Object.entries(tool.binding.body?.fields ?? {})) out.set(arg, member);
  return out;
}

/** Keys sorted, so the emitted text depends on the facts and not on the order they were found in. */
function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort(compareText)) Object.defineProperty(out, key, { value: record[key], enumerable: true, writable: true, configurable: true });
  return out;
}

/** The facts with every member in its fixed place, optional members only when present. */
export function normalizeRuntimeFacts(facts: RuntimeFacts): RuntimeFacts {
  return {
    kind: facts.kind,
    ...(facts.mcp === undefined ? {} : { mcp: normalizeMcpFact(facts.mcp) }),
    ...(facts.name === undefined ? {} : { name: facts.name }),
    ...(facts.server === undefined
      ? {}
      : {
          server: {
            url: facts.server.url,
            from: facts.server.from,
            variables: facts.server.variables.map((v) => ({ name: v.name, default: v.default, ...(v.enum === undefined ? {} : { enum: [...v.enum] }) })),
          },
        }),
    ...(facts.endpoint === undefined ? {} : { endpoint: { env: facts.endpoint.env, ...(facts.endpoint.url === undefined ? {} : { url: facts.endpoint.url }) } }),
    credentials: facts.credentials.map((c) => ({
      scheme: c.scheme,
      type: c.type,
      ...(c.in === undefined ? {} : { in: c.in }),
      ...(c.name === undefined ? {} : { name: c.name }),
      env: c.env,
      ...(c.argumentOnly === true ? { argumentOnly: true } : {}),
      ...(c.oauth2 === undefined
        ? {}
        : { oauth2: { tokenUrl: c.oauth2.tokenUrl, clientIdEnv: c.oauth2.clientIdEnv, clientSecretEnv: c.oauth2.clientSecretEnv, refreshTokenEnv: c.oauth2.refreshTokenEnv } }),
    })),
    pagination: sortedRecord(facts.pagination),
    credentialArguments: sortedRecord(facts.credentialArguments),
    secretLooking: facts.secretLooking.map((s) => ({ tool: s.tool, argument: s.argument })),
    ...(facts.responses === undefined ? {} : { responses: facts.responses === "off" ? "off" : { shared: facts.responses.shared, tools: sortedRecord(facts.responses.tools) } }),
    ...(facts.reformatters === undefined
      ? {}
      : { reformatters: { ...(facts.reformatters.pack === undefined ? {} : { pack: facts.reformatters.pack }), ...(facts.reformatters.tools === undefined ? {} : { tools: sortedRecord(facts.reformatters.tools) }) } }),
    ...(facts.selection === undefined
      ? {}
      : {
          selection: {
            rules: [...facts.selection.rules],
            tools: facts.selection.tools,
            leftOut: facts.selection.leftOut.map((t) => ({ tool: t.tool, reason: t.reason })),
            renamed: facts.selection.renamed.map((r) => ({ from: r.from, to: r.to })),
            described: facts.selection.described.map((d) => ({ tool: d.tool, description: d.description })),
          },
        }),
  };
}

function normalizeMcpFact(fact: McpServerFact): McpServerFact {
  const values = (record: Readonly<Record<string, string | FromEnv>>) => {
    const out: Record<string, string | FromEnv> = {};
    for (const key of Object.keys(record).sort(compareText)) {
      const value = record[key]!;
      Object.defineProperty(out, key, { value: typeof value === "string" ? value : { fromEnv: value.fromEnv }, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  if ("command" in fact) {
    return { command: fact.command, args: [...fact.args], ...(fact.env === undefined ? {} : { env: values(fact.env) }), ...(fact.cwd === undefined ? {} : { cwd: fact.cwd }) };
  }
  return { url: fact.url, ...(fact.headers === undefined ? {} : { headers: values(fact.headers) }) };
}

/**
 * The text of a generated pack's `src/runtime.gen.ts`: `header` (the generated-file
 * marker), then `export const facts: RuntimeFacts = JSON.parse(...)`, the facts as
 * two-space JSON text with keys in a fixed order (see json-text.ts: the type checker of a
 * project importing the pack reads the declared type, not the data). The hand-written
 * `runtime.ts` scaffold passes `facts` to `generatedRuntime`.
 */
export function emitRuntimeFactsSource(facts: RuntimeFacts, header: string): string {
  const lead = header === "" || header.endsWith("\n") ? header : `${header}\n`;
  return `${lead}import type { RuntimeFacts } from "@sluice/core";\n\nexport const facts: RuntimeFacts = ${jsonTextExpression(normalizeRuntimeFacts(facts))};\n`;
}
