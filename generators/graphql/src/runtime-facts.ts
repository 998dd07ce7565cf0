import { relayPagination, type CredentialFact, type PackIR, type Pagination, type RuntimeFacts } from "@sluice/core";
import { compareText, envVariableNames, secretLookingArguments } from "@sluice/emit";

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
    secretLooking: secretLookingArguments(ir.tools),
  };
}
