/**
 * The AI SDK's own loop (generateText with stopWhen) driven by its own mock model
 * (MockLanguageModelV3 from ai/test) against a mock GitHub on 127.0.0.1.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ToolSession } from "@sluice/catalog";
import { toAISDKSession, toAISDKTools } from "@sluice/catalog/ai-sdk";
import { schemaTokens } from "@sluice/core/tokens";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { CALLS, contextFor, createIssueTool, startMockGitHub, TOKEN, type MockGitHub } from "./frameworks-fixture.ts";

let api: MockGitHub;
beforeAll(async () => {
  api = await startMockGitHub();
});
afterAll(() => api.close());

// The provider types, as the mock model declares them (no import of the SDK's internal package).
type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type LanguageModelV3Prompt = MockLanguageModelV3["doGenerateCalls"][number]["prompt"];

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };

function toolCallTurn(id: string, input: string): LanguageModelV3GenerateResult {
  return { content: [{ type: "tool-call", toolCallId: id, toolName: "create_issue", input }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
}

/** The text of each tool result the model was sent, by call id, from the last prompt. */
function toolResults(prompt: LanguageModelV3Prompt): Map<string, { type: string; value: unknown }> {
  const out = new Map<string, { type: string; value: unknown }>();
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") out.set(part.toolCallId, part.output as { type: string; value: unknown });
  }
  return out;
}

it("runs a whole loop: pins sent, withheld refused and never sent, sluice's coded issue list, no token", async () => {
  const model = new MockLanguageModelV3({
    doGenerate: [
      toolCallTurn("c1", CALLS.valid),
      toolCallTurn("c2", CALLS.withheld),
      toolCallTurn("c3", CALLS.wrongType),
      toolCallTurn("c4", CALLS.notJson),
      { content: [{ type: "text", text: "Filed issue 7." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
    ],
  });
  const tool = createIssueTool();
  const result = await generateText({ model, tools: toAISDKTools([tool], contextFor(api)), prompt: "File the bug.", stopWhen: stepCountIs(10) });

  expect(result.text).toBe("Filed issue 7.");
  expect(result.steps).toHaveLength(5);

  // The model read sluice's schema as it is (pins and withheld arguments absent).
  const sent = model.doGenerateCalls[0]!.tools!;
  expect(sent).toHaveLength(1);
  expect(sent[0]).toMatchObject({ type: "function", name: "create_issue", inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)) });

  // Only the valid call reached the API, with the pins and the token, never the withheld argument.
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toEqual({ method: "POST", url: "/repos/acme/widgets/issues", authorization: `Bearer ${TOKEN}`, body: { title: "Widget falls over", body: "Steps: push it.", labels: ["bug"] } });

  const results = toolResults(model.doGenerateCalls[4]!.prompt);
  const ok = results.get("c1")!;
  expect(ok.type).toBe("json");
  // Trimmed by the pack's handler (the user's avatar, the reactions gone), the echoed token redacted.
  expect(ok.value).toEqual({ id: 9001, number: 7, title: "Widget falls over", state: "open", html_url: "https://github.com/acme/widgets/issues/7", body: "created with Bearer [redacted]", user: { login: "octocat", id: 1 } });
  const denied = results.get("c2")!;
  expect(denied.type).toBe("error-text");
  expect(denied.value).toMatch(/^EGRESS_DENIED: create_issue refused the call/);
  expect(denied.value).toContain("/assignees");
  const invalid = results.get("c3")!;
  expect(invalid.type).toBe("error-text");
  expect(invalid.value).toMatch(/^INVALID_ARGUMENTS: /);
  // Every issue, not the first: both wrong arguments are named.
  expect(invalid.value).toContain("/labels");
  expect(invalid.value).toContain("/milestone");
  // Arguments that are not JSON are the SDK's to refuse: an error result, and nothing sent.
  expect(results.get("c4")).toMatchObject({ type: "error-text", value: expect.stringMatching(/^Invalid input for tool create_issue: JSON parsing failed/) });

  // The token reached the API, never the model: not in a result, not in the prompt.
  expect(JSON.stringify(model.doGenerateCalls.map((call) => call.prompt))).not.toContain(TOKEN);
});

it("hands each tool a fresh schema the SDK may change, leaving sluice's frozen one alone", () => {
  const tool = createIssueTool();
  const first = toAISDKTools([tool]);
  const second = toAISDKTools([tool]);
  expect(first["create_issue"]!.inputSchema).not.toBe(second["create_issue"]!.inputSchema);
  expect(Object.isFrozen(tool.inputSchema)).toBe(true);
});

it("passes the SDK's abort signal to the request", async () => {
  const controller = new AbortController();
  controller.abort();
  const tools = toAISDKTools([createIssueTool()], contextFor(api));
  const before = api.requests.length;
  const call = tools["create_issue"]!.execute!(JSON.parse(CALLS.valid), { toolCallId: "x", messages: [], abortSignal: controller.signal });
  await expect(call).rejects.toMatchObject({ name: "SluiceToolCallError", code: "ABORTED", message: expect.stringMatching(/^ABORTED: /) });
  expect(api.requests.length).toBe(before);
});

it("deferred loading: a ToolSession drives activeTools, the model starts with the search tool alone", async () => {
  const tool = createIssueTool();
  // The curated tool among every github-rest tool but the one it narrows.
  const catalog = [tool, ...githubRest.filter((t) => t.name !== "issues_create")];
  const session = new ToolSession(catalog);
  const { tools, prepareStep } = toAISDKSession(session, contextFor(api));
  const model = new MockLanguageModelV3({
    doGenerate: [
      // A catalog tool before it is loaded: not active, so the SDK refuses it itself.
      toolCallTurn("s0", CALLS.valid),
      { content: [{ type: "tool-call", toolCallId: "s1", toolName: session.searchTool.name, input: JSON.stringify({ query: "select:create_issue" }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
      toolCallTurn("s2", CALLS.valid),
      { content: [{ type: "text", text: "Filed." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
    ],
  });
  const before = api.requests.length;
  const result = await generateText({ model, tools, prepareStep, prompt: "File the bug.", stopWhen: stepCountIs(6) });
  expect(result.text).toBe("Filed.");

  const sentNames = model.doGenerateCalls.map((call) => (call.tools ?? []).map((t) => t.name));
  expect(sentNames[0]).toEqual([session.searchTool.name]);
  expect(sentNames[1]).toEqual([session.searchTool.name]);
  expect(sentNames[2]).toEqual([session.searchTool.name, "create_issue"]);
  const refused = toolResults(model.doGenerateCalls[1]!.prompt).get("s0")!;
  expect(refused).toMatchObject({ type: "error-text", value: expect.stringContaining("unavailable tool 'create_issue'") });
  // Called around the SDK's check (a direct execute), the session refuses it with the query that loads it.
  const fresh = toAISDKSession(new ToolSession(catalog), contextFor(api));
  await expect(fresh.tools["create_issue"]!.execute!(JSON.parse(CALLS.valid), { toolCallId: "x", messages: [] })).rejects.toMatchObject({ code: "TOOL_NOT_LOADED", message: expect.stringMatching(/^TOOL_NOT_LOADED: .*select:create_issue/) });
  expect(api.requests.length - before).toBe(1);
  expect(api.requests.at(-1)!.url).toBe("/repos/acme/widgets/issues");

  // What it saves: the first step's tool list against sending the whole catalog.
  expect(schemaTokens(session.visibleTools().slice(0, 1))).toBeLessThan(schemaTokens(catalog) / 100);
});
