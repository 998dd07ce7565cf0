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
// A long sweep can keep a worker from its event loop for over a minute, and vitest then
// reports its own RPC deadline ("Timeout calling onTaskUpdate") as an unhandled error with
// every test passed. The quick tier runs the same files without this flag, so an unhandled
// error raised by the code under test is still caught there; a failed assertion fails here.
const run = spawnSync(process.execPath, [vitest, "run", "--dangerouslyIgnoreUnhandledErrors", ...files, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, SLUICE_LONG: "1", SLUICE_FUZZ_FULL: "1" },
});
// process.exit also ends the handles vite leaves open after listing the quick tier's files.
process.exit(run.status ?? 1);
