import { callErrorText, isSluiceError, shownText, SluiceError, type CallContext, type CallResult, type Tool } from "@sluice/core";
import { orderTools } from "../adapters/adapter-tool.ts";

/**
 * Where a framework tool's calls get their context (credentials, base URL, fetch, timeouts):
 * from the application, never from the model. One context for every call, or one per call
 * (read credentials afresh, pick a tenant's token); `credentialsFromEnv()` of a pack gives
 * the credentials `sluice serve` would read from the environment.
 */
export type FrameworkCallContext = CallContext | ((tool: Tool<object>) => CallContext | Promise<CallContext>);

/** What one framework call came to: the text the model reads, and what app code may inspect. */
export type FrameworkCallOutcome =
  | { readonly ok: true; readonly shown: unknown; readonly text: string; readonly result: CallResult }
  | { readonly ok: false; readonly code: string; readonly text: string; readonly error: unknown };

/**
 * One call of a sluice tool from a framework: the arguments go through the tool's own
 * screening and validation (withheld paths refused, pins added, every issue listed), the
 * context comes from the application, the framework's abort signal joins the context's.
 * Every failure becomes the `CODE: message` text `sluice serve` sends, so the model can
 * correct the call; nothing is thrown.
 */
export async function callForFramework(tool: Tool<object>, args: unknown, ctx: FrameworkCallContext | undefined, signal?: AbortSignal): Promise<FrameworkCallOutcome> {
  try {
    const given = typeof ctx === "function" ? await ctx(tool) : (ctx ?? {});
    const signals = [given.signal, signal].filter((s): s is AbortSignal => s !== undefined);
    const context: CallContext = signals.length === 0 ? given : { ...given, signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) };
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      const kind = Array.isArray(args) ? "an array" : args === null ? "null" : `a ${typeof args}`;
      throw new SluiceError("INVALID_ARGUMENTS", `The arguments of ${tool.name} must be a JSON object of named arguments, not ${kind}.`, { tool: tool.name });
    }
    const result = await tool.invoke(args as Record<string, unknown>, context);
    // The next page's arguments ride along, as the router shows them: the model pages by sending them back.
    const shown = result.nextPageArgs === undefined ? result.output : { result: result.output, next_page_args: result.nextPageArgs };
    return { ok: true, shown, text: shownText(result), result };
  } catch (error) {
    return { ok: false, code: isSluiceError(error) ? error.code : "INTERNAL_ERROR", text: callErrorText(error, tool.name), error };
  }
}

/** The refusal text for arguments that are not JSON, as the router words it. */
export function notJsonText(tool: string, detail?: string): string {
  return callErrorText(new SluiceError("INVALID_ARGUMENTS", `The arguments of ${tool} are not valid JSON${detail === undefined ? "" : ` (${detail})`}. Send the arguments as one JSON object, e.g. {"name": "value"}.`, { tool }));
}

/** The tools in name order, duplicates refused (a framework keys its tools by name). */
export function frameworkTools(tools: readonly Tool<object>[]): Tool<object>[] {
  return orderTools(tools, { order: "by-name" });
}

/**
 * The error a framework tool throws where the framework turns a thrown error into the
 * model's tool result (the AI SDK sends `error.message`): the message is the model-facing
 * `CODE: message` text, `code` the sluice code, `cause` the original error.
 */
export class SluiceToolCallError extends Error {
  override readonly name = "SluiceToolCallError";
  readonly code: string;

  constructor(text: string, code: string, cause: unknown) {
    super(text, { cause });
    this.code = code;
  }
}
