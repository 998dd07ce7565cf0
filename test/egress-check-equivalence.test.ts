/**
 * The egress map check, made proportional to what changed, finds exactly what it found
 * before: on real maps (read without the limits after their types, which the former check
 * did not know: it would read a limit as part of the type) (the committed packs' and a corpus pack's) with random widening and
 * narrowing edits, `checkEgressMap` gives the same widenings, narrowings, changes, order,
 * lines and diff as the frozen copy of the former check
 * (packages/core/test/support/reference-check-egress-map.ts), in both directions, and the
 * same error for a map neither can read.
 *
 * The check leaves out a tool that reads the same in both maps and reaches no changed
 * section; with that skip made careless (guard egressUnchangedReach off: a tool's own lines
 * alone decide), the same property finds a missed widening.
 *
 * Quick tier: windows of the big packs' maps (a dozen tools and the sections they reach),
 * the small maps whole. Long tier (tier.ts, `pnpm test:long`): every committed map whole,
 * Kubernetes' map from the corpus, more runs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { checkEgressMap, unifiedDiff, definePack, egressMap, formatEgressMap, type PackDefinition } from "@sluice/core";
import { guards, withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { checkEgressMap as referenceCheck } from "../packages/core/test/egress-map/support/reference-check-egress-map.ts";
import { parseEgressMap as referenceParse } from "../packages/core/test/egress-map/support/reference-parse-egress-map.ts";
import { parseEgressMap } from "../packages/core/src/egress-map/parse-egress-map.ts";
import { editMap, mapEdit, mapWindow, withoutLimits, type MapEdit } from "../packages/core/test/egress-map/support/map-edits.ts";
import { LONG } from "./support/tier.ts";
import { corpusDocument } from "./support/corpus-document.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SEED = 24_0212;
const RUNS = LONG ? 150 : 15;
const WINDOW = 12;

// diff is core's dependency, resolved (and typed, as far as used here) from there.
type CreatePatch = (oldName: string, newName: string, oldText: string, newText: string, oldHeader: undefined, newHeader: undefined, options: { context: number }) => string;
const { createTwoFilesPatch } = createRequire(join(ROOT, "packages/core/package.json"))("diff") as { createTwoFilesPatch: CreatePatch };

// Without the limits after the types: the frozen check predates them (see withoutLimits).
const committed = (pack: string) => withoutLimits(readFileSync(join(ROOT, "packs", pack, "egress_map.txt"), "utf8"));

function corpusMap(file: string, name: string): string {
  const document = corpusDocument(join(ROOT, "../shared/specs", file), file);
  const ir = buildOpenAPIPackIR(document, { name, file, sha256: "0".repeat(64) });
  return withoutLimits(formatEgressMap(egressMap(definePack(ir as unknown as PackDefinition).tools)));
}

interface Source {
  label: string;
  text: () => string;
  /** Windows of this many tools (the map's own text, cut), or the whole map. */
  window?: number;
  /** Fewer runs for a whole big map: the former check takes a second or more on each. */
  runs?: number;
}

const BIG = new Set(["github-rest", "stripe", "linear"]);

const SOURCES: Source[] = LONG
  ? [
      ...["notion", "slack", "gdocs", "gsheets", "gmail", "github", "github-rest", "stripe", "linear"].map((pack) => ({ label: `${pack} (whole)`, text: () => committed(pack), ...(BIG.has(pack) ? { runs: 12 } : {}) })),
      { label: "github-rest (windows)", text: () => committed("github-rest"), window: WINDOW },
      { label: "linear (windows)", text: () => committed("linear"), window: WINDOW },
      { label: "corpus: google calendar (whole)", text: () => corpusMap("google/calendar-v3.yaml", "calendar") },
      { label: "corpus: kubernetes (windows)", text: () => corpusMap("kubernetes/swagger.json", "kubernetes"), window: 40 },
    ]
  : [
      { label: "notion (whole)", text: () => committed("notion") },
      { label: "slack (whole)", text: () => committed("slack") },
      { label: "gdocs (whole: shared sections)", text: () => committed("gdocs") },
      { label: "gsheets (windows: shared and tool sections)", text: () => committed("gsheets"), window: WINDOW },
      { label: "github-rest (windows: positional unions)", text: () => committed("github-rest"), window: WINDOW },
      { label: "stripe (windows: open objects, shared sections)", text: () => committed("stripe"), window: WINDOW },
      { label: "linear (windows: recursive filters, withheld)", text: () => committed("linear"), window: WINDOW },
      { label: "corpus: google calendar (whole)", text: () => corpusMap("google/calendar-v3.yaml", "calendar") },
    ];

type Outcome = { check: ReturnType<typeof checkEgressMap> } | { error: string };

function outcome(check: typeof checkEgressMap, before: string, after: string): Outcome {
  try {
    return { check: check(before, after) };
  } catch (error) {
    return { error: String(error) };
  }
}

const edits = fc.array(mapEdit, { minLength: 1, maxLength: 4 });

/**
 * The check with its by-meaning rules of issue 39 switched off (guard egressByMeaning: shared
 * bases, split and renamed types, collapsed unions, integer within number), which the frozen
 * copy predates and which have their own property tests (egress-check-shared-bases.test.ts,
 * egress-limits-property.test.ts): the rest of the check must still find what it found.
 */
function asFormer<T>(run: () => T): T {
  guards.egressByMeaning = false;
  try {
    return run();
  } finally {
    guards.egressByMeaning = true;
  }
}

/** Both directions of one edited map, the new check against the frozen one; counts what the cases covered. */
function agrees(text: string, window: number | undefined, start: number, list: readonly MapEdit[], seen: { changed: number; widened: number; narrowed: number }): void {
  const base = window === undefined ? text : mapWindow(text, start, window);
  const edited = editMap(base, list);
  let parsed: unknown;
  try {
    parsed = parseEgressMap(edited);
  } catch (error) {
    parsed = String(error);
  }
  let former: unknown;
  try {
    former = referenceParse(edited);
  } catch (error) {
    former = String(error);
  }
  expect(parsed).toEqual(former);
  for (const [before, after] of [
    [base, edited],
    [edited, base],
  ] as const) {
    const now = asFormer(() => outcome(checkEgressMap, before, after));
    expect(now).toEqual(outcome(referenceCheck, before, after));
    if ("check" in now && !now.check.same) {
      seen.changed++;
      if (now.check.widened.length > 0) seen.widened++;
      if (now.check.narrowed.length > 0) seen.narrowed++;
    }
  }
}

describe("checkEgressMap finds what the former check found, on real maps with random edits", () => {
  for (const source of SOURCES) {
    it(source.label, async () => {
      const text = source.text();
      const seen = { changed: 0, widened: 0, narrowed: 0 };
      const runs = source.runs ?? RUNS;
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat(100_000), edits, async (start, list) => {
          // A long sweep yields now and then, or vitest's worker RPC times out.
          if (++run % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
          agrees(text, source.window, start, list, seen);
        }),
        { seed: SEED, numRuns: runs },
      );
      // The edits change the map, and both ways: a widening one way is a narrowing the other.
      expect(seen.changed).toBeGreaterThan(runs);
      expect(seen.widened).toBeGreaterThanOrEqual(runs / 3);
      expect(seen.narrowed).toBeGreaterThanOrEqual(runs / 3);
    });
  }
});
describe("the skip of unchanged tools is what the property would catch going wrong (guard egressUnchangedReach)", () => {
  // A change in the section most of the map mentions, and nothing else: every tool that
  // reaches it reads the same, line for line, so only the sections decide.
  const shared: MapEdit[] = [{ kind: "shared-add-member", a: 0, b: 1, c: 0 }];

  it("a member added to a shared section is named in every tool that reaches it, as before", () => {
    const base = mapWindow(committed("linear"), 0, WINDOW);
    const edited = editMap(base, shared);
    const now = checkEgressMap(base, edited);
    expect(new Set(now.widened.map((w) => w.tool)).size).toBeGreaterThan(1);
    expect(now).toEqual(referenceCheck(base, edited));
  });

  it("with the guard off, the same edit goes unseen and the property fails", async () => {
    const base = mapWindow(committed("linear"), 0, WINDOW);
    const edited = editMap(base, shared);
    const reference = referenceCheck(base, edited);
    await withoutGuard("egressUnchangedReach", async () => {
      expect(checkEgressMap(base, edited).widened.length).toBeLessThan(reference.widened.length);
      const seen = { changed: 0, widened: 0, narrowed: 0 };
      const text = committed("linear");
      const result = await fc.check(
        fc.property(fc.nat(100_000), edits, (start, list) => agrees(text, WINDOW, start, list, seen)),
        // No shrinking: that it fails is the finding, and shrinking would cost seconds.
        { seed: SEED, numRuns: RUNS * 4, endOnFailure: true },
      );
      expect(result.failed, "the property did not notice a skip that ignores the sections a tool reaches").toBe(true);
    });
  });
});

describe("unifiedDiff, which cuts the common start before diffing, writes the diff package's patch", () => {
  // Few distinct lines, so that runs of equal lines give the line diff ties to break.
  const text = fc.array(fc.constantFrom("a", "b", "c", "", "  + x: string", "a\r"), { maxLength: 40 }).map((lines) => lines.join("\n"));
  const ending = fc.constantFrom("", "\n");
  it("on random texts and edits of them, with and without a final newline", () => {
    fc.assert(
      fc.property(text, text, text, text, ending, ending, (start, one, other, end, endOne, endOther) => {
        const before = `${start}\n${one}\n${end}${endOne}`;
        const after = `${start}\n${other}\n${end}${endOther}`;
        const expected = before === after ? "" : createTwoFilesPatch("a (committed)", "a (current)", before, after, undefined, undefined, { context: 2 });
        expect(unifiedDiff(before, after, "a (committed)", "a (current)")).toBe(expected);
      }),
      { seed: SEED, numRuns: LONG ? 5_000 : 500 },
    );
  });
});
