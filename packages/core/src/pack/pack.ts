// @sluice/core/pack: what a pack's modules and a server of its tools use (the Tool model,
// definePack, curation, response helpers, the generated runtime's credential readers),
// without the egress map and its check, suggest, token counting and the rest of the root
// entry, which serving never runs. The root entry exports the same bindings (the same
// modules), so either import sees one Tool class. Generated packs import this (issue 24:
// `sluice serve` loads about 20 fewer modules before its first tools/list).
export { SluiceError, isSluiceError, type ArgumentIssue, type ErrorCode, type JsonSchemaObject } from "@sluice/schema";
export type { Binding, GraphQLBinding, HttpBinding, McpBinding, HttpAuthScheme, PackIR, ToolAnnotations, ToolIR, WithheldPath } from "../tool-ir.ts";
export { Tool, TOOL_NAME_PATTERN, type DeriveOptions, type ToolArgs, type ToolCallSettings, type ToolInit } from "../tool.ts";
export type { CallContext, CredentialSource, SchemeCredential, FailureCheck, McpUpstream, OAuth2Settings, PackRuntime, Pagination, ResponseHandler, ResponseInfo, ToolRuntime } from "../call/types.ts";
export type { CallResult } from "../call/call.ts";
export type { HttpCredential } from "../http/auth.ts";
export { definePack, type Pack, type PackDefinition } from "./define-pack.ts";
export { withCurated, fullNameOf, defaultServedSet, packToolSets, allToolsOf, FULL_SUFFIX, type PackToolSets } from "./with-curated.ts";
export { bindingArguments, curate, curateEach, withoutArguments } from "../projection/curate.ts";
export { anyFailure, apiMessage, graphqlErrors, graphqlUserErrors, okFalse } from "../call/failures.ts";
export { nextLink, nextLinkParam, nextPageArgs, valueAt } from "../call/pagination.ts";
export { at, dropEmpty, eachItem, isMarkerKey, omit, passThrough, pick, pipe, truncateStrings, unwrap } from "../responses/helpers.ts";
export { collapseHandles, neverThrows, omitKeysDeep } from "../responses/shape.ts";
export { graphqlFieldHandler, relayConnection, relayPagination, type GraphQLFieldHandlerOptions, type RelayConnection } from "../responses/graphql.ts";
export { defineOwn, isEmpty, isRecord, ownValue } from "../responses/json.ts";
export { editDistance, nearestNames, withSuggestion } from "../edit-distance.ts";
export { recursionCuts } from "../projection/recursion-cuts.ts";
export { generatedRuntime, credentialsFromEnv, credentialFromEnv, credentialStatus, type RuntimeFacts, type McpServerFact, type FromEnv, type CredentialFact, type CredentialType, type CredentialStatus, type GeneratedRuntimeOptions, type EnvironmentVariables } from "./generated-runtime.ts";
export { checkReformatChoice, enabledReformatters, DEFAULT_REFORMATTERS } from "../responses/reformat/reformat-choice.ts";
export { REFORMATTER_NAMES, type ReformatChoice, type ReformatStage, type ReformatterName } from "../responses/reformat/reformatter.ts";
export { describeStages } from "../responses/reformat/stages.ts";
export { shownText } from "../responses/reformat/shown-text.ts";
