/**
 * The README's test command (`pnpm test`): tsc, the quick tier's shared-cache vitest run and
 * its isolated run (vitest.isolated.config.ts), side by side. tsc is one core for half a
 * minute, and the isolated run is a few files, so run one after the other they left a core
 * idle for most of that time. vitest's output streams as it comes; the other two print
 * theirs when they end. Exits 1 unless all three pass; arguments go to the main vitest run.
 * Plain JavaScript, so that starting it costs no loader.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));

function run(label, args, { stream }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: stream ? "inherit" : ["ignore", "pipe", "pipe"] });
    let output = "";
    if (!stream) {
      child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    }
    child.on("error", (error) => resolve({ label, code: 1, output: `${output}${error.message}\n`, seconds: 0 }));
    child.on("close", (code, signal) => resolve({ label, code: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000 }));
  });
}

// `pnpm test -- --reporter=json ...` hands the script a leading "--", after which vitest
// reads nothing as an option (a run given reporter flags so wrote no report).
const forwarded = process.argv[2] === "--" ? process.argv.slice(3) : process.argv.slice(2);

const results = await Promise.all([
  // Incremental, with its state under node_modules/.cache: a run after a small edit re-checks
  // what the edit reaches instead of every file (a fresh clone checks everything, as before).
  run("tsc -p tsconfig.json", [tsc, "-p", "tsconfig.json", "--incremental", "--tsBuildInfoFile", "node_modules/.cache/sluice/tsconfig.tsbuildinfo"], { stream: false }),
  run("vitest run", [vitest, "run", ...forwarded], { stream: true }),
  run("vitest run --config vitest.isolated.config.ts", [vitest, "run", "--config", "vitest.isolated.config.ts"], { stream: false }),
]);
for (const { label, code, output, seconds } of results) {
  if (output !== "") process.stdout.write(`\n${label}:\n${output}`);
  process.stdout.write(`${code === 0 ? "passed" : "FAILED"}: ${label} (${seconds.toFixed(1)} s)\n`);
}
process.exit(results.every((result) => result.code === 0) ? 0 : 1);
