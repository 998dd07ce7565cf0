/**
 * Names the test that holds its worker's event loop for long: vitest's worker answers its
 * RPC (`onTaskUpdate`, ...) only from the event loop, and a call left unanswered for 60 s is
 * an unhandled "Timeout calling onTaskUpdate" that fails the run with every test passed.
 * The long tier used to pass `--dangerouslyIgnoreUnhandledErrors` over it; now the run
 * fails, and this line says which test to mend (await a macrotask inside its sweep, or run
 * its children awaited, not with spawnSync). A report, not an assertion: nothing here fails.
 */
import { afterEach, beforeEach } from "vitest";

/** Blocks longer than this are reported (a third of vitest's RPC deadline). */
const REPORT_MS = 20_000;

interface Watch {
  /** Tests running at the last beat or started since, with their start and (when ended) end. */
  recent: Array<{ name: string; start: number; end?: number }>;
  last: number;
}

const KEY = Symbol.for("sluice.eventLoopBlocks");
const global = globalThis as { [KEY]?: Watch };
// Once per worker: with `isolate: false` this setup file runs again for every test file.
if (global[KEY] === undefined) {
  const watch: Watch = { recent: [], last: Date.now() };
  global[KEY] = watch;
  setInterval(() => {
    const now = Date.now();
    const held = now - watch.last;
    watch.last = now;
    if (held > REPORT_MS) {
      // The block lies in a test that ran for most of it (others ran before or after it, briefly).
      const long = watch.recent.filter((test) => (test.end ?? now) - test.start >= held / 2).map((test) => test.name);
      const names = long.length > 0 ? long : ["(a hook or collection, between tests)"];
      process.stderr.write(`[event loop held ${(held / 1000).toFixed(1)} s] in ${names.join(" or ")}: vitest's worker RPC times out after 60 s of this; await a macrotask inside the loop\n`);
    }
    watch.recent = watch.recent.filter((test) => test.end === undefined);
  }, 1_000).unref();
}
const watch = global[KEY]!;

beforeEach((context) => {
  watch.recent.push({ name: `${context.task.file?.name ?? "?"} > ${context.task.name}`, start: Date.now() });
});
afterEach(() => {
  const test = watch.recent.findLast((entry) => entry.end === undefined);
  if (test !== undefined) test.end = Date.now();
});
