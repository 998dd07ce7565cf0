// @sluice/catalog/langchain: sluice tools as LangChain.js structured tools (`@langchain/core`, an optional peer).
import { argumentRefusal, callErrorText, type Tool as SluiceTool } from "@sluice/core";
import { cloneJson, SluiceError } from "@sluice/schema";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type StructuredToolCallInput, type ToolReturnType, type ToolRunnableConfig } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import { callForFramework, frameworkTools, type FrameworkCallContext } from "./framework-call.ts";

export type { FrameworkCallContext } from "./framework-call.ts";

/**
 * A sluice tool as a LangChain structured tool. The schema LangChain sends and validates is
 * a private, mutable copy of the tool's own (LangChain's JSON Schema validator writes into
 * the schemas it is given; sluice's are frozen). Sluice screens every call before
 * LangChain's validator runs, so a refused call answers with sluice's list of issues.
 */
export class SluiceStructuredTool extends DynamicStructuredTool<JSONSchema, unknown, unknown, string | ToolMessage> {
  /** The sluice tool this one calls. */
  readonly sluiceTool: SluiceTool<object>;

  constructor(sluiceTool: SluiceTool<object>, ctx: FrameworkCallContext | undefined) {
    super({
      name: sluiceTool.name,
      description: sluiceTool.description,
      // The copy is typed as LangChain's JSON Schema type: the same plain JSON data.
      schema: cloneJson(sluiceTool.inputSchema) as JSONSchema,
      func: async (input, _runManager, config) => {
        const outcome = await callForFramework(sluiceTool, input, ctx, config?.signal);
        return outcome.ok ? outcome.text : refusal(sluiceTool.name, outcome.text, toolCallId(undefined, config));
      },
    });
    this.sluiceTool = sluiceTool;
  }

  /**
   * Sluice judges the arguments first (every issue, withheld paths as EGRESS_DENIED); only
   * arguments it accepts go on to LangChain's own validation and the call.
   */
  override async call<TArg extends StructuredToolCallInput<JSONSchema, unknown>, TConfig extends ToolRunnableConfig | undefined>(
    arg: TArg,
    configArg?: TConfig,
    tags?: string[],
  ): Promise<ToolReturnType<NonNullable<TArg>, TConfig, string | ToolMessage>> {
    const input: unknown = isToolCall(arg) ? arg.args : arg;
    const text = screenText(this.sluiceTool, input);
    if (text !== undefined) {
      // What LangChain returns for a tool result: a ToolMessage when the call has an id, else the content.
      const answer = refusal(this.name, text, toolCallId(arg, configArg));
      // ToolReturnType picks ToolMessage or the content from the call's shape, as `answer` was picked.
      return answer as ToolReturnType<NonNullable<TArg>, TConfig, string | ToolMessage>;
    }
    return super.call(arg, configArg, tags);
  }
}

/**
 * Sluice tools as LangChain structured tools, for `createAgent`, `model.bindTools` or a
 * `ToolNode`, in name order. Calls are screened and validated by sluice (withheld paths
 * refused and never sent, pins added), the context (credentials, base URL) comes from
 * `ctx`, LangChain's abort signal cancels the request, and every refusal or API failure
 * comes back to the model as a ToolMessage with `status: "error"` whose content is the
 * `CODE: message` text `sluice serve` sends.
 *
 * Arguments that are not JSON never reach a tool: LangChain's chat models put such calls in
 * `invalid_tool_calls`, which agents do not run.
 */
export function toLangChainTools(tools: readonly SluiceTool<object>[], ctx?: FrameworkCallContext): SluiceStructuredTool[] {
  return frameworkTools(tools).map((tool) => new SluiceStructuredTool(tool, ctx));
}

/** The refusal text for these arguments, or undefined when sluice accepts them. */
function screenText(tool: SluiceTool<object>, input: unknown): string | undefined {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    const kind = Array.isArray(input) ? "an array" : input === null ? "null" : `a ${typeof input}`;
    return callErrorText(new SluiceError("INVALID_ARGUMENTS", `The arguments of ${tool.name} must be a JSON object of named arguments, not ${kind}.`, { tool: tool.name }));
  }
  try {
    const issues = tool.check(input);
    return issues.length === 0 ? undefined : callErrorText(argumentRefusal(tool.name, issues));
  } catch (error) {
    return callErrorText(error, tool.name);
  }
}

function refusal(name: string, text: string, id: string | undefined): string | ToolMessage {
  return id === undefined ? text : new ToolMessage({ status: "error", content: text, tool_call_id: id, name });
}

function isToolCall(arg: unknown): arg is { type: "tool_call"; args: unknown; id?: string } {
  return typeof arg === "object" && arg !== null && "type" in arg && arg.type === "tool_call" && "args" in arg;
}

function toolCallId(arg: unknown, config: ToolRunnableConfig | undefined): string | undefined {
  if (isToolCall(arg) && typeof arg.id === "string") return arg.id;
  const id = config?.toolCall?.id;
  return typeof id === "string" ? id : undefined;
}
