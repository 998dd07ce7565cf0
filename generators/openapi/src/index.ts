export { loadDocument } from "./load-document.ts";
export { buildOpenAPIPackIR, HTTP_METHODS, type BuildOpenAPIOptions, type PackSourceInfo } from "./build-pack-ir.ts";
export { emitPackSources } from "./emit-pack-sources.ts";
export { writePack, type EmittedFile } from "@sluice/emit";
export {
  generateOpenAPIPack,
  type GenerateOpenAPIPackOptions,
  type GenerateOpenAPIPackResult,
} from "./generate-openapi-pack.ts";
