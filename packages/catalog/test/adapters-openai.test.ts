import { describe, expect, it } from "vitest";
import { toOpenAIChat, toOpenAIResponses } from "../src/adapters/index.ts";
import { fixtureTools } from "./adapters-fixtures.ts";

const tools = fixtureTools();

describe("toOpenAIChat", () => {
  it("leaves strict out unless asked, so the API's own default (not strict) applies", () => {
    expect(toOpenAIChat(tools).every((t) => !("strict" in t.function))).toBe(true);
    expect(toOpenAIChat(tools, { strict: true }).map((t) => t.function.strict)).toEqual([true, true, true, true]);
    expect(toOpenAIChat(tools, { strict: false }).map((t) => t.function.strict)).toEqual([false, false, false, false]);
  });

  it("wraps each tool as a function tool with its schema as parameters", () => {
    const tool = tools[1]!;
    expect(toOpenAIChat([tool])).toEqual([{ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }]);
  });
});

describe("toOpenAIResponses", () => {
  it("writes strict: true when unspecified, as the Responses API does, and false when asked", () => {
    expect(toOpenAIResponses(tools).map((t) => t.strict)).toEqual([true, true, true, true]);
    expect(toOpenAIResponses(tools, { strict: false }).map((t) => t.strict)).toEqual([false, false, false, false]);
  });

  it("puts name, description and parameters at the top level of the tool", () => {
    const tool = tools[1]!;
    expect(toOpenAIResponses([tool])).toEqual([{ type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: true }]);
  });
});
