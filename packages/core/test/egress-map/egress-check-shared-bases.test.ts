/**
 * A diff by meaning, not by layout: seeded random unions whose branches share `allOf` bases
 * (listed once under `type Base` while two branches use them, inline once one does), and
 * random drops through them (a whole branch, a member of a branch that splits a shared
 * base into `Base_2`, a member below an argument whose type is shared, a base member
 * everywhere by type selector). Every drop is named as
 * narrowings only, each naming a path the drop really withheld; undoing it is widenings only.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { checkEgressMap, definePack, egressMap, formatEgressMap, type JsonSchemaObject, type Tool, type ToolIR } from "@sluice/core";
import { LONG } from "../../../../test/support/tier.ts";

const binding = { kind: "http", method: "post", path: "/pay", server: "https://api.example.test", parameters: [], body: { arg: "body", contentType: "application/json" } } as unknown as ToolIR["binding"];

/** Differences that name a path (not a value's type or limits): a narrowing of one says the path is gone. */
const PATH_KINDS = new Set(["member", "branch", "any-key", "pattern"]);

interface Shape {
  bases: number;
  /** Per branch: the bases it includes (indexes) and its own member count. */
  branches: Array<{ bases: number[]; own: number }>;
  keyword: "oneOf" | "anyOf";
  /** A second tool reaching the first base too, so that sections are shared between tools. */
  neighbour: boolean;
  /** Two more arguments of the tool whose type is the first base: a path drop below one splits it (`Base0_2`). */
  direct: boolean;
}

const shape: fc.Arbitrary<Shape> = fc.record({
  bases: fc.integer({ min: 1, max: 3 }),
  branches: fc.array(fc.record({ bases: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }), own: fc.integer({ min: 1, max: 2 }) }), { minLength: 2, maxLength: 4 }),
  keyword: fc.constantFrom("oneOf", "anyOf"),
  neighbour: fc.boolean(),
  direct: fc.boolean(),
});

function toolsOf(s: Shape): Tool<object>[] {
  const defs: Record<string, JsonSchemaObject> = {};
  for (let b = 0; b < s.bases; b++) defs[`Base${b}`] = { type: "object", properties: { [`b${b}x`]: { type: "string" }, [`b${b}y`]: { type: "integer", maximum: 9 } } };
  s.branches.forEach((branch, i) => {
    const own = Object.fromEntries(Array.from({ length: branch.own }, (_, k) => [`m${i}_${k}`, { type: "string" }]));
    const bases = branch.bases.filter((b) => b < s.bases).map((b) => ({ $ref: `#/$defs/Base${b}` }));
    defs[`Branch${i}`] = bases.length === 0 ? { type: "object", properties: own } : { allOf: [...bases, { type: "object", properties: own }] };
  });
  const union = { [s.keyword]: s.branches.map((_, i) => ({ $ref: `#/$defs/Branch${i}` })) };
  const direct = s.direct ? { first: { $ref: "#/$defs/Base0" }, second: { $ref: "#/$defs/Base0" } } : {};
  const tools: ToolIR[] = [{ name: "pay", description: "pay", parameters: { properties: { body: union, ...direct }, required: [] }, binding } as unknown as ToolIR];
  if (s.neighbour) tools.push({ name: "peek", description: "peek", parameters: { properties: { base: { $ref: "#/$defs/Base0" }, again: { $ref: "#/$defs/Base0" } }, required: [] }, binding } as unknown as ToolIR);
  return [...definePack({ name: "t", defs, tools }).tools] as Tool<object>[];
}

/** The property: `count` is called for each drop that changed the map. */
function property(count: () => void) {
  return fc.property(shape, fc.nat(1_000), (s, pick) => {
        const tools = toolsOf(s);
        const pay = tools[0]!;
        const paths = egressMap([pay])[0]!.visible.map((p) => p.path).filter((p) => p !== "body");
        const typeSelectors = [...Array(s.bases).keys()].map((b) => `Base${b}.b${b}x`);
        const candidates = [...paths, ...typeSelectors];
        const selector = candidates[pick % candidates.length]!;
        let narrowed: Tool<object>;
        try {
          narrowed = pay.derived({ name: pay.name, drop: [selector] });
        } catch {
          return; // a selector the type does not reach, the last branch: refused, nothing to check
        }
        const before = formatEgressMap(egressMap(tools));
        const after = formatEgressMap(egressMap([narrowed, ...tools.slice(1)]));
        if (before === after) return;
        count();
        const forward = checkEgressMap(before, after);
        expect(forward.widened.map((d) => d.subject), `${selector}\n${after}`).toEqual([]);
        expect(forward.narrowed.length).toBeGreaterThan(0);
        // Each narrowing names a path the new map no longer lists as visible (under the same display, or below it).
        const visibleNow = new Set(egressMap([narrowed])[0]!.visible.map((p) => p.path));
        for (const d of forward.narrowed) if (PATH_KINDS.has(d.kind)) expect(visibleNow.has(d.path), `${d.subject} is still visible\n${after}`).toBe(false);
        const undo = checkEgressMap(after, before);
        expect(undo.narrowed.map((d) => d.subject), `${selector}\n${after}`).toEqual([]);
        expect(undo.widened.map((d) => d.path).sort()).toEqual(forward.narrowed.map((d) => d.path).sort());
      });
}

describe("narrowings through shared bases, splits and unions name no widening, and only paths really withheld", () => {
  it("seeded random shapes and drops", () => {
    let checked = 0;
    fc.assert(property(() => checked++), { seed: 39_2, numRuns: LONG ? 600 : 80 });
    expect(checked).toBeGreaterThan(LONG ? 300 : 40);
  });
});

describe("the resolution is what the property catches going wrong (guard egressByMeaning)", () => {
  it("with shared bases, splits and collapsed unions read by layout, the property fails", async () => {
    await withoutGuard("egressByMeaning", () => {
      const result = fc.check(property(() => {}), { seed: 39_2, numRuns: 80, endOnFailure: true });
      expect(result.failed, "the property did not notice a check that reads splits and shared bases by layout").toBe(true);
    });
  });
});
