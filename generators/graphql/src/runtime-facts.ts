import { relayPagination, type CredentialFact, type PackIR, type Pagination, type RuntimeFacts } from "@sluice/core";
import { compareText, envVariableNames, isBooleanSchema, looksSecret, secretLookingArguments, squashName } from "@sluice/emit";
import { refsFrom, ROOT } from "@sluice/schema";

/** The scheme name of a GraphQL pack's default credential (a schema declares no authentication). */
export const GRAPHQL_TOKEN_SCHEME = "token";

/**
 * What a generated GraphQL pack's runtime learns from its schema. A schema names neither
 * its endpoint nor its authentication: the endpoint is a setting the user gives
 * (`<PACK>_ENDPOINT`), the credential a bearer token (`<PACK>_TOKEN`), plus one variable
 * per scheme of the config's credential arguments (`<PACK>_<SCHEME>`). Tools whose root
 * field is a Relay connection (`first`/`after`, `pageInfo { hasNextPage endCursor }`)
 * page with `after`.
 */
export function graphqlRuntimeFacts(ir: PackIR): RuntimeFacts {
  const endpoint = envVariableNames(ir.name, ["endpoint"]).get("endpoint")!;
  // Credential arguments (`credentialArguments` in the config) by what they are called in the
  // config's terms: the argument, or `Type.member`, and the scheme each one's credential has.
  const credentialArguments = new Map<string, string>();
  for (const tool of ir.tools) {
    if (tool.binding.kind !== "graphql") continue;
    for (const [variable, scheme] of Object.entries(tool.binding.credentialVariables ?? {})) credentialArguments.set(variable, scheme);
    for (const [member, { scheme }] of Object.entries(tool.binding.credentialMembers ?? {})) credentialArguments.set(member, scheme);
  }
  // A scheme of their own goes into variables only; `token` is also the bearer token.
  const argumentSchemes = [...new Set(credentialArguments.values())].filter((scheme) => scheme !== GRAPHQL_TOKEN_SCHEME).sort(compareText);
  const variables = envVariableNames(ir.name, [GRAPHQL_TOKEN_SCHEME, ...argumentSchemes], [endpoint]);
  const credentials: CredentialFact[] = [
    { scheme: GRAPHQL_TOKEN_SCHEME, type: "bearer", env: variables.get(GRAPHQL_TOKEN_SCHEME)! },
    ...argumentSchemes.map((scheme): CredentialFact => ({ scheme, type: "bearer", env: variables.get(scheme)!, argumentOnly: true })),
  ];
  const pagination: Record<string, Pagination> = {};
  for (const tool of [...ir.tools].sort((a, b) => compareText(a.name, b.name))) {
    const found = tool.binding.kind === "graphql" ? relayPagination(tool.binding) : undefined;
    // The marker must be an argument the model sees; definePack refuses anything else.
    if (found === undefined || !Object.prototype.hasOwnProperty.call(tool.parameters.properties, found.arg)) continue;
    Object.defineProperty(pagination, tool.name, { value: found, enumerable: true, writable: true, configurable: true });
  }
  return {
    kind: "graphql",
    name: ir.name,
    endpoint: { env: endpoint },
    credentials,
    pagination,
    credentialArguments: Object.fromEntries([...credentialArguments].sort(([a], [b]) => compareText(a, b))),
    secretLooking: [...secretLookingArguments(ir.tools), ...secretLookingMembers(ir)].sort((a, b) => compareText(a.tool, b.tool) || compareText(a.argument, b.argument)),
  };
}

/** Card verification codes: secrets by what they are, though no word in them says so. */
const CARD_CODES = new Set(["cvv", "cvc", "cvv2", "cvc2", "cid", "securitycode", "cardsecuritycode", "cardverificationcode"]);


/** A member schema of a secret-named custom scalar (input-schema.ts marks it `format: password`), directly or through `$ref`. */
function secretTyped(schema: unknown, defs: PackIR["defs"]): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const node = schema as Record<string, unknown>;
  if (node.format === "password") return true;
  if (typeof node.$ref === "string") return secretTyped(defs[node.$ref.replace(/^#\/\$defs\//, "")], defs);
  const items = node.items;
  if (items !== undefined) return secretTyped(items, defs);
  const variants = Array.isArray(node.anyOf) ? node.anyOf : [];
  return variants.some((variant) => secretTyped(variant, defs));
}

/**
 * Secret-looking input members at any depth (`CreditCardInput.cvv`, `UserUpdateInput.newPassword`,
 * a member typed `SecureValue`), named as `Type.member`, the selector `withhold` and
 * `credentialArguments` take, once per tool that reaches the type. Arguments typed with a
 * secret-named scalar are added by their own name.
 */
function secretLookingMembers(ir: PackIR): { tool: string; argument: string }[] {
  const secretMembers = new Map<string, string[]>();
  for (const [type, def] of Object.entries(ir.defs)) {
    const properties = (def.properties ?? {}) as Record<string, unknown>;
    // A boolean says whether, never what (`noSecret`, `isSecret`): no secret rides in it.
    const members = Object.keys(properties).filter((member) => !isBooleanSchema(properties[member]) && (looksSecret(member) || CARD_CODES.has(squashName(member)) || secretTyped(properties[member], ir.defs)));
    if (members.length > 0) secretMembers.set(type, members);
  }
  const out: { tool: string; argument: string }[] = [];
  const reachCache = new Map<string, Set<string>>();
  const reach = (name: string): Set<string> => {
    const known = reachCache.get(name);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const queue = [name];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (seen.has(next) || ir.defs[next] === undefined) continue;
      seen.add(next);
      for (const target of refsFrom(ir.defs[next]!, `/$defs/${next}`, false)) if (target !== ROOT) queue.push(target);
    }
    reachCache.set(name, seen);
    return seen;
  };
  for (const tool of ir.tools) {
    const properties = tool.parameters.properties as Record<string, unknown>;
    const types = new Set<string>();
    for (const target of refsFrom({ type: "object", properties: tool.parameters.properties }, "", true)) if (target !== ROOT) for (const type of reach(target)) types.add(type);
    for (const type of types) for (const member of secretMembers.get(type) ?? []) out.push({ tool: tool.name, argument: `${type}.${member}` });
    for (const [argument, schema] of Object.entries(properties)) if (!looksSecret(argument) && (CARD_CODES.has(squashName(argument)) || secretTyped(schema, ir.defs))) out.push({ tool: tool.name, argument });
  }
  return out;
}
