/**
 * Why a test may not run here, said once, in its title. A test that skips for a missing
 * input names the input; a skip because a module of this repository is missing is no skip
 * in CI (`SLUICE_CI=1`, set by .ci/run): the module's absence is the failure, so the
 * condition throws at collection and the file fails. test/skip-reasons.test.ts holds every
 * conditional skip in the repository to this helper or to the tier flag.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type SkipWhy =
  /** A file from outside the repository (../shared/specs, a system browser). */
  | { absentInput: URL }
  /** A module of this repository: refused in CI. */
  | { absentModule: URL };

export interface Skip {
  /** True when the test must not run here. */
  skip: boolean;
  /** The title with the reason appended when it skips. */
  title(text: string): string;
}

const CI = process.env["SLUICE_CI"] === "1";

export function skipWhenAbsent(why: SkipWhy): Skip {
  const url = "absentInput" in why ? why.absentInput : why.absentModule;
  const path = fileURLToPath(url);
  const absent = !existsSync(url);
  if (absent && "absentModule" in why && CI) {
    throw new Error(`CI refuses this skip: the module ${path} is missing, so the tests of it would pass without running`);
  }
  const kind = "absentInput" in why ? "input" : "module";
  return { skip: absent, title: (text) => (absent ? `${text} (skipped: ${kind} ${path} is absent)` : text) };
}

/** One skip for several inputs: skipped when any is absent, naming the first. */
export function skipWhenAnyAbsent(urls: readonly URL[]): Skip {
  const missing = urls.find((url) => !existsSync(url));
  return missing === undefined ? { skip: false, title: (text) => text } : skipWhenAbsent({ absentInput: missing });
}
