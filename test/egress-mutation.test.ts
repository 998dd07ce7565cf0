/**
 * Mutation checks for the egress fuzzer (issue 11): with a guard switched off, the same
 * seeded run over the synthetic corpus must find something, or the guard is not what
 * keeps withheld paths off the wire (and the fuzzer would not notice it breaking).
 *
 * - withheldScreening: screening refuses a withheld key whatever a branch says about
 *   openness. Off, keys in open or bare-`required` branches pass screening: `check()`
 *   accepts them (the fuzzer reports `unrefused`), even where the request builder's own
 *   filter still keeps them off the wire.
 * - withheldScreening and requestFilter together: nothing stands between those keys and
 *   the wire, and the canaries are seen by the recording server.
 *
 * The round with every guard on is the very run egress-conformance.test.ts's "synthetic
 * shapes" case makes (same tools, seed, runs and mode, with stricter counts), so the quick
 * tier leaves it to that file and only the long tier repeats it here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guards, withoutGuard } from "@sluice/core/guards";
import { describeFinding, fuzzEgress, summarize } from "./support/egress-fuzz.ts";
import { startRecordingServer, type RecordingServer } from "./support/recording-server.ts";
import { syntheticTools } from "./support/synthetic-shapes.ts";
import { LONG } from "./support/tier.ts";

const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_130);
// The long tier fuzzes 40 runs per shape, the quick tier a smaller sample of the same seeded
// sweep (the first runs of the same sequence), which each guard switched off still fails.
const RUNS = LONG ? 40 : 15;

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => {
  await server.close();
});

const fuzz = () => fuzzEgress({ tools: syntheticTools(), seed: SEED, runs: RUNS, mode: "both", server });

describe("egress guards matter to the fuzzer", () => {
  it.runIf(LONG)("finds nothing with every guard on", async () => {
    expect(Object.values(guards).every((on) => on)).toBe(true);
    const report = await fuzz();
    console.log(summarize("guards on", report));
    expect(report.findings.map(describeFinding)).toEqual([]);
    expect(report.canaries).toBeGreaterThan(100);
  });

  it("finds withheld keys that screening lets through when withheldScreening is off", async () => {
    const report = await withoutGuard("withheldScreening", fuzz);
    console.log(summarize("withheldScreening off", report));
    const through = report.findings.filter((f) => f.kind === "unrefused" || f.kind === "leak");
    expect(through.length, "no finding with withheldScreening off: the guard is not what refuses withheld keys").toBeGreaterThan(0);
    // More than one shape that reopens an object gives it away.
    expect(new Set(through.map((f) => f.tool)).size).toBeGreaterThanOrEqual(2);
    expect(guards.withheldScreening).toBe(true);
  });

  it("puts withheld bytes on the wire when withheldScreening and requestFilter are both off", async () => {
    const report = await withoutGuard("withheldScreening", () => withoutGuard("requestFilter", fuzz));
    console.log(summarize("withheldScreening and requestFilter off", report));
    expect(report.leaks.length, "no leak with both egress guards off").toBeGreaterThan(0);
    expect(report.withheldBytesOnWire).toBeGreaterThan(0);
    expect(report.leaks.some((f) => f.via === "call")).toBe(true);
    expect(guards.requestFilter && guards.withheldScreening).toBe(true);
  });
});
