import { guards } from "../guards.ts";
import type { LabelCache, LabelInfo } from "./label-cache.ts";
import { sourceText, type MapLine, type ParsedEgressMap, type ParsedSection, type ParsedTool } from "./parse-egress-map.ts";

/**
 * Views: what one tool lets the model send, as (scope, path) pairs. The scope is the
 * tool's root ("") or a type name; a line whose type is one type (`Amount`, `Amount[]`)
 * hands the lines below it to that type's scope, whether they are listed below it (the
 * type used once) or in its section (used several times). So a type moving between a
 * tool and the type sections leaves the pairs as they were, and a recursive type is one
 * scope, finite.
 */

interface ScopedLine {
  scope: string;
  rel: string;
  info: LabelInfo;
  line: number;
  /** The line has union branches listed below it: they, not its label, say where it continues. */
  branches: boolean;
  limits: readonly string[];
}

/** One container (a tool's own lines, or one section) with every line assigned to its scope. */
interface Container {
  lines: ScopedLine[];
  includes: Array<[string, string[]]>;
  scalars: Array<[string, string]>;
}

export interface ViewEntry {
  types: Set<string>;
  /** The limits of every line that reads so (all hold). */
  limits: Set<string>;
  /** The union's branches are listed below it (and compared there). */
  branches: boolean;
  /** The one type the line's label names, if it names one. */
  single: string | undefined;
  line: number;
  scope: string;
  rel: string;
}

export interface ToolView {
  tool: ParsedTool;
  entries: Map<string, ViewEntry>;
  scalars: Map<string, string>;
  display: (scope: string, rel: string) => string;
  /** The heading line of the type section a scope is listed under (the tool's own, else the shared one). */
  sectionLine: (scope: string) => number | undefined;
}

const containerCache = new WeakMap<object, Container>();
const NO_LIMITS: readonly string[] = [];

/**
 * A committed part -> the current part read from the same text starting on the same line
 * (so every line of it, comments and blank lines included, has the same number): their
 * containers are equal, worked out once. Returns whether they are twins.
 */
export const twins = new WeakMap<object, ParsedTool | ParsedSection>();

export function twinOf(old: ParsedTool | ParsedSection, now: ParsedTool | ParsedSection): boolean {
  const text = sourceText(old);
  if (text === undefined || old.line !== now.line || text !== sourceText(now)) return false;
  twins.set(old, now);
  return true;
}

function container(owner: ParsedTool | ParsedSection, lines: readonly MapLine[], scope: string, labels: LabelCache): Container {
  const cached = containerCache.get(owner);
  if (cached !== undefined) return cached;
  const twin = twins.get(owner);
  if (twin !== undefined) {
    const shared = container(twin, "includes" in twin ? twin.members : twin.visible, scope, labels);
    containerCache.set(owner, shared);
    return shared;
  }
  const prefix = scope === "" ? "" : `${scope}.`;
  const byPath = new Map<string, MapLine>();
  for (const line of lines) byPath.set(line.path, line);
  const withBranches = new Set<string>();
  for (const line of lines) {
    for (let dot = line.path.indexOf("."); dot >= 0; dot = line.path.indexOf(".", dot + 1)) {
      const parent = line.path.slice(0, dot);
      if (!byPath.has(parent)) continue;
      if (/^(anyOf|oneOf)\[/.test(line.path.slice(dot + 1)) && !line.path.slice(dot + 1).includes("].")) withBranches.add(parent);
    }
  }
  const out: Container = { lines: [], includes: [], scalars: [] };
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
    out.lines.push({ scope: into, rel, info, line: line.line, branches: withBranches.has(line.path), limits: line.limits ?? NO_LIMITS });
    out.scalars.push(...info.scalars);
  }
  if ("includes" in owner) {
    const section = owner;
    if (section.includes.length > 0) out.includes.push([section.name, section.includes]);
    if (section.type !== undefined) {
      const info = labels.get(section.type);
      out.scalars.push([section.name, info.label], ...info.scalars);
    }
  }
  containerCache.set(owner, out);
  return out;
}

/** What `appliedSections` reads of a container: less than the container, so it is worked out alone (most tools' containers are never needed). */
interface Reach {
  /** Type names mentioned, once per mention (sites), including a section's `includes`. */
  mentions: string[];
  /** Types listed below a line (used once in the tool: not sectioned there). */
  listedInline: Set<string>;
  /** By-value types and the type names their values mention (each is one use of those, however often it is written). */
  inner: Array<[string, string[]]>;
}

export const reachCache = new WeakMap<object, Reach>();

export function reach(owner: ParsedTool | ParsedSection, lines: readonly MapLine[], labels: LabelCache): Reach {
  const cached = reachCache.get(owner);
  if (cached !== undefined) return cached;
  const paths = new Set<string>();
  for (const line of lines) paths.add(line.path);
  // The lines with a line below them. Each line marks only its nearest listed ancestor: that
  // one marks its own when its turn comes, so every listed ancestor of a line is marked.
  const withChildren = new Set<string>();
  for (const line of lines) {
    for (let dot = line.path.lastIndexOf("."); dot > 0; dot = line.path.lastIndexOf(".", dot - 1)) {
      const parent = line.path.slice(0, dot);
      if (paths.has(parent)) {
        withChildren.add(parent);
        break;
      }
    }
  }
  const out: Reach = { mentions: [], listedInline: new Set(), inner: [] };
  for (const line of lines) {
    const info = labels.get(line.type);
    out.mentions.push(...info.tokens);
    out.inner.push(...info.inner);
    if (info.single !== undefined && withChildren.has(line.path)) out.listedInline.add(info.single);
  }
  if ("includes" in owner) {
    out.mentions.push(...owner.includes);
    if (owner.type !== undefined) out.mentions.push(...labels.get(owner.type).tokens);
  }
  reachCache.set(owner, out);
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
export function appliedSections(tool: ParsedTool, map: ParsedEgressMap, labels: LabelCache): Map<string, ParsedSection> {
  const sections = new Map<string, ParsedSection>(tool.sections);
  const counts = new Map<string, number>();
  const inline = new Set<string>();
  const queue: string[] = [];
  const valued = new Set<string>();
  const mention = (name: string) => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (map.shared.has(name) && !sections.has(name)) queue.push(name);
  };
  const add = (part: Reach) => {
    for (const name of part.mentions) mention(name);
    // A type listed by value (`A (Base & object)`, written on every line that reaches A) refers to Base once.
    for (const [name, tokens] of part.inner) {
      if (valued.has(name) || !guards.egressByMeaning) continue;
      valued.add(name);
      for (const token of tokens) mention(token);
    }
    for (const name of part.listedInline) inline.add(name);
  };
  add(reach(tool, tool.visible, labels));
  for (const section of tool.sections.values()) add(reach(section, section.members, labels));
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head]!;
    if (sections.has(name)) continue;
    const section = map.shared.get(name)!;
    const scoped = guards.egressSectionScope;
    if (scoped && (inline.has(name) || ((counts.get(name) ?? 0) < 2 && !section.recursive))) continue;
    sections.set(name, section);
    add(reach(section, section.members, labels));
  }
  return sections;
}

export function toolView(tool: ParsedTool, map: ParsedEgressMap, labels: LabelCache, applied?: Map<string, ParsedSection>): ToolView {
  const sections = applied ?? appliedSections(tool, map, labels);
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
  const record = (scope: string, rel: string, type: string, line: number, branches = false, single?: string, limits: readonly string[] = NO_LIMITS) => {
    const key = `${scope}\u0000${rel}`;
    const entry = entries.get(key);
    if (entry === undefined) entries.set(key, { types: new Set([type]), limits: new Set(limits), branches, single, line, scope, rel });
    else {
      entry.types.add(type);
      for (const limit of limits) entry.limits.add(limit);
      entry.branches ||= branches;
      entry.line = Math.min(entry.line, line);
    }
  };
  for (let head = 0; head < queue.length; head++) {
    const scope = queue[head]!;
    for (const line of resolve(scope)) {
      record(scope, line.rel, line.info.label, line.line, line.branches, line.info.single, line.limits);
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
export function alignBranches(before: ToolView, after: ToolView): ToolView {
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

export function join(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a}.${b}`;
}

const typeCache = new WeakMap<ViewEntry, string>();

/** An entry's types as one label; asked many times per entry once its view is built, so kept. */
export function typeOf(entry: ViewEntry): string {
  if (entry.types.size === 1) for (const type of entry.types) return type;
  let type = typeCache.get(entry);
  if (type === undefined) {
    type = [...entry.types].sort(compare).join(" ; ");
    typeCache.set(entry, type);
  }
  return type;
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
