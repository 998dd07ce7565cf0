export { loadDocument } from "./load-document.ts";
export { buildOpenAPIPackIR, HTTP_METHODS, type BuildOpenAPIOptions, type OpenAPIOperationInfo, type PackSourceInfo } from "./build-pack-ir.ts";
export { emitPackFiles, emitPackSources } from "./emit-pack-sources.ts";
export { openapiPackResponseHints, openapiResponseHints, type OpenAPIResponseHintOptions, type OperationLocation } from "./response-hints.ts";
export { writePack, type EmittedFile } from "@sluice/emit";
export {
  generateOpenAPIPack,
  type GenerateOpenAPIPackOptions,
  type GenerateOpenAPIPackResult,
} from "./generate-openapi-pack.ts";
export { openapiRuntimeFacts, type OpenAPIRuntimeFactsOptions } from "./runtime-facts.ts";
export { OPENAPI_GENERATOR } from "./generator-info.ts";
export { openapiSource } from "./pack-source.ts";
