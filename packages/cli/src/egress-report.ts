/**
 * How `egress --check` and `generate --check` report an egress map that differs: the same
 * lines in text, the same objects in JSON and the same messages in GitHub annotations, so
 * a widening reads alike wherever it is read. Everything here goes to stdout: it is the
 * report the command was asked for (docs/ci.md, "Streams and exit codes").
 */
import type { EgressDifference, EgressMapCheck } from "@sluice/core";
import { annotation } from "./github-annotations.ts";

/** What JSON reports carry of a map check (`diff` aside). */
export interface EgressReport {
  widenings: EgressDifference[];
  narrowings: EgressDifference[];
  changes: EgressDifference[];
}

export function egressReport(check: EgressMapCheck | undefined): EgressReport {
  return check === undefined ? { widenings: [], narrowings: [], changes: [] } : { widenings: check.widened, narrowings: check.narrowed, changes: check.changed };
}

export function wideningMessage(difference: EgressDifference): string {
  return `${difference.subject} is newly visible to the model`;
}

/** One line per difference: `WIDENING: ...`, `NARROWING: ...`, `CHANGED: ...`. */
export function differenceLines(check: EgressMapCheck): string {
  return [
    ...check.widened.map((d) => `WIDENING: ${wideningMessage(d)}\n`),
    ...check.narrowed.map((d) => `NARROWING: ${d.subject} is no longer visible to the model\n`),
    ...check.changed.map((d) => `CHANGED: ${d.subject}\n`),
  ].join("");
}

/** `3 widenings, 1 narrowing, 0 other changes`, or the words for a map that only moved lines. */
export function differenceSummary(check: EgressMapCheck): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (check.widened.length + check.narrowed.length + check.changed.length === 0) return "lines moved, no change in what the model can see and send";
  return `${count(check.widened.length, "widening")}, ${count(check.narrowed.length, "narrowing")}, ${count(check.changed.length, "other change")}`;
}

/** A warning per widening on the map line nearest to it (the committed file, as the pull request shows it). */
export function wideningAnnotations(check: EgressMapCheck, file: string): string {
  return check.widened.map((d) => annotation("warning", file, `${wideningMessage(d)}.`, "egress widening", d.line)).join("");
}
