// Provider adapters: a tool array in, the provider's own tool entries out. Pure and
// deterministic; SDK types are imported as types only.
export { orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema, type ToolOrder } from "./adapter-tool.ts";
export { toOpenAIChat, type OpenAIChatOptions } from "./to-openai-chat.ts";
export { toOpenAIResponses, type OpenAIResponsesOptions } from "./to-openai-responses.ts";
export { toAnthropic, type AnthropicOptions } from "./to-anthropic.ts";
export { toGemini, type GeminiOptions } from "./to-gemini.ts";
export { toBedrock, type BedrockTool } from "./to-bedrock.ts";
export { toMCP, type McpOptions } from "./to-mcp.ts";
