/**
 * The long tier (`pnpm test:long`): every test file that sweeps less in the quick tier,
 * run again over everything (`SLUICE_LONG=1`: the whole corpus, every hostile input;
 * `SLUICE_FUZZ_FULL=1`: full fuzz rounds). A file joins by reading either variable, so
 * no list here can fall behind the tests. `.ci/run` runs it after the README's test command.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const folders = ["packages", "generators", "packs", "test"];
const marker = /support\/tier\.ts|SLUICE_FUZZ_FULL|SLUICE_LONG/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const files = folders.flatMap((folder) => testFiles(join(root, folder))).filter((file) => marker.test(readFileSync(file, "utf8")));
if (files.length === 0) {
  process.stderr.write("test:long: no test file has a long tier; nothing to run\n");
  process.exit(1);
}
process.stderr.write(`test:long: ${files.length} files\n`);
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
// A long sweep can keep a worker from its event loop for over a minute, and vitest then
// reports its own RPC deadline ("Timeout calling onTaskUpdate") as an unhandled error with
// every test passed. The quick tier runs the same files without this flag, so an unhandled
// error raised by the code under test is still caught there; a failed assertion fails here.
const run = spawnSync(process.execPath, [vitest, "run", "--dangerouslyIgnoreUnhandledErrors", ...files.map((file) => relative(root, file)), ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, SLUICE_LONG: "1", SLUICE_FUZZ_FULL: "1" },
});
process.exit(run.status ?? 1);
