/**
 * Two tiers of tests. The README's test command runs the quick tier: every property,
 * guard and code path on a sample that covers each of them. `pnpm test:long`
 * (`SLUICE_LONG=1`, run by `.ci/run` after the quick tier) runs the same tests over
 * everything: the whole corpus, every hostile input, full fuzz rounds.
 */
export const LONG = process.env["SLUICE_LONG"] === "1";

/**
 * The items a sweep covers: all of them in the long tier, else those `quick` picks.
 * The quick choice is a fixed list in the test, so a failure reproduces by name.
 */
export function sweep<T>(all: readonly T[], quick: (item: T) => boolean): T[] {
  return LONG ? [...all] : all.filter(quick);
}
