import { isSluiceError, SluiceError, Tool, type JsonSchemaObject } from "@sluice/core";
import { canonicalJson } from "@sluice/schema";
import { allTools as notionTools } from "@sluice/pack-notion";
import { describe, expect, it } from "vitest";
import { compactNames, parseQuery, ToolSession } from "../src/session/index.ts";

function tool(name: string, description: string, properties: Record<string, JsonSchemaObject> = { id: { type: "string" } }): Tool<object> {
  return Tool.create({
    name,
    description,
    inputSchema: { type: "object", properties, required: [] },
    binding: { kind: "http", method: "GET", path: `/${name}`, parameters: [] },
  });
}

const small = [
  tool("issues_list", "List issues in a team."),
  tool("issues_list_full", "List issues in a team (every filter)."),
  tool("issue_create", "Create an issue."),
  tool("issue_delete", "Delete an issue permanently."),
  tool("team_get", "Get a team by id."),
  tool("comment_create", "Create a comment on an issue."),
];

function errorOf(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof SluiceError) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

/** The tool list as a provider receives it, one serialized string. */
function serialized(list: readonly Tool<object>[]): string {
  return canonicalJson(list.map((t) => t.toJSON()));
}

/** `a` is a byte prefix of `b` as JSON arrays: `b` starts with `a` without its closing bracket. */
function isArrayPrefix(a: string, b: string): boolean {
  return b.startsWith(a.slice(0, -1));
}

describe("ToolSession: the catalog", () => {
  it("refuses duplicate names with INVALID_NAME, listing them", () => {
    const error = errorOf(() => new ToolSession([...small, tool("team_get", "again")]));
    expect(error.code).toBe("INVALID_NAME");
    expect(error.candidates).toEqual(["team_get"]);
  });

  it("refuses a search tool name that is also a catalog tool", () => {
    expect(errorOf(() => new ToolSession(small, { searchToolName: "issue_create" })).code).toBe("INVALID_NAME");
  });

  it("refuses bad options", () => {
    expect(errorOf(() => new ToolSession(small, { maxResults: 0 })).code).toBe("INVALID_OPTION");
    expect(errorOf(() => new ToolSession(small, { descriptionBudget: -1 })).code).toBe("INVALID_OPTION");
  });

  it("first shows only the search tool, whose description lists the names when they fit", () => {
    const session = new ToolSession(small);
    expect(session.visibleTools().map((t) => t.name)).toEqual(["tool_search"]);
    const description = session.searchTool.description;
    expect(description).toContain("issues_{list,list_full}");
    expect(description).toContain("issue_{create,delete}");
    expect(session.descriptionLevels.get("")).toBe("names");
    expect(session.searchTool.inputSchema).toEqual({
      type: "object",
      properties: { query: { type: "string", description: expect.any(String) } },
      required: ["query"],
      additionalProperties: false,
    });
  });

  it("summarizes by name words when the names do not fit the budget", () => {
    const session = new ToolSession(notionTools, { descriptionBudget: 200 });
    expect(session.descriptionLevels.get("")).toBe("words");
    expect(session.descriptionTokens).toBeLessThanOrEqual(200);
    expect(session.searchTool.description).toMatch(/47 tools; names mention /);
  });

  it("describes the catalog deterministically and independently of input order", () => {
    const a = new ToolSession(notionTools).searchTool.description;
    const b = new ToolSession([...notionTools].reverse()).searchTool.description;
    expect(b).toBe(a);
  });

  it("takes the search tool's name from the options", () => {
    const session = new ToolSession(small, { searchToolName: "find_tools" });
    expect(session.visibleTools()[0]!.name).toBe("find_tools");
    expect(session.call("find_tools", { query: "select:team_get" }).kind).toBe("search");
  });
});

describe("ToolSession: queries", () => {
  it("parses select:, keywords and +required terms", () => {
    expect(parseQuery("select:a, b,a")).toEqual({ kind: "select", names: ["a", "b"] });
    expect(parseQuery("  Create +Stripe refund create ")).toEqual({ kind: "keywords", terms: ["create", "refund"], required: ["stripe"] });
  });

  it("select: loads exact names in the order given and reports unknown ones", () => {
    const session = new ToolSession(small);
    const result = session.search("select:team_get,issue_create,issue_craete");
    expect(result.loaded).toEqual(["team_get", "issue_create"]);
    expect(result.unknown).toEqual(["issue_craete"]);
    expect(result.text).toContain("No tool named issue_craete. Similar: issue_create");
    expect(session.loaded).toEqual(["team_get", "issue_create"]);
  });

  it("keywords rank by name then description matches, with a deterministic tie-break", () => {
    const session = new ToolSession(small, { maxResults: 2 });
    const result = session.search("create issue");
    // Both words in the name beat a name word plus a description word.
    expect(result.loaded).toEqual(["issue_create", "comment_create"]);
    // Ties on matches and score go to fewer unmatched name words, then the shorter name.
    expect(result.more).toEqual(["issues_list", "issue_delete"]);
  });

  it("+term is required", () => {
    const session = new ToolSession(small);
    expect(session.search("+permanently issue").loaded).toEqual(["issue_delete"]);
    expect(session.search("+nowhere issue").loaded).toEqual([]);
  });

  it("keyword search leaves out *_full twins unless asked for", () => {
    const session = new ToolSession(small);
    expect(session.search("list issues").loaded).not.toContain("issues_list_full");
    expect(session.search("issues list full").loaded).toContain("issues_list_full");
    expect(new ToolSession(small).search("select:issues_list_full").loaded).toEqual(["issues_list_full"]);
  });

  it("an empty or unmatched query loads nothing and says what to do", () => {
    const session = new ToolSession(small);
    expect(session.search("   ").text).toMatch(/select:/);
    expect(session.search("xyzzy").text).toMatch(/No tool matches/);
    expect(session.loaded).toEqual([]);
  });
});

describe("ToolSession: append-only tool lists", () => {
  it("after load k the serialized list is a byte prefix of the list after load k+1", () => {
    const session = new ToolSession(notionTools);
    const lists = [serialized(session.visibleTools())];
    for (const query of ["select:retrieve_a_page", "create comment", "select:retrieve_a_page,move_page", "+block children", "select:move_page"]) {
      session.search(query);
      lists.push(serialized(session.visibleTools()));
    }
    for (let k = 0; k + 1 < lists.length; k++) expect(isArrayPrefix(lists[k]!, lists[k + 1]!)).toBe(true);
    expect(lists.at(-1)).toBe(lists.at(-2)); // reloading loaded tools changes nothing
  });

  it("reloading a loaded tool does not reorder", () => {
    const session = new ToolSession(small);
    session.load(["team_get", "issue_create"]);
    const result = session.load(["issue_create", "issue_delete"]);
    expect(result.loaded).toEqual(["issue_delete"]);
    expect(result.alreadyLoaded).toEqual(["issue_create"]);
    expect(session.visibleTools().map((t) => t.name)).toEqual(["tool_search", "team_get", "issue_create", "issue_delete"]);
  });
});

describe("ToolSession: calls", () => {
  it("calling a tool that is not loaded is TOOL_NOT_LOADED and the message says how to load it", () => {
    const session = new ToolSession(small);
    const outcome = session.call("team_get", { id: "t1" });
    expect(outcome.kind).toBe("error");
    if (outcome.kind !== "error") return;
    expect(outcome.error.code).toBe("TOOL_NOT_LOADED");
    expect(outcome.text).toBe('Tool team_get is not loaded. Call tool_search with {"query":"select:team_get"} to load it, then call team_get again.');

    // Doing exactly what the message says makes the call go through.
    const search = session.call("tool_search", { query: outcome.error.candidates![0] });
    expect(search.kind === "search" && search.result.loaded).toEqual(["team_get"]);
    const call = session.call("team_get", { id: "t1" });
    expect(call.kind).toBe("tool");
    if (call.kind === "tool") {
      expect(call.tool).toBe(small[4]);
      expect(call.args).toEqual({ id: "t1" });
    }
  });

  it("resolve throws the same coded errors; unknown names are TOOL_NOT_FOUND with similar names", () => {
    const session = new ToolSession(small);
    expect(isSluiceError(errorOf(() => session.resolve("issue_delete")), "TOOL_NOT_LOADED")).toBe(true);
    const missing = errorOf(() => session.resolve("issue_remove"));
    expect(missing.code).toBe("TOOL_NOT_FOUND");
    expect(missing.candidates).toContain("issue_create");
    expect(session.resolve("tool_search")).toBe(session.searchTool);
  });

  it("bad search arguments are INVALID_ARGUMENTS, returned not thrown", () => {
    const session = new ToolSession(small);
    for (const args of [undefined, {}, { query: 3 }, "select:team_get"]) {
      const outcome = session.call("tool_search", args);
      expect(outcome.kind === "error" && outcome.error.code).toBe("INVALID_ARGUMENTS");
    }
  });
});

describe("ToolSession: provider-side deferred loading", () => {
  it("allToolsDeferred: loaded tools first in load order, then the rest in catalog order, the rest deferred", () => {
    const session = new ToolSession(small);
    expect(session.allToolsDeferred()).toEqual({ tools: small, deferred: small.map((t) => t.name) });
    session.load(["team_get"]);
    const { tools, deferred } = session.allToolsDeferred();
    expect(tools.map((t) => t.name)).toEqual(["team_get", "issues_list", "issues_list_full", "issue_create", "issue_delete", "comment_create"]);
    expect(deferred).toEqual(["issues_list", "issues_list_full", "issue_create", "issue_delete", "comment_create"]);
  });
});

describe("ToolSession.fromPacks", () => {
  const packA = [tool("users_list", "List users of A."), tool("users_list_full", "All of A's users."), tool("a_only", "A.")];
  const packB = [tool("users_list", "List users of B."), tool("b_only", "B.")];

  it("refuses names shipped by two packs, naming them and the packs", () => {
    const error = errorOf(() => ToolSession.fromPacks({ alpha: packA, beta: packB }));
    expect(error.code).toBe("INVALID_NAME");
    expect(error.candidates).toEqual(["users_list (alpha, beta)"]);
  });

  it("leaves each pack's *_full twins out unless includeFull, so they cannot be loaded", () => {
    const session = ToolSession.fromPacks({ alpha: packA, beta: [tool("b_only", "B.")] });
    expect(session.catalog.map((t) => t.name)).toEqual(["users_list", "a_only", "b_only"]);
    expect(session.search("select:users_list_full")).toMatchObject({ loaded: [], unknown: ["users_list_full"] });
    expect(session.call("users_list_full", {})).toMatchObject({ kind: "error", error: { code: "TOOL_NOT_FOUND" } });
    expect(session.searchTool.description).not.toContain("_full");
    // A name ending in _full with no curated tool beside it is not a twin: it stays.
    const lone = ToolSession.fromPacks({ alpha: [tool("export_full", "Export everything."), tool("a_only", "A.")] });
    expect(lone.catalog.map((t) => t.name)).toEqual(["export_full", "a_only"]);
    const withTwins = ToolSession.fromPacks({ alpha: packA }, { includeFull: true });
    expect(withTwins.catalog.map((t) => t.name)).toEqual(["users_list", "users_list_full", "a_only"]);
    expect(withTwins.search("select:users_list_full").loaded).toEqual(["users_list_full"]);
    expect(withTwins.searchTool.description).toContain("*_full twins (unprojected originals) load only by select:");
  });

  it("with collisions: prefix, renames the colliding name in every pack and maps it back", () => {
    const session = ToolSession.fromPacks({ alpha: packA, "beta-pack": packB }, { collisions: "prefix", includeFull: true });
    expect(session.catalog.map((t) => t.name)).toEqual(["alpha_users_list", "users_list_full", "a_only", "beta-pack_users_list", "b_only"]);
    expect(session.origin("beta-pack_users_list")).toEqual({ pack: "beta-pack", name: "users_list" });
    expect(session.searchTool.description).toContain("Catalog: 5 tools in 2 packs.");
    // The pack name is searchable, and the renamed curated tool keeps its *_full twin out of keyword search.
    expect(session.search("+alpha users").loaded).toEqual(["alpha_users_list"]);
    const again = session.search("users");
    expect([again.alreadyLoaded, again.loaded]).toEqual([["alpha_users_list"], ["beta-pack_users_list"]]);
  });
});

describe("compactNames", () => {
  it("groups by whole-segment common prefix, never leaving an empty remainder", () => {
    expect(compactNames(["b_x", "a", "a_b_c", "a_b_d", "c_d"])).toBe("a a_b_{c,d} b_x c_d");
    expect(compactNames(["x_a", "x", "x_b"])).toBe("x x_{a,b}");
  });
});
