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
    env: { NODE_OPTIONS: nodeOptions },
  },
});
