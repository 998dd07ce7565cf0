export { loadGraphQLSchema, type LoadSchemaOptions } from "./load-schema.ts";
export { buildGraphQLPackIR, type PackSourceInfo } from "./build-pack-ir.ts";
export { validateOperationDocument } from "./operation-document.ts";
export { emitPackSources } from "./emit-pack-sources.ts";
export { writePack, type EmittedFile } from "@sluice/emit";
export {
  generateGraphQLPack,
  type GenerateGraphQLPackOptions,
  type GenerateGraphQLPackResult,
} from "./generate-graphql-pack.ts";
