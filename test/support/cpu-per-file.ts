/**
 * Opt-in measurement (bench/TEST-TIME.md): with SLUICE_CPU_LOG set, each test file appends one
 * line to that file, `<cpu seconds> <children's cpu seconds> <path>`: the CPU its worker spent
 * from before the file was imported to its last afterAll, and the part of it spent in child
 * processes it waited for. Wall time under load says little; CPU per file stays comparable
 * between a loaded and a quiet run. Unset, this does nothing (vitest.config.ts's setupFiles).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

const LOG = process.env["SLUICE_CPU_LOG"];

/** [own, children] CPU seconds of this process, from /proc (children: those already waited for). */
function cpu(): [number, number] {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  const tick = (i: number) => Number(fields[i]) / 100;
  return [tick(11) + tick(12), tick(13) + tick(14)];
}

if (LOG !== undefined && LOG !== "") {
  const [own, children] = cpu();
  const file = expect.getState().testPath ?? "?";
  afterAll(() => {
    const [ownNow, childrenNow] = cpu();
    appendFileSync(LOG, `${(ownNow - own + childrenNow - children).toFixed(2)} ${(childrenNow - children).toFixed(2)} ${file}\n`);
  });
}
