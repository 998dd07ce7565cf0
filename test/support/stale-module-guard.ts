/**
 * Fails a test file that leaves its worker holding a module that changed on disk after a
 * runSluice of the worker saw it (held-modules.ts): with `isolate: false` every later runSluice of that
 * worker, in every file that follows, would then pay for a child process. Tests that edit a
 * pack edit a copy the worker never loaded (bench/TEST-TIME.md). Registered first, so this
 * afterAll runs after the file's own (which remove their temporary folders).
 * `SLUICE_STALE_MODULES=allow` turns it off, for a file being debugged.
 */
import { afterAll } from "vitest";
import { staleHeldModules } from "./held-modules.ts";

if (process.env["SLUICE_STALE_MODULES"] !== "allow") {
  afterAll(() => {
    // Not recording: a module first seen now may already have changed since it was loaded, and
    // taking it as it is now would let a later runSluice use the old one in the worker.
    const stale = staleHeldModules(false);
    if (stale.length > 0) {
      throw new Error(`this file left the worker holding ${stale.length} module(s) changed on disk since they were loaded, so every later runSluice of the worker runs as a child process: ${stale.slice(0, 5).join(", ")}. Edit a copy the worker has not loaded instead.`);
    }
  });
}
