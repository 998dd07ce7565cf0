/**
 * Which test files each tier runs. The quick tier (the README's `pnpm test`) is what vitest
 * itself lists under vitest.config.ts and vitest.isolated.config.ts; the long tier
 * (`pnpm test:long`) is every test file that reads `LONG` (test/support/tier.ts) or one of
 * the variables it stands for, so no hand-kept list can fall behind the tests.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createVitest } from "vitest/node";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FOLDERS = ["packages", "generators", "packs", "test"];
const LONG_MARKER = /support\/tier\.ts|SLUICE_FUZZ_FULL|SLUICE_LONG/;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/** Every *.test.ts of the repository, relative to its root, sorted. */
export function allTestFiles(): string[] {
  return FOLDERS.flatMap((folder) => walk(join(ROOT, folder))).map((file) => relative(ROOT, file));
}

/** The files `pnpm test:long` runs. */
export function longTierFiles(): string[] {
  return allTestFiles().filter((file) => LONG_MARKER.test(readFileSync(join(ROOT, file), "utf8")));
}

/** The files vitest runs under a config: its own glob of include and exclude. */
async function vitestFiles(config: string): Promise<string[]> {
  const vitest = await createVitest("test", { config, root: ROOT, watch: false, run: true });
  try {
    return (await vitest.globTestSpecifications()).map((spec) => relative(ROOT, spec.moduleId)).sort();
  } finally {
    await vitest.close();
  }
}

/**
 * The files the README's test command runs: both vitest runs of `pnpm test`. (Vite leaves
 * handles open after close; a script that calls this ends with process.exit.)
 */
export async function quickTierFiles(): Promise<string[]> {
  return [...new Set([...(await vitestFiles("vitest.config.ts")), ...(await vitestFiles("vitest.isolated.config.ts"))])].sort();
}
