// Provider adapters: a tool array in, the provider's own tool entries out. Pure and
// deterministic; the provider entry types are declared here, structurally, so the optional
// SDKs stay out of the published types (test/adapters-types.ts checks them against the SDKs).
export { orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema, type ToolOrder } from "./adapter-tool.ts";
export { toOpenAIChat, type OpenAIChatOptions, type OpenAIChatTool } from "./to-openai-chat.ts";
export { toOpenAIResponses, type OpenAIResponsesOptions, type OpenAIResponsesTool } from "./to-openai-responses.ts";
export { toAnthropic, type AnthropicOptions, type AnthropicTool, type AnthropicCacheControl } from "./to-anthropic.ts";
export { toGemini, type GeminiOptions, type GeminiFunctionDeclaration } from "./to-gemini.ts";
export type { GeminiSchema, GeminiType } from "./gemini-schema-object.ts";
export { toBedrock, type BedrockTool } from "./to-bedrock.ts";
export { toMCP, toMCPShared, type McpOptions } from "./to-mcp.ts";
