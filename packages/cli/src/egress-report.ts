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

/** Differences in what a visible path accepts (its type or a limit), not in which paths are visible. */
const VALUE_KINDS: ReadonlySet<string> = new Set(["type", "limit", "required"]);

/** The words after a widening's subject: a new path is visible, a loosened value sends more. */
function widensBy(difference: EgressDifference): string {
  return VALUE_KINDS.has(difference.kind) ? "loosens what the model can send" : "is newly visible to the model";
}

export function wideningMessage(difference: EgressDifference): string {
  return `${difference.subject} ${widensBy(difference)}`;
}

export function narrowingMessage(difference: EgressDifference): string {
  return `${difference.subject} ${VALUE_KINDS.has(difference.kind) ? "tightens what the model can send" : "is no longer visible to the model"}`;
}

/** One line per difference: `WIDENING: ...`, `NARROWING: ...`, `CHANGED: ...`. */
export function differenceLines(check: EgressMapCheck): string {
  return [
    ...check.widened.map((d) => `WIDENING: ${wideningMessage(d)}\n`),
    ...check.narrowed.map((d) => `NARROWING: ${narrowingMessage(d)}\n`),
    ...check.changed.map((d) => `CHANGED: ${d.subject}\n`),
  ].join("");
}

/** `3 widenings, 1 narrowing, 0 other changes`, or the words for a map that only moved lines. */
export function differenceSummary(check: EgressMapCheck): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (check.widened.length + check.narrowed.length + check.changed.length === 0) return "lines moved, no change in what the model can see and send";
  return `${count(check.widened.length, "widening")}, ${count(check.narrowed.length, "narrowing")}, ${count(check.changed.length, "other change")}`;
}

/** Tools named in one grouped annotation before "and N more". */
const TOOLS_NAMED = 5;

/**
 * A warning per widened line of the map (the committed file, as the pull request shows it):
 * `file=` and `line=` of the line nearest to the widening. A member added to a type section
 * widens every tool reaching the type; those differences share the section's line and are
 * one annotation naming the tools, not one per tool (GitHub shows only the first few).
 */
export function wideningAnnotations(check: EgressMapCheck, file: string): string {
  const groups = new Map<string, EgressDifference[]>();
  for (const difference of check.widened) {
    const what = difference.subject.slice(`tool ${difference.tool}: `.length);
    const key = difference.line === undefined || difference.kind === "tool" || !difference.subject.startsWith(`tool ${difference.tool}: `) ? `\u0000${difference.subject}` : `${difference.line}\u0000${what}`;
    groups.set(key, [...(groups.get(key) ?? []), difference]);
  }
  let out = "";
  for (const [key, group] of groups) {
    const first = group[0]!;
    if (group.length === 1 || key.startsWith("\u0000")) {
      for (const d of group) out += annotation("warning", file, `${wideningMessage(d)}.`, "egress widening", d.line);
      continue;
    }
    const tools = group.map((d) => d.tool);
    const named = tools.slice(0, TOOLS_NAMED).join(", ") + (tools.length > TOOLS_NAMED ? ` and ${tools.length - TOOLS_NAMED} more` : "");
    out += annotation("warning", file, `${key.slice(key.indexOf("\u0000") + 1)} ${widensBy(first)} in ${tools.length} tools (${named}).`, "egress widening", first.line);
  }
  return out;
}
