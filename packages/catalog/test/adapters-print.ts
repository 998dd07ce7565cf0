// Every adapter's output for the fixture tools as JSON.stringify (not canonical JSON: the
// bytes a caller would actually send, key order included). Run as a script it prints them:
// adapters-determinism.test.ts compares a child's with its worker's (twice as many children
// in the long tier) to prove output is identical across processes.
import { toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";
import { fixtureTools } from "./adapters-fixtures.ts";

export function printAdapters(): string {
  const tools = fixtureTools();
  return JSON.stringify({
    openaiChat: toOpenAIChat(tools),
    openaiResponses: toOpenAIResponses(tools),
    anthropic: toAnthropic(tools, { deferred: ["issues_list"] }),
    geminiParameters: toGemini(tools, { form: "parameters" }),
    geminiJsonSchema: toGemini(tools, { form: "parametersJsonSchema" }),
    bedrock: toBedrock(tools),
    mcp: toMCP(tools),
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) process.stdout.write(printAdapters());
