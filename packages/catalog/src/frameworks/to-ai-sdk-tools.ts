// @sluice/catalog/ai-sdk: sluice tools as Vercel AI SDK tools (`ai`, an optional peer).
import type { Tool as SluiceTool } from "@sluice/core";
import { cloneJson } from "@sluice/schema";
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import type { ToolSession } from "../session/tool-session.ts";
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
    setTool(out, sluiceTool, async (input, signal) => answer(await callForFramework(sluiceTool, input, ctx, signal)));
  }
  return out;
}

/** Deferred loading in the AI SDK: what `toAISDKSession` returns, to spread into `generateText`. */
export interface AISDKSession {
  /** The search tool and every catalog tool (their schemas copied on first use). */
  tools: Record<string, AISDKTool>;
  /** Each step sends the search tool and the tools loaded so far, in load order. */
  prepareStep: () => { activeTools: string[] };
}

/**
 * A `ToolSession` driving the AI SDK's `activeTools`: the model starts with the session's
 * search tool alone, and each tool it loads is sent from the next step on (append-only, so
 * a cached prompt prefix survives). The SDK refuses a call of a tool that is not active;
 * one that gets past it (a direct `execute`) gets `TOOL_NOT_LOADED` with the query that
 * loads it. Calls are screened and answered as `toAISDKTools` does.
 *
 *     const { tools, prepareStep } = toAISDKSession(ToolSession.fromPacks({ github }), ctx);
 *     await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(8), prompt });
 */
export function toAISDKSession(session: ToolSession, ctx?: FrameworkCallContext): AISDKSession {
  const out: Record<string, AISDKTool> = {};
  for (const sluiceTool of [session.searchTool as SluiceTool<object>, ...session.catalog]) {
    setTool(out, sluiceTool, async (input, signal) => {
      const outcome = session.call(sluiceTool.name, input);
      if (outcome.kind === "search") return outcome.text;
      if (outcome.kind === "error") throw new SluiceToolCallError(`${outcome.error.code}: ${outcome.text}`, outcome.error.code, outcome.error);
      return answer(await callForFramework(outcome.tool, input, ctx, signal));
    });
  }
  return { tools: out, prepareStep: () => ({ activeTools: session.visibleTools().map((visible) => visible.name) }) };
}

function answer(outcome: Awaited<ReturnType<typeof callForFramework>>): unknown {
  if (!outcome.ok) throw new SluiceToolCallError(outcome.text, outcome.code, outcome.error);
  return outcome.shown;
}

function setTool(out: Record<string, AISDKTool>, sluiceTool: SluiceTool<object>, run: (input: unknown, signal: AbortSignal | undefined) => Promise<unknown>): void {
  const definition = tool<unknown, unknown>({
    description: sluiceTool.description,
    // A fresh copy, made when the SDK first asks: the SDK and its provider adapters may edit
    // the schema they are given. JsonSchemaObject is JSON Schema 2020-12 as plain data; the
    // SDK's JSONSchema7 type is the same data under a draft-07 type name. Every value passes
    // the SDK's validation: sluice validates in execute and lists every issue.
    inputSchema: jsonSchema<unknown>(() => cloneJson(sluiceTool.inputSchema) as JSONSchema7, { validate: (value) => ({ success: true, value }) }),
    execute: (input, options) => run(input, options.abortSignal),
  });
  Object.defineProperty(out, sluiceTool.name, { value: definition, enumerable: true, writable: true, configurable: true });
}
