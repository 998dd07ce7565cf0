/**
 * The egress map check against projections of real packs, seeded: a random drop (a member,
 * a branch, an argument; through shared, recursive and union types) is never reported as
 * a widening, and undoing it names every member it took away. The maps are of the narrowed
 * tool and its neighbours, so that types are shared between tools as in a whole pack.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkEgressMap, egressMap, formatEgressMap, type Tool } from "@sluice/core";
import { appliedSectionNames } from "../packages/core/src/egress-map/check-egress-map.ts";
import { parseEgressMap } from "../packages/core/src/egress-map/parse-egress-map.ts";
import * as githubRest from "@sluice/pack-github-rest";
import * as linear from "@sluice/pack-linear";
import * as notion from "@sluice/pack-notion";
import * as stripe from "@sluice/pack-stripe";

const SEED = 21_8;
const RUNS = 80;
const NEIGHBOURS = 4;
const PATH_KINDS = new Set(["member", "branch", "any-key", "pattern"]);

const packs: Array<[string, readonly Tool<object>[]]> = [
  ["linear (GraphQL, recursive filters)", linear.allTools],
  ["github-rest (positional unions)", githubRest.allTools],
  ["notion (named unions)", notion.allTools],
  ["stripe (open objects, anyOf)", stripe.allTools],
];

describe("a projection is never a widening, and undoing it names what it took", () => {
  it.each(packs)("%s", (_name, all) => {
    const tools = all.filter((tool) => !tool.name.endsWith("_full"));
    let checked = 0;
    fc.assert(
      fc.property(fc.nat(tools.length - 1), fc.nat(1_000), (index, pick) => {
        const group = tools.slice(index, index + 1 + NEIGHBOURS);
        const tool = group[0]!;
        const candidates = egressMap([tool])[0]!.visible.map((path) => path.path);
        if (candidates.length === 0) return;
        let narrowed: Tool<object>;
        try {
          narrowed = tool.derived({ name: tool.name, drop: [candidates[pick % candidates.length]!] });
        } catch {
          return; // a required argument, the last branch: derived() refuses, nothing to check
        }
        const before = formatEgressMap(egressMap(group));
        const after = formatEgressMap(egressMap([narrowed, ...group.slice(1)]));
        if (before === after) return;
        checked++;
        const forward = checkEgressMap(before, after);
        expect(forward.widenings).toEqual([]);
        const undo = checkEgressMap(after, before);
        const restored = new Set(undo.widened.map((w) => w.path));
        for (const gone of forward.narrowed) if (PATH_KINDS.has(gone.kind)) expect(restored, gone.subject).toContain(gone.path);
        expect(undo.widened.length).toBeGreaterThan(0);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(checked).toBeGreaterThan(RUNS / 8);
  });
});

describe("the map text says which type sections each tool uses", () => {
  // The check reads, from a tool's lines alone, which shared sections apply to it (the
  // text does not list them); egressMap() knows. They must agree for every tool.
  it.each(packs)("%s: the sections read back are egressMap()'s, tool by tool", (_name, tools) => {
    const entries = egressMap(tools);
    const parsed = parseEgressMap(formatEgressMap(entries));
    const disagree = entries.filter((entry) => appliedSectionNames(parsed.tools.get(entry.name)!, parsed).join() !== entry.types.map((t) => t.name).sort().join());
    expect(disagree.map((entry) => entry.name)).toEqual([]);
  });

  it("linear has sections to read back, shared and particular to a tool", () => {
    const parsed = parseEgressMap(formatEgressMap(egressMap(linear.allTools)));
    expect(parsed.shared.size).toBeGreaterThan(0);
    expect([...parsed.tools.values()].some((tool) => tool.sections.size > 0)).toBe(true);
  });
});
