import { editDistance, isSluiceError, shownText, SluiceError, type CallContext, type CallResult } from "@sluice/core";
import { isSchemaObject } from "@sluice/schema";
import type { Dispatcher } from "./dispatch-level3.ts";
import { resolve } from "./resolve.ts";
import type { UsageDefinition, UsageSink } from "../usage/usage-sink.ts";

/**
 * What the router needs of a tool: its wire name and a way to call it. A `Tool` from
 * @sluice/core fits (its `invoke` validates, screens, applies pins and the handler).
 */
export interface RoutableTool {
  readonly name: string;
  invoke(args: Record<string, unknown>, ctx?: CallContext): Promise<CallResult>;
}

export interface ToolCallRouterOptions {
  /**
   * `fit(...).nameMap`: the name the model saw -> the tool's own name. Without it the
   * model's names are the tools' names.
   */
  nameMap?: Readonly<Record<string, string>>;
  /**
   * The level-3 dispatcher the model was given (`dispatchLevel3`): its `call_tool` and
   * `describe_tool` calls are resolved through it, slips tolerated. Its catalog names are
   * the names the model saw, so `nameMap` applies after it.
   */
  dispatcher?: Dispatcher;
  /** The call context of every call (credentials, base URL, fetch), or one per call. */
  ctx?: CallContext | ((tool: string) => CallContext | Promise<CallContext>);
  /**
   * Records the tools given (declared when the router is made: they are the set the model
   * was shown) and each call of one, by its own name: a session of
   * `openUsageStore(...).session(pack)` from `@sluice/catalog/usage`, read back by `sluice usage`.
   */
  usage?: UsageSink;
}

/** What one model tool call came to, before it is put in a provider's shape. */
export type ToolCallOutcome =
  | {
      readonly ok: true;
      /** The tool's own name (after `nameMap`); for a `describe_tool` call, the tool described. */
      readonly tool: string;
      /** What the model gets back: the handler's output as text (compact JSON unless it is a string). */
      readonly text: string;
      /** The handler's output (redacted), or the schema text of a `describe_tool` call. */
      readonly output: unknown;
      /** The call's result (absent for `describe_tool`). */
      readonly result?: CallResult;
    }
  | {
      readonly ok: false;
      /** The tool's own name when the call got that far. */
      readonly tool?: string;
      readonly code: string;
      /** `CODE: message`, written for the model: send it back so it can correct the call. */
      readonly text: string;
      readonly error: SluiceError;
    };

/** An OpenAI Chat Completions `message.tool_calls[]` entry (a function tool call). */
export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The `role: "tool"` message that answers it. */
export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** An OpenAI Responses API `output[]` item of type `function_call`. */
export interface OpenAIResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

/** The `function_call_output` input item that answers it. */
export interface OpenAIResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/** An Anthropic Messages API `tool_use` content block. */
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** The `tool_result` content block that answers it (sent in the next user message). */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: true;
}

/** A Gemini `functionCall` (the part's field, or the part `{ functionCall }` itself). */
export interface GeminiFunctionCall {
  name?: string;
  args?: Record<string, unknown>;
  id?: string;
}

/** The `functionResponse` part that answers it; Gemini reads `response.output` or `response.error`. */
export interface GeminiFunctionResponsePart {
  functionResponse: { name: string; response: { output: unknown } | { error: string }; id?: string };
}

/** MCP `tools/call` params. */
export interface McpToolCall {
  name: string;
  arguments?: Record<string, unknown> | undefined;
}

/** An MCP `CallToolResult` (a type alias, so that it is assignable to the SDK's open object type). */
export type McpToolResult = {
  content: { type: "text"; text: string }[];
  isError?: true;
  _meta?: Record<string, unknown>;
};

/**
 * Routes a model's tool calls to the tools and puts the answer back in the provider's
 * shape. Every failure the model can fix (an unknown name, arguments that are not JSON or
 * do not match the schema, a withheld field, an API error) comes back as a tool result
 * (`is_error` where the provider has it) whose text starts with the error code, so the
 * model can correct the call; only a bug in a response handler's caller (not a SluiceError)
 * is thrown.
 */
export class ToolCallRouter {
  readonly #tools: ReadonlyMap<string, RoutableTool>;
  readonly #nameMap: Readonly<Record<string, string>> | undefined;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #ctx: ToolCallRouterOptions["ctx"];
  readonly #usage: UsageSink | undefined;

  constructor(tools: readonly RoutableTool[], options: ToolCallRouterOptions = {}) {
    const byName = new Map<string, RoutableTool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new SluiceError("INVALID_NAME", `Two tools are named ${tool.name}; the router could not tell which one a call means.`);
      byName.set(tool.name, tool);
    }
    for (const [seen, own] of Object.entries(options.nameMap ?? {})) {
      if (!byName.has(own)) throw new SluiceError("TOOL_NOT_FOUND", `nameMap maps ${seen} to ${own}, which is not one of the tools given; pass the tools fit() was given.`);
    }
    this.#tools = byName;
    this.#nameMap = options.nameMap;
    this.#dispatcher = options.dispatcher;
    this.#ctx = options.ctx;
    this.#usage = options.usage;
    // A Tool gives its definition as sent; a bare routable tool, its name only.
    this.#usage?.declared(tools.map((tool): UsageDefinition => (typeof (tool as { toJSON?: unknown }).toJSON === "function" ? ((tool as unknown as { toJSON(): UsageDefinition }).toJSON()) : { name: tool.name })));
  }

  /**
   * One call, provider-neutral: `name` as the model sent it, `args` as an object or as
   * the JSON text the provider sent (empty text counts as no arguments).
   */
  async call(name: unknown, args: unknown): Promise<ToolCallOutcome> {
    if (typeof name !== "string" || name === "") return failed(new SluiceError("INVALID_ARGUMENTS", "The tool call has no tool name; call one of the tools by its name."));
    let target = name;
    let parsed: Record<string, unknown>;
    if (this.#dispatcher !== undefined) {
      const resolved = resolve({ name, args }, this.#dispatcher);
      if (!resolved.ok) return failed(resolved.error);
      if (resolved.kind === "describe") return { ok: true, tool: this.#ownName(resolved.tool), text: resolved.text, output: resolved.text };
      target = resolved.tool;
      parsed = resolved.args;
    } else {
      const payload = argumentsOf(name, args);
      if (payload instanceof SluiceError) return failed(payload, this.#tools.has(this.#ownName(name)) ? this.#ownName(name) : undefined);
      parsed = payload;
    }
    const own = this.#ownName(target);
    const tool = this.#tools.get(own);
    if (tool === undefined) return failed(this.#unknown(name));
    this.#usage?.invoked(own);
    try {
      const ctx = typeof this.#ctx === "function" ? await this.#ctx(own) : this.#ctx;
      const result = await tool.invoke(parsed, ctx);
      // The reformatted answer (docs/reformatters.md), with the next page's arguments when there is a next page.
      return { ok: true, tool: own, text: shownText(result), output: result.output, result };
    } catch (error) {
      if (isSluiceError(error)) return failed(error, own);
      throw error;
    }
  }

  /** Answers an OpenAI Chat Completions tool call with its `role: "tool"` message. */
  async openAIChat(call: OpenAIChatToolCall): Promise<OpenAIChatToolMessage> {
    const outcome = await this.call(call?.function?.name, call?.function?.arguments);
    return { role: "tool", tool_call_id: call.id, content: outcome.text };
  }

  /** Answers an OpenAI Responses `function_call` item with its `function_call_output` item. */
  async openAIResponses(call: OpenAIResponsesFunctionCall): Promise<OpenAIResponsesFunctionCallOutput> {
    const outcome = await this.call(call?.name, call?.arguments);
    return { type: "function_call_output", call_id: call.call_id, output: outcome.text };
  }

  /** Answers an Anthropic `tool_use` block with its `tool_result` block. */
  async anthropic(block: AnthropicToolUse): Promise<AnthropicToolResult> {
    const outcome = await this.call(block?.name, block?.input);
    return { type: "tool_result", tool_use_id: block.id, content: outcome.text, ...(outcome.ok ? {} : { is_error: true as const }) };
  }

  /** Answers a Gemini `functionCall` (or a part holding one) with its `functionResponse` part. */
  async gemini(call: GeminiFunctionCall | { functionCall: GeminiFunctionCall }): Promise<GeminiFunctionResponsePart> {
    const inner: GeminiFunctionCall = call !== null && typeof call === "object" && "functionCall" in call ? call.functionCall : call;
    const outcome = await this.call(inner?.name, inner?.args);
    const name = typeof inner?.name === "string" ? inner.name : "";
    const response = outcome.ok ? { output: outcome.result === undefined ? outcome.output : shownOutput(outcome.result) } : { error: outcome.text };
    return { functionResponse: { name, response, ...(typeof inner?.id === "string" ? { id: inner.id } : {}) } };
  }

  /** Answers MCP `tools/call` params with a `CallToolResult` (the next page's arguments in `_meta`, as `sluice serve` sends them). */
  async mcp(params: McpToolCall): Promise<McpToolResult> {
    const outcome = await this.call(params?.name, params?.arguments);
    if (!outcome.ok) return { content: [{ type: "text", text: outcome.text }], isError: true };
    const result = outcome.result;
    const out: McpToolResult = { content: [{ type: "text", text: result === undefined ? textOf(outcome.output) : result.text }] };
    if (result?.nextPageArgs !== undefined) out._meta = { "sluice/nextPageArgs": result.nextPageArgs };
    return out;
  }

  #ownName(name: string): string {
    const map = this.#nameMap;
    return map !== undefined && Object.hasOwn(map, name) ? map[name]! : name;
  }

  #unknown(name: string): SluiceError {
    const seen = this.#nameMap === undefined ? [...this.#tools.keys()] : Object.keys(this.#nameMap);
    const near = seen
      .map((candidate) => ({ candidate, distance: editDistance(name.toLowerCase(), candidate.toLowerCase(), 4) }))
      .filter(({ distance }) => distance <= Math.max(2, Math.floor(name.length / 4)))
      .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1))
      .slice(0, 3)
      .map(({ candidate }) => candidate);
    return new SluiceError("TOOL_NOT_FOUND", `No tool is named ${JSON.stringify(name.slice(0, 80))}.${near.length > 0 ? ` Did you mean ${near.join(", ")}?` : ""} Call one of the tools you were given, by its exact name.`, { candidates: near });
  }
}

/** A router over these tools; see {@link ToolCallRouter}. */
export function toolCallRouter(tools: readonly RoutableTool[], options: ToolCallRouterOptions = {}): ToolCallRouter {
  return new ToolCallRouter(tools, options);
}

/** The arguments object of a direct call, from an object or the provider's JSON text. */
function argumentsOf(name: string, args: unknown): Record<string, unknown> | SluiceError {
  let value = args;
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    if (value.trim() === "") return {};
    try {
      value = JSON.parse(value);
    } catch (cause) {
      // The parser's position helps the model find a truncated or unescaped spot; the text itself is the model's own.
      const where = cause instanceof SyntaxError ? ` (${cause.message})` : "";
      return new SluiceError("INVALID_ARGUMENTS", `The arguments of ${name} are not valid JSON${where}. Send the arguments as one JSON object, e.g. {"name": "value"}.`);
    }
  }
  if (!isSchemaObject(value)) {
    const kind = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return new SluiceError("INVALID_ARGUMENTS", `The arguments of ${name} must be a JSON object of named arguments, not ${kind}.`);
  }
  return value;
}

function failed(error: SluiceError, tool?: string): ToolCallOutcome {
  return { ok: false, ...(tool === undefined ? {} : { tool }), code: error.code, text: `${error.code}: ${error.message}`, error };
}

function shownOutput(result: CallResult): unknown {
  return result.nextPageArgs === undefined ? result.output : { result: result.output, next_page_args: result.nextPageArgs };
}

function textOf(output: unknown): string {
  if (typeof output === "string") return output;
  return JSON.stringify(output) ?? "null";
}
