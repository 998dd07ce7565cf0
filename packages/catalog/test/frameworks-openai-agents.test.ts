/**
 * The OpenAI Agents SDK's own runner (`run`) in its default strict mode, driven by a custom
 * `Model` (the SDK's documented extension point for other models) that plays scripted turns,
 * against a mock GitHub on 127.0.0.1.
 */
import { Agent, run, setTracingDisabled, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from "@openai/agents";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toOpenAIAgentsTools } from "@sluice/catalog/openai-agents";
import { CALLS, contextFor, createIssueTool, startMockGitHub, TOKEN, type MockGitHub } from "./frameworks-fixture.ts";

let api: MockGitHub;
beforeAll(async () => {
  // Nothing leaves the machine: no trace export.
  setTracingDisabled(true);
  api = await startMockGitHub();
});
afterAll(() => api.close());

/** A model that answers each request with the next scripted turn and keeps every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #turns: ModelResponse["output"][];

  constructor(turns: ModelResponse["output"][]) {
    this.#turns = turns;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.#turns.shift();
    if (output === undefined) throw new Error("the script ran out of turns");
    return { usage: new Usage(), output };
  }

  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not streamed in these tests");
  }
}

const call = (callId: string, args: string): ModelResponse["output"] => [{ type: "function_call", callId, name: "create_issue", arguments: args, status: "completed" }];

function outputs(items: readonly AgentInputItem[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of items) {
    if (item.type !== "function_call_result") continue;
    const output = item.output;
    out.set(item.callId, typeof output === "string" ? output : !Array.isArray(output) && output.type === "text" ? output.text : JSON.stringify(output));
  }
  return out;
}

it("runs the SDK's loop in strict mode: pins sent, withheld refused and never sent, sluice's coded texts, no token", async () => {
  const model = new ScriptedModel([
    // Strict mode: every member is sent, null for the ones left out.
    call("c1", JSON.stringify({ title: "Widget falls over", body: null, labels: ["bug"], milestone: null })),
    call("c2", CALLS.withheld),
    call("c3", CALLS.wrongType),
    call("c4", CALLS.notJson),
    [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Filed issue 7." }] }],
  ]);
  const tool = createIssueTool();
  const { tools, changes } = toOpenAIAgentsTools([tool], contextFor(api));
  const agent = new Agent({ name: "triage", instructions: "File bugs.", model, tools });
  const result = await run(agent, "File the bug.", { maxTurns: 10 });

  expect(result.finalOutput).toBe("Filed issue 7.");
  expect(model.requests).toHaveLength(5);

  // Strict mode took sluice's fitted schema: oneOf written as anyOf, objects closed, optional members nullable.
  const sent = model.requests[0]!.tools;
  expect(sent).toHaveLength(1);
  expect(sent[0]).toMatchObject({ type: "function", name: "create_issue", strict: true });
  const parameters = JSON.stringify(sent[0]!.type === "function" ? sent[0]!.parameters : null);
  expect(parameters).not.toContain("oneOf");
  expect(parameters).not.toContain("assignees");
  expect(parameters).not.toContain('"owner"');
  expect(changes.find((change) => change.action === "convert-keyword" && change.message.startsWith("oneOf written as anyOf"))).toMatchObject({ kind: "lossless" });

  expect(api.requests).toHaveLength(1);
  // The nulls for what the model left out are not sent (body takes no null); the pins are.
  expect(api.requests[0]).toEqual({ method: "POST", url: "/repos/acme/widgets/issues", authorization: `Bearer ${TOKEN}`, body: { title: "Widget falls over", labels: ["bug"] } });

  const answers = outputs(model.requests[4]!.input as AgentInputItem[]);
  expect(JSON.parse(answers.get("c1")!)).toEqual({ id: 9001, number: 7, title: "Widget falls over", state: "open", html_url: "https://github.com/acme/widgets/issues/7", body: "created with Bearer [redacted]", user: { login: "octocat", id: 1 } });
  expect(answers.get("c2")).toMatch(/^EGRESS_DENIED: create_issue refused the call/);
  expect(answers.get("c2")).toContain("/assignees");
  expect(answers.get("c3")).toMatch(/^INVALID_ARGUMENTS: /);
  expect(answers.get("c3")).toContain("/labels");
  expect(answers.get("c3")).toContain("/milestone");
  // Arguments that are not JSON are answered by the SDK's runner before any tool runs (its own sentence); nothing is sent.
  expect(answers.get("c4")).toBe("An error occurred while parsing tool arguments. Please try again with valid JSON.");

  expect(JSON.stringify(model.requests.map((request) => request.input))).not.toContain(TOKEN);
});

it("sends the tool's own schema with strict: false", () => {
  const tool = createIssueTool();
  const { tools, changes } = toOpenAIAgentsTools([tool], undefined, { strict: false });
  expect(changes).toEqual([]);
  expect(tools[0]!.strict).toBe(false);
  expect(tools[0]!.parameters).toEqual(JSON.parse(JSON.stringify(tool.inputSchema)));
});
