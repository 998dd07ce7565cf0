import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { inputSchemaCopy, orderTools, type AdapterOptions, type AdapterTool } from "./adapter-tool.ts";

export interface OpenAIChatOptions extends AdapterOptions {
  /**
   * Sets `function.strict` on every tool. Left out when undefined, so the API applies its
   * own default (not strict). Strict mode only accepts a subset of JSON Schema: fit the
   * tools to the OpenAI strict profile first.
   */
  strict?: boolean;
}

/**
 * Chat Completions `tools` entries: `{ type: "function", function: { name, description, parameters, strict? } }`.
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
 */
export function toOpenAIChat(tools: readonly AdapterTool[], options: OpenAIChatOptions = {}): ChatCompletionFunctionTool[] {
  return orderTools(tools, options).map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: inputSchemaCopy(tool),
      ...(options.strict === undefined ? {} : { strict: options.strict }),
    },
  }));
}
