// @sluice/catalog/openai-agents: sluice tools as OpenAI Agents SDK function tools (`@openai/agents`, an optional peer).
import { callErrorText, type Tool as SluiceTool } from "@sluice/core";
import { cloneJson } from "@sluice/schema";
import { ModelBehaviorError, tool, type FunctionTool, type ToolInputParameters } from "@openai/agents";
import { fit, type FitChange, type FitOptions } from "../profiles/fit.ts";
import { profile } from "../profiles/provider-profiles.ts";
import { callForFramework, frameworkTools, notJsonText, type FrameworkCallContext } from "./framework-call.ts";

export type { FrameworkCallContext } from "./framework-call.ts";

export interface OpenAIAgentsToolsOptions {
  /**
   * Strict mode (the SDK's default, true): each tool is fitted to the `openai-strict` profile
   * first (objects closed, every member required with the optional ones nullable, oneOf as
   * anyOf), and the model's nulls for members it leaves out are dropped before sluice
   * validates the call against the tool's own schema. False sends the tool's schema as it is.
   */
  strict?: boolean;
  /**
   * Options for that fit (`unroll` for recursive schemas, `asOf`). Lossy changes are allowed
   * by default: they change only what the model reads, since every call is still validated
   * against the original tool; pass `allowLossy: false` to refuse them.
   */
  fit?: FitOptions;
}

/** The SDK's JSON Schema parameter types, strict (closed objects) and not. */
type StrictParameters = Extract<ToolInputParameters, { additionalProperties: false }>;
type OpenParameters = Extract<ToolInputParameters, { additionalProperties: true }>;

/** A sluice tool as an Agents SDK function tool, strict or not. */
export type OpenAIAgentsTool = FunctionTool<unknown, StrictParameters, unknown> | FunctionTool<unknown, OpenParameters, unknown>;

/** What `toOpenAIAgentsTools` returns: the function tools, and what strict fitting changed. */
export interface OpenAIAgentsTools {
  tools: OpenAIAgentsTool[];
  /** The fit's log (empty when not strict): every change to what the model reads, lossless or lossy. */
  changes: FitChange[];
}

/**
 * Sluice tools as OpenAI Agents SDK function tools for `new Agent({ tools })`, in name order.
 * In strict mode (the SDK's default) they go through `fit(tools, profile("openai-strict"))`,
 * and each call goes back to the original tool (its pins, withheld paths, handler). Calls
 * are screened and validated by sluice, the context (credentials, base URL) comes from
 * `ctx`, the run's abort signal cancels the request, and every refusal or API failure
 * comes back to the model as the `CODE: message` text `sluice serve` sends. Arguments that
 * are not JSON are answered by the SDK's runner before any tool runs, with its own sentence.
 */
export function toOpenAIAgentsTools(tools: readonly SluiceTool<object>[], ctx?: FrameworkCallContext, options: OpenAIAgentsToolsOptions = {}): OpenAIAgentsTools {
  const strict = options.strict ?? true;
  const ordered = frameworkTools(tools);
  const fitted = strict ? fit(ordered, profile("openai-strict"), { allowLossy: true, ...options.fit }) : undefined;
  const wire = fitted?.tools ?? ordered;
  const out = wire.map((sluiceTool): OpenAIAgentsTool => {
    const common = {
      name: sluiceTool.name,
      description: sluiceTool.description,
      execute: async (input: unknown, _runContext: unknown, details?: { signal?: AbortSignal }) => (await callForFramework(sluiceTool, input, ctx, details?.signal)).text,
      // Where the SDK hands a failure to the tool (a direct invoke of text that is not JSON, a timeout), sluice words it.
      errorFunction: (_runContext: unknown, error: unknown) => (error instanceof ModelBehaviorError ? notJsonText(sluiceTool.name) : callErrorText(error, sluiceTool.name)),
    };
    // A fresh copy each (the SDK rewrites what it is given for strict mode), under the SDK's
    // parameter type: the same plain JSON data, which the SDK checks at run time.
    const parameters: unknown = cloneJson(sluiceTool.inputSchema);
    return strict ? tool({ ...common, parameters: parameters as StrictParameters, strict: true }) : tool({ ...common, parameters: parameters as OpenParameters, strict: false });
  });
  return { tools: out, changes: fitted?.changes ?? [] };
}
