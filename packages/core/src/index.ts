export { SluiceError, isSluiceError, type ArgumentIssue, type ErrorCode, type SluiceErrorDetails, type JsonSchemaObject } from "@sluice/schema";
export type {
  Binding,
  GraphQLBinding,
  GraphQLCredentialMember,
  HttpBinding,
  McpBinding,
  McpToolAnnotations,
  HttpBody,
  HttpParameter,
  HttpParameterLocation,
  HttpParameterStyle,
  HttpAuthScheme,
  HttpBodyPropertyEncoding,
  PackIR,
  PatternRefusal,
  PackSelection,
  PackSource,
  SkippedOperation,
  ToolAnnotations,
  ToolIR,
  ToolParameters,
  WithheldPath,
  WithheldReason,
  WithheldParameter,
} from "./tool-ir.ts";
export { Tool, TOOL_NAME_PATTERN, type CallsThrough, type DeriveOptions, type ToolArgs, type ToolCallSettings, type ToolInit } from "./tool.ts";
export type {
  ApiFailure,
  CallContext,
  CredentialSource,
  SchemeCredential,
  OAuth2Settings,
  FailureCheck,
  McpContentBlock,
  McpProgress,
  McpToolResult,
  McpUpstream,
  PackRuntime,
  Pagination,
  ResponseHandler,
  ResponseInfo,
  ToolRuntime,
} from "./call/types.ts";
export { type CallResult, type CallableTool } from "./call/call.ts";
export { checkedPagination } from "./projection/derive-options.ts";
export { argumentRefusal, callErrorText } from "./call/call-error-text.ts";
export { OAuth2Client, oauth2Credential, isOAuth2Credential, type OAuth2Options, type OAuth2Credential } from "./call/oauth2.ts";
export { CallCollector, collecting, currentCollector, type CallRecord, type CallSummary, type ReformatTotals } from "./call/collector.ts";
export { anyFailure, apiMessage, graphqlErrors, graphqlUserErrors, okFalse } from "./call/failures.ts";
export { nextLink, nextLinkParam, nextPageArgs, valueAt } from "./call/pagination.ts";
export { definePack, type Pack, type PackDefinition } from "./pack/define-pack.ts";
export type { PathCost, PathsOptions } from "./projection/tool-paths.ts";
/** Selector spelling for tooling: a property name as a segment (quoted when it holds selector syntax), and a selector's names. */
export { formatSegment as selectorSegment, splitSelector } from "./projection/selectors.ts";
export type { Encoding, TokenOptions } from "./tokens.ts";
export { egressMap, formatEgressMap, packSelections, type EgressMapOptions, type EgressPath, type EgressToolEntry, type EgressTypeSection, type ReservedKey } from "./egress-map/egress-map.ts";
export { checkEgressMap, unifiedDiff, type EgressCheckOptions, type EgressMapCheck } from "./egress-map/check-egress-map.ts";
export type { EgressDifference, EgressDifferenceKind } from "./egress-map/egress-difference.ts";
export { recursionCuts } from "./projection/recursion-cuts.ts";
export { suggestProjection, projectionFloor } from "./projection/suggest.ts";
export { BudgetUnreachableError } from "./projection/budget-unreachable-error.ts";
export type { SuggestOptions, Suggestion } from "./projection/suggestion.ts";
export { withCurated, fullNameOf, defaultServedSet, packToolSets, allToolsOf, FULL_SUFFIX, type PackToolSets } from "./pack/with-curated.ts";
export {
  buildHttpRequest,
  joinUrl,
  authAdditions,
  type BuildHttpRequestOptions,
  type HttpRequest,
  type HttpRequestAdditions,
  type HttpCredential,
} from "./http/index.ts";
export { bindingArguments, curate, curateEach, withoutArguments } from "./projection/curate.ts";
export { at, dropEmpty, eachItem, isMarkerKey, omit, passThrough, pick, pipe, truncateStrings, unwrap } from "./responses/helpers.ts";
export { missingMarkers, pageMarkers, type PageMarkers } from "./call/markers.ts";
export { collapseHandles, neverThrows, omitKeysDeep } from "./responses/shape.ts";
export { bindingResponseHints, defaultResponseHandler, isPaginationKey } from "./responses/default-handler.ts";
export type { ResponseHints } from "./responses/response-hints.ts";
export { graphqlFieldHandler, relayConnection, relayPagination, type GraphQLFieldHandlerOptions, type RelayConnection } from "./responses/graphql.ts";
export { defineOwn, isEmpty, isRecord, ownValue } from "./responses/json.ts";
export { editDistance, nearestNames, withSuggestion } from "./edit-distance.ts";
export { specPatternTest, translateSpecPattern, type SpecPatternProblem } from "./spec-pattern.ts";
export { findUnsupportedKeyword, refuseUnsupportedKeywords, type UnsupportedKeyword } from "./unsupported-keywords.ts";
export { generatedRuntime, credentialsFromEnv, credentialFromEnv, credentialStatus, type RuntimeFacts, type McpServerFact, type FromEnv, type CredentialFact, type CredentialType, type CredentialStatus, type ServerVariableFact, type GeneratedRuntimeOptions, type EnvironmentVariables } from "./pack/generated-runtime.ts";
export { reformatText, outputText, MAX_REFORMAT_CHARS, type Reformatted } from "./responses/reformat/reformat.ts";
export { checkReformatChoice, enabledReformatters, DEFAULT_REFORMATTERS } from "./responses/reformat/reformat-choice.ts";
export { REFORMATTER_NAMES, type ReformatChoice, type ReformatStage, type ReformatterName } from "./responses/reformat/reformatter.ts";
export { describeStages } from "./responses/reformat/stages.ts";
export { shownText } from "./responses/reformat/shown-text.ts";
export { unfoldPaths } from "./responses/reformat/path-fold.ts";
