import { SluiceError } from "@sluice/schema";
import { inputSchemaCopy, orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema } from "./adapter-tool.ts";

/** Anthropic's prompt-cache breakpoint (`cache_control`). */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/**
 * A Messages API custom tool, declared here so that the published types do not depend on
 * the optional `@anthropic-ai/sdk` package; test/adapters-types.ts proves it is
 * assignable to the SDK's `Tool`.
 */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectRootSchema;
  defer_loading?: boolean;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicOptions extends AdapterOptions {
  /**
   * Names of tools to send with `defer_loading: true`: left out of the model's context
   * until Anthropic's tool search returns them (the request must also carry a tool
   * search tool). Every name must be one of the tools: a typo would silently load the
   * tool up front. https://docs.claude.com/en/docs/agents-and-tools/tool-use/tool-search-tool
   */
  deferred?: Iterable<string>;
  /**
   * The prompt-cache breakpoint put on the last non-deferred tool, so the tool
   * definitions are cached as one prefix; `false` for none. Default `{ type: "ephemeral" }`.
   * https://docs.claude.com/en/docs/build-with-claude/prompt-caching
   */
  cacheControl?: AnthropicCacheControl | false;
}

/**
 * Messages API custom tools: `{ name, description, input_schema }`, with `defer_loading`
 * on the deferred tools and `cache_control` on the last tool that is not deferred
 * (deferred tools are not part of the cached prefix).
 * https://docs.claude.com/en/api/messages#body-tools
 */
export function toAnthropic(tools: readonly AdapterTool[], options: AnthropicOptions = {}): AnthropicTool[] {
  const ordered = orderTools(tools, options);
  const deferred = new Set(options.deferred ?? []);
  const known = new Set(ordered.map((tool) => tool.name));
  const unknown = [...deferred].filter((name) => !known.has(name)).sort();
  if (unknown.length > 0) {
    throw new SluiceError("TOOL_NOT_FOUND", `toAnthropic: deferred names no tool: ${unknown.join(", ")}.`, { candidates: [...known].sort() });
  }
  const cacheControl = options.cacheControl ?? { type: "ephemeral" };
  let breakpoint = -1;
  ordered.forEach((tool, index) => {
    if (!deferred.has(tool.name)) breakpoint = index;
  });
  return ordered.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: inputSchemaCopy(tool),
    ...(deferred.has(tool.name) ? { defer_loading: true } : {}),
    ...(index === breakpoint && cacheControl !== false ? { cache_control: { ...cacheControl } } : {}),
  }));
}
