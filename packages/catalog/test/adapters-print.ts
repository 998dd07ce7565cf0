// Prints every adapter's output for the fixture tools as JSON.stringify (not canonical
// JSON: the bytes a caller would actually send, key order included). Spawned twice by
// adapters-determinism.test.ts to prove output is identical across processes.
import { toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";
import { fixtureTools } from "./adapters-fixtures.ts";

const tools = fixtureTools();
process.stdout.write(JSON.stringify({
  openaiChat: toOpenAIChat(tools),
  openaiResponses: toOpenAIResponses(tools),
  anthropic: toAnthropic(tools, { deferred: ["issues_list"] }),
  geminiParameters: toGemini(tools, { form: "parameters" }),
  geminiJsonSchema: toGemini(tools, { form: "parametersJsonSchema" }),
  bedrock: toBedrock(tools),
  mcp: toMCP(tools),
}));
