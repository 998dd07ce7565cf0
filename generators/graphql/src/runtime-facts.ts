import { relayPagination, type PackIR, type Pagination, type RuntimeFacts } from "@sluice/core";
import { compareText, envVariableNames, secretLookingArguments } from "@sluice/emit";

/** The scheme name of a GraphQL pack's default credential (a schema declares no authentication). */
export const GRAPHQL_TOKEN_SCHEME = "token";

/**
 * What a generated GraphQL pack's runtime learns from its schema. A schema names neither
 * its endpoint nor its authentication: the endpoint is a setting the user gives
 * (`<PACK>_ENDPOINT`), the credential a bearer token (`<PACK>_TOKEN`). Tools whose root
 * field is a Relay connection (`first`/`after`, `pageInfo { hasNextPage endCursor }`)
 * page with `after`.
 */
export function graphqlRuntimeFacts(ir: PackIR): RuntimeFacts {
  const endpoint = envVariableNames(ir.name, ["endpoint"]).get("endpoint")!;
  const token = envVariableNames(ir.name, [GRAPHQL_TOKEN_SCHEME], [endpoint]).get(GRAPHQL_TOKEN_SCHEME)!;
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
    credentials: [{ scheme: GRAPHQL_TOKEN_SCHEME, type: "bearer", env: token }],
    pagination,
    credentialArguments: {},
    secretLooking: secretLookingArguments(ir.tools),
  };
}
