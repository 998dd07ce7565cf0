/**
 * The long tier (`pnpm test:long`): every test file that sweeps less in the quick tier,
 * run again over everything (`SLUICE_LONG=1`: the whole corpus, every hostile input;
 * `SLUICE_FUZZ_FULL=1`: full fuzz rounds). A file joins by reading either variable
 * (scripts/tier-files.ts), so no list here can fall behind the tests. `.ci/run` runs it
 * after the README's test command. It first checks that every test file runs in one tier
 * or the other (scripts/test-tiers.ts).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT, longTierFiles } from "./tier-files.ts";
import { tierTable } from "./test-tiers.ts";

const { orphans } = await tierTable();
if (orphans.length > 0) {
  process.stderr.write(`test:long: these test files run in no tier (see pnpm test:tiers):\n${orphans.map((file) => `  ${file}`).join("\n")}\n`);
  process.exit(1);
}
const files = longTierFiles();
if (files.length === 0) {
  process.stderr.write("test:long: no test file has a long tier; nothing to run\n");
  process.exit(1);
}
process.stderr.write(`test:long: ${files.length} files\n`);
const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
// No --dangerouslyIgnoreUnhandledErrors: an unhandled error fails the long tier as it fails
// the quick one. The one it hid ("Timeout calling onTaskUpdate": a worker kept from its event
// loop past vitest's 60 s RPC deadline by a sweep or a spawnSync child) is named, test by
// test, by test/support/event-loop-blocks.ts.
const run = spawnSync(process.execPath, [vitest, "run", ...files, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, SLUICE_LONG: "1", SLUICE_FUZZ_FULL: "1" },
});
// process.exit also ends the handles vite leaves open after listing the quick tier's files.
process.exit(run.status ?? 1);
