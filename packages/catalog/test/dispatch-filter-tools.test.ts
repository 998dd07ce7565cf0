import { describe, expect, it } from "vitest";
import { filterTools, type CatalogTool, type FilterToolsOptions } from "../src/dispatch/index.ts";

const schema = { type: "object", properties: {} };
const catalog: CatalogTool[] = [
  { name: "Read", description: "Read a file.", input_schema: schema },
  { name: "Write", description: "Write a file.", input_schema: schema },
  { name: "get-issue", description: "Get an issue.", input_schema: schema },
  { name: "mcp__github__search", description: "Search.", input_schema: schema },
  { name: "mcp__github__get_pr", description: "Get a PR.", input_schema: schema },
  { name: "mcp__gitlab__search", description: "Search.", input_schema: schema },
  { type: "web_search_20250305", name: "web_search" },
];

type Case = [string, { given: FilterToolsOptions; want: { removed: string[]; refused: [string, string][] } }];

const cases: Case[] = [
  ["removes named tools", { given: { remove: ["Write", "get-issue"] }, want: { removed: ["Write", "get-issue"], refused: [] } }],
  ["removes a whole MCP server by prefix, and only that server", { given: { remove: ["mcp__github"] }, want: { removed: ["mcp__github__search", "mcp__github__get_pr"], refused: [] } }],
  ["refuses the tool tool_choice forces (Anthropic shape)", { given: { remove: ["Write"], toolChoice: { type: "tool", name: "Write" } }, want: { removed: [], refused: [["Write", "forced_by_tool_choice"]] } }],
  ["refuses the tool tool_choice forces (OpenAI Chat shape)", { given: { remove: ["Read", "Write"], toolChoice: { type: "function", function: { name: "Read" } } }, want: { removed: ["Write"], refused: [["Read", "forced_by_tool_choice"]] } }],
  ["refuses tools an allowed_tools choice lists", { given: { remove: ["Read"], toolChoice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "Read" }] } }, want: { removed: [], refused: [["Read", "forced_by_tool_choice"]] } }],
  ["a mode forces no tool", { given: { remove: ["Read"], toolChoice: { type: "any" } }, want: { removed: ["Read"], refused: [] } }],
  ["refuses provider-typed tools", { given: { remove: ["web_search"] }, want: { removed: [], refused: [["web_search", "provider_typed"]] } }],
  ["refuses a tool the system prompt mentions", { given: { remove: ["Read", "Write"], systemPrompt: "Always use Read before editing." }, want: { removed: ["Write"], refused: [["Read", "mentioned_in_system_prompt"]] } }],
  ["reads system prompt blocks", { given: { remove: ["Write"], systemPrompt: [{ type: "text", text: "Prefer Write, for new files." }] as never }, want: { removed: [], refused: [["Write", "mentioned_in_system_prompt"]] } }],
  ["matches whole names only: get-issue inside get-issue-comments is no mention", { given: { remove: ["get-issue", "Read"], systemPrompt: "Use get-issue-comments and ReadMe files." }, want: { removed: ["Read", "get-issue"], refused: [] } }],
  ["refuses a name or server that matches nothing (a typo is not a removal)", { given: { remove: ["Wrtie", "mcp__jira"] }, want: { removed: [], refused: [["Wrtie", "not_in_catalog"], ["mcp__jira", "not_in_catalog"]] } }],
];

describe("filterTools", () => {
  it.each(cases)("%s", (_, { given, want }) => {
    const result = filterTools(catalog, given);
    expect(result.removed).toStrictEqual(want.removed);
    expect(result.refused.map((r) => [r.name, r.reason])).toStrictEqual(want.refused);
    expect(result.tools.length + result.removed.length).toBe(catalog.length);
    for (const refusal of result.refused) expect(refusal.message).not.toBe("");
  });

  it("keeps the last remaining tool", () => {
    const two: CatalogTool[] = [
      { type: "function", function: { name: "a", parameters: schema } },
      { type: "function", function: { name: "b", parameters: schema } },
    ];
    const result = filterTools(two, { remove: ["a", "b"] });
    expect(result.removed).toStrictEqual(["a"]);
    expect(result.refused.map((r) => [r.name, r.reason])).toStrictEqual([["b", "last_tool"]]);
    expect(result.tools).toStrictEqual([two[1]]);
  });

  it("returns the kept entries themselves, in catalog order", () => {
    const result = filterTools(catalog, { remove: ["Write"] });
    expect(result.tools).toStrictEqual(catalog.filter((t) => t !== catalog[1]));
    result.tools.forEach((tool) => expect(catalog).toContain(tool));
  });

  it("refuses a catalog with duplicate names and a bad remove list", () => {
    expect(() => filterTools([catalog[0]!, catalog[0]!], { remove: [] })).toThrow(expect.objectContaining({ code: "INVALID_NAME" }));
    expect(() => filterTools(catalog, { remove: "Read" as never })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });
});
