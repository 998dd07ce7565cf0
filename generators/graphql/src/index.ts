export { loadGraphQLSchema, type LoadSchemaOptions } from "./load-schema.ts";
export { buildGraphQLPackIR, type BuildGraphQLOptions, type GraphQLFieldInfo, type PackSourceInfo } from "./build-pack-ir.ts";
export { validateOperationDocument } from "./operation-document.ts";
export { emitPackFiles, emitPackSources } from "./emit-pack-sources.ts";
export { writePack, type EmittedFile } from "@sluice/emit";
export {
  generateGraphQLPack,
  type GenerateGraphQLPackOptions,
  type GenerateGraphQLPackResult,
} from "./generate-graphql-pack.ts";
export { graphqlRuntimeFacts, GRAPHQL_TOKEN_SCHEME } from "./runtime-facts.ts";
export { GRAPHQL_GENERATOR } from "./generator-info.ts";
export { graphqlSource } from "./pack-source.ts";
