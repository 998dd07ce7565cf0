import { describe, expect, it } from "vitest";
import type { Tool } from "@sluice/core";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { tools as linear } from "@sluice/pack-linear";
import { tools as slack } from "@sluice/pack-slack";
import { tools as stripe } from "@sluice/pack-stripe";
import { cacheBreakEven, dispatchLevel1, dispatchLevel3, firstSentence, measureLevels, recommendLevel, resolve, type CatalogTool } from "../src/dispatch/index.ts";

function named(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

const sample = [named(githubRest, "issues_create"), named(slack, "chat_post_ephemeral"), named(linear, "issue_create"), named(stripe, "post_customers")];

describe("level 1", () => {
  it("replaces each description with one signature line and keeps the schema", () => {
    const level1 = dispatchLevel1(sample) as { name: string; description: string; inputSchema: unknown }[];
    expect(level1.map((t) => t.description)).toMatchInlineSnapshot(`
      [
        "issues_create(owner: string, repo: string, title: string|integer, body?: string, assignee?: string|null, milestone?: string|integer|null, labels?: (string|object)[], assignees?: string[]) — Create an issue",
        "Sends an ephemeral message to a user in a channel.",
        "Creates a new issue.",
        "<p>Creates a new customer object.</p>",
      ]
    `);
    level1.forEach((tool, i) => expect(tool.inputSchema).toBe(sample[i]!.inputSchema));
  });

  it("keeps each entry's provider shape, and provider-typed tools as they are", () => {
    const typed = { type: "web_search_20250305", name: "web_search" };
    const catalog: CatalogTool[] = [
      { type: "function", function: { name: "a", description: "Does a thing. More words here that go on and on about it.", parameters: { type: "object", properties: { x: { type: "string" } }, required: ["x"] } } },
      { name: "b", description: "Does b.\n\nAnd more about b, which is long enough to be cut away from the line.", input_schema: { type: "object", properties: { id: { type: "integer" } } } },
      typed,
    ];
    expect(dispatchLevel1(catalog)).toStrictEqual([
      { type: "function", function: { name: "a", description: "a(x: string) — Does a thing.", parameters: { type: "object", properties: { x: { type: "string" } }, required: ["x"] } } },
      { name: "b", description: "b(id?: integer) — Does b.", input_schema: { type: "object", properties: { id: { type: "integer" } } } },
      typed,
    ]);
  });

  it("keeps a description that is already shorter than its line", () => {
    const catalog: CatalogTool[] = [{ name: "c", description: "Lists c.", inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } } }];
    expect(dispatchLevel1(catalog)).toStrictEqual(catalog);
  });

  it.each([
    ["Create an issue\n\nAny user with pull access can create one.", "Create an issue"],
    ["Lists items, e.g. users. Then more.", "Lists items, e.g. users."],
    ["See [the docs](https://x.test/a.b) for v1.2 details. More.", "See the docs for v1.2 details."],
  ])("first sentence of %j", (given, want) => expect(firstSentence(given)).toBe(want));
});

describe("level 3", () => {
  const dispatcher = dispatchLevel3(sample);

  it("sends a dispatcher and a lookup tool, with the code map in the system text", () => {
    expect(dispatcher.tools).toMatchInlineSnapshot(`
      [
        {
          "description": "Call a tool listed in the system prompt by its code, with its arguments nested under args.",
          "inputSchema": {
            "properties": {
              "args": {
                "description": "The tool's arguments.",
                "type": "object",
              },
              "code": {
                "description": "The tool's code, e.g. t1.",
                "type": "string",
              },
            },
            "required": [
              "code",
              "args",
            ],
            "type": "object",
          },
          "name": "call_tool",
        },
        {
          "description": "Return the full argument schema of a tool listed in the system prompt.",
          "inputSchema": {
            "properties": {
              "code": {
                "description": "The tool's code, e.g. t1.",
                "type": "string",
              },
            },
            "required": [
              "code",
            ],
            "type": "object",
          },
          "name": "describe_tool",
        },
      ]
    `);
    expect(dispatcher.system).toMatchInlineSnapshot(`
      "Tools are called through call_tool(code, args): code from the list below, args an object of the tool's arguments. describe_tool(code) returns a tool's full argument schema; use it when the line below is not enough.
      Example: call_tool({"code": "t1", "args": {...}})
      Tools (code name(required arguments, … when there are optional ones) — summary):
      t1 chat_post_ephemeral(channel: string, user: string, …) — Sends an ephemeral message to a user in a channel.
      t2 issue_create(input: IssueCreateInput) — Creates a new issue.
      t3 issues_create(owner: string, repo: string, title: string|integer, …) — Create an issue
      t4 post_customers(…) — Creates a new customer object."
    `);
    expect(dispatcher.systemBlock.cache_control).toStrictEqual({ type: "ephemeral" });
  });

  it("is the same bytes whatever order the catalog comes in", () => {
    expect(dispatchLevel3([...sample].reverse()).system).toBe(dispatcher.system);
  });

  it("writes the compact map style as code, name and required argument names, and resolves calls the same way", () => {
    const compact = dispatchLevel3(sample, { mapStyle: "compact" });
    expect(compact.system.split("\n").slice(2)).toStrictEqual([
      "Tools (code name required,arguments; optional arguments and types are not listed, describe_tool has them):",
      "t1 chat_post_ephemeral channel,user",
      "t2 issue_create input",
      "t3 issues_create owner,repo,title",
      "t4 post_customers",
    ]);
    const call = resolve({ name: "call_tool", args: { code: "t3", args: { owner: "o", repo: "r", title: "t" } } }, compact);
    expect(call.ok && call.kind === "call" && call.tool).toBe("issues_create");
    // The same catalog costs fewer tokens a tool in the compact style (measured, o200k).
    const summary = measureLevels([...slack]).level3.system;
    const lean = measureLevels([...slack], { mapStyle: "compact" }).level3.system;
    expect(lean).toBeLessThan(summary * 0.75);
  });

  it("leaves the summary out with sentenceChars: 0 (it used to emit the whole sentence)", () => {
    expect(firstSentence("Creates a new issue. Then more.", 0)).toBe("");
    expect(dispatchLevel3(sample, { sentenceChars: 0 }).system.split("\n")[4]).toBe("t2 issue_create(input: IssueCreateInput)");
  });

  it("refuses an unknown map style with a coded error", () => {
    expect(() => dispatchLevel3(sample, { mapStyle: "terse" as never })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("answers describe_tool with the full original definition", () => {
    const result = resolve({ name: "describe_tool", args: { code: "t2" } }, dispatcher);
    expect(result.ok && result.kind === "describe" && JSON.parse(result.text)).toStrictEqual({ code: "t2", name: "issue_create", description: sample[2]!.description, input_schema: sample[2]!.inputSchema });
  });

  it("passes provider-typed tools through, emits dispatcher tools in the catalog's shape, and avoids codes that are tool names", () => {
    const d = dispatchLevel3([{ type: "function", function: { name: "t1", parameters: { type: "object" } } }, { type: "code_interpreter" }]);
    expect(d.tools).toStrictEqual([
      { type: "function", function: { name: "call_tool", description: expect.any(String), parameters: expect.objectContaining({ required: ["code", "args"] }) } },
      { type: "function", function: { name: "describe_tool", description: expect.any(String), parameters: expect.objectContaining({ required: ["code"] }) } },
      { type: "code_interpreter" },
    ]);
    expect([...d.codes]).toStrictEqual([["c1", "t1"]]);
  });
});

describe("resolve", () => {
  const dispatcher = dispatchLevel3(sample);
  const issue = { owner: "o", repo: "r", title: "Bug" };

  it("tolerates the known slips and says which it met", () => {
    const result = resolve({ name: "call_tool", args: { code: "issues_create", owner: "o", repo: "r", Title: "Bug" } }, dispatcher);
    expect(result).toMatchObject({ ok: true, kind: "call", tool: "issues_create", args: issue });
    expect(result.ok && result.slips.map((s) => s.kind)).toStrictEqual(["name_as_code", "flat_arguments", "argument_alias"]);
    const direct = resolve({ name: "t3", args: { args: issue } }, dispatcher);
    expect(direct.ok && direct.slips.map((s) => s.kind)).toStrictEqual(["code_as_tool_name", "nested_arguments"]);
  });

  it("maps id to the one <thing>_id argument and <thing>_id to id", () => {
    const schema = { type: "object", properties: { customer_id: { type: "string" }, limit: { type: "integer" } }, required: ["customer_id"], additionalProperties: false };
    const d = dispatchLevel3([{ name: "get_customer", inputSchema: schema }, { name: "get_user", inputSchema: { type: "object", properties: { id: { type: "string" } } } }]);
    expect(resolve({ name: "call_tool", args: { code: "t1", args: { id: "c1", limit: 2 } } }, d)).toMatchObject({ ok: true, args: { customer_id: "c1", limit: 2 } });
    expect(resolve({ name: "call_tool", args: { code: "t2", args: { userId: "u1" } } }, d)).toMatchObject({ ok: true, args: { id: "u1" } });
  });

  it("lists every problem, in a message the model can act on", () => {
    const result = resolve({ name: "call_tool", args: { code: "t3", args: { owner: 5, title: "x", colour: "red" } } }, dispatcher);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("INVALID_ARGUMENTS");
    expect(result.problems.length).toBeGreaterThanOrEqual(3);
    expect(result.error.message).toMatchInlineSnapshot(`
      "Call to issues_create (t3) not made: 3 problems with the arguments.
      - (arguments): missing required argument "repo"
      - /owner: must be string
      - (arguments): unknown argument "colour"; the arguments are owner, repo, title, body, assignee, milestone, labels, assignees
      issues_create (t3) takes (owner: string, repo: string, title: string|integer, …); describe_tool({"code": "t3"}) returns the full schema."
    `);
  });

  it("says when a code is unknown", () => {
    const result = resolve({ name: "call_tool", args: { code: "t99", args: {} } }, dispatcher);
    expect(!result.ok && result.error.code).toBe("TOOL_NOT_FOUND");
    expect(!result.ok && result.error.message).toMatchInlineSnapshot(`
      "No tool has the code or name "t99" (codes run t1 to t4; the list is in the system prompt).
      Call call_tool with a code from that list."
    `);
    const noCode = resolve({ name: "call_tool", arguments: "{not json" }, dispatcher);
    expect(!noCode.ok && noCode.error.code).toBe("INVALID_ARGUMENTS");
  });
});

describe("cacheBreakEven", () => {
  it("warm: about 11.5 × prefix/saved requests at read 0.1x, write 1.25x", () => {
    const result = cacheBreakEven({ prefixTokens: 10_000, savedTokens: 1_000, warm: true });
    expect(result.oneTimeCost).toBeCloseTo(11_500);
    expect(result.perRequestGain).toBeCloseTo(100);
    expect(result.breakEvenRequests).toBe(115);
    expect(result.report).toMatchInlineSnapshot(`"warm cache: re-anchoring 10,000 prefix tokens costs 11,500 once; saving 1,000 tokens gains 100 per request; pays back after 115 requests (read 0.1x, write 1.25x)"`);
  });

  it("cold: pays at once", () => {
    const result = cacheBreakEven({ prefixTokens: 10_000, savedTokens: 1_000, warm: false });
    expect(result).toMatchObject({ oneTimeCost: 0, breakEvenRequests: 0 });
    expect(result.report).toMatchInlineSnapshot(`"cold cache: saving 1,000 tokens pays at once (1,250 on the first request, 100 per request after; read 0.1x, write 1.25x)"`);
  });

  it("the published level 3 figure (68,536 -> 3,022 tokens) pays back on the first request when warm", () => {
    const result = cacheBreakEven({ prefixTokens: 3_022, savedTokens: 68_536 - 3_022, warm: true });
    expect(result.breakEvenRequests).toBe(1);
  });

  it("never pays when nothing is saved; refuses nonsense", () => {
    expect(cacheBreakEven({ prefixTokens: 100, savedTokens: 0, warm: true }).breakEvenRequests).toBe(Infinity);
    expect(() => cacheBreakEven({ prefixTokens: -1, savedTokens: 1, warm: true })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });
});

describe("recommendLevel", () => {
  it("keeps a small catalog as it is", () => {
    const result = recommendLevel(sample);
    expect(result.level).toBe(0);
    expect(result.reason).toMatch(/^level 0/);
  });

  it("dispatches a large one, and says why with the measured numbers", () => {
    const catalog = githubRest.slice(0, 149);
    const result = recommendLevel(catalog, { provider: "anthropic", turns: 20 });
    const tokens = measureLevels(catalog);
    expect(result.level).toBe(3);
    expect(result.tokens).toStrictEqual(tokens);
    expect(result.reason).toContain(tokens.native.toLocaleString("en-US"));
    expect(result.breakEven?.warm).toBe(false);
  });
});
