import { createRequire } from "node:module";
import type { formatPatch as FormatPatch, structuredPatch as StructuredPatch } from "diff";
import { fullNameOf } from "../pack/with-curated.ts";
import { guards } from "../guards.ts";
import { compareTool } from "./compare-tool.ts";
import type { EgressDifference } from "./egress-difference.ts";
import { LabelCache, type LabelInfo } from "./label-cache.ts";
import { parseEgressMap, sourceText, type MapLine, type ParsedEgressMap, type ParsedSection, type ParsedTool } from "./parse-egress-map.ts";
import { alignBranches, appliedSections, compare, reach, reachCache, toolView, twinOf, twins } from "./tool-view.ts";

export interface EgressMapCheck {
  /** True when the committed text and the current text are byte-identical. */
  same: boolean;
  /** The subject of each widening: what the model can now see or send that the committed map did not show. */
  widenings: string[];
  widened: EgressDifference[];
  /** What the model can no longer see or send. */
  narrowed: EgressDifference[];
  /** Differences that neither widen nor narrow what the model sends: an endpoint, a pinned value, the withheld list. */
  changed: EgressDifference[];
  /** Unified diff from the committed map to the current one (empty when same). */
  diff: string;
}

/**
 * Compares a committed egress map with the current one by what the model can see and
 * send, not by lines: each tool's visible paths are resolved through the type sections,
 * so a type listed once at the end in one map and inside the tool in the other is no
 * change, and every newly visible member, branch, enum value, open key, pattern or
 * wider type is named. Both sides are read from text, the committed one being all a
 * check has of the past.
 */
export function checkEgressMap(committed: string, current: string, label = "egress_map.txt", options: EgressCheckOptions = {}): EgressMapCheck {
  if (committed === current) return { same: true, widenings: [], widened: [], narrowed: [], changed: [], diff: "" };
  const before = parseEgressMap(committed, `${label} (committed)`);
  const after = parseEgressMap(current, `${label} (current)`);
  if (options.served === true) {
    leaveOutTwins(before);
    leaveOutTwins(after);
  }
  const result = compareEgressMaps(before, after);
  const diff = unifiedDiff(committed, current, `${label} (committed)`, `${label} (current)`);
  return { same: false, widenings: result.widened.map((d) => d.subject), ...result, diff };
}

export interface EgressCheckOptions {
  /**
   * Compare what is served: the `*_full` twins of each map (a tool named `fullNameOf(x)` for
   * another tool x of the same map, the rule of `defaultServedSet`) are left out of the
   * comparison on both sides, as `egress --served` leaves them out of the map. A `curate()`
   * that narrows a tool then reads as the narrowing it is, not as a new twin. The diff and
   * `same` are still of the whole texts.
   */
  served?: boolean;
}

/** Drops the twins from a parsed map's tools (see EgressCheckOptions.served). */
function leaveOutTwins(map: ParsedEgressMap): void {
  for (const name of [...map.tools.keys()]) {
    const twin = fullNameOf(name);
    if (twin !== name && map.tools.has(twin)) map.tools.delete(twin);
  }
}

const CONTEXT = 2;

/**
 * A unified diff of two texts (two lines of context), for a reviewer to read: the diff
 * package's `createTwoFilesPatch`, less the work on the lines both texts begin with. Its
 * line diff splits both texts whole and then walks over their common start before it
 * searches; here that start (but a few lines, more than the context) is cut off first and
 * the hunks' line numbers moved back by as many lines. The search from there is the same
 * steps on the same lines, so the patch is the same text.
 */
export function unifiedDiff(before: string, after: string, beforeLabel: string, afterLabel: string): string {
  if (before === after) return "";
  // Required when a diff is made, not when @sluice/core is imported; the patch module
  // alone (and the line diff it uses), not the package's every diff: half the load.
  const { structuredPatch, formatPatch } = createRequire(import.meta.url)("diff/lib/patch/create.js") as { structuredPatch: typeof StructuredPatch; formatPatch: typeof FormatPatch };
  const [chars, lines] = commonStart(before, after, CONTEXT + 2);
  const patch = structuredPatch(beforeLabel, afterLabel, before.slice(chars), after.slice(chars), undefined, undefined, { context: CONTEXT });
  for (const hunk of patch.hunks) {
    hunk.oldStart += lines;
    hunk.newStart += lines;
  }
  return formatPatch(patch);
}

/** The length (characters, lines) of the whole lines two texts begin with, less the last `keep` of them. */
function commonStart(a: string, b: string, keep: number): [number, number] {
  const end = Math.min(a.length, b.length);
  // By blocks first: comparing slices is much faster than a loop over characters.
  const BLOCK = 4096;
  let first = 0;
  while (first + BLOCK <= end && a.slice(first, first + BLOCK) === b.slice(first, first + BLOCK)) first += BLOCK;
  while (first < end && a.charCodeAt(first) === b.charCodeAt(first)) first++;
  // Back to the end of the last line wholly common, then `keep` lines further.
  let chars = first === 0 ? 0 : a.lastIndexOf("\n", first - 1) + 1;
  for (let i = 0; i < keep && chars > 0; i++) chars = chars === 1 ? 0 : a.lastIndexOf("\n", chars - 2) + 1;
  let lines = 0;
  for (let at = a.indexOf("\n"); at >= 0 && at < chars; at = a.indexOf("\n", at + 1)) lines++;
  return [chars, lines];
}

/** The comparison of two parsed maps (`before` is the committed one: line numbers point into it). */
export function compareEgressMaps(before: ParsedEgressMap, after: ParsedEgressMap): Pick<EgressMapCheck, "widened" | "narrowed" | "changed"> {
  const widened: EgressDifference[] = [];
  const narrowed: EgressDifference[] = [];
  const changed: EgressDifference[] = [];
  // A label reads the same in either map: one cache serves both.
  const beforeCache = new LabelCache();
  const afterCache = beforeCache;
  const { same, applied } = unchangedTools(before, after, beforeCache, afterCache);
  let twinned = false;
  for (const [name, tool] of after.tools) {
    const old = before.tools.get(name);
    if (old === undefined) {
      widened.push({ tool: name, path: "", kind: "tool", subject: `tool ${name} (${tool.endpoint})` });
      continue;
    }
    if (same.has(name)) continue;
    const sections = applied.get(name);
    // A tool's own sections are part of its text: twins when the tool is.
    if (twinOf(old, tool)) for (const [sectionName, section] of old.sections) twins.set(section, tool.sections.get(sectionName)!);
    if (!twinned) {
      twinned = true;
      for (const [sectionName, section] of before.shared) {
        const now = after.shared.get(sectionName);
        if (now !== undefined) twinOf(section, now);
      }
    }
    const was = toolView(old, before, beforeCache, sections?.[0]);
    const now = toolView(tool, after, afterCache, sections?.[1]);
    compareTool(was, alignBranches(was, now), { widened, narrowed, changed });
  }
  for (const [name, tool] of before.tools) {
    if (!after.tools.has(name)) narrowed.push({ tool: name, path: "", kind: "tool", subject: `tool ${name} (${tool.endpoint})`, line: tool.line });
  }
  const order = (a: EgressDifference, b: EgressDifference) => compare(a.subject, b.subject);
  return { widened: dedupe(widened).sort(order), narrowed: dedupe(narrowed).sort(order), changed: dedupe(changed).sort(order) };
}

/**
 * The tools whose comparison cannot find anything: the tool reads the same in both maps
 * (line numbers aside) and so does every shared section it can reach. A tool's view is
 * made of nothing else (its lines, its own sections, and the shared sections that its
 * mentions lead to), so the two views are equal and compareTool of equal views is silent.
 * This is what makes a check of a one-line change cost one tool, not every tool.
 *
 * A section is "touched" when its text differs between the maps (or it is in one only),
 * or when it mentions a touched name: propagated backwards over the current map's
 * mentions. The current map's edges suffice: an untouched section reads the same in both
 * maps, so it mentions the same names in both, and a changed section is touched already.
 *
 * A tool that mentions a touched name may still not use it: a type it lists inline, or
 * mentions once, borrows no shared section. So for those the sections that apply are
 * worked out on both sides (kept for the comparison, which needs them anyway), and the
 * tool is left out when they are the same sections, in the same order, reading the same.
 */
function unchangedTools(
  before: ParsedEgressMap,
  after: ParsedEgressMap,
  beforeLabels: LabelCache,
  labels: LabelCache,
): { same: Set<string>; applied: Map<string, [Map<string, ParsedSection>, Map<string, ParsedSection>]> } {
  const touched = new Set<string>();
  const followSections = guards.egressUnchangedReach;
  if (followSections) {
    for (const [name, section] of after.shared) {
      const old = before.shared.get(name);
      if (old === undefined || fingerprint(old) !== fingerprint(section)) touched.add(name);
    }
    for (const name of before.shared.keys()) if (!after.shared.has(name)) touched.add(name);
    if (touched.size > 0) {
      const mentionedBy = new Map<string, string[]>();
      for (const [name, section] of after.shared) {
        for (const token of sectionMentions(section, labels)) {
          const list = mentionedBy.get(token);
          if (list === undefined) mentionedBy.set(token, [name]);
          else list.push(name);
        }
      }
      const queue = [...touched];
      for (let head = 0; head < queue.length; head++) {
        for (const by of mentionedBy.get(queue[head]!) ?? []) {
          if (!touched.has(by)) {
            touched.add(by);
            queue.push(by);
          }
        }
      }
    }
  }
  // A part that reads the same on both sides reaches the same names: worked out once.
  const shareReach = (old: ParsedTool | ParsedSection, now: ParsedTool | ParsedSection, lines: readonly MapLine[]) => {
    if (!reachCache.has(old)) reachCache.set(old, reach(now, lines, labels));
  };
  let sharedReach = false;
  const same = new Set<string>();
  const applied = new Map<string, [Map<string, ParsedSection>, Map<string, ParsedSection>]>();
  for (const [name, tool] of after.tools) {
    const old = before.tools.get(name);
    if (old === undefined || fingerprint(old) !== fingerprint(tool)) continue;
    if (touched.size > 0 && toolMentions(tool, labels).some((token) => touched.has(token))) {
      if (!sharedReach) {
        sharedReach = true;
        for (const [sectionName, section] of after.shared) {
          const was = before.shared.get(sectionName);
          if (was !== undefined && !touched.has(sectionName)) shareReach(was, section, section.members);
        }
      }
      shareReach(old, tool, tool.visible);
      for (const [sectionName, section] of tool.sections) shareReach(old.sections.get(sectionName)!, section, section.members);
      const was = appliedSections(old, before, beforeLabels);
      const now = appliedSections(tool, after, labels);
      applied.set(name, [was, now]);
      if (!sameSections(was, now, old, tool)) continue;
    }
    same.add(name);
  }
  return { same, applied };
}

/** The same sections in the same order (the view's scalars take the first), each the tool's own on both sides or reading the same. */
function sameSections(was: Map<string, ParsedSection>, now: Map<string, ParsedSection>, old: ParsedTool, tool: ParsedTool): boolean {
  if (was.size !== now.size) return false;
  const a = [...was];
  const b = [...now];
  for (let i = 0; i < a.length; i++) {
    const [nameWas, sectionWas] = a[i]!;
    const [nameNow, sectionNow] = b[i]!;
    if (nameWas !== nameNow) return false;
    const own = old.sections.get(nameWas) === sectionWas && tool.sections.get(nameNow) === sectionNow;
    if (!own && (old.sections.has(nameWas) || tool.sections.has(nameNow) || fingerprint(sectionWas) !== fingerprint(sectionNow))) return false;
  }
  return true;
}

/** Every type name a section's heading and lines mention (a superset of what `container` follows). */
function sectionMentions(section: ParsedSection, labels: LabelCache): string[] {
  const out = [...section.includes];
  const add = (info: LabelInfo) => {
    out.push(...info.tokens);
    for (const [, tokens] of info.inner) out.push(...tokens);
  };
  if (section.type !== undefined) add(labels.get(section.type));
  for (const line of section.members) add(labels.get(line.type));
  return out;
}

function toolMentions(tool: ParsedTool, labels: LabelCache): string[] {
  const out: string[] = [];
  for (const line of tool.visible) {
    const info = labels.get(line.type);
    out.push(...info.tokens);
    for (const [, tokens] of info.inner) out.push(...tokens);
  }
  for (const section of tool.sections.values()) out.push(...sectionMentions(section, labels));
  return out;
}

/**
 * A parsed tool or section as text without line numbers: the slice of the map it was read
 * from, else (a part made by hand) every field but line numbers, so that a field added to
 * the parser later is part of it without a change here.
 */
function fingerprint(part: ParsedTool | ParsedSection): string {
  return sourceText(part) ?? JSON.stringify(part, (key, value: unknown) => (key === "line" ? undefined : value instanceof Map ? [...value] : value));
}

function dedupe(list: EgressDifference[]): EgressDifference[] {
  const seen = new Set<string>();
  return list.filter((d) => !seen.has(d.subject) && (seen.add(d.subject), true));
}

/** Tests only: the sections `--check` applies to one tool of a parsed map. */
export function appliedSectionNames(tool: ParsedTool, map: ParsedEgressMap): string[] {
  return [...appliedSections(tool, map, new LabelCache()).keys()].sort(compare);
}
