// @sluice/catalog/ai-sdk: sluice tools as Vercel AI SDK tools (`ai`, an optional peer).
import type { Tool as SluiceTool } from "@sluice/core";
import { cloneJson } from "@sluice/schema";
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import { callForFramework, frameworkTools, SluiceToolCallError, type FrameworkCallContext } from "./framework-call.ts";

export { SluiceToolCallError, type FrameworkCallContext } from "./framework-call.ts";

/** A sluice tool as the AI SDK holds it: arguments as the model sent them (sluice judges them), the handler's output back. */
export type AISDKTool = Tool<unknown, unknown>;

/**
 * Sluice tools (a pack's `tools`, curated or derived projections, `fit()` output) as an AI
 * SDK `ToolSet` for `generateText` / `streamText` / agents, keyed by tool name.
 *
 * The model reads each tool's own schema (a fresh copy per tool). The SDK's validation is
 * left open, so every call reaches sluice: withheld paths are refused, pins added, every
 * argument issue listed. A refusal or API failure is thrown as a `SluiceToolCallError`
 * whose message is the `CODE: message` text `sluice serve` sends, which the SDK hands the
 * model as the tool's error result. The SDK's abort signal cancels the request; the
 * context (credentials, base URL) comes from `ctx`, never from the model.
 *
 * Arguments that are not JSON at all are refused by the SDK itself before any tool runs
 * (its own message, `Invalid input for tool ...`); sluice never sees them.
 */
export function toAISDKTools(tools: readonly SluiceTool<object>[], ctx?: FrameworkCallContext): Record<string, AISDKTool> {
  const out: Record<string, AISDKTool> = {};
  for (const sluiceTool of frameworkTools(tools)) {
    // A fresh copy: the SDK and its provider adapters may edit the schema they are given.
    // JsonSchemaObject is JSON Schema 2020-12 as plain data; the SDK's JSONSchema7 type is
    // the same data under a draft-07 type name.
    const schema = cloneJson(sluiceTool.inputSchema) as JSONSchema7;
    const definition = tool<unknown, unknown>({
      description: sluiceTool.description,
      // Every value passes here: sluice validates in execute and lists every issue, where
      // the SDK's validation would answer with its own message.
      inputSchema: jsonSchema<unknown>(schema, { validate: (value) => ({ success: true, value }) }),
      execute: async (input, options) => {
        const outcome = await callForFramework(sluiceTool, input, ctx, options.abortSignal);
        if (!outcome.ok) throw new SluiceToolCallError(outcome.text, outcome.code, outcome.error);
        return outcome.shown;
      },
    });
    Object.defineProperty(out, sluiceTool.name, { value: definition, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
