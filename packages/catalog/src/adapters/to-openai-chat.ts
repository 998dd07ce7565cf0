import { inputSchemaCopy, orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema } from "./adapter-tool.ts";

/**
 * A Chat Completions function tool, declared here so that the published types do not
 * depend on the optional `openai` package; test/adapters-types.ts proves it is assignable
 * to the SDK's `ChatCompletionFunctionTool`.
 */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: ObjectRootSchema; strict?: boolean };
}

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
export function toOpenAIChat(tools: readonly AdapterTool[], options: OpenAIChatOptions = {}): OpenAIChatTool[] {
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
