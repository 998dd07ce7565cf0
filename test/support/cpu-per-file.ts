/**
 * Opt-in measurement (bench/TEST-TIME.md): with SLUICE_CPU_LOG set, each test file appends one
 * line to that file, `<cpu seconds> <children's cpu seconds> <path> <retained heap MiB> <worker's peak RSS MiB so far> <worker pid>`: the CPU its worker spent
 * from before the file was imported to its last afterAll, and the part of it spent in child
 * processes it waited for. Wall time under load says little; CPU per file stays comparable
 * between a loaded and a quiet run. Unset, this does nothing (vitest.config.ts's setupFiles).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, expect } from "vitest";

const LOG = process.env["SLUICE_CPU_LOG"];

/** [own, children] CPU seconds of this process, from /proc (children: those already waited for). */
function cpu(): [number, number] {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  const tick = (i: number) => Number(fields[i]) / 100;
  return [tick(11) + tick(12), tick(13) + tick(14)];
}

/**
 * MiB of heap still reachable once this file is done: with `isolate: false` a worker keeps what
 * each file leaves reachable (module caches among them) for every file after it. Measured after
 * a full collection, so garbage does not count; the collection happens after the CPU reading
 * above. With the worker's peak RSS beside it (one file's own peak under `--isolate`), this
 * found the long tier's out-of-heap worker: one file's fit of a 20,000-level schema, 2.7 GB.
 */
function retainedMiB(): string {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  return (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0);
}

if (LOG !== undefined && LOG !== "") {
  const [own, children] = cpu();
  const file = expect.getState().testPath ?? "?";
  afterAll(() => {
    const [ownNow, childrenNow] = cpu();
    appendFileSync(LOG, `${(ownNow - own + childrenNow - children).toFixed(2)} ${(childrenNow - children).toFixed(2)} ${file} ${retainedMiB()} ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} ${process.pid}\n`);
  });
}
