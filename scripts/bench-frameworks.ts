/**
 * Tokens of the tool definitions each agent framework sends a provider for the same 100
 * github-rest tools, captured from the framework's own request path, beside sluice's own
 * adapters. Writes bench/FRAMEWORKS.md.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-frameworks.ts
 *
 * Captured: the AI SDK's tool list as its mock model receives it (the provider call options;
 * @ai-sdk/openai writes each as `{type: "function", function: {name, description, parameters}}`,
 * the shape counted); LangChain's `convertToOpenAITool`, which ChatOpenAI sends; the Agents
 * SDK's serialized tools as its runner hands a Model (the Responses API function shape).
 * Counted with sluice's tokenizer (o200k_base, counts identical to js-tiktoken's), compact JSON.
 */
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { textTokens } from "@sluice/core/tokens";
import { fit, profile, toOpenAIChat, toOpenAIResponses } from "@sluice/catalog";
import { toAISDKTools } from "@sluice/catalog/ai-sdk";
import { toLangChainTools } from "@sluice/catalog/langchain";
import { toOpenAIAgentsTools } from "@sluice/catalog/openai-agents";
import type { Tool } from "@sluice/core";

// The frameworks are @sluice/catalog's devDependencies: loaded from there. Only what this
// script calls is typed, structurally.
const fromCatalog = createRequire(fileURLToPath(new URL("../packages/catalog/package.json", import.meta.url)));
const load = async <T>(specifier: string): Promise<T> => (await import(pathToFileURL(fromCatalog.resolve(specifier)).href)) as T;
const ai = await load<{ generateText(options: { model: unknown; tools: unknown; prompt: string }): Promise<unknown> }>("ai");
const aiTest = await load<{ MockLanguageModelV3: new (options: { doGenerate: unknown }) => { doGenerateCalls: Array<{ tools?: Array<{ name: string; description?: string; inputSchema: unknown }> }> } }>("ai/test");
const lc = await load<{ convertToOpenAITool(tool: unknown): unknown }>("@langchain/core/utils/function_calling");
const agents = await load<{
  Agent: new (options: { name: string; model: unknown; tools: unknown }) => unknown;
  run(agent: unknown, input: string): Promise<unknown>;
  setTracingDisabled(disabled: boolean): void;
  Usage: new () => unknown;
}>("@openai/agents");

const tokens = (value: unknown) => textTokens(JSON.stringify(value));

// The first 100 served tools in name order that fit OpenAI strict mode without unrolling a cycle.
const candidates = [...githubRest].sort((a, b) => (a.name < b.name ? -1 : 1));
const chosen: Tool<object>[] = [];
for (const tool of candidates) {
  if (chosen.length === 100) break;
  try {
    fit([tool], profile("openai-strict"), { allowLossy: true });
    chosen.push(tool);
  } catch {
    // A recursive schema needs `unroll`; left out of the comparison.
  }
}

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 0, text: 0, reasoning: undefined } };
const model = new aiTest.MockLanguageModelV3({ doGenerate: { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] } });
await ai.generateText({ model, tools: toAISDKTools(chosen), prompt: "hi" });
const aiSent = (model.doGenerateCalls[0]!.tools ?? []).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));

const langchainSent = toLangChainTools(chosen).map((tool) => lc.convertToOpenAITool(tool));

agents.setTracingDisabled(true);
const seen: unknown[][] = [];
const scripted = {
  async getResponse(request: { tools: unknown[] }) {
    seen.push(request.tools);
    return { usage: new agents.Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok" }] }] };
  },
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  },
};
const agentsTools = async (strict: boolean) => {
  seen.length = 0;
  await agents.run(new agents.Agent({ name: "bench", model: scripted, tools: toOpenAIAgentsTools(chosen, undefined, { strict }).tools }), "hi");
  // As the Responses provider sends a function tool.
  return (seen[0] ?? []).map((t) => {
    const { name, description, parameters, strict: isStrict } = t as { name: string; description: string; parameters: unknown; strict: boolean };
    return { type: "function", name, description, parameters, strict: isStrict };
  });
};
const agentsStrict = await agentsTools(true);
const agentsOpen = await agentsTools(false);

const strictFitted = fit(chosen, profile("openai-strict"), { allowLossy: true }).tools;
const rows: Array<[string, string, number]> = [
  ["sluice `toOpenAIChat(tools)`", "Chat Completions", tokens(toOpenAIChat(chosen))],
  ["AI SDK 6 `toAISDKTools` (mock model's call options, Chat shape)", "Chat Completions", tokens(aiSent)],
  ["LangChain `toLangChainTools` + `convertToOpenAITool`", "Chat Completions", tokens(langchainSent)],
  ["sluice `toOpenAIResponses(tools, { strict: false })`", "Responses", tokens(toOpenAIResponses(chosen, { strict: false }))],
  ["Agents SDK `toOpenAIAgentsTools(..., { strict: false })`", "Responses", tokens(agentsOpen)],
  ["sluice `toOpenAIResponses(fit(tools, openai-strict))`", "Responses, strict", tokens(toOpenAIResponses(strictFitted))],
  ["Agents SDK `toOpenAIAgentsTools` (strict, the default)", "Responses, strict", tokens(agentsStrict)],
];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const identical = [
  `- LangChain's definitions are byte-identical to \`toOpenAIChat\`'s: ${same(langchainSent, toOpenAIChat(chosen))}.`,
  `- The AI SDK's, in the Chat shape: ${same(aiSent, toOpenAIChat(chosen))}.`,
  `- The Agents SDK's non-strict ones to \`toOpenAIResponses(tools, { strict: false })\`: ${same(agentsOpen, toOpenAIResponses(chosen, { strict: false }))}; strict ones to \`toOpenAIResponses(fit(...))\`: ${same(agentsStrict, toOpenAIResponses(strictFitted))}.`,
];

const text = [
  "# Tokens each agent framework sends for the same tools",
  "",
  `The first ${chosen.length} github-rest tools in name order that fit OpenAI strict mode (\`${chosen.at(-1)!.name}\` is the last), as each framework sends them to a provider, beside sluice's own adapters. Tokens: o200k_base, compact JSON of the whole tool list.`,
  "",
  "Produced by `node --conditions=@sluice/source --import tsx scripts/bench-frameworks.ts` (ai 6, @langchain/core 1, @openai/agents 0.20, as in packages/catalog's devDependencies).",
  "",
  "| sent by | API shape | tokens |",
  "| --- | --- | ---: |",
  ...rows.map(([who, shape, n]) => `| ${who} | ${shape} | ${n.toLocaleString("en-US")} |`),
  "",
  ...identical,
  "",
  "The helpers send sluice's schemas as they are: the AI SDK and LangChain byte for byte, the Agents SDK too without strict mode. In strict mode the Agents SDK normalises fit's output once more on its own (`required` listed in property order, `required: []` on an object without properties): a few tokens, no change in meaning. Strict mode is smaller here than the schema as written because fit cuts the descriptions longer than OpenAI's 1,024 characters (4 of these tools; a lossy change, listed in \`changes\`), which outweighs the null types it adds to optional members; sluice still validates every call against the original tool.",
  "",
].join("\n");
writeFileSync(fileURLToPath(new URL("../bench/FRAMEWORKS.md", import.meta.url)), text);
process.stdout.write(text);
