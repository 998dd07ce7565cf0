import { defineConfig } from "vitest/config";

/** Test files that assert what a fresh process has or has not loaded (the tokenizer, a curated projection, a module the CLI read). */
export const ISOLATED = ["packages/core/test/pack/pack-loading.test.ts", "packages/mcp/test/serve-lazy.test.ts", "packages/cli/test/run-in-process.test.ts"];

// Workspace packages export their sources under the "@sluice/source" condition and built
// dist/ otherwise; the tests run from source, in this process and in the node children they
// spawn. (Scoped name: some dependencies export their own .ts under a plain "source".)
const nodeOptions = [process.env["NODE_OPTIONS"], "--conditions=@sluice/source"].filter(Boolean).join(" ");

export default defineConfig({
  // Vite's default server conditions are module, node, development|production.
  ssr: { resolve: { conditions: ["@sluice/source", "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "generators/*/test/**/*.test.ts", "packs/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // These assert what a fresh process has loaded; they run in a fresh cache of their own
    // (vitest.isolated.config.ts, the second run of `pnpm test`).
    exclude: ["**/node_modules/**", ...ISOLATED],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default in run mode is one worker less than the cores: one worker on the
    // 2-core machines this runs on, which left a core idle for the whole suite.
    maxWorkers: 2,
    minWorkers: 1,
    // Test files share their worker's module cache: nearly all import the same generated
    // packs (megabytes of source each), which an isolated run evaluated again for every file
    // (quick tier 8 min 15 s -> 6 min 40 s, bench/TEST-TIME.md). No file leaves global state
    // behind: guards and environment variables are restored where a test changes them.
    isolate: false,
    env: { NODE_OPTIONS: nodeOptions },
    // A pack package installed in a test's project (packages/cli/test/anywhere.test.ts) imports
    // @sluice/core, which resolves to its TypeScript sources: left to Node, as vitest leaves
    // node_modules, that import fails in the worker; transformed like the rest, it loads.
    server: { deps: { inline: [/\/node_modules\/@sluice\/pack-[^/]+\//] } },
    // Does nothing unless SLUICE_CPU_LOG names a file: then CPU seconds per test file (bench/TEST-TIME.md).
    // The second fails a file that leaves a changed module in the worker (test/support/stale-module-guard.ts).
    // The third names a test that holds its worker's event loop past a third of vitest's RPC deadline (test/support/event-loop-blocks.ts).
    setupFiles: ["test/support/cpu-per-file.ts", "test/support/stale-module-guard.ts", "test/support/event-loop-blocks.ts"],
  },
});
