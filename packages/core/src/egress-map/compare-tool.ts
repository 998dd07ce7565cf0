import { guards } from "../guards.ts";
import { compareLimits } from "./compare-limits.ts";
import type { EgressDifference, EgressDifferenceKind } from "./egress-difference.ts";
import { BASE_TYPES, isValueLabel } from "./label-cache.ts";
import type { MapLine } from "./parse-egress-map.ts";
import { compare, join, typeOf, type ToolView, type ViewEntry } from "./tool-view.ts";

/** Comparing two views of one tool: what the model can see and send now against what it could. */

export interface Sink {
  widened: EgressDifference[];
  narrowed: EgressDifference[];
  changed: EgressDifference[];
}

function kindOf(rel: string): EgressDifferenceKind {
  const last = rel.slice(rel.lastIndexOf(".") + 1);
  if (last === "*") return "any-key";
  if (/^(anyOf|oneOf)\[.*\]$/.test(last)) return "branch";
  if (/^\/.*\/$/.test(last)) return "pattern";
  return "member";
}

export function compareTool(before: ToolView, after: ToolView, sink: Sink): void {
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
    const direct = other.get(key);
    if (direct !== undefined) return direct;
    const found = other.get(collapse(key, otherSites));
    if (found !== undefined && !otherBranch(key, found)) return found;
    const several = otherCollapsed.get(key);
    if (several !== undefined) return several.find((entry) => typeOf(entry) === type) ?? several[0];
    for (const alias of own.get(key) ?? []) {
      const hit = other.get(alias);
      if (hit !== undefined && !otherBranch(key, hit)) return hit;
    }
    return undefined;
  };
  // Types split or renamed at a site (`filter: Filter` -> `filter: Filter_2`, the copy a path
  // projection makes, or back): the two types' members are compared at that site, not named anew.
  const pairs = renamedScopes(before, after, (key, type) => counterpart(key, type, before.entries, sitesBefore, collapsedBefore, aliasesAfter));
  const reachedBefore = scopesWithMembers(before);
  const reachedAfter = scopesWithMembers(after);
  // A type the committed map does not reach reads against the one it was split from; the other way, the site alone.
  const redirect = new Map(pairs.filter((pair) => !reachedBefore.has(pair.now)).map((pair) => [pair.now, pair.was]));
  const vanished = new Set(pairs.filter((pair) => !reachedAfter.has(pair.was)).map((pair) => pair.was));
  const inRenamed = (entry: ViewEntry, key: string) => {
    const was = redirect.get(entry.scope);
    return was === undefined ? counterpart(key, typeOf(entry), before.entries, sitesBefore, collapsedBefore, aliasesAfter) : before.entries.get(`${was}\u0000${entry.rel}`);
  };
  for (const { was, now, site, line } of pairs) {
    for (const entry of after.entries.values()) {
      if (entry.scope !== now || entry.rel === "" || before.entries.has(`${was}\u0000${entry.rel}`)) continue;
      const path = join(site, entry.rel);
      const withheld = withheldBefore.get(path);
      sink.widened.push({ tool: name, path, kind: kindOf(entry.rel), subject: `${prefix}${path}: ${typeOf(entry)}${withheld === undefined ? "" : ` (was withheld: ${withheld})`}`, line });
    }
    for (const entry of before.entries.values()) {
      if (entry.scope !== was || entry.rel === "" || after.entries.has(`${now}\u0000${entry.rel}`)) continue;
      const path = join(site, entry.rel);
      sink.narrowed.push({ tool: name, path, kind: kindOf(entry.rel), subject: `${prefix}${path}: ${typeOf(entry)}`, line: entry.line });
    }
  }
  for (const [key, entry] of after.entries) {
    const type = typeOf(entry);
    const old = inRenamed(entry, key);
    // Named at the site of the split, above.
    if (old === undefined && redirect.has(entry.scope)) continue;
    if (old === undefined) {
      // A type's own value appears with the line that reaches it, which is what gets named.
      if (entry.rel === "") continue;
      // Worked out only for a difference (display does not depend on the order it is asked in).
      const path = after.display(entry.scope, entry.rel);
      const typePath = join(entry.scope, entry.rel);
      const withheld = withheldBefore.get(path) ?? withheldBefore.get(typePath);
      const pinned = entry.scope === "" ? pinsBefore.get(entry.rel) : undefined;
      const note = withheld !== undefined ? ` (was withheld: ${withheld})` : pinned !== undefined ? ` (was pinned: ${pinned})` : "";
      sink.widened.push({ tool: name, path, kind: kindOf(entry.rel), subject: `${prefix}${path}: ${type}${note}`, line: anchor(entry.scope, entry.rel) });
      continue;
    }
    const oldType = typeOf(old);
    // A branch read against its union listed without branches (one branch with members left): the
    // union's label names the branch among others; the branch's members, not the labels, say what changed.
    if (branchAgainstUnion(entry, old) || branchAgainstUnion(old, entry)) continue;
    if (guards.egressLimitChanges && (old.limits.size > 0 || entry.limits.size > 0)) {
      const limits = compareLimits([...old.limits].sort(compare), [...entry.limits].sort(compare));
      if (limits.wider.length + limits.narrower.length + limits.changed.length > 0) {
        const path = after.display(entry.scope, entry.rel);
        const where = { tool: name, path, line: old.line > 0 ? old.line : anchor(entry.scope, entry.rel) };
        for (const change of limits.wider) sink.widened.push({ ...where, kind: change.kind, subject: `${prefix}${path}: ${change.text}` });
        for (const change of limits.narrower) sink.narrowed.push({ ...where, kind: change.kind, subject: `${prefix}${path}: ${change.text}` });
        for (const change of limits.changed) sink.changed.push({ ...where, kind: change.kind, subject: `${prefix}${path}: ${change.text}` });
      }
    }
    // A union listed by branch changes its label with every branch; the branches say what changed.
    if (oldType === type || (old.branches && entry.branches) || !guards.egressTypeChanges) continue;
    // A split or renamed type at this site: its members were compared above.
    if (old.single !== undefined && entry.single !== undefined && pairs.some((pair) => pair.was === old.single && pair.now === entry.single) && oldType.split(old.single).join(entry.single) === type) continue;
    const path = after.display(entry.scope, entry.rel);
    const where = { tool: name, path, line: old.line > 0 ? old.line : anchor(entry.scope, entry.rel) };
    const change = compareTypes(oldType, type, before.scalars, after.scalars);
    for (const value of change.addedValues) sink.widened.push({ ...where, kind: "enum", subject: `${prefix}${path}: enum value ${value}` });
    for (const value of change.removedValues) sink.narrowed.push({ ...where, kind: "enum", subject: `${prefix}${path}: enum value ${value}` });
    if (change.wider) sink.widened.push({ ...where, kind: "type", subject: `${prefix}${path}: ${type} (was ${oldType})` });
    else if (change.narrower) sink.narrowed.push({ ...where, kind: "type", subject: `${prefix}${path}: ${type} (was ${oldType})` });
  }
  for (const [key, entry] of before.entries) {
    if (entry.rel === "" || counterpart(key, typeOf(entry), after.entries, sitesAfter, collapsedAfter, aliasesBefore) !== undefined) continue;
    // Named above, at the site of the type it was split into (or renamed to).
    if (vanished.has(entry.scope)) continue;
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

const BRANCH_END = /(?:^|\.)(?:anyOf|oneOf)\[[^\]]*\]$/;

/** `branch` is a branch line (or a branch type's own value) and `union` a union line whose parts name its type. */
function branchAgainstUnion(branch: ViewEntry, union: ViewEntry): boolean {
  if (!guards.egressByMeaning) return false;
  const isBranch = BRANCH_END.test(branch.rel) || (branch.rel === "" && branch.scope !== "");
  if (!isBranch || BRANCH_END.test(union.rel) || union.rel === "") return false;
  const parts = unionParts(typeOf(union));
  return parts.length > 1 && (parts.includes(typeOf(branch)) || parts.includes(branch.scope));
}

/** Scopes of a view that hold members (a type reached, its members listed). */
function scopesWithMembers(view: ToolView): Set<string> {
  const scopes = new Set<string>();
  for (const entry of view.entries.values()) if (entry.rel !== "") scopes.add(entry.scope);
  return scopes;
}

interface RenamedScope {
  was: string;
  now: string;
  /** The path (display) of the line where the type changed name. */
  site: string;
  line: number;
}

/**
 * Types split or renamed at a site: a line both maps list (matched as the comparison matches
 * lines) whose one type has another name now, both types with members, and one of them not
 * reached at all by the other map (the split copy `Filter_2` the committed map lacks, or,
 * undoing the split, the copy the current map lacks). Found from the tool's root down: a
 * split inside a split type is found through the outer pair. Two types both maps reach are
 * no rename: the line takes the other type's members, which its type change names.
 */
function renamedScopes(before: ToolView, after: ToolView, counterpart: (key: string, type: string) => ViewEntry | undefined): RenamedScope[] {
  if (!guards.egressByMeaning) return [];
  const scopesBefore = scopesWithMembers(before);
  const scopesAfter = scopesWithMembers(after);
  const pairs: RenamedScope[] = [];
  const seen = new Set<string>();
  for (let round = 0; round < 8; round++) {
    let found = false;
    for (const [key, entry] of after.entries) {
      const now = entry.single;
      if (now === undefined || !scopesAfter.has(now)) continue;
      const outer = pairs.find((pair) => pair.now === entry.scope && !scopesBefore.has(pair.now));
      const old = outer === undefined ? counterpart(key, typeOf(entry)) : before.entries.get(`${outer.was}\u0000${entry.rel}`);
      const was = old?.single;
      if (old === undefined || was === undefined || was === now || !scopesBefore.has(was)) continue;
      if (scopesBefore.has(now) && scopesAfter.has(was)) continue;
      const id = `${was}\u0000${now}\u0000${key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      pairs.push({ was, now, site: after.display(entry.scope, entry.rel), line: old.line });
      found = true;
    }
    if (!found) break;
  }
  return pairs;
}

/**
 * Whether a branch line (`body.oneOf[Card]`) read where the other side lists the union with one
 * branch left (`body: Bank`) stands for another branch than that one: the branch was dropped
 * (or restored), not collapsed into its union. Positional labels cannot tell, and match.
 */
function otherBranch(key: string, collapsed: ViewEntry): boolean {
  if (!guards.egressByMeaning) return false;
  // A branch line, or a branch type's own value (its scope's root, `Card\u0000`).
  const label = /(?:anyOf|oneOf)\[([^\]]*)\]$/.exec(key)?.[1] ?? (key.endsWith("\u0000") && !key.includes(".") ? key.slice(0, -1) : undefined);
  if (label === undefined || /^\d/.test(label) || collapsed.single === undefined) return false;
  return collapsed.single !== label;
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
  // Object types named inside a union or `&` label have their members compared under the line
  // (copied there from their sections, or listed below it): a split copy (`Base_2`) or a renamed
  // type in such a label is no change by itself, and what it changed is named member by member.
  if (guards.egressByMeaning && !isValueLabel(was) && !isValueLabel(now) && objectsUnnamed(was, beforeScalars) === objectsUnnamed(now, afterScalars)) return change;
  // By name first: a union left with fewer of the same types (`A | B` -> `A`, A listed by value) is narrower whatever A's value reads.
  change.narrower = (guards.egressByMeaning && noWider(before, after)) || noWider(was, now);
  change.wider = !change.narrower;
  return change;
}

/** A label of several parts with each object type's name (a type that is not a by-value scalar) as `T`; a one-type label as it is. */
function objectsUnnamed(label: string, scalars: ReadonlyMap<string, string>): string {
  // Values (an enum's, a const's) and one type are compared as written.
  if (/^[^\s()|&]+$/.test(label.replace(/^null \| | \| null$/, "")) || label.includes("enum: ") || label.includes("const ")) return label;
  // A base type's format (`string (date-time)`) is part of the type, not a name.
  return label.replace(/\b(?:string|number|integer|boolean|array|object|any) \([^()]*\)|[^\s()|&[\]]+/g, (token) => (token.includes(" (") || BASE_TYPES.has(token) || token === "…" || scalars.has(token) ? token : "T"));
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
  if (!guards.egressByMeaning) return partsNow.length < partsWas.length && partsNow.every((part) => partsWas.includes(part));
  if (partsWas.length === 1 && partsNow.length === 1) return integerWithin(was, now);
  // Each part now admits nothing some part before did not: fewer parts, or an integer for a number.
  return partsNow.length <= partsWas.length && partsNow.every((part) => partsWas.some((old) => old === part || integerWithin(old, part) || (old !== was && noWider(old, part))));
}

/** `integer` (any format) where `number` was: every integer is a number. */
function integerWithin(was: string, now: string): boolean {
  return was === "number" && (now === "integer" || now.startsWith("integer ("));
}
