/**
 * FROZEN: `compareEgressMaps` as it was before the check was made proportional to what
 * changed (check-egress-map.ts at 407eacf), kept verbatim apart from its imports (the parser is the frozen one beside it) and this
 * note, so that the property test in test/egress-check-equivalence.test.ts can compare the
 * faster check's findings with the ones the old one gave. Do not change it to follow the
 * source: a difference between the two is what the test exists to find.
 *
 * One deliberate change since (issue 39, branch egress-limits): a label `X | null` (a nullable
 * value of one type, now written for nullable arrays too) hands the lines below it to X's
 * scope, as `X` does; before, a type made nullable read as all its members moved. The test
 * compares the two on maps without limits (`withoutLimits`), which this copy predates.
 */
import { createRequire } from "node:module";
import type { createTwoFilesPatch as CreatePatch } from "diff";
import { guards } from "../../../src/guards.ts";
import { parseEgressMap, type MapLine, type ParsedEgressMap, type ParsedSection, type ParsedTool } from "./reference-parse-egress-map.ts";

export type EgressDifferenceKind =
  /** A tool served now that was not (or, narrowed, one no longer served). */
  | "tool"
  /** A property. */
  | "member"
  /** A union branch (`anyOf[Label]`, `oneOf[Label]`). */
  | "branch"
  /** `*`: any key an open object admits. */
  | "any-key"
  /** `/regex/`: a `patternProperties` pattern. */
  | "pattern"
  /** A visible path whose type changed (a wider one, or a bound the map shows removed). */
  | "type"
  /** An enum value. */
  | "enum"
  /** A response field a GraphQL tool narrowed with `returns` asks for. */
  | "fetched"
  | "endpoint"
  | "pin"
  | "withheld";

export interface EgressDifference {
  tool: string;
  /**
   * The path with type names: from the tool's root (`amount.currency`) where the type is
   * reached from one place only, else from the type (`Amount.currency`). Empty for a tool.
   */
  path: string;
  kind: EgressDifferenceKind;
  /** `tool post_payments: amount.currency: string`: the same words in text, JSON and annotations. */
  subject: string;
  /** 1-based line of the committed map nearest to the difference, when there is one. */
  line?: number;
}

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
export function checkEgressMap(committed: string, current: string, label = "egress_map.txt"): EgressMapCheck {
  if (committed === current) return { same: true, widenings: [], widened: [], narrowed: [], changed: [], diff: "" };
  const result = compareEgressMaps(parseEgressMap(committed, `${label} (committed)`), parseEgressMap(current, `${label} (current)`));
  const diff = unifiedDiff(committed, current, `${label} (committed)`, `${label} (current)`);
  return { same: false, widenings: result.widened.map((d) => d.subject), ...result, diff };
}

/** A unified diff of two texts (two lines of context), for a reviewer to read. */
export function unifiedDiff(before: string, after: string, beforeLabel: string, afterLabel: string): string {
  if (before === after) return "";
  // Required when a diff is made, not when @sluice/core is imported.
  const { createTwoFilesPatch } = createRequire(import.meta.url)("diff") as { createTwoFilesPatch: typeof CreatePatch };
  return createTwoFilesPatch(beforeLabel, afterLabel, before, after, undefined, undefined, { context: 2 });
}

/** The comparison of two parsed maps (`before` is the committed one: line numbers point into it). */
export function compareEgressMaps(before: ParsedEgressMap, after: ParsedEgressMap): Pick<EgressMapCheck, "widened" | "narrowed" | "changed"> {
  const widened: EgressDifference[] = [];
  const narrowed: EgressDifference[] = [];
  const changed: EgressDifference[] = [];
  const beforeCache = new LabelCache();
  const afterCache = new LabelCache();
  for (const [name, tool] of after.tools) {
    const old = before.tools.get(name);
    if (old === undefined) {
      widened.push({ tool: name, path: "", kind: "tool", subject: `tool ${name} (${tool.endpoint})` });
      continue;
    }
    const was = toolView(old, before, beforeCache);
    const now = toolView(tool, after, afterCache);
    compareTool(was, alignBranches(was, now), { widened, narrowed, changed });
  }
  for (const [name, tool] of before.tools) {
    if (!after.tools.has(name)) narrowed.push({ tool: name, path: "", kind: "tool", subject: `tool ${name} (${tool.endpoint})`, line: tool.line });
  }
  const order = (a: EgressDifference, b: EgressDifference) => compare(a.subject, b.subject);
  return { widened: dedupe(widened).sort(order), narrowed: dedupe(narrowed).sort(order), changed: dedupe(changed).sort(order) };
}

function dedupe(list: EgressDifference[]): EgressDifference[] {
  const seen = new Set<string>();
  return list.filter((d) => !seen.has(d.subject) && (seen.add(d.subject), true));
}

// ---------------------------------------------------------------------------------------
// Labels: the short types of the map. `Name (inner)` is a type without members listed by
// value where it is used once; listed in a section, the same type is `Name` and its value
// is the section's. Both become `Name`, with the value kept per type name.

const BASE_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array", "any"]);
const DELIMITERS = /[\s()|&]/;

interface LabelInfo {
  /** The label with every `Name (inner)` reduced to `Name`. */
  label: string;
  /** The values of the types that were listed by value: Name -> inner (itself canonical). */
  scalars: Array<[string, string]>;
  /** Type names the label mentions. */
  tokens: string[];
  /** The type when the label is that one type (or an array of it): its members continue there. */
  single: string | undefined;
}

class LabelCache {
  private readonly cache = new Map<string, LabelInfo>();
  get(label: string): LabelInfo {
    let info = this.cache.get(label);
    if (info === undefined) {
      info = analyzeLabel(label);
      this.cache.set(label, info);
    }
    return info;
  }
}

function isValueLabel(label: string): boolean {
  return label.startsWith("enum: ") || label.startsWith("const ");
}

function analyzeLabel(raw: string): LabelInfo {
  const scalars: Array<[string, string]> = [];
  const label = isValueLabel(raw) ? raw : reduceByValue(raw, scalars, 0);
  const tokens = isValueLabel(label)
    ? []
    : [...new Set(label.split(/[\s()|&]+/).map((token) => token.replace(/(\[\])+$/, "")).filter((token) => token !== "" && !BASE_TYPES.has(token) && token !== "…"))];
  // Deliberate change (issue 39), the one rule both checks share anew: `Item[] | null` continues in Item.
  const single = /^([^\s()|&]+?)(?:\[\])*$/.exec(label.replace(/^null \| | \| null$/, ""))?.[1];
  return { label, scalars, tokens, single: single === undefined || BASE_TYPES.has(single) ? undefined : single };
}

/** `Status (enum: a | b)[]` -> `Status[]`, remembering Status's value; base types keep their format (`string (date-time)`). */
function reduceByValue(label: string, scalars: Array<[string, string]>, depth: number): string {
  if (depth > 8) return label;
  let out = "";
  let index = 0;
  const pattern = /([^\s()|&]+) \(/g;
  for (let match = pattern.exec(label); match !== null; match = pattern.exec(label)) {
    const name = match[1]!;
    const start = match.index;
    if (BASE_TYPES.has(name) || (start > 0 && !DELIMITERS.test(label[start - 1]!))) continue;
    const open = start + name.length + 1;
    let level = 0;
    let close = -1;
    for (let i = open; i < label.length; i++) {
      if (label[i] === "(") level++;
      else if (label[i] === ")" && --level === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    const inner = label.slice(open + 1, close);
    scalars.push([name, isValueLabel(inner) ? inner : reduceByValue(inner, scalars, depth + 1)]);
    out += label.slice(index, start) + name;
    index = close + 1;
    pattern.lastIndex = close + 1;
  }
  out += label.slice(index);
  // `(Status)[]` once Status's value is gone: the parentheses only grouped it.
  let previous;
  do {
    previous = out;
    out = out.replace(/\(([^\s()|&]+)\)(?=\[\])/g, "$1");
  } while (out !== previous);
  return out;
}

// ---------------------------------------------------------------------------------------
// Views: what one tool lets the model send, as (scope, path) pairs. The scope is the
// tool's root ("") or a type name; a line whose type is one type (`Amount`, `Amount[]`)
// hands the lines below it to that type's scope, whether they are listed below it (the
// type used once) or in its section (used several times). So a type moving between a
// tool and the type sections leaves the pairs as they were, and a recursive type is one
// scope, finite.

interface ScopedLine {
  scope: string;
  rel: string;
  info: LabelInfo;
  line: number;
  /** The line has union branches listed below it: they, not its label, say where it continues. */
  branches: boolean;
}

/** One container (a tool's own lines, or one section) with every line assigned to its scope. */
interface Container {
  lines: ScopedLine[];
  /** Type names mentioned, once per mention (sites), including a section's `includes`. */
  mentions: string[];
  /** Types listed below a line (used once in the tool: not sectioned there). */
  listedInline: Set<string>;
  includes: Array<[string, string[]]>;
  scalars: Array<[string, string]>;
}

interface ViewEntry {
  types: Set<string>;
  /** The union's branches are listed below it (and compared there). */
  branches: boolean;
  /** The one type the line's label names, if it names one. */
  single: string | undefined;
  line: number;
  scope: string;
  rel: string;
}

interface ToolView {
  tool: ParsedTool;
  entries: Map<string, ViewEntry>;
  scalars: Map<string, string>;
  display: (scope: string, rel: string) => string;
  /** The heading line of the type section a scope is listed under (the tool's own, else the shared one). */
  sectionLine: (scope: string) => number | undefined;
}

const containerCache = new WeakMap<object, Container>();

function container(owner: ParsedTool | ParsedSection, lines: readonly MapLine[], scope: string, labels: LabelCache): Container {
  const cached = containerCache.get(owner);
  if (cached !== undefined) return cached;
  const prefix = scope === "" ? "" : `${scope}.`;
  const byPath = new Map<string, MapLine>();
  for (const line of lines) byPath.set(line.path, line);
  const withChildren = new Set<string>();
  const withBranches = new Set<string>();
  for (const line of lines) {
    for (let dot = line.path.indexOf("."); dot >= 0; dot = line.path.indexOf(".", dot + 1)) {
      const parent = line.path.slice(0, dot);
      if (!byPath.has(parent)) continue;
      withChildren.add(parent);
      if (/^(anyOf|oneOf)\[/.test(line.path.slice(dot + 1)) && !line.path.slice(dot + 1).includes("].")) withBranches.add(parent);
    }
  }
  const out: Container = { lines: [], mentions: [], listedInline: new Set(), includes: [], scalars: [] };
  for (const line of lines) {
    const info = labels.get(line.type);
    let into = scope;
    let rel = line.path.startsWith(prefix) ? line.path.slice(prefix.length) : line.path;
    // The nearest line above this one that is one type owns it.
    for (let dot = line.path.lastIndexOf("."); dot > 0; dot = line.path.lastIndexOf(".", dot - 1)) {
      const parent = byPath.get(line.path.slice(0, dot));
      const single = parent === undefined ? undefined : labels.get(parent.type).single;
      if (single !== undefined) {
        into = single;
        rel = line.path.slice(dot + 1);
        break;
      }
    }
    out.lines.push({ scope: into, rel, info, line: line.line, branches: withBranches.has(line.path) });
    out.mentions.push(...info.tokens);
    out.scalars.push(...info.scalars);
    if (info.single !== undefined && withChildren.has(line.path)) out.listedInline.add(info.single);
  }
  if ("includes" in owner) {
    const section = owner;
    out.mentions.push(...section.includes);
    if (section.includes.length > 0) out.includes.push([section.name, section.includes]);
    if (section.type !== undefined) {
      const info = labels.get(section.type);
      out.scalars.push([section.name, info.label], ...info.scalars);
      out.mentions.push(...info.tokens);
    }
  }
  containerCache.set(owner, out);
  return out;
}

/**
 * Which shared sections (listed once at the end) apply to a tool: the map does not say
 * which tools list a type in a section and which list it inline, so it is read from the
 * tool's lines. A type listed below a line is inline in this tool; a type the tool
 * mentions once, not recursive, is inline too (a section needs two uses or a cycle).
 * Without this, a type narrowed inline in one tool would borrow another tool's wider
 * section, and a later widening there would go unseen.
 */
function appliedSections(tool: ParsedTool, map: ParsedEgressMap, labels: LabelCache): Map<string, ParsedSection> {
  const sections = new Map<string, ParsedSection>(tool.sections);
  const counts = new Map<string, number>();
  const inline = new Set<string>();
  const queue: string[] = [];
  const add = (part: Container) => {
    for (const name of part.mentions) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (map.shared.has(name) && !sections.has(name)) queue.push(name);
    }
    for (const name of part.listedInline) inline.add(name);
  };
  add(container(tool, tool.visible, "", labels));
  for (const section of tool.sections.values()) add(container(section, section.members, section.name, labels));
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head]!;
    if (sections.has(name)) continue;
    const section = map.shared.get(name)!;
    const scoped = guards.egressSectionScope;
    if (scoped && (inline.has(name) || ((counts.get(name) ?? 0) < 2 && !section.recursive))) continue;
    sections.set(name, section);
    add(container(section, section.members, name, labels));
  }
  return sections;
}

function toolView(tool: ParsedTool, map: ParsedEgressMap, labels: LabelCache): ToolView {
  const sections = appliedSections(tool, map, labels);
  const parts = [container(tool, tool.visible, "", labels), ...[...sections.values()].map((s) => container(s, s.members, s.name, labels))];
  const byScope = new Map<string, ScopedLine[]>();
  const includes = new Map<string, string[]>();
  const scalars = new Map<string, string>();
  for (const part of parts) {
    for (const line of part.lines) {
      const list = byScope.get(line.scope) ?? [];
      list.push(line);
      byScope.set(line.scope, list);
    }
    for (const [name, list] of part.includes) includes.set(name, list);
    for (const [name, value] of part.scalars) if (!scalars.has(name)) scalars.set(name, value);
  }
  const isSection = (name: string) => sections.has(name);

  // A scope's pairs: its own lines, the sections it includes, and the members of sections a
  // line reaches through a union or `&` without branch lines (listed there when inline).
  const resolved = new Map<string, ScopedLine[]>();
  const busy = new Set<string>();
  const resolve = (scope: string): ScopedLine[] => {
    const done = resolved.get(scope);
    if (done !== undefined) return done;
    if (busy.has(scope)) return [];
    busy.add(scope);
    const own = byScope.get(scope) ?? [];
    const out = [...own];
    for (const name of includes.get(scope) ?? []) if (isSection(name)) out.push(...resolve(name));
    const copy = (rel: string, info: LabelInfo) => {
      for (const token of info.tokens) {
        if (!isSection(token) || token === scope) continue;
        for (const line of resolve(token)) out.push({ ...line, scope, rel: join(rel, line.rel) });
      }
    };
    for (const line of own) if (line.info.single === undefined && !line.branches) copy(line.rel, line.info);
    const scalar = scalars.get(scope);
    if (scalar !== undefined) {
      const info = labels.get(scalar);
      if (info.single === undefined) copy("", info);
    }
    busy.delete(scope);
    resolved.set(scope, out);
    return out;
  };

  const entries = new Map<string, ViewEntry>();
  const sites = new Map<string, Set<string>>();
  const reached = new Set<string>([""]);
  const queue = [""];
  const record = (scope: string, rel: string, type: string, line: number, branches = false, single?: string) => {
    const key = `${scope}\u0000${rel}`;
    const entry = entries.get(key);
    if (entry === undefined) entries.set(key, { types: new Set([type]), branches, single, line, scope, rel });
    else {
      entry.types.add(type);
      entry.branches ||= branches;
      entry.line = Math.min(entry.line, line);
    }
  };
  for (let head = 0; head < queue.length; head++) {
    const scope = queue[head]!;
    for (const line of resolve(scope)) {
      record(scope, line.rel, line.info.label, line.line, line.branches, line.info.single);
      for (const token of line.info.tokens) {
        // A union listed by branch is reached through its branch lines, not its label.
        if (!line.branches || token === line.info.single) {
          const site = sites.get(token) ?? new Set<string>();
          site.add(`${scope}\u0000${line.rel}`);
          sites.set(token, site);
        }
        // One type: its members are this value's. A type among others: only its value (members were copied).
        if (!reached.has(token) && (byScope.has(token) || sections.has(token) || scalars.has(token)) && (token === line.info.single || !byScope.has(token))) {
          reached.add(token);
          queue.push(token);
        }
      }
    }
    const scalar = scope === "" ? undefined : scalars.get(scope);
    if (scalar !== undefined) {
      record(scope, "", scalar, sections.get(scope)?.line ?? 0);
      for (const token of labels.get(scalar).tokens) {
        if (!reached.has(token) && scalars.has(token) && !byScope.has(token)) {
          reached.add(token);
          queue.push(token);
        }
      }
    }
  }

  // Where a type is reached from one place only, its paths read from the tool's root.
  const shown = new Map<string, string | undefined>();
  const displayScope = (scope: string): string | undefined => {
    if (scope === "") return "";
    if (shown.has(scope)) return shown.get(scope);
    shown.set(scope, undefined);
    const site = sites.get(scope);
    let result: string | undefined;
    if (site !== undefined && site.size === 1) {
      const [parent, rel] = [...site][0]!.split("\u0000") as [string, string];
      const base = parent === scope ? undefined : displayScope(parent);
      if (base !== undefined) result = join(base, rel);
    }
    shown.set(scope, result);
    return result;
  };
  const display = (scope: string, rel: string) => {
    const base = displayScope(scope);
    return base === undefined ? join(scope, rel) : join(base, rel);
  };
  const sectionLine = (scope: string): number | undefined => sections.get(scope)?.line ?? tool.sections.get(scope)?.line ?? map.shared.get(scope)?.line;
  return { tool, entries, scalars, display, sectionLine };
}

/**
 * Branches without a type name are labelled by position (`oneOf[1]`), and dropping one
 * renumbers those after it. Before comparing, the current view's positional branches take
 * the label of the committed branch they match: the same members first, then the most
 * members in common, then in order; a branch left over keeps a label no committed branch has.
 */
function alignBranches(before: ToolView, after: ToolView): ToolView {
  let current = after.entries;
  for (let depth = 0; depth < 16; depth++) {
    const groupsBefore = branchGroups(before.entries, depth);
    const groupsAfter = branchGroups(current, depth);
    if (groupsAfter.size === 0) break;
    const rename = new Map<string, string>();
    for (const [site, branches] of groupsAfter) {
      const old = groupsBefore.get(site);
      // No committed branches here (a union that had one branch left): nothing to align with.
      if (old === undefined) continue;
      const free = new Set(old.keys());
      const pending = new Set(branches.keys());
      const take = (now: string, was: string) => {
        rename.set(now, was);
        free.delete(was);
        pending.delete(now);
      };
      for (const now of [...pending]) {
        const signature = [...branches.get(now)!].sort(compare).join("\n");
        const same = [...free].find((was) => [...old.get(was)!].sort(compare).join("\n") === signature);
        if (same !== undefined) take(now, same);
      }
      while (pending.size > 0 && free.size > 0) {
        let best: [string, string, number] | undefined;
        for (const now of pending) {
          for (const was of free) {
            const shared = [...branches.get(now)!].filter((line) => old.get(was)!.has(line)).length;
            if (best === undefined || shared > best[2]) best = [now, was, shared];
          }
        }
        take(best![0], best![1]);
      }
      // A label no committed branch has, that still reads as a branch segment.
      for (const now of pending) rename.set(now, now.replace(/\[(\d+)\]$/, "[$1 new]"));
    }
    const next = new Map<string, ViewEntry>();
    for (const [key, entry] of current) {
      const found = positionalPrefix(key, depth);
      const renamed = found === undefined ? undefined : rename.get(found);
      next.set(renamed === undefined ? key : renamed + key.slice(found!.length), entry);
    }
    current = next;
  }
  return { ...after, entries: current };
}

const POSITIONAL = /(?:^|\.|\u0000)(?:anyOf|oneOf)\[\d+\](?=$|\.)/g;

/** The key up to its `depth`-th positional branch segment (0-based), if it has one. */
function positionalPrefix(key: string, depth: number): string | undefined {
  let count = 0;
  for (const match of key.matchAll(POSITIONAL)) {
    if (count++ === depth) return key.slice(0, match.index + match[0].length);
  }
  return undefined;
}

/** Per union site (the key before the branch segment), each positional branch's lines below it. */
function branchGroups(entries: ReadonlyMap<string, ViewEntry>, depth: number): Map<string, Map<string, Set<string>>> {
  const groups = new Map<string, Map<string, Set<string>>>();
  for (const [key, entry] of entries) {
    const prefix = positionalPrefix(key, depth);
    if (prefix === undefined) continue;
    const site = prefix.replace(/\[\d+\]$/, "");
    const branches = groups.get(site) ?? new Map<string, Set<string>>();
    const lines = branches.get(prefix) ?? new Set<string>();
    lines.add(`${key.slice(prefix.length)}\t${typeOf(entry)}`);
    branches.set(prefix, lines);
    groups.set(site, branches);
  }
  return groups;
}

function join(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a}.${b}`;
}

// ---------------------------------------------------------------------------------------
// Comparing two views of one tool.

interface Sink {
  widened: EgressDifference[];
  narrowed: EgressDifference[];
  changed: EgressDifference[];
}

function typeOf(entry: ViewEntry): string {
  return [...entry.types].sort(compare).join(" ; ");
}

function kindOf(rel: string): EgressDifferenceKind {
  const last = rel.slice(rel.lastIndexOf(".") + 1);
  if (last === "*") return "any-key";
  if (/^(anyOf|oneOf)\[.*\]$/.test(last)) return "branch";
  if (/^\/.*\/$/.test(last)) return "pattern";
  return "member";
}

function compareTool(before: ToolView, after: ToolView, sink: Sink): void {
  const name = after.tool.name;
  const prefix = `tool ${name}: `;
  if (before.tool.endpoint !== after.tool.endpoint) {
    sink.changed.push({ tool: name, path: "", kind: "endpoint", subject: `${prefix}endpoint ${after.tool.endpoint} (was ${before.tool.endpoint})`, line: before.tool.line });
  }
  const withheldBefore = new Map(before.tool.withheld.map((w) => [w.path, w.type]));
  const pinsBefore = new Map(before.tool.pins.map((p) => [p.path, p.type]));
  const anchor = (scope: string, rel: string): number => {
    for (let r = rel; r !== ""; r = r.includes(".") ? r.slice(0, r.lastIndexOf(".")) : "") {
      const hit = before.entries.get(`${scope}\u0000${r}`);
      if (hit !== undefined && hit.line > 0) return hit.line;
    }
    if (scope !== "") {
      // A member of a type section belongs on that section's heading, not on each tool reaching it;
      // of a type listed inline, on the first line that names the type (`+ input: IssueCreateInput`).
      const section = before.sectionLine(scope);
      if (section !== undefined && section > 0) return section;
      let first: number | undefined;
      for (const entry of before.entries.values()) if (entry.single === scope && entry.line > 0 && (first === undefined || entry.line < first)) first = entry.line;
      if (first !== undefined) return first;
    }
    return before.tool.line;
  };
  // A union left with one branch lists that branch's members unqualified (and one that
  // gets a second branch back qualifies them): the same paths, under another spelling.
  const sitesBefore = unionSites(before.entries);
  const sitesAfter = unionSites(after.entries);
  const aliasesBefore = collapsedAliases(before.entries, sitesAfter);
  const aliasesAfter = collapsedAliases(after.entries, sitesBefore);
  const collapsedBefore = reverseIndex(before.entries, aliasesBefore);
  const collapsedAfter = reverseIndex(after.entries, aliasesAfter);
  const counterpart = (key: string, type: string, other: ReadonlyMap<string, ViewEntry>, otherSites: ReadonlySet<string>, otherCollapsed: ReadonlyMap<string, ViewEntry[]>, own: ReadonlyMap<string, string[]>) => {
    const found = other.get(key) ?? other.get(collapse(key, otherSites));
    if (found !== undefined) return found;
    const several = otherCollapsed.get(key);
    if (several !== undefined) return several.find((entry) => typeOf(entry) === type) ?? several[0];
    for (const alias of own.get(key) ?? []) {
      const hit = other.get(alias);
      if (hit !== undefined) return hit;
    }
    return undefined;
  };
  for (const [key, entry] of after.entries) {
    const path = after.display(entry.scope, entry.rel);
    const old = counterpart(key, typeOf(entry), before.entries, sitesBefore, collapsedBefore, aliasesAfter);
    const type = typeOf(entry);
    if (old === undefined) {
      // A type's own value appears with the line that reaches it, which is what gets named.
      if (entry.rel === "") continue;
      const typePath = join(entry.scope, entry.rel);
      const withheld = withheldBefore.get(path) ?? withheldBefore.get(typePath);
      const pinned = entry.scope === "" ? pinsBefore.get(entry.rel) : undefined;
      const note = withheld !== undefined ? ` (was withheld: ${withheld})` : pinned !== undefined ? ` (was pinned: ${pinned})` : "";
      sink.widened.push({ tool: name, path, kind: kindOf(entry.rel), subject: `${prefix}${path}: ${type}${note}`, line: anchor(entry.scope, entry.rel) });
      continue;
    }
    const oldType = typeOf(old);
    // A union listed by branch changes its label with every branch; the branches say what changed.
    if (oldType === type || (old.branches && entry.branches) || !guards.egressTypeChanges) continue;
    const where = { tool: name, path, line: old.line > 0 ? old.line : anchor(entry.scope, entry.rel) };
    const change = compareTypes(oldType, type, before.scalars, after.scalars);
    for (const value of change.addedValues) sink.widened.push({ ...where, kind: "enum", subject: `${prefix}${path}: enum value ${value}` });
    for (const value of change.removedValues) sink.narrowed.push({ ...where, kind: "enum", subject: `${prefix}${path}: enum value ${value}` });
    if (change.wider) sink.widened.push({ ...where, kind: "type", subject: `${prefix}${path}: ${type} (was ${oldType})` });
    else if (change.narrower) sink.narrowed.push({ ...where, kind: "type", subject: `${prefix}${path}: ${type} (was ${oldType})` });
  }
  for (const [key, entry] of before.entries) {
    if (entry.rel === "" || counterpart(key, typeOf(entry), after.entries, sitesAfter, collapsedAfter, aliasesBefore) !== undefined) continue;
    const path = before.display(entry.scope, entry.rel);
    sink.narrowed.push({ tool: name, path, kind: kindOf(entry.rel), subject: `${prefix}${path}: ${typeOf(entry)}`, line: entry.line });
  }

  const pinsAfter = new Map(after.tool.pins.map((p) => [p.path, p.type]));
  for (const [key, value] of pinsAfter) {
    const old = pinsBefore.get(key);
    if (old === undefined) sink.narrowed.push({ tool: name, path: key, kind: "pin", subject: `${prefix}= ${key}: ${value}` });
    else if (old !== value) sink.changed.push({ tool: name, path: key, kind: "pin", subject: `${prefix}= ${key}: ${value} (was ${old})`, line: lineOf(before.tool.pins, key) ?? before.tool.line });
  }
  const withheldAfter = new Map(after.tool.withheld.map((w) => [w.path, w.type]));
  for (const [path, reason] of withheldAfter) {
    if (withheldBefore.get(path) !== reason) sink.changed.push({ tool: name, path, kind: "withheld", subject: `${prefix}- ${path}: ${reason}`, line: before.tool.line });
  }
  for (const [path, reason] of withheldBefore) {
    if (!withheldAfter.has(path)) sink.changed.push({ tool: name, path, kind: "withheld", subject: `${prefix}- ${path}: ${reason} (no longer listed)`, line: lineOf(before.tool.withheld, path) ?? before.tool.line });
  }

  // The response side: a narrowed GraphQL tool that fetches a new field, or is no longer narrowed.
  const fetchedBefore = new Set(before.tool.fetched.map((f) => f.path));
  const fetchedAfter = new Set(after.tool.fetched.map((f) => f.path));
  if (fetchedBefore.size > 0 && fetchedAfter.size === 0) {
    sink.widened.push({ tool: name, path: "<", kind: "fetched", subject: `tool ${name}: < (every field: no longer narrowed by returns)`, line: before.tool.fetched[0]!.line });
  } else if (fetchedBefore.size > 0) {
    for (const field of fetchedAfter) if (!fetchedBefore.has(field)) sink.widened.push({ tool: name, path: `< ${field}`, kind: "fetched", subject: `tool ${name}: < ${field}`, line: before.tool.line });
  }
  for (const field of fetchedBefore) if (fetchedAfter.size > 0 && !fetchedAfter.has(field)) sink.narrowed.push({ tool: name, path: `< ${field}`, kind: "fetched", subject: `tool ${name}: < ${field}`, line: lineOf(before.tool.fetched, field) ?? before.tool.line });
  if (fetchedBefore.size === 0 && fetchedAfter.size > 0) sink.narrowed.push({ tool: name, path: "<", kind: "fetched", subject: `tool ${name}: < (narrowed by returns to ${fetchedAfter.size} fields)`, line: before.tool.line });
}

const BRANCH_SEGMENT = /(^|\.|\u0000)(?:anyOf|oneOf)\[[^\]]*\](?=$|\.)/g;

/** Keys (up to the branch segment) where a union lists its branches. */
function unionSites(entries: ReadonlyMap<string, ViewEntry>): Set<string> {
  const sites = new Set<string>();
  for (const key of entries.keys()) for (const match of key.matchAll(BRANCH_SEGMENT)) sites.add(key.slice(0, match.index));
  return sites;
}

/** The key without the branch segments of unions that `sites` (the other side) does not list by branch. */
function collapse(key: string, sites: ReadonlySet<string>): string {
  let out = "";
  let index = 0;
  for (const match of key.matchAll(BRANCH_SEGMENT)) {
    if (sites.has(key.slice(0, match.index))) continue;
    out += key.slice(index, match.index);
    index = match.index + match[0].length;
    // At a scope's root the scope's delimiter stays, and the member below loses its dot.
    if (match[1] === "\u0000") {
      out += "\u0000";
      if (key[index] === ".") index++;
    }
  }
  return out + key.slice(index);
}

/**
 * Other spellings of each key, as they would read where the other side lists a union
 * without its branches: the branch segment removed, and for the members of a branch's
 * type (a scope of their own), the path below the union.
 */
function collapsedAliases(entries: ReadonlyMap<string, ViewEntry>, otherSites: ReadonlySet<string>): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  const add = (key: string, alias: string) => {
    if (alias === key) return;
    const list = aliases.get(key) ?? [];
    if (!list.includes(alias)) list.push(alias);
    aliases.set(key, list);
  };
  // A branch line whose type is one type: where that type's members would go, unqualified.
  const branchOf = new Map<string, string[]>();
  for (const [key, entry] of entries) {
    add(key, collapse(key, otherSites));
    const match = /^(.*?)(?:\.|\u0000)(?:anyOf|oneOf)\[[^\]]*\]$/.exec(key);
    if (match === null || entry.single === undefined || otherSites.has(match[1]!)) continue;
    const list = branchOf.get(entry.single) ?? [];
    list.push(match[1]!);
    branchOf.set(entry.single, list);
  }
  for (const [key, entry] of entries) {
    const sites = branchOf.get(entry.scope);
    if (sites === undefined || sites.length !== 1) continue;
    const site = sites[0]!;
    // A site is `scope` (a union at the scope's root) or `scope\u0000path`.
    const under = site.includes("\u0000") ? site : `${site}\u0000`;
    add(key, entry.rel === "" ? under.replace(/\u0000$/, "\u0000") : under.endsWith("\u0000") ? `${under}${entry.rel}` : `${under}.${entry.rel}`);
  }
  return aliases;
}

/** Alias -> the entries that read so (several branches may each have a `type`, say). */
function reverseIndex(entries: ReadonlyMap<string, ViewEntry>, aliases: ReadonlyMap<string, string[]>): Map<string, ViewEntry[]> {
  const index = new Map<string, ViewEntry[]>();
  for (const [key, list] of aliases) {
    for (const alias of list) {
      const found = index.get(alias) ?? [];
      found.push(entries.get(key)!);
      index.set(alias, found);
    }
  }
  return index;
}

function lineOf(lines: readonly MapLine[], path: string): number | undefined {
  return lines.find((line) => line.path === path)?.line;
}

interface TypeChange {
  addedValues: string[];
  removedValues: string[];
  wider: boolean;
  narrower: boolean;
}

/**
 * The values a label allows when it is an enum or const, or several of them that must all
 * hold (`enum: a | b | c & enum: a | b`, a key two `allOf` parts declare): their intersection.
 */
function enumValues(label: string): string[] | undefined {
  let values: string[] | undefined;
  for (const part of label.split(" & ")) {
    const own = part.startsWith("enum: ") ? part.slice(6).split(" | ") : part.startsWith("const ") ? [part.slice(6)] : undefined;
    if (own === undefined) return undefined;
    values = values === undefined ? own : values.filter((value) => own.includes(value));
  }
  return values;
}

/** A one-type label stands for its value where the type has no members (`Status` -> `enum: a | b`). */
function valueOf(label: string, scalars: ReadonlyMap<string, string>): string {
  for (let depth = 0; depth < 8; depth++) {
    const match = /^([^\s()|&]+?)((?:\[\])*)$/.exec(label);
    const value = match === null ? undefined : scalars.get(match[1]!);
    if (value === undefined) return label;
    label = match![2] === "" ? value : /[ |&]/.test(value) ? `(${value})${match![2]}` : `${value}${match![2]}`;
  }
  return label;
}

/** Top-level `|` parts of a label (not inside parentheses). */
function unionParts(label: string): string[] {
  const parts: string[] = [];
  let level = 0;
  let start = 0;
  for (let i = 0; i < label.length; i++) {
    const char = label[i];
    if (char === "(") level++;
    else if (char === ")") level--;
    else if (level === 0 && label.startsWith(" | ", i)) {
      parts.push(label.slice(start, i));
      start = i + 3;
      i += 2;
    }
  }
  parts.push(label.slice(start));
  return parts;
}

/**
 * Whether a type change lets the model send more. What is provably no wider: fewer enum
 * values, fewer union parts, a format added, anything in place of `any`, an enum in place
 * of a string. Everything else counts as wider: the map does not show enough to prove it
 * is not, and a check that errs must err towards naming.
 */
function compareTypes(before: string, after: string, beforeScalars: ReadonlyMap<string, string>, afterScalars: ReadonlyMap<string, string>): TypeChange {
  const was = valueOf(before, beforeScalars);
  const now = valueOf(after, afterScalars);
  const change: TypeChange = { addedValues: [], removedValues: [], wider: false, narrower: false };
  if (was === now) return change;
  const oldValues = enumValues(was);
  const newValues = enumValues(now);
  if (oldValues !== undefined && newValues !== undefined) {
    change.addedValues = newValues.filter((value) => !oldValues.includes(value));
    change.removedValues = oldValues.filter((value) => !newValues.includes(value));
    return change;
  }
  change.narrower = noWider(was, now);
  change.wider = !change.narrower;
  return change;
}

function noWider(was: string, now: string): boolean {
  if (was === now || was === "any") return true;
  const arrayWas = /^\((.*)\)\[\]$|^(.*)\[\]$/.exec(was);
  const arrayNow = /^\((.*)\)\[\]$|^(.*)\[\]$/.exec(now);
  if (arrayWas !== null && arrayNow !== null) return noWider(arrayWas[1] ?? arrayWas[2]!, arrayNow[1] ?? arrayNow[2]!);
  if (enumValues(now) !== undefined && (was === "string" || was.startsWith("string ("))) return true;
  if (now.startsWith(`${was} (`) && BASE_TYPES.has(was)) return true;
  const partsWas = unionParts(was);
  const partsNow = unionParts(now);
  return partsNow.length < partsWas.length && partsNow.every((part) => partsWas.includes(part));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tests only: the sections `--check` applies to one tool of a parsed map. */
export function appliedSectionNames(tool: ParsedTool, map: ParsedEgressMap): string[] {
  return [...appliedSections(tool, map, new LabelCache()).keys()].sort(compare);
}
