/**
 * bin/generate-heap.mjs keeps V8's young generation at its first size for generate's
 * process. Each case is its own bare node process (the flag is process-wide, and this test
 * worker must keep its own GC): the same churn of short-lived objects with many survivors,
 * which makes V8 grow the young generation, with and without the call.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const HEAP_MODULE = new URL("../bin/generate-heap.mjs", import.meta.url).href;

const CHURN = `
if (process.argv[1] === "tuned") (await import(${JSON.stringify(HEAP_MODULE)})).keepYoungGenerationSmall();
const { getHeapSpaceStatistics } = await import("node:v8");
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
let kept = [];
let most = 0;
for (let i = 0; i < 400000; i += 1) {
  kept.push({ i, text: "item " + i, pair: [i, i + 1] });
  if (kept.length > 50000) kept = [];
  if (i % 1000 === 0) most = Math.max(most, newSpace());
}
process.stdout.write(String(most));
`;

function largestNewSpace(mode: "plain" | "tuned"): number {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", CHURN, mode], { encoding: "utf8", timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

/** Node 20's V8 reads the factor at each growth; newer ones clamp it to 2 at least, so there the call changes nothing. */
const READS_THE_FACTOR = Number(process.versions.node.split(".")[0]) === 20;

describe("generate's young generation", () => {
  it("stays at its first size after keepYoungGenerationSmall (Node 20), and is never larger for it", () => {
    const plain = largestNewSpace("plain");
    const tuned = largestNewSpace("tuned");
    expect(tuned).toBeLessThanOrEqual(plain);
    if (READS_THE_FACTOR) {
      // 32 MiB against 2 MiB on Node 20.
      expect(plain).toBeGreaterThanOrEqual(4 * tuned);
      expect(tuned).toBeLessThanOrEqual(4 * 1024 * 1024);
    }
  });
});
