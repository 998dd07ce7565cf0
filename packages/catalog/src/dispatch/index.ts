// The public surface of the dispatch area: tool filters, dispatcher levels and their
// resolver, level recommendation and prompt-cache break-even. Named exports only.
export type {
  CatalogTool,
  SchemaCatalogTool,
  AnthropicCatalogTool,
  ChatFunctionCatalogTool,
  ResponsesFunctionCatalogTool,
  ProviderTypedTool,
} from "./catalog-tool.ts";
export { filterTools, toolChoiceNames, type FilterToolsOptions, type FilterToolsResult, type FilterRefusal, type FilterRefusalReason, type SystemPrompt, type ToolChoice } from "./filter-tools.ts";
export { signatureLine, firstSentence, typeLabel, type SignatureOptions } from "./signature.ts";
export { dispatchLevel1 } from "./dispatch-level1.ts";
export { dispatchLevel3, Dispatcher, type DispatchLevel3Options, type DispatchedTool, type DispatchMapStyle } from "./dispatch-level3.ts";
export { resolve, type ModelCall, type ResolveResult, type Slip, type SlipKind } from "./resolve.ts";
export type { ArgumentProblem } from "./argument-validator.ts";
export { measureLevels, catalogTokens, type LevelTokens } from "./measure-levels.ts";
export { recommendLevel, CACHE_MULTIPLIERS, type CacheProvider, type DispatchLevel, type LevelRecommendation, type RecommendLevelOptions } from "./recommend-level.ts";
export { cacheBreakEven, type CacheBreakEven, type CacheBreakEvenInput } from "./cache-break-even.ts";
export {
  toolCallRouter,
  ToolCallRouter,
  type RoutableTool,
  type ToolCallRouterOptions,
  type ToolCallOutcome,
  type OpenAIChatToolCall,
  type OpenAIChatToolMessage,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type AnthropicToolUse,
  type AnthropicToolResult,
  type GeminiFunctionCall,
  type GeminiFunctionResponsePart,
  type McpToolCall,
  type McpToolResult,
} from "./tool-call-router.ts";
