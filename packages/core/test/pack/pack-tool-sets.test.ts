/**
 * packToolSets and allToolsOf: a pack's `tools` is its default served set, `allTools` adds
 * the `*_full` twins, and no name can make the two disagree with what servers serve.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allToolsOf, curate, defaultServedSet, fullNameOf, packToolSets, Tool, withCurated } from "@sluice/core";

function tool(name: string): Tool<object> {
  return Tool.create({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties: { id: { type: "string" }, secret: { type: "string" } } },
    binding: { kind: "http", method: "POST", path: `/${name}`, parameters: [], body: { mediaType: "application/json", encoding: "json", fields: { id: "id", secret: "secret" } } },
  }) as Tool<object>;
}

const generated = [tool("users_list"), tool("users_get"), tool("teams_list")];
const curated = [curate(generated[0]!, { drop: ["secret"] })];
const derived = [generated[1]!.derived({ name: "my_user", drop: ["secret"] })];

describe("packToolSets", () => {
  it("allTools is withCurated plus the derived tools; tools is allTools without the twins, the same values in the same order", () => {
    const { tools, allTools } = packToolSets(generated, curated, derived);
    expect(allTools).toEqual([...withCurated(generated, curated), ...derived]);
    expect(allTools.map((t) => t.name)).toEqual(["teams_list", "users_get", "users_list", "users_list_full", "my_user"]);
    expect(tools.map((t) => t.name)).toEqual(["teams_list", "users_get", "users_list", "my_user"]);
    expect(tools.every((t) => allTools.includes(t))).toBe(true);
    expect(tools).toEqual(defaultServedSet(allTools));
    // The served users_list is the projection; the twin keeps what it withholds.
    expect(tools.find((t) => t.name === "users_list")!.withheld.map((w) => w.path)).toEqual(["secret"]);
    expect(Object.keys(allTools.find((t) => t.name === "users_list_full")!.inputSchema.properties!)).toContain("secret");
  });

  it("without curated tools, both lists are the generated tools (and the derived ones)", () => {
    const { tools, allTools } = packToolSets(generated, []);
    expect(tools.map((t) => t.name)).toEqual(allTools.map((t) => t.name));
    expect(tools).toHaveLength(3);
  });

  it.each([
    ["a derived tool under a generated tool's name", [generated[2]!.derived({ name: "users_get", drop: ["secret"] })], /Derived tool users_get has the name of another tool/],
    ["a derived tool under a twin's name", [generated[2]!.derived({ name: "users_list_full" })], /Derived tool users_list_full has the name of another tool/],
    ["two derived tools of one name", [derived[0]!, generated[2]!.derived({ name: "my_user" })], /Derived tool my_user has the name of another tool/],
    ["a derived tool named as a generated tool's twin (it would not be served)", [generated[2]!.derived({ name: fullNameOf("teams_list") })], /teams_list_full is named as the \*_full twin of teams_list.*rename teams_list_full/],
  ])("refuses %s with INVALID_NAME", (_case, given, message) => {
    expect(() => packToolSets(generated, curated, given)).toThrow(expect.objectContaining({ code: "INVALID_NAME", message: expect.stringMatching(message) }));
  });

  it("refuses a derived tool whose twin name a generated tool holds, since that tool would stop being served", () => {
    const withFullName = [...generated, tool("export_full")];
    expect(packToolSets(withFullName, []).tools.map((t) => t.name)).toContain("export_full");
    expect(() => packToolSets(withFullName, [], [generated[2]!.derived({ name: "export" })])).toThrow(
      expect.objectContaining({ code: "INVALID_NAME", message: expect.stringMatching(/export_full is named as the \*_full twin of export.*rename export with/) }),
    );
  });

  it("keeps withCurated's refusals: a curated tool with no generated tool of its name", () => {
    expect(() => packToolSets(generated, [tool("nobody")])).toThrow(expect.objectContaining({ code: "TOOL_NOT_FOUND" }));
  });
});

describe("allToolsOf", () => {
  const pack = packToolSets(generated, curated, derived);

  it("an array as given; a pack by its allTools; a pack without allTools by its tools", () => {
    expect(allToolsOf(pack.tools)).toBe(pack.tools);
    expect(allToolsOf(pack)).toBe(pack.allTools);
    expect(allToolsOf({ tools: pack.tools })).toBe(pack.tools);
  });

  it("refuses a pack whose tools holds a tool its allTools lacks, naming it", () => {
    const stray = generated[2]!.derived({ name: "stray" });
    let error: unknown;
    try {
      allToolsOf({ tools: [...pack.tools, stray], allTools: pack.allTools });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: "INVALID_OPTION", candidates: ["stray"], message: expect.stringMatching(/holds stray, which its `allTools` lacks/) });
    // A value of the same name is not the same tool: the served one must be the listed one.
    const lookalike = curate(generated[0]!, { drop: ["id"] });
    expect(() => allToolsOf({ tools: [lookalike], allTools: pack.allTools })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("refuses a pack whose allTools holds a tool that is neither in its tools nor a twin: a server would serve it", () => {
    const hidden = generated[2]!.derived({ name: "hidden" });
    let error: unknown;
    try {
      allToolsOf({ tools: pack.tools, allTools: [...pack.allTools, hidden] });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: "INVALID_OPTION", candidates: ["hidden"], message: expect.stringMatching(/holds hidden, which is neither in its `tools` nor a \*_full twin/) });
    // Leaving out a twin from tools is what allTools is for.
    expect(allToolsOf({ tools: pack.tools, allTools: pack.allTools })).toBe(pack.allTools);
  });

  it.each([
    ["tools that is not an array", { tools: "users_list" }],
    ["allTools that is not an array", { tools: [], allTools: {} }],
  ])("refuses %s with INVALID_OPTION", (_case, given) => {
    expect(() => allToolsOf(given as never)).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });
});

describe("defaultServedSet's twin rule", () => {
  // The set skips hashing long names when no name could be a hashed twin (64 characters,
  // ending in _full); it must leave out exactly what the rule itself names.
  const oracle = (tools: readonly Tool<object>[]) => tools.filter((t) => !tools.some((other) => other !== t && fullNameOf(other.name) === t.name));
  const word = fc.stringMatching(/^[a-z]{1,12}$/);
  const base = fc.oneof(word, fc.tuple(word, fc.integer({ min: 47, max: 64 })).map(([w, n]) => (w + "_".repeat(64)).slice(0, n)));

  it("seeded random names (short, long, plain and hashed twins, look-alikes): the same tools as the rule", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(base, fc.constantFrom("none", "twin", "lookalike")), { minLength: 1, maxLength: 8, selector: ([name]) => name }), (entries) => {
        const names = new Set<string>();
        for (const [name, extra] of entries) {
          names.add(name);
          if (extra === "twin") names.add(fullNameOf(name));
          // 64 characters ending in _full, and no tool's twin: must stay served.
          if (extra === "lookalike") names.add((name + "x".repeat(64)).slice(0, 59) + "_full");
        }
        const tools = [...names].map((name) => tool(name));
        expect(defaultServedSet(tools).map((t) => t.name)).toEqual(oracle(tools).map((t) => t.name));
      }),
      { seed: 2413, numRuns: 300 },
    );
  });

  it("leaves out the hashed twin of a long curated tool", () => {
    const long = tool("a".repeat(60));
    const { tools, allTools } = packToolSets([long, tool("b")], [curate(long, { drop: ["secret"] })]);
    expect(allTools.map((t) => t.name)).toContain(fullNameOf(long.name));
    expect(fullNameOf(long.name)).toHaveLength(64);
    expect(tools.map((t) => t.name)).toEqual([long.name, "b"]);
  });
});
