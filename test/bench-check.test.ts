/**
 * The comparer behind `pnpm bench:check` (scripts/bench-check/compare-counts.ts): a bench
 * file whose counts a rerun does not reproduce is stale; timings never make it so. Also the
 * registry: every bench/*.md is listed and names its command (scripts/bench-check.ts --names).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { countDifferences, tablesOf } from "../scripts/bench-check/compare-counts.ts";
import { BENCHES } from "../scripts/bench-check/registry.ts";
import { namingProblems } from "../scripts/bench-check.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const file = (rows: string[], heading = "## Results"): string =>
  ["# A bench", "", "- command: `node x.ts`", "", heading, "", "| catalog | tools | tokens | time |", "| --- | ---: | ---: | ---: |", ...rows, "", "Prose with 12 numbers is not compared."].join("\n");

describe("countDifferences", () => {
  const committed = file(["| slack | 174 | 18,604 | 401 ms |", "| stripe | 421 | 236,286 | 518 ms |"]);

  it("the same counts with other timings: no difference", () => {
    expect(countDifferences(committed, file(["| slack | 174 | 18,604 | 9,000 ms |", "| stripe | 421 | 236,286 | 3 ms |"]), { complete: true })).toEqual([]);
  });

  it("a stale count (the file says 221 tools, the rerun 174) is named with both values", () => {
    const stale = file(["| slack | 221 | 18,604 | 401 ms |", "| stripe | 421 | 236,286 | 518 ms |"]);
    expect(countDifferences(stale, committed)).toEqual(['table "Results :: catalog | tools | tokens | time": row "slack", tools: the file says 221, the rerun 174']);
  });

  it("a row or a table only the rerun has is a difference; a row only the file has is one when the rerun is complete", () => {
    const fewer = file(["| slack | 174 | 18,604 | 401 ms |"]);
    expect(countDifferences(fewer, committed)).toEqual(['table "Results :: catalog | tools | tokens | time": row "stripe" in the rerun, not in the file']);
    expect(countDifferences(committed, fewer)).toEqual([]);
    expect(countDifferences(committed, fewer, { complete: true })).toEqual(['table "Results :: catalog | tools | tokens | time": row "stripe" in the file, not in the rerun']);
    expect(countDifferences(committed, file(["| slack | 174 | 18,604 | 401 ms |"], "## Other"))).toHaveLength(1);
  });

  it("a cell holding a time or a size is a measurement in any column; a percentage of counts is a count", () => {
    const withUnits = (saved: string, wall: string) => ["## R", "", "| mode | saved | result |", "| --- | --- | --- |", `| reduce | ${saved} | ${wall} |`].join("\n");
    expect(countDifferences(withUnits("10.7%", "3.1 s"), withUnits("10.7%", "9.9 s"))).toEqual([]);
    expect(countDifferences(withUnits("12.0%", "3.1 s"), withUnits("10.7%", "3.1 s"))).toHaveLength(1);
  });

  it("a rerun that prints only its table is matched by the header alone", () => {
    const printed = ["| catalog | tools | tokens | time |", "| --- | ---: | ---: | ---: |", "| slack | 175 | 18,604 | 1 ms |"].join("\n");
    expect(countDifferences(committed, printed)).toEqual(['table " :: catalog | tools | tokens | time": row "slack", tools: the file says 174, the rerun 175']);
  });

  it("reads every table of a real bench file", () => {
    const tables = tablesOf(readFileSync(new URL("../bench/COMPACTION.md", import.meta.url), "utf8"));
    expect(tables.length).toBeGreaterThanOrEqual(2);
    expect(tables[0]!.rows.length).toBe(9);
    expect(countDifferences(readFileSync(new URL("../bench/COMPACTION.md", import.meta.url), "utf8"), readFileSync(new URL("../bench/COMPACTION.md", import.meta.url), "utf8"), { complete: true })).toEqual([]);
  });

  it("a deliberately stale copy of a committed bench file fails against the file (one count changed)", () => {
    const real = readFileSync(new URL("../bench/DISPATCH.md", import.meta.url), "utf8");
    const row = tablesOf(real)[0]!.rows.find((cells) => cells[0]!.startsWith("slack"))!;
    const stale = real.replace(`| ${row[0]} | ${row[1]} |`, `| ${row[0]} | ${Number(row[1]) + 47} |`);
    expect(stale).not.toBe(real);
    expect(countDifferences(stale, real, { complete: true })).toEqual([expect.stringContaining(`the file says ${Number(row[1]) + 47}, the rerun ${row[1]}`)]);
  });
});

describe("the bench registry", () => {
  it("lists every bench file, each naming its one command or saying why none regenerates it", () => {
    expect(namingProblems(ROOT, BENCHES)).toEqual([]);
    expect(BENCHES.filter((bench) => bench.rerun !== undefined).length).toBeGreaterThanOrEqual(4);
  });
});
