/**
 * The JSON-Schema-Test-Suite (json-schema-org, commit 44401e0, required files of draft
 * 2020-12 and draft 4; test/fixtures/json-schema-test-suite/) as an oracle no one here
 * wrote: each case's schema is made the argument of a tool along each path a schema reaches
 * sluice by (support/json-schema-suite.ts: Tool.create, the OpenAPI 3.1 generator, the
 * OpenAPI 3.0 and Swagger 2.0 generators with draft-04 schemas), and `check()` (screening
 * and validation, the call path) must
 * - never accept an instance the suite marks invalid, on any path;
 * - refuse a valid one only where docs/json-schema.md lists a deliberate deviation for
 *   that group and that cause of refusal (support/json-schema-deviations.ts, the one list
 *   the doc's table is written from).
 *
 * Tiers (support/tier.ts): the quick tier runs a fixed sample of files (the ones whose
 * keywords the converter or screening translate, and one of each deviation's kind); `pnpm
 * test:long` runs every file and also requires every listed deviation to explain a case,
 * so the list cannot go stale. `scripts/json-schema-suite.ts` writes the per-file table to
 * bench/JSON-SCHEMA-SUITE.md and the deviation table to docs/json-schema.md.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { DEVIATIONS, deviationsFor, renderDeviationTable, TABLE_END, TABLE_START } from "./support/json-schema-deviations.ts";
import { loadGroups, PATHS_OF_DRAFT, runGroup, suiteIR, type CaseResult, type SuiteGroup } from "./support/json-schema-suite.ts";
import { LONG, sweep } from "./support/tier.ts";

const ROOT = fileURLToPath(new URL("./fixtures/json-schema-test-suite/", import.meta.url));
const DOC = new URL("../docs/json-schema.md", import.meta.url);

/** The quick tier's files: every keyword the converter or screening translates, and a file of each deviation. */
const QUICK = new Set([
  "additionalItems.json", "const.json", "dependencies.json", "dependentRequired.json", "dynamicRef.json", "enum.json",
  "items.json", "not.json", "properties.json", "unevaluatedItems.json",
]);

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function run(groups: readonly SuiteGroup[]): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const [index, group] of groups.entries()) {
    for (const path of PATHS_OF_DRAFT[group.draft]!) results.push(...runGroup(path, group));
    if (index % 25 === 24) await tick(); // keep vitest's worker RPC answered on a long sweep
  }
  return results;
}

const label = (r: CaseResult) => `${r.path} ${r.file} | ${r.group} | ${r.test}${r.cause === "" ? "" : ` (${r.cause})`}`;

describe("JSON-Schema-Test-Suite through every path a schema reaches sluice by", () => {
  for (const draft of Object.keys(PATHS_OF_DRAFT)) {
    it(`${draft}: never an accepted invalid instance, and every refused valid one a listed deviation`, { timeout: 300_000 }, async () => {
      const groups = sweep(loadGroups(ROOT, draft), (group) => QUICK.has(group.file));
      const results = await run(groups);
      expect(results.length).toBeGreaterThan(LONG ? 500 : 150);
      expect(results.filter((r) => r.outcome === "accept-invalid").map(label)).toEqual([]);
      expect(results.filter((r) => r.outcome === "refuse-valid" && deviationsFor(r.file, r.group, r.cause) === undefined).map(label)).toEqual([]);
      // Each path agrees on most cases: a harness that refused everything would pass the two checks above.
      for (const path of PATHS_OF_DRAFT[draft]!) {
        const mine = results.filter((r) => r.path === path);
        expect(mine.filter((r) => r.outcome === "agree").length / mine.length, path).toBeGreaterThan(0.8);
      }
    });
  }

  it.runIf(LONG)("every listed deviation explains some refused valid case (the list does not go stale)", { timeout: 600_000 }, async () => {
    const results = await run(Object.keys(PATHS_OF_DRAFT).flatMap((draft) => loadGroups(ROOT, draft)));
    const used = new Map<string, Set<string>>(DEVIATIONS.map((d) => [d.id, new Set()]));
    for (const r of results) {
      if (r.outcome !== "refuse-valid") continue;
      for (const one of r.cause.split(",")) {
        const d = DEVIATIONS.find((x) => (x.where.includes(r.file) || x.where.includes(`${r.file}: ${r.group}`)) && x.causes.includes(one));
        if (d === undefined) continue;
        used.get(d.id)!.add(d.where.includes(r.file) ? r.file : `${r.file}: ${r.group}`).add(`cause ${one}`);
      }
    }
    const stale = DEVIATIONS.flatMap((d) => [...d.where.filter((w) => !used.get(d.id)!.has(w)).map((w) => `${d.id}: ${w}`), ...d.causes.filter((c) => !used.get(d.id)!.has(`cause ${c}`)).map((c) => `${d.id}: cause ${c}`)]);
    expect(stale).toEqual([]);
  });

  it("docs/json-schema.md carries the deviation table the test holds cases against", () => {
    const doc = readFileSync(DOC, "utf8");
    const start = doc.indexOf(TABLE_START);
    const end = doc.indexOf(TABLE_END);
    expect(start, "deviation table markers").toBeGreaterThanOrEqual(0);
    expect(doc.slice(start + TABLE_START.length, end).trim(), "regenerate: node --conditions=@sluice/source --import tsx scripts/json-schema-suite.ts").toBe(renderDeviationTable());
  });
});

describe("fail closed: a keyword sluice cannot check exactly refuses the schema (guard unsupportedKeywords)", () => {
  const dynamicToFalse = loadGroups(ROOT, "draft2020-12").find((g) => g.description === "$dynamicRef points to a boolean schema")!;
  const containsFeeds = loadGroups(ROOT, "draft2020-12").find((g) => g.description === "unevaluatedItems depends on adjacent contains")!;

  it("the 3.1 generator skips the operation with KEYWORD_UNSUPPORTED, naming the operation and the pointer", () => {
    const ir = suiteIR("openapi-3.1", dynamicToFalse.schema);
    expect(ir.tools).toEqual([]);
    expect(ir.skipped).toHaveLength(1);
    expect(ir.skipped[0]!.operation).toBe("POST /suite");
    expect(ir.skipped[0]!.reason).toMatch(/^KEYWORD_UNSUPPORTED: POST \/suite \/components\/schemas\/Suite\/properties\/true\/\$dynamicRef: /);
    // contains beside unevaluatedItems is converted, then refused as the call runtime would refuse it.
    const contains = suiteIR("openapi-3.1", containsFeeds.schema);
    expect(contains.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^KEYWORD_UNSUPPORTED: POST \/suite: unevaluatedItems at \/\$defs\/Suite\/unevaluatedItems /)]);
  });

  it("with the guard off, both paths accept an instance the suite marks invalid", async () => {
    const accepted = (results: CaseResult[]) => results.filter((r) => r.outcome === "accept-invalid").map((r) => `${r.path} ${r.test}`);
    for (const group of [dynamicToFalse, containsFeeds]) {
      expect(accepted([...runGroup("direct", group), ...runGroup("openapi-3.1", group)])).toEqual([]);
    }
    const off = await withoutGuard("unsupportedKeywords", () => [dynamicToFalse, containsFeeds].flatMap((group) => [...runGroup("direct", group), ...runGroup("openapi-3.1", group)]));
    expect(accepted(off)).toEqual([
      "direct follow $dynamicRef to a false schema",
      "openapi-3.1 follow $dynamicRef to a false schema",
      "direct contains passes, second item is not evaluated",
      "openapi-3.1 contains passes, second item is not evaluated",
    ]);
  });
});
