/**
 * `sluice report` marks a required branch with what `derived({ drop: [path] })` refuses it
 * with; ToolPricer.refusal finds that message on the drop's stand-in instead of deriving the
 * whole tool. It must be the same message, and the same "no refusal", on real packs: every
 * top-level path and every path one level below each argument, for a sample of tools per
 * pack (every tool under LONG), with refusals of each kind the projection makes (a required
 * argument, a required member below one, a member a union's branches require).
 */
import { describe, expect, it } from "vitest";
import { isSluiceError, Tool as ToolClass, type JsonSchemaObject, type Tool } from "@sluice/core";
import { ToolPricer, type PricingStats } from "@sluice/core/cost";
import * as githubRest from "@sluice/pack-github-rest";
import * as linear from "@sluice/pack-linear";
import * as stripe from "@sluice/pack-stripe";
import { sweep } from "./support/tier.ts";

const ENCODING = "o200k_base";

/** What `derived()` refuses the drop with, as the report read it before (a whole derive). */
function derivedRefusal(tool: Tool, path: string): string | undefined {
  try {
    tool.derived({ drop: [path] });
    return undefined;
  } catch (error) {
    return isSluiceError(error, "REQUIRED_DROPPED") ? error.message : undefined;
  }
}

/** Top-level paths and one level below each. */
async function pathsOf(tool: Tool): Promise<string[]> {
  const top = (await tool.paths()).map((p) => p.path);
  const below = await Promise.all(top.map(async (path) => (await tool.paths(path)).map((p) => p.path)));
  return [...top, ...below.flat()];
}

/** Every refusal the stand-in gives next to derive's, path by path. */
async function compare(tools: readonly Tool[]): Promise<{ differences: string[]; refused: number; stats: PricingStats }> {
  const stats: PricingStats = { fast: 0, reference: 0 };
  const differences: string[] = [];
  let refused = 0;
  for (const tool of tools) {
    const pricer = new ToolPricer(tool, ENCODING);
    for (const path of await pathsOf(tool)) {
      const want = derivedRefusal(tool, path);
      const got = pricer.refusal(path, stats);
      if (want !== undefined) refused++;
      if (got !== want) differences.push(`${tool.name} ${path}: ${JSON.stringify(got)} vs derive ${JSON.stringify(want)}`);
    }
  }
  return { differences, refused, stats };
}

const packs = [
  ["Linear", linear.allTools, 12],
  ["Stripe", stripe.allTools, 25],
  ["GitHub REST", githubRest.allTools, 60],
] as const;

describe.each(packs)("%s: the stand-in refuses a drop exactly as derived() does", (_pack, tools, every) => {
  it("same message (or none) on every path of the sampled tools", async () => {
    const chosen = sweep(tools as readonly Tool[], (tool) => (tools as readonly Tool[]).indexOf(tool) % every === 0);
    const { differences, refused, stats } = await compare(chosen);
    expect(differences).toEqual([]);
    // Not vacuous: refusals were met, and the stand-in (not a derive) answered most paths.
    expect(refused).toBeGreaterThan(0);
    expect(stats.fast).toBeGreaterThan(stats.reference);
  });
});

describe("refusals of every kind, on a made tool", () => {
  const schema: JsonSchemaObject = {
    type: "object",
    properties: {
      id: { type: "string" },
      body: { $ref: "#/$defs/Body" },
      choice: { anyOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/B" }] },
      note: { type: "string" },
      extra: { type: "string" },
    },
    required: ["id"],
    dependentRequired: { extra: ["note"] },
    $defs: {
      Body: { type: "object", properties: { name: { type: "string" }, size: { type: "integer" }, tags: { type: "array", items: { $ref: "#/$defs/Tag" } } }, required: ["name"] },
      Tag: { type: "object", properties: { key: { type: "string" }, value: { type: "string" } }, required: ["key"] },
      A: { type: "object", properties: { kind: { type: "string" }, a: { type: "string" } }, required: ["kind", "a"] },
      B: { type: "object", properties: { kind: { type: "string" }, b: { type: "string" } }, required: ["kind"] },
    },
  };
  const tool = ToolClass.create({ name: "made", description: "A tool whose drops are refused in every way.", inputSchema: schema, binding: { kind: "http", method: "POST", path: "/made", parameters: [] } }) as unknown as Tool;

  it.each(["id", "body.name", "body.tags.key", "Body.name", "Tag.key", "choice.kind", "choice.a", "note", "extra", "body.size", "Tag.value", "body"])("%s", (path) => {
    const stats: PricingStats = { fast: 0, reference: 0 };
    expect(new ToolPricer(tool, ENCODING).refusal(path, stats)).toBe(derivedRefusal(tool, path));
    expect(stats).toEqual({ fast: 1, reference: 0 });
  });

  it("refuses the required ones, and says so in derive's words", () => {
    const pricer = new ToolPricer(tool, ENCODING);
    expect(pricer.refusal("id")).toBe('Cannot withhold "id": it is required; pin it to a value instead.');
    expect(pricer.refusal("body.name")).toMatch(/^Cannot withhold "body\.name": it is required/);
    expect(pricer.refusal("note")).toMatch(/"extra" requires it/);
    expect(pricer.refusal("body.size")).toBeUndefined();
  });
});
