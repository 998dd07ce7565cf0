/**
 * How generate's process sizes V8's young generation. Nearly everything generate allocates
 * dies young (the parsed spec, schema copies, text being built), and V8 doubles the young
 * generation whenever much of it survives a scavenge, up to two 16 MiB semi-spaces that then
 * stay committed: on GitHub REST and Stripe that is about a seventh of the peak RSS. Kept at
 * its first size, the peak RSS is about 15% lower there (5% on Kubernetes) and the CPU time
 * about the same: more scavenges, each smaller and over memory that stays in cache
 * (bench/GENERATE.md).
 *
 * The other way round was measured too and lost (bench/GENERATE-CORE-SPEED.md): a young
 * generation of 16, 32 or 64 MiB from the start (--min-semi-space-size, which V8 reads only at
 * start-up: set here it changes nothing) cost 6-38% more CPU and 10-105% more peak RSS on
 * GitHub REST, Stripe and Kubernetes. Setting GC threading flags here is unsafe:
 * --single-threaded-gc set after start-up aborts V8 in its first full collection.
 *
 * Only the bin calls this, for generate: the flag is the whole process's, and main() may run
 * inside another program (a test worker, an editor). Node 20's V8 reads the factor at every
 * growth; a V8 that clamps it (newer ones hold it at 2 at least) keeps its default, silently.
 */
import { setFlagsFromString } from "node:v8";

export function keepYoungGenerationSmall() {
  setFlagsFromString("--semi-space-growth-factor=1");
}
