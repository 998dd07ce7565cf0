import { defineConfig } from "vitest/config";
import shared, { ISOLATED } from "./vitest.config.ts";

// The second run of `pnpm test`: the files that need a module cache of their own (see
// vitest.config.ts), each in a fresh one.
export default defineConfig({ ...shared, test: { ...shared.test, include: ISOLATED, exclude: ["**/node_modules/**"], isolate: true } });
