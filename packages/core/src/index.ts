export { SluiceError, isSluiceError, type ErrorCode, type SluiceErrorDetails, type JsonSchemaObject } from "@sluice/schema";
export type {
  Binding,
  GraphQLBinding,
  HttpBinding,
  HttpBody,
  HttpParameter,
  HttpParameterLocation,
  HttpParameterStyle,
  HttpAuthScheme,
  HttpBodyPropertyEncoding,
  PackIR,
  PackSource,
  SkippedOperation,
  ToolAnnotations,
  ToolIR,
  ToolParameters,
  WithheldPath,
  WithheldReason,
} from "./tool-ir.ts";
export { Tool, TOOL_NAME_PATTERN, type DeriveOptions, type ResponseHandler, type ToolArgs, type ToolInit } from "./tool.ts";
export { definePack, type Pack, type PackDefinition } from "./define-pack.ts";
export type { PathCost, PathsOptions } from "./tool-paths.ts";
export type { Encoding, TokenOptions } from "./tokens.ts";
export { egressMap, formatEgressMap, type EgressPath, type EgressToolEntry, type EgressTypeSection } from "./egress-map.ts";
export { checkEgressMap, type EgressMapCheck } from "./check-egress-map.ts";
export { recursionCuts } from "./recursion-cuts.ts";
export { withCurated, fullNameOf, FULL_SUFFIX } from "./with-curated.ts";
export {
  buildHttpRequest,
  joinUrl,
  authAdditions,
  type BuildHttpRequestOptions,
  type HttpRequest,
  type HttpRequestAdditions,
  type HttpCredential,
} from "./http/index.ts";
export { bindingArguments, curate, curateEach, withoutArguments } from "./curate.ts";
