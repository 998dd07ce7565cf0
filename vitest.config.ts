import { defineConfig } from "vitest/config";

// Workspace packages export their sources under the "@sluice/source" condition and built
// dist/ otherwise; the tests run from source, in this process and in the node children they
// spawn. (Scoped name: some dependencies export their own .ts under a plain "source".)
const nodeOptions = [process.env["NODE_OPTIONS"], "--conditions=@sluice/source"].filter(Boolean).join(" ");

export default defineConfig({
  // Vite's default server conditions are module, node, development|production.
  ssr: { resolve: { conditions: ["@sluice/source", "module", "node", "development|production"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "generators/*/test/**/*.test.ts", "packs/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default in run mode is one worker less than the cores: one worker on the
    // 2-core machines this runs on, which left a core idle for the whole suite.
    maxWorkers: 2,
    minWorkers: 1,
    env: { NODE_OPTIONS: nodeOptions },
  },
});
