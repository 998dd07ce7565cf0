/**
 * Importing a pack and listing its tools computes no curated projection and counts no
 * tokens; a curated projection is computed when its tool is first used, and a bad
 * selector raises then exactly what deriving eagerly raises (test/packs.test.ts reads
 * every curated tool's schema, so CI sees such an error on every committed projection).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { curate, Tool, type DeriveOptions } from "../../src/index.ts";

const require = createRequire(import.meta.url);
const PACKS = ["linear", "github", "stripe", "github-rest", "slack", "gmail", "gdocs", "gsheets", "notion"] as const;

describe("pack loading", () => {
  it("imports every pack and lists its tools without narrowing a schema or loading the tokenizer", async () => {
    const narrowing: string[] = [];
    const project = Tool.prototype.project;
    Tool.prototype.project = function (this: Tool, options: DeriveOptions, projectOptions) {
      if (options.drop !== undefined || options.keep !== undefined || options.pin !== undefined) narrowing.push(this.name);
      return project.call(this, options, projectOptions);
    } as typeof project;
    try {
      let listed = 0;
      for (const pack of PACKS) {
        const module = (await import(`@sluice/pack-${pack}`)) as { tools: readonly Tool<object>[] };
        listed += module.tools.map((tool) => tool.name).length;
      }
      expect(listed).toBeGreaterThan(2000);
      expect(narrowing).toEqual([]);
      expect(Object.keys(require.cache).filter((path) => path.includes("gpt-tokenizer"))).toEqual([]);

      // First use computes it (and only then).
      const linear = (await import("@sluice/pack-linear")) as { tools: readonly Tool<object>[] };
      linear.tools.find((tool) => tool.name === "issues_list")!.inputSchema;
      expect(narrowing).toEqual(["issues_list"]);
    } finally {
      Tool.prototype.project = project;
    }
  });
});

describe("curate", () => {
  const base = Tool.create({
    name: "t",
    description: "A tool.",
    inputSchema: { type: "object", properties: { filter: { type: "object", properties: { a: { type: "string" } } } } },
    binding: { kind: "graphql", operationType: "query", field: "t", document: "query T { t }", variables: {} },
  });

  it.each([
    ["an unknown selector", { drop: ["filter.nope"] }],
    ["a required argument dropped", { keep: ["filter.a"], drop: ["filter"] }],
  ] as const)("%s raises at first use what an eager derive raises", (_name, options) => {
    let eager: unknown;
    try {
      base.derived(options);
    } catch (error) {
      eager = error;
    }
    expect(eager).toBeDefined();
    const deferred = curate(base, options); // no error yet
    expect(deferred.name).toBe("t");
    for (const read of [() => deferred.inputSchema, () => deferred.description, () => deferred.binding]) {
      expect(read).toThrow(eager as Error);
      try {
        read();
      } catch (error) {
        expect((error as { code?: unknown }).code).toBe((eager as { code?: unknown }).code);
      }
    }
  });
});
