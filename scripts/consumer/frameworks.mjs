// Runs in the consumer project on plain `node` (no loader): the installed tarballs and the
// agent frameworks as a user installs them. Each framework's own loop (the AI SDK's mock
// model, LangChain's fake model under createAgent, a custom Model for the Agents SDK's
// runner) calls a curated github-rest tool against a mock API on 127.0.0.1.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { credentialsFromEnv, tools } from "@sluice/pack-github-rest";
import { toAISDKTools } from "@sluice/catalog/ai-sdk";
import { toLangChainTools } from "@sluice/catalog/langchain";
import { toOpenAIAgentsTools } from "@sluice/catalog/openai-agents";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { Agent, run, setTracingDisabled, Usage } from "@openai/agents";

const TOKEN = "ghp_consumerFrameworkToken0123456789";
const received = [];
const api = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    received.push({ url: req.url, authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(201, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: 1, number: 7, title: "t", body: `echo ${req.headers.authorization}`, user: { login: "octocat", id: 1, avatar_url: "x" } }));
  });
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
const ctx = { credentials: credentialsFromEnv({ GITHUB_TOKEN: TOKEN }), baseUrl: `http://127.0.0.1:${api.address().port}` };
const createIssue = tools
  .find((tool) => tool.name === "issues_create")
  .derived({ name: "create_issue", drop: ["assignees", "assignee"], pin: { owner: "acme", repo: "widgets" } });
const valid = { title: "Widget falls over", labels: ["bug"] };
const withheld = { title: "x", assignees: ["mallory"] };
const wrong = { title: "x", labels: 5 };

/** Every framework: one request, pins in, the withheld argument never sent, the token never read by the model. */
function checkOutcome(framework, texts) {
  assert.equal(received.length, 1, `${framework}: one request reached the API`);
  const [request] = received.splice(0);
  assert.equal(request.url, "/repos/acme/widgets/issues", `${framework}: the pins are in the path`);
  assert.equal(request.authorization, `Bearer ${TOKEN}`, `${framework}: the token from the application`);
  assert.deepEqual(request.body, valid, `${framework}: nothing but the valid call's arguments`);
  assert.match(texts[0], /"number":7/, `${framework}: the answer`);
  assert.match(texts[1], /^EGRESS_DENIED: /, `${framework}: the withheld argument refused with its code`);
  assert.match(texts[2], /^INVALID_ARGUMENTS: [\s\S]*\/labels/, `${framework}: sluice's issue list`);
  for (const text of texts) assert.ok(!text.includes(TOKEN), `${framework}: the token never reaches the model`);
  process.stdout.write(`${framework}: ok\n`);
}

try {
  // Vercel AI SDK.
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
  const call = (id, args) => ({ content: [{ type: "tool-call", toolCallId: id, toolName: "create_issue", input: JSON.stringify(args) }], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] });
  const model = new MockLanguageModelV3({
    doGenerate: [call("a", valid), call("b", withheld), call("c", wrong), { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }],
  });
  const result = await generateText({ model, tools: toAISDKTools([createIssue], ctx), prompt: "file it", stopWhen: stepCountIs(6) });
  assert.equal(result.text, "done");
  const aiTexts = model.doGenerateCalls[3].prompt.filter((m) => m.role === "tool").map((m) => m.content[0].output).map((o) => (typeof o.value === "string" ? o.value : JSON.stringify(o.value)));
  checkOutcome("ai", aiTexts);

  // LangChain.
  const lcModel = fakeModel()
    .respondWithTools([{ name: "create_issue", args: valid, id: "a" }])
    .respondWithTools([{ name: "create_issue", args: withheld, id: "b" }])
    .respondWithTools([{ name: "create_issue", args: wrong, id: "c" }])
    .respond(new AIMessage("done"));
  const agent = createAgent({ model: lcModel, tools: toLangChainTools([createIssue], ctx) });
  const state = await agent.invoke({ messages: [{ role: "user", content: "file it" }] });
  checkOutcome("langchain", state.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content)));

  // OpenAI Agents SDK, strict mode.
  setTracingDisabled(true);
  const turns = [valid, withheld, wrong].map((args, i) => [{ type: "function_call", callId: `c${i}`, name: "create_issue", arguments: JSON.stringify(args), status: "completed" }]);
  turns.push([{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }]);
  let last;
  const scripted = {
    async getResponse(request) {
      last = request;
      return { usage: new Usage(), output: turns.shift() };
    },
    async *getStreamedResponse() {
      throw new Error("not streamed");
    },
  };
  const outcome = await run(new Agent({ name: "triage", model: scripted, tools: toOpenAIAgentsTools([createIssue], ctx).tools }), "file it");
  assert.equal(outcome.finalOutput, "done");
  checkOutcome("openai-agents", last.input.filter((item) => item.type === "function_call_result").map((item) => (typeof item.output === "string" ? item.output : item.output.text)));
} finally {
  api.close();
}
