// Child of scripts/bench-pack-load.mjs: loads one pack and prints what the load cost in this
// process: wall time, CPU time (user + system, every thread: tsx's loader thread and V8's
// helpers included) and the heap left after a full GC (run with --expose-gc).
//   node --expose-gc bench/pack-load-child.mjs cli <pack dir>   the built CLI's loadPack: tsx and the CLI's hook
//   node --expose-gc bench/pack-load-child.mjs tsx <pack dir>   tsx registered alone, the pack's src/index.ts imported
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [mode, pack] = process.argv.slice(2);
const dist = new URL("../packages/cli/dist/", import.meta.url);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let tools;
if (mode === "cli") {
  // The chunk's name carries a content hash: found, not named.
  const chunk = readdirSync(dist).find((name) => /^load-tools-[\w-]+\.js$/.test(name));
  const { loadPack } = await import(new URL(chunk, dist).href);
  tools = (await loadPack(pack, process.cwd())).tools.length;
} else if (mode === "tsx") {
  (await import("tsx/esm/api")).register();
  tools = (await import(pathToFileURL(join(process.cwd(), pack, "src/index.ts")).href)).allTools.length;
} else {
  throw new Error(`mode ${mode}: cli or tsx`);
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
globalThis.gc();
process.stdout.write(JSON.stringify({ tools, ms, cpuMs: (cpu.user + cpu.system) / 1000, heapMiB: process.memoryUsage().heapUsed / 2 ** 20 }));
