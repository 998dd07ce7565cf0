import { describe, expect, it } from "vitest";
import { toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";
import { fixtureTools } from "./adapters-fixtures.ts";

// Whole-output snapshots, one file per adapter: the exact bytes each provider receives
// for four real tools (default options, plus the Anthropic deferral and both Gemini forms).
const tools = fixtureTools();
const cases: [string, () => unknown][] = [
  ["openai-chat", () => toOpenAIChat(tools)],
  ["openai-chat-strict", () => toOpenAIChat(tools, { strict: true })],
  ["openai-responses", () => toOpenAIResponses(tools)],
  ["anthropic", () => toAnthropic(tools)],
  ["anthropic-deferred", () => toAnthropic(tools, { deferred: ["issue_create", "post_search"] })],
  ["gemini-parameters", () => toGemini(tools, { form: "parameters" })],
  ["gemini-parameters-json-schema", () => toGemini(tools, { form: "parametersJsonSchema" })],
  ["bedrock", () => toBedrock(tools)],
  ["mcp", () => toMCP(tools)],
];

describe("adapter output", () => {
  it.each(cases)("%s", async (name, adapt) => {
    await expect(JSON.stringify(adapt(), null, 2) + "\n").toMatchFileSnapshot(`adapters-snapshots/${name}.json`);
  });
});
