/**
 * LangChain's own agent loop (createAgent from `langchain`) driven by LangChain's own fake
 * chat model (fakeModel from @langchain/core/testing) against a mock GitHub on 127.0.0.1.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createAgent } from "langchain";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toLangChainTools } from "@sluice/catalog/langchain";
import { CALLS, contextFor, createIssueTool, startMockGitHub, TOKEN, type MockGitHub } from "./frameworks-fixture.ts";

let api: MockGitHub;
beforeAll(async () => {
  api = await startMockGitHub();
});
afterAll(() => api.close());

function toolMessages(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const out = new Map<string, ToolMessage>();
  for (const message of messages) if (ToolMessage.isInstance(message)) out.set(message.tool_call_id, message);
  return out;
}

it("runs createAgent's loop: pins sent, withheld refused and never sent, sluice's coded issue list, no token", async () => {
  const model = fakeModel()
    .respondWithTools([{ name: "create_issue", args: JSON.parse(CALLS.valid), id: "c1" }])
    .respondWithTools([{ name: "create_issue", args: JSON.parse(CALLS.withheld), id: "c2" }])
    .respondWithTools([{ name: "create_issue", args: JSON.parse(CALLS.wrongType), id: "c3" }])
    // Arguments that are not JSON: LangChain's chat models put them in invalid_tool_calls, which the agent does not run.
    .respond(new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", name: "create_issue", args: CALLS.notJson, id: "c4", error: "not JSON" }] }));
  const tool = createIssueTool();
  const tools = toLangChainTools([tool], contextFor(api));
  const agent = createAgent({ model, tools });
  const result = await agent.invoke({ messages: [{ role: "user", content: "File the bug." }] });

  // The loop ran to its end: four model turns, three tool results.
  expect(model.calls).toHaveLength(4);
  const answers = toolMessages(result.messages);
  expect([...answers.keys()]).toEqual(["c1", "c2", "c3"]);

  // What LangChain sends a provider for the tool: sluice's schema as it is.
  expect(convertToOpenAITool(tools[0]!).function.parameters).toEqual(JSON.parse(JSON.stringify(tool.inputSchema)));

  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toEqual({ method: "POST", url: "/repos/acme/widgets/issues", authorization: `Bearer ${TOKEN}`, body: { title: "Widget falls over", body: "Steps: push it.", labels: ["bug"] } });

  const ok = answers.get("c1")!;
  expect(ok.status).toBe("success");
  expect(JSON.parse(String(ok.content))).toEqual({ id: 9001, number: 7, title: "Widget falls over", state: "open", html_url: "https://github.com/acme/widgets/issues/7", body: "created with Bearer [redacted]", user: { login: "octocat", id: 1 } });
  const denied = answers.get("c2")!;
  expect(denied.status).toBe("error");
  expect(denied.content).toMatch(/^EGRESS_DENIED: create_issue refused the call/);
  expect(denied.content).toContain("/assignees");
  const invalid = answers.get("c3")!;
  expect(invalid.status).toBe("error");
  // Sluice's list, every issue, not LangChain's "did not match expected schema".
  expect(invalid.content).toMatch(/^INVALID_ARGUMENTS: /);
  expect(invalid.content).toContain("/labels");
  expect(invalid.content).toContain("/milestone");

  expect(JSON.stringify(result.messages)).not.toContain(TOKEN);
});

it("answers a direct invoke with the content, sluice's refusal included", async () => {
  const [tool] = toLangChainTools([createIssueTool()], contextFor(api));
  const before = api.requests.length;
  await expect(tool!.invoke(JSON.parse(CALLS.withheld))).resolves.toMatch(/^EGRESS_DENIED: /);
  expect(api.requests.length).toBe(before);
});
