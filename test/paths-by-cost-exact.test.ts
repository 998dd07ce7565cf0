/**
 * `paths({ byCost })` prices each path on a small stand-in of the tool and counts tokens
 * piece by piece (packages/core/src/cost). Its numbers must be exactly what deriving the
 * tool without the path and counting it whole gives (the reference, kept as
 * `referencePathCost`): here for the three fattest tools of the Linear, GitHub GraphQL and
 * Stripe packs, on every top-level path and every path one level below the fattest
 * argument, and in the same order as the reference sorts them.
 *
 * `sluice report` also marks a required branch with what `derived({ drop: [path] })` refuses
 * it with; ToolPricer.refusal finds that message on the same stand-in instead of deriving the
 * whole tool. It must be the same message (or the same "no refusal"): every top-level path and
 * every path one level below each argument, for a sample of each pack's tools (every tool
 * under LONG), and a made tool with each kind of refusal the projection makes.
 */
import { describe, expect, it } from "vitest";
import type { PathCost, Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import * as stripe from "@sluice/pack-stripe";
import { isSluiceError, Tool as ToolClass, type JsonSchemaObject } from "@sluice/core";
import { PieceCounter } from "../packages/core/src/cost/chunk-tokens.ts";
import { pathCosts, referencePathCost, ToolPricer, type PricingStats } from "../packages/core/src/cost/path-costs.ts";
import { sweep } from "./support/tier.ts";
import { syntheticTools } from "./support/synthetic-shapes.ts";

const ENCODING = "o200k_base";

function fattest(tools: readonly Tool[], n: number): Tool[] {
  return tools
    .map((tool) => ({ tool, tokens: schemaTokens(tool, { encoding: ENCODING }) }))
    .sort((a, b) => b.tokens - a.tokens || (a.tool.name < b.tool.name ? -1 : 1))
    .slice(0, n)
    .map(({ tool }) => tool);
}

/** The order `paths({ byCost })` promises: most expensive first, then by path. */
function sorted(costs: PathCost[]): PathCost[] {
  return [...costs].sort((a, b) => b.tokens! - a.tokens! || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const packs = [
  ["Linear", linear.allTools],
  ["GitHub GraphQL", github.allTools],
  ["Stripe", stripe.allTools],
] as const;

describe.each(packs)("%s: fast pricing equals prune-and-recount", (_pack, tools) => {
  const chosen = fattest(tools, 3);

  it.each(chosen.map((tool) => [tool.name, tool] as const))("%s: every top-level path and every path below the fattest argument", async (_name, tool) => {
    const total = schemaTokens(tool, { encoding: ENCODING });
    const reference = (paths: readonly string[]) => paths.map((path) => ({ path, tokens: referencePathCost(tool, path, ENCODING, total) }));
    const stats: PricingStats = { fast: 0, reference: 0 };

    const top = (await tool.paths()).map((p) => p.path);
    expect(top.length).toBeGreaterThan(0);
    const topReference = reference(top);
    expect(pathCosts(tool, top, ENCODING, stats)).toEqual(topReference);

    const fattestArgument = sorted(topReference)[0]!.path;
    const below = (await tool.paths(fattestArgument)).map((p) => p.path);
    const belowReference = reference(below);
    expect(pathCosts(tool, below, ENCODING, stats)).toEqual(belowReference);

    // The public call gives the same numbers in the same order.
    expect(await tool.paths({ byCost: true })).toEqual(sorted(topReference));
    expect(await tool.paths(fattestArgument, { byCost: true })).toEqual(sorted(belowReference));
    // And it really was the fast path that priced them.
    expect(stats).toEqual({ fast: top.length + below.length, reference: 0 });
  });
});

describe("type paths", () => {
  it("prices a recursive type's members (type selectors) exactly", async () => {
    const tool = linear.allTools.find((t) => t.name === "issues_list_full")!;
    const total = schemaTokens(tool, { encoding: ENCODING });
    // A sample of the members, first and last by name included: the reference is slow.
    const all = (await tool.paths("IssueFilter")).map((p) => p.path);
    const sample = all.filter((_path, i) => i % 6 === 0 || i === all.length - 1);
    const stats: PricingStats = { fast: 0, reference: 0 };
    const fast = pathCosts(tool, sample, ENCODING, stats);
    expect(fast).toEqual(sample.map((path) => ({ path, tokens: referencePathCost(tool, path, ENCODING, total) })));
    expect(stats.reference).toBe(0);
  });

  it("prices a derived tool whose schema already holds split copies exactly", async () => {
    // Dropping below a shared definition splits it (`IssueFilter_2`); pricing the derived
    // tool must pick the next free copy name and keep the existing copy's members.
    const base = linear.allTools.find((t) => t.name === "issues_list_full")!;
    const tool = base.derived({ drop: ["filter.priority"] });
    const total = schemaTokens(tool, { encoding: ENCODING });
    const paths = (await tool.paths("filter")).map((p) => p.path).filter((_path, i) => i % 4 === 0);
    const stats: PricingStats = { fast: 0, reference: 0 };
    expect(pathCosts(tool, paths, ENCODING, stats)).toEqual(paths.map((path) => ({ path, tokens: referencePathCost(tool, path, ENCODING, total) })));
    expect(stats.reference).toBe(0);
  });
});

const BINDING = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;
const shape = (name: string, inputSchema: JsonSchemaObject) => ToolClass.create({ name, description: "A shape for pricing.", inputSchema, binding: BINDING });
const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
const pair = () => ({ type: "object", properties: { x: { type: "string" }, y: { type: "integer" } }, required: ["x"] });

/**
 * Shapes where the stand-in's bookkeeping decides the answer: a definition shared with an
 * argument or a definition the selector never reaches (its reference count alone decides
 * whether a drop splits it), a definition kept alive only from outside the walk, existing
 * split copies, keys that are not cut points, and definitions nothing reaches.
 */
const SHAPES: ReadonlyArray<[string, JsonSchemaObject]> = [
  ["shared with another argument", { type: "object", properties: { a: ref("D"), b: ref("D") }, $defs: { D: pair() } }],
  ["shared with an unreached definition", { type: "object", properties: { a: ref("D"), c: ref("E") }, $defs: { D: pair(), E: { type: "object", properties: { d: ref("D"), z: { type: "boolean" } } } } }],
  ["kept alive from outside", { type: "object", properties: { a: ref("D"), c: ref("E") }, $defs: { D: { type: "object", properties: { only: ref("F"), w: { type: "string" } } }, E: { type: "object", properties: { f: ref("F") } }, F: pair() } }],
  ["shared twice inside one definition", { type: "object", properties: { a: ref("D") }, $defs: { D: { type: "object", properties: { p: ref("P"), q: ref("P"), r: { type: "array", items: ref("D") } } }, P: pair() } }],
  ["names a split copy would take", { type: "object", properties: { a: ref("D"), b: ref("D"), c: ref("D_2") }, $defs: { D: pair(), D_2: { type: "object", properties: { x: { type: "string" } } }, D_3: pair() } }],
  ["keys that are not cut points", { type: "object", properties: { $a: ref("_D"), "9b": ref("_D"), "é": { type: "string" } }, $defs: { _D: { type: "object", properties: { _x: { type: "string" }, $y: ref("$E"), "z z": { type: "number" } } }, $E: pair() } }],
  ["unreachable definitions", { type: "object", properties: { a: ref("D") }, $defs: { D: pair(), Lost: { type: "object", properties: { l: ref("D") } } } }],
  // One object in two places: the stand-in cannot count it as the workspace's copy does, so the reference prices it.
  ["one node object in two definitions", (() => {
    const shared = pair();
    return { type: "object", properties: { a: ref("D"), b: ref("E") }, $defs: { D: shared, E: shared } };
  })()],
  ["a reached definition refers out beside its members", { type: "object", properties: { a: ref("D"), b: ref("D") }, $defs: { D: { type: "object", properties: { x: { type: "string" }, y: ref("X") }, additionalProperties: ref("X") }, X: pair() } }],
  ["unions of shared refs", { type: "object", properties: { a: { anyOf: [ref("D"), ref("E")] }, b: ref("E") }, $defs: { D: pair(), E: { type: "object", properties: { e: ref("D"), f: { type: "string" } }, additionalProperties: true } } }],
];

describe("hand-made shapes: every path to depth 3", () => {
  const tools = [...SHAPES.map(([name, schema], i) => [name, shape(`shape_${i}`, schema)] as const), ...syntheticTools().map((tool) => [tool.name, tool] as const)];

  it.each(tools)("%s", async (_name, tool) => {
    const paths = (await tool.paths({ depth: 3 })).map((p) => p.path);
    const total = schemaTokens(tool, { encoding: ENCODING });
    const stats: PricingStats = { fast: 0, reference: 0 };
    let reference: Array<{ path: string; tokens: number }>;
    try {
      reference = paths.map((path) => ({ path, tokens: referencePathCost(tool, path, ENCODING, total) }));
    } catch (error) {
      // A path the reference cannot price is refused by the fast pricing with the same error.
      expect(() => pathCosts(tool, paths, ENCODING, stats)).toThrow((error as Error).message);
      return;
    }
    expect(pathCosts(tool, paths, ENCODING, stats)).toEqual(reference);
  });

  it("prices the hand-made shapes on the stand-in, not by falling back", async () => {
    const stats: PricingStats = { fast: 0, reference: 0 };
    for (const [name, schema] of SHAPES.filter(([name]) => name !== "one node object in two definitions")) {
      const tool = shape("s", schema);
      pathCosts(tool, (await tool.paths({ depth: 3 })).map((p) => p.path), ENCODING, stats);
      expect(stats.reference, name).toBe(0);
    }
    expect(stats.fast).toBeGreaterThan(30);
  });
});

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

const refusalPacks = [
  ["Linear", linear.allTools, 12],
  ["GitHub GraphQL", github.allTools, 40],
  ["Stripe", stripe.allTools, 25],
] as const;

describe.each(refusalPacks)("%s: the stand-in refuses a drop exactly as derived() does", (_pack, tools, every) => {
  it("same message (or none) on every path of the sampled tools", async () => {
    const chosen = sweep(tools as readonly Tool[], (tool) => (tools as readonly Tool[]).indexOf(tool) % every === 0);
    const { differences, refused, stats } = await compare(chosen);
    expect(differences).toEqual([]);
    // Not vacuous: refusals were met, and the stand-in (not a derive) answered most paths.
    expect(refused).toBeGreaterThan(0);
    expect(stats.fast).toBeGreaterThan(stats.reference);
  });
});

describe("drop refusals of every kind, on a made tool", () => {
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
  const tool = ToolClass.create({ name: "made", description: "A tool whose drops are refused in every way.", inputSchema: schema, binding: BINDING }) as unknown as Tool;

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

/**
 * A report prices every tool of a pack with pricers sharing one PieceCounter, and with it
 * the projections of their stand-ins (path-costs.ts: `projectionOf`): tools of one pack have
 * the same stand-in for many drops. A shared projection must be one made from the same
 * stand-in: every top-level path of the pack's tools (a sample in the quick tier; Stripe's
 * list tools share argument names, with schemas that differ from tool to tool) priced with
 * one counter for all of them equals each tool priced with a counter of its own, and so do
 * the refusals (`ToolPricer.refusal`, shared the same way).
 */
describe.each(packs)("%s: one counter shared by every tool prices as a counter per tool", (_pack, tools) => {
  it("every top-level path", async () => {
    const chosen = sweep(tools as readonly Tool[], (tool) => (tools as readonly Tool[]).indexOf(tool) % 9 === 0);
    const shared = new PieceCounter(ENCODING);
    let prices = 0;
    for (const tool of chosen) {
      const top = (await tool.paths()).map((p) => p.path);
      const alone = new ToolPricer(tool, ENCODING);
      const together = new ToolPricer(tool, ENCODING, shared);
      for (const path of top) {
        expect([tool.name, path, together.cost([path])]).toEqual([tool.name, path, alone.cost([path])]);
        expect([tool.name, path, together.refusal(path)]).toEqual([tool.name, path, alone.refusal(path)]);
        prices++;
      }
    }
    expect(prices).toBeGreaterThan(20);
  });
});
