import { inputSchemaCopy, orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema } from "./adapter-tool.ts";

/**
 * A Responses API function tool, declared here so that the published types do not depend
 * on the optional `openai` package; test/adapters-types.ts proves it is assignable to the
 * SDK's `FunctionTool`.
 */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: ObjectRootSchema;
  strict: boolean;
}

export interface OpenAIResponsesOptions extends AdapterOptions {
  /**
   * Default `true`: the Responses API treats a function tool as strict when `strict` is
   * not given, so the adapter writes down what the API would do anyway. Strict mode only
   * accepts a subset of JSON Schema (fit the tools to the OpenAI Responses profile), or
   * pass `false`.
   */
  strict?: boolean;
}

/**
 * Responses API function tools: `{ type: "function", name, description, parameters, strict }`.
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */
export function toOpenAIResponses(tools: readonly AdapterTool[], options: OpenAIResponsesOptions = {}): OpenAIResponsesTool[] {
  const strict = options.strict ?? true;
  return orderTools(tools, options).map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: inputSchemaCopy(tool),
    strict,
  }));
}
