/**
 * The CPU time a child process has used, for limits that count work instead of waiting on
 * the clock: on a machine shared by many jobs a step's wall time says more about the load
 * than about the step, while the CPU seconds it burns do not move with the load. Linux
 * only (`/proc/<pid>/stat`); elsewhere undefined, and callers fall back to wall time.
 */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux build node uses). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds of process `pid` (its own, not its children's), or undefined. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
