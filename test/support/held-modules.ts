/**
 * The modules a vitest worker holds, and which of them changed on disk since it first saw
 * them. With `isolate: false` the worker keeps every module for the files that follow; one
 * that changed can no longer be imported fresh here, so runSluice sends every later call of
 * the worker to a child process (about a second of CPU each), whichever file caused it.
 * Kept free of imports beyond node's, so the guard that reads it (stale-module-guard.ts)
 * costs nothing to load.
 */
import { statSync } from "node:fs";

/** Each file as it was on disk when first seen by a check in this worker. */
const seen = new Map<string, string>();

function signature(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return "gone";
  }
}

/** The files of the modules this worker holds (not installed dependencies, which do not change during a run). */
export function cachedFiles(): string[] {
  const cache = (globalThis as { __vitest_worker__?: { moduleCache?: Map<string, unknown> } }).__vitest_worker__?.moduleCache;
  if (cache === undefined) return [];
  return [...cache.keys()].map((key) => key.split("?")[0]!).filter((file) => file.startsWith("/") && !file.startsWith("/@") && !file.includes("/node_modules/"));
}

/**
 * The held modules seen before that changed since. With `record` (what runSluice does after
 * each call) a held module not seen before is recorded as it is now. A file since removed is
 * not stale: it cannot be imported again (a scratch copy that was mapped and removed); one
 * written again at the same path is.
 */
export function staleHeldModules(record = true): string[] {
  const stale: string[] = [];
  for (const file of cachedFiles()) {
    const now = signature(file);
    const then = seen.get(file);
    if (then === undefined) {
      if (record) seen.set(file, now);
    } else if (then !== now && now !== "gone") stale.push(file);
  }
  return stale;
}

/** Whether a held module seen before has changed since (and was not removed). */
export function changedSinceSeen(file: string): boolean {
  const then = seen.get(file);
  return then === undefined || then !== signature(file);
}
