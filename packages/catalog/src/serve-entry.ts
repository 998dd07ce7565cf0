// @sluice/catalog/serve: what an MCP server of sluice tools uses (the client profiles and
// fit, the deferred-loading session, the MCP adapter), without the other providers'
// adapters, compaction and dispatch, which `sluice serve` never runs. The root entry
// exports the same bindings (the same modules), so either import sees one set of objects.
export {
  profile,
  PROFILE_IDS,
  check,
  fit,
  LossyFitRefusedError,
  qualifiedName,
  DEFAULT_SERVER_NAME,
  type Profile,
  type ProfileId,
  type ProfileLimits,
  type StrictLimits,
  type ProfileOptions,
  type CheckOptions,
  type Finding,
  type FindingCode,
  type FitAction,
  type FitChange,
  type FitOptions,
  type FitResult,
  type PathAudit,
} from "./profiles/index.ts";
export { ToolSession, SEARCH_TOOL_BINDING, type CallOutcome, type FromPacksOptions, type LoadResult, type ToolOrigin, type ToolSessionOptions } from "./session/index.ts";
// From its own module: the adapters' index would load every provider's adapter.
export { toMCP, toMCPShared, type McpOptions } from "./adapters/to-mcp.ts";
