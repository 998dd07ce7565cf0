/**
 * A GraphQL schema (SDL or an introspection result) as a source of the pipeline (@sluice/emit's
 * PackSource): a tool per Query and Mutation root field, the endpoint and bearer token as its
 * runtime facts. It withholds by its own selectors (`Type.member`, `Query.field.argument`),
 * since a withheld variable must also leave the operation document.
 * https://spec.graphql.org/October2021/#sec-Root-Operation-Types
 */
import { getOwn, hasOwn } from "@sluice/schema";
import type { PackIR } from "@sluice/core";
import type { EmittedFile, PackSource, SourceInput, SourceRead } from "@sluice/emit";
import { buildGraphQLPackIR } from "./build-pack-ir.ts";
import { emitPackSources } from "./emit-pack-sources.ts";
import { GRAPHQL_GENERATOR } from "./generator-info.ts";
import { loadGraphQLSchema } from "./load-schema.ts";
import { graphqlRuntimeFacts } from "./runtime-facts.ts";

const NO_TAGS = "a GraphQL schema has no tags; select by operations or tools";
const NO_PATHS = "a GraphQL schema has no paths; select by operations or tools";

export const graphqlSource: PackSource = {
  kind: "graphql",
  unsupported: {
    baseUrl: "a GraphQL pack's server is endpoint",
    detectCredentialArguments: "name credential arguments in credentialArguments",
    externalRefs: "a GraphQL schema has no $ref",
    "include.tags": NO_TAGS,
    "include.paths": NO_PATHS,
    "exclude.tags": NO_TAGS,
    "exclude.paths": NO_PATHS,
  },
  withholdsItself: true,
  collapseSpec: true,
  read: readGraphQL,
};

async function readGraphQL(input: SourceInput): Promise<SourceRead> {
  const { choices, step } = input;
  step(`parsing ${input.file}`);
  const schema = loadGraphQLSchema(input.bytes, { fileName: input.file });
  step("building tools");
  const ir = buildGraphQLPackIR(schema, { name: input.name, file: input.file, sha256: input.sha256 }, {
    select: (info) => input.select({ tool: info.tool, names: [info.field, `${info.operationType === "query" ? "Query" : "Mutation"}.${info.field}`], suggest: [info.field] }),
    ...(choices.credentialArguments === undefined ? {} : { credentialArguments: choices.credentialArguments }),
    ...(choices.withhold === undefined ? {} : { withhold: choices.withhold }),
  });
  const { authHeader } = choices;
  return {
    ir,
    generator: GRAPHQL_GENERATOR,
    facts: (final) => {
      const facts = graphqlRuntimeFacts(final);
      // Only the bearer token moves into the header; a credential argument's own scheme stays in the variables.
      if (authHeader === undefined) return facts;
      return { ...facts, credentials: facts.credentials.map((credential) => (credential.argumentOnly === true ? credential : { ...credential, type: "apiKey", in: "header", name: authHeader })) };
    },
    warnings: visibleCredentialMembers,
    emit: emitSources,
  };
}

function emitSources(ir: PackIR, options: { regenerate: string }): EmittedFile[] {
  return emitPackSources(ir, { runtimeModule: "./runtime.ts", regenerate: options.regenerate });
}

/**
 * A GraphQL credential argument given by name covers root field arguments only; an input
 * member of the same name (Storefront's `CartBuyerIdentityInput.customerAccessToken` beside
 * the `customerAccessToken` argument) is still shown to the model, so say so and how to cover it.
 */
function visibleCredentialMembers(ir: PackIR): string[] {
  const names = new Map<string, string>();
  for (const tool of ir.tools) {
    if (tool.binding.kind === "graphql") for (const [name, scheme] of Object.entries(tool.binding.credentialVariables ?? {})) names.set(name, scheme);
  }
  const warnings: string[] = [];
  for (const [name, scheme] of names) {
    const members = Object.keys(ir.defs).filter((type) => hasOwn(getOwn(ir.defs[type], "properties") ?? {}, name)).map((type) => `${type}.${name}`);
    if (members.length === 0) continue;
    const entries = members.map((member) => `"${member}": "${scheme}"`).join(", ");
    warnings.push(`credential argument "${name}" is also an input member the model still sees (${members.join(", ")}); withhold ${members.length === 1 ? "it" : "them"} too with credentialArguments: { ${entries} }`);
  }
  return warnings;
}
