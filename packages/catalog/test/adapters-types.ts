// Compile-time proof that each adapter's output is what the official SDKs accept: a
// mismatch fails `pnpm typecheck`. Never run; type imports only.
import type Anthropic from "@anthropic-ai/sdk";
import type { FunctionDeclaration, Tool as GeminiTool, Type } from "@google/genai";
import type { ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import type OpenAI from "openai";
import type { Tool } from "@sluice/core";
import type { toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";

declare const tools: Tool[];
// Gemini's Type is a string enum; on the wire (and in sluice's own types) it is its string values.
type Wire<T> = T extends Type ? `${T}` : T extends readonly (infer E)[] ? Wire<E>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;
declare const adapters: {
  toOpenAIChat: typeof toOpenAIChat;
  toOpenAIResponses: typeof toOpenAIResponses;
  toAnthropic: typeof toAnthropic;
  toGemini: typeof toGemini;
  toBedrock: typeof toBedrock;
  toMCP: typeof toMCP;
};

export const openAIChat: OpenAI.Chat.Completions.ChatCompletionTool[] = adapters.toOpenAIChat(tools, { strict: true, order: "as-given" });
export const openAIChatRequest: Pick<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, "tools"> = { tools: adapters.toOpenAIChat(tools) };
export const openAIResponses: OpenAI.Responses.FunctionTool[] = adapters.toOpenAIResponses(tools);
export const openAIResponsesRequest: Pick<OpenAI.Responses.ResponseCreateParamsNonStreaming, "tools"> = { tools: adapters.toOpenAIResponses(tools, { strict: false }) };
export const anthropic: Anthropic.Messages.Tool[] = adapters.toAnthropic(tools, { deferred: ["a"] });
export const anthropicRequest: Pick<Anthropic.Messages.MessageCreateParamsNonStreaming, "tools"> = { tools: adapters.toAnthropic(tools) };
export const gemini: Wire<FunctionDeclaration>[] = adapters.toGemini(tools, { form: "parameters" });
export const geminiTool: Wire<GeminiTool> = { functionDeclarations: adapters.toGemini(tools, { form: "parametersJsonSchema" }) };
export const mcp: ListToolsResult = { tools: adapters.toMCP(tools) };
// Bedrock: no AWS SDK dependency; the adapter's own type mirrors the Converse API shape.
export const bedrock: { toolConfig: { tools: { toolSpec: { name: string; description?: string; inputSchema: { json: object } } }[] } } = {
  toolConfig: { tools: adapters.toBedrock(tools) },
};

// The dispatch helper: what each provider's SDK hands back as a tool call is what the router
// takes, and what it answers is what the SDK takes as the next message's tool result.
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FunctionCall, Part } from "@google/genai";
import type { ToolCallRouter } from "../src/dispatch/index.ts";
declare const router: ToolCallRouter;
declare const chatCall: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
declare const responsesCall: OpenAI.Responses.ResponseFunctionToolCall;
declare const toolUse: Anthropic.Messages.ToolUseBlock;
declare const geminiCall: FunctionCall;
declare const geminiPart: Part & { functionCall: FunctionCall };
declare const mcpCall: CallToolRequest["params"];
export const chatAnswer: Promise<OpenAI.Chat.Completions.ChatCompletionToolMessageParam> = router.openAIChat(chatCall);
export const responsesAnswer: Promise<OpenAI.Responses.ResponseInputItem.FunctionCallOutput> = router.openAIResponses(responsesCall);
export const anthropicAnswer: Promise<Anthropic.Messages.ToolResultBlockParam> = router.anthropic(toolUse);
export const geminiAnswer: Promise<Part> = router.gemini(geminiCall);
export const geminiPartAnswer: Promise<Part> = router.gemini(geminiPart);
export const mcpAnswer: Promise<CallToolResult> = router.mcp(mcpCall);
