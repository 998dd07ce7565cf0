import { tools as notionTools } from "@sluice/pack-notion";
import { describe, expect, it } from "vitest";
import { ToolSession } from "../src/session/index.ts";
// Imported outright: a missing module is a failing file, never a skipped one.
import * as adapters from "../src/adapters/index.ts";

/**
 * The session's tool lists through every provider adapter: with `order: "as-given"`
 * (the adapters sort by name by default, which would put loaded tools before
 * `tool_search` and break the prefix), each turn's serialized tools extend the previous
 * turn's byte for byte.
 */

const QUERIES = ["select:retrieve_a_page", "create comment", "+block children", "select:retrieve_a_page,move_page"];

function turns(serialize: (session: ToolSession) => unknown[]): string[] {
  const session = new ToolSession(notionTools);
  const out = [JSON.stringify(serialize(session))];
  for (const query of QUERIES) {
    session.search(query);
    out.push(JSON.stringify(serialize(session)));
  }
  return out;
}

function expectAppendOnly(lists: readonly string[]): void {
  for (let k = 0; k + 1 < lists.length; k++) {
    expect(lists[k + 1]!.startsWith(lists[k]!.slice(0, -1)), `turn ${k + 1} extends turn ${k}`).toBe(true);
  }
  expect(lists.length).toBeGreaterThan(2);
  expect(lists.at(-1)!.length).toBeGreaterThan(lists[0]!.length);
}

describe("ToolSession through the provider adapters", () => {

  it("OpenAI chat, OpenAI Responses, Bedrock, MCP and both Gemini forms: each turn extends the last", async () => {
    const a = adapters;
    const asGiven = { order: "as-given" } as const;
    const serializers: Record<string, (session: ToolSession) => unknown[]> = {
      openaiChat: (s) => a.toOpenAIChat(s.visibleTools(), asGiven),
      openaiResponses: (s) => a.toOpenAIResponses(s.visibleTools(), { ...asGiven, strict: false }),
      bedrock: (s) => a.toBedrock(s.visibleTools(), asGiven),
      mcp: (s) => a.toMCP(s.visibleTools(), asGiven),
      geminiJsonSchema: (s) => a.toGemini(s.visibleTools(), { ...asGiven, form: "parametersJsonSchema" }),
      geminiParameters: (s) => a.toGemini(s.visibleTools(), { ...asGiven, form: "parameters" }),
    };
    for (const [name, serialize] of Object.entries(serializers)) {
      const lists = turns(serialize);
      expect(lists[0], name).toContain('"tool_search"');
      expectAppendOnly(lists);
    }
  });

  it("the search tool's schema passes OpenAI strict mode as is", async () => {
    const a = adapters;
    const [entry] = a.toOpenAIResponses([new ToolSession(notionTools).searchTool]);
    expect(entry).toMatchObject({ name: "tool_search", strict: true, parameters: { additionalProperties: false, required: ["query"] } });
  });

  it("Anthropic: append-only without the moving cache breakpoint, which sits on the newest tool", async () => {
    const a = adapters;
    expectAppendOnly(turns((s) => a.toAnthropic(s.visibleTools(), { order: "as-given", cacheControl: false })));
    const session = new ToolSession(notionTools);
    session.search("select:move_page,retrieve_a_page");
    const sent = a.toAnthropic(session.visibleTools(), { order: "as-given" });
    expect(sent.map((t) => t.name)).toEqual(["tool_search", "move_page", "retrieve_a_page"]);
    expect(sent.map((t) => "cache_control" in t)).toEqual([false, false, true]);
  });

  it("Anthropic's own defer_loading: allToolsDeferred feeds toAnthropic directly", async () => {
    const a = adapters;
    const session = new ToolSession(notionTools);
    session.search("select:move_page");
    const { tools, deferred } = session.allToolsDeferred();
    const sent = a.toAnthropic(tools, { deferred, order: "as-given" });
    expect(sent).toHaveLength(notionTools.length);
    expect(sent[0]).toMatchObject({ name: "move_page", cache_control: { type: "ephemeral" } });
    expect(sent[0]).not.toHaveProperty("defer_loading");
    expect(sent.slice(1).every((t) => t.defer_loading === true && !("cache_control" in t))).toBe(true);
    // Loading more keeps the non-deferred tools append-only.
    session.search("select:retrieve_a_page");
    const next = session.allToolsDeferred();
    expect(a.toAnthropic(next.tools, { deferred: next.deferred, order: "as-given", cacheControl: false }).slice(0, 2).map((t) => t.name)).toEqual([
      "move_page",
      "retrieve_a_page",
    ]);
  });
});
