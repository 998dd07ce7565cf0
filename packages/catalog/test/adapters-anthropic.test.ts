import { describe, expect, it } from "vitest";
import { toAnthropic } from "../src/adapters/index.ts";
import { fixtureTools, sluiceErrorOf } from "./adapters-fixtures.ts";

const tools = fixtureTools(); // by name: chat_post_message, issue_create, issues_list, post_search

function marks(options: Parameters<typeof toAnthropic>[1]): [string, string][] {
  return toAnthropic(tools, options).map((tool) => [
    tool.name,
    [tool.defer_loading === true ? "deferred" : "", tool.cache_control ? `cache:${tool.cache_control.type}` : ""].filter(Boolean).join(" "),
  ]);
}

describe("toAnthropic", () => {
  it.each<[string, { given: Parameters<typeof toAnthropic>[1]; want: [string, string][] }]>([
    ["one breakpoint, on the last tool, when nothing is deferred", {
      given: {},
      want: [["chat_post_message", ""], ["issue_create", ""], ["issues_list", ""], ["post_search", "cache:ephemeral"]],
    }],
    ["the breakpoint moves to the last non-deferred tool", {
      given: { deferred: ["post_search", "issues_list"] },
      want: [["chat_post_message", ""], ["issue_create", "cache:ephemeral"], ["issues_list", "deferred"], ["post_search", "deferred"]],
    }],
    ["a deferred tool in the middle keeps the breakpoint at the end", {
      given: { deferred: new Set(["issue_create"]) },
      want: [["chat_post_message", ""], ["issue_create", "deferred"], ["issues_list", ""], ["post_search", "cache:ephemeral"]],
    }],
    ["everything deferred: no breakpoint at all", {
      given: { deferred: tools.map((t) => t.name) },
      want: [["chat_post_message", "deferred"], ["issue_create", "deferred"], ["issues_list", "deferred"], ["post_search", "deferred"]],
    }],
    ["the breakpoint follows the emitted order (as-given)", {
      given: { order: "as-given", deferred: ["issue_create"] },
      want: [["chat_post_message", ""], ["issues_list", ""], ["post_search", "cache:ephemeral"], ["issue_create", "deferred"]],
    }],
    ["cacheControl: false leaves the breakpoint out", {
      given: { cacheControl: false, deferred: ["post_search"] },
      want: [["chat_post_message", ""], ["issue_create", ""], ["issues_list", ""], ["post_search", "deferred"]],
    }],
  ])("%s", (_name, { given, want }) => {
    expect(marks(given)).toEqual(want);
  });

  it("carries the caller's cache_control (a 1h ttl) on the breakpoint only", () => {
    const out = toAnthropic(tools, { cacheControl: { type: "ephemeral", ttl: "1h" } });
    expect(out.map((t) => t.cache_control)).toEqual([undefined, undefined, undefined, { type: "ephemeral", ttl: "1h" }]);
    expect(out.filter((t) => "cache_control" in t)).toHaveLength(1);
    expect(out.filter((t) => "defer_loading" in t)).toHaveLength(0);
  });

  it("refuses a deferred name that is no tool, listing the tools: a typo must not load it up front", () => {
    const error = sluiceErrorOf(() => toAnthropic(tools, { deferred: ["issue_creat"] }));
    expect(error.code).toBe("TOOL_NOT_FOUND");
    expect(error.candidates).toEqual(["chat_post_message", "issue_create", "issues_list", "post_search"]);
  });

  it("sends name, description and input_schema as the tool has them", () => {
    const [first] = toAnthropic([tools[3]!]);
    expect(first).toEqual({ name: "issue_create", description: tools[3]!.description, input_schema: tools[3]!.inputSchema, cache_control: { type: "ephemeral" } });
  });
});
