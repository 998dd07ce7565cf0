import { hasOwn, isSchemaObject, SluiceError, unescapePointerSegment, type JsonSchemaObject } from "@sluice/schema";
import { BRANCH_KEYWORDS, SchemaWorkspace, type Located } from "./schema-workspace.ts";
import { locate, parseBranchSegment, parseSelector, selectorText, splitSelector, type Location, type Selector } from "./selectors.ts";
import type { Tool } from "../tool.ts";

/** The drops a search may make (candidatesOf), and what the search reads of a schema about them. */

/** Bound on the candidates a search lists (see candidatesOf). */
const MAX_CANDIDATES = 3000;

export interface Candidate {
  selector: string;
  /** A top-level argument. */
  top: boolean;
  /** Required where it is declared (a drop would be refused). */
  required: boolean;
  /** For type selectors, the type. */
  type?: string;
  /** The candidate it was first found below. */
  parent?: string;
  /** Property steps below the root of the place it hangs from (0: an argument, or a branch of an argument's union). */
  level: number;
  /** For a union branch (`body.anyOf[Modal]`): the union, named by its place and keyword, and the selectors of the branch's own members. */
  branch?: { union: string; members: string[] };
}

/** Whether a type selector's type is still reached (a path selector is checked by derive). */
export function stillReached(selector: string, candidates: readonly Candidate[], reached: ReadonlySet<string>): boolean {
  const candidate = candidates.find((c) => c.selector === selector);
  return candidate?.type === undefined || reached.has(candidate.type);
}

/** The types a tool's definitions stand for (split copies count as their type). */
export function typesOf(tool: Tool<object>): Set<string> {
  const defs = tool.inputSchema.$defs;
  const names = isSchemaObject(defs) ? Object.keys(defs) : [];
  return new Set(names.map((name) => tool.definitionOrigins.get(name) ?? name));
}

/**
 * The branches a search may drop, `levels` property steps below the root: top-level
 * arguments by name; members reached through a definition as type selectors
 * (`Type.member`, every place the type is reached); members of inline objects as the
 * selector of the place they hang from, extended; and the branches of every union
 * (`anyOf`/`oneOf`) at those places, as branch selectors (`body.anyOf[Modal]`,
 * `Type.member.oneOf[1]`). Every branch is listed, a union's last one too: whether it may
 * go is decided by `sparesABranch`, not here. A member that repeats a cycle is not listed
 * again; listing stops after MAX_CANDIDATES.
 */
export function candidatesOf(ws: SchemaWorkspace, levels: number): Candidate[] {
  const found = new Map<string, Candidate>();
  const stack: Array<{ node: Located; spelled: string[]; type: string | undefined; level: number; onPath: ReadonlySet<string> }> = [
    { node: { node: ws.root, pointer: "" }, spelled: [], type: undefined, level: 0, onPath: new Set() },
  ];
  let visits = 0;
  while (stack.length > 0 && found.size < MAX_CANDIDATES && visits < MAX_CANDIDATES * 20) {
    const frame = stack.pop()!;
    const next: typeof stack = [];
    for (const member of ws.membersOf(frame.node)) {
      visits++;
      if (member.via.some((def) => frame.onPath.has(def))) continue;
      const def = member.via[member.via.length - 1];
      const type = def === undefined ? frame.type : ws.originOf(def);
      const spelled = def === undefined ? [...frame.spelled, member.key] : [type!, member.key];
      const selector = spell(ws, type, spelled);
      const required = Array.isArray(member.holder.node.required) && member.holder.node.required.includes(member.key);
      const known = found.get(selector);
      if (known === undefined) {
        const candidate: Candidate = { selector, top: frame.level === 0 && type === undefined, required, level: frame.level };
        if (type !== undefined) candidate.type = type;
        if (frame.level > 0) candidate.parent = spell(ws, frame.type, frame.spelled);
        found.set(selector, candidate);
        const at = { node: member.child, pointer: member.pointer };
        for (const branch of unionBranches(ws, at, spelled, type, frame.level)) if (!found.has(branch.selector)) found.set(branch.selector, branch);
      } else if (required) {
        known.required = true;
      }
      if (frame.level + 1 < levels) {
        next.push({ node: { node: member.child, pointer: member.pointer }, spelled, type, level: frame.level + 1, onPath: new Set([...frame.onPath, ...member.via]) });
      }
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return [...found.values()];
}

/**
 * The branches of the unions at one place (the schema of the member spelled `spelled`),
 * reached as selectors reach them: through refs, array items and other unions. Each
 * carries the selectors of its own members, spelled as `candidatesOf` spells them.
 */
function unionBranches(ws: SchemaWorkspace, at: Located, spelled: readonly string[], type: string | undefined, level: number): Candidate[] {
  const out: Candidate[] = [];
  const place = spell(ws, type, spelled);
  for (const container of ws.findNodes(at, hasUnion, false)) {
    for (const keyword of BRANCH_KEYWORDS) {
      const list = container.node[keyword];
      if (!Array.isArray(list)) continue;
      list.forEach((element, index) => {
        const label = ws.branchLabel(element, index);
        if (/[[\]]/.test(label)) return; // not expressible as a branch segment
        const members = new Set<string>();
        if (isSchemaObject(element)) {
          for (const member of ws.membersOf({ node: element, pointer: `${container.pointer}/${keyword}/${index}` })) {
            const def = member.via[member.via.length - 1];
            const memberType = def === undefined ? type : ws.originOf(def);
            members.add(def === undefined ? spell(ws, type, [...spelled, member.key]) : spell(ws, memberType, [memberType!, member.key]));
          }
        }
        const candidate: Candidate = {
          selector: `${place}.${keyword}[${label}]`,
          top: false,
          required: false,
          level,
          parent: place,
          branch: { union: `${place}|${keyword}`, members: [...members] },
        };
        if (type !== undefined) candidate.type = type;
        out.push(candidate);
      });
    }
  }
  return out;
}

function hasUnion(node: JsonSchemaObject): boolean {
  return BRANCH_KEYWORDS.some((keyword) => Array.isArray(node[keyword]));
}

/**
 * Whether dropping `selectors` together leaves every union they reach at least one
 * branch: the one check that keeps the search from ever asking for a union's last branch
 * (the projection would refuse it with LAST_BRANCH, which the search treats as its own bug).
 * A branch that admits only null does not count: `anyOf: [boolean, null]` without its
 * boolean is an argument the model can only send empty, so the member goes whole instead.
 */
export function sparesABranch(ws: SchemaWorkspace, selectors: readonly string[]): boolean {
  const taken = new Map<unknown[], Set<number>>();
  for (const raw of selectors) {
    for (const place of placesOf(ws, raw)) {
      if (place.branch === undefined) continue;
      const list = place.branch.container[place.branch.keyword] as unknown[];
      const indexes = taken.get(list) ?? new Set<number>();
      indexes.add(place.branch.index);
      taken.set(list, indexes);
    }
  }
  for (const [list, indexes] of taken) {
    if (!list.some((branch, index) => !indexes.has(index) && !onlyNull(branch))) return false;
  }
  return true;
}

/** A branch whose only value is null (`type: "null"`, `const: null`, `enum: [null]`). */
function onlyNull(branch: unknown): boolean {
  if (!isSchemaObject(branch)) return false;
  if (branch.type === "null") return true;
  if (hasOwn(branch, "const") && branch.const === null) return true;
  return Array.isArray(branch.enum) && branch.enum.length > 0 && branch.enum.every((value) => value === null);
}

/** The places a selector names in `ws`, none when it names nothing (a drop of it is refused as unknown). */
function placesOf(ws: SchemaWorkspace, raw: string): Location[] {
  let selector: Selector;
  try {
    selector = parseSelector(ws, raw);
  } catch (error) {
    if (error instanceof SluiceError) return [];
    throw error;
  }
  return locations(ws, selector);
}

/** Branch drops in an order where each names, in the tool the previous ones left, what it names in the tool they start from: by position, the highest first. */
export function inDropOrder(selectors: readonly string[]): string[] {
  const position = (selector: string): number => (isPositional(selector) ? Number(lastBranchSegment(selector)!.label) : -1);
  return [...selectors].sort((a, b) => position(b) - position(a) || compareText(a, b));
}

export function workspaceOf(tool: Tool<object>): SchemaWorkspace {
  return new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
}

/** The places a parsed selector names, none when it names nothing. */
export function locations(ws: SchemaWorkspace, selector: Selector): Location[] {
  try {
    return locate(ws, selector, false);
  } catch (error) {
    if (error instanceof SluiceError) return [];
    throw error;
  }
}

export function sameSlot(a: Location, b: Location): boolean {
  return a.branch !== undefined && b.branch !== undefined && a.branch.container === b.branch.container && a.branch.keyword === b.branch.keyword && a.branch.index === b.branch.index;
}

/** The branch segment a selector ends in, if any. */
export function lastBranchSegment(selector: string): { keyword: string; label: string } | undefined {
  const segments = splitSelector(selector);
  try {
    return parseBranchSegment(segments[segments.length - 1]!);
  } catch {
    return undefined;
  }
}

/** A branch named by its position (`oneOf[2]`): positions mean the tool the drop is applied to, so the search checks what it names. */
export function isPositional(selector: string): boolean {
  const segment = lastBranchSegment(selector);
  return segment !== undefined && /^[0-9]+$/.test(segment.label);
}

/** A candidate's spelling: `spelled` starts with its type when it has one. */
function spell(ws: SchemaWorkspace, type: string | undefined, spelled: readonly string[]): string {
  return type === undefined ? selectorText(ws, "path", undefined, spelled) : selectorText(ws, "type", type, spelled.slice(1));
}

/** The type selector (or path) naming property `key` of the node at `pointer`. */
export function spellingAt(ws: SchemaWorkspace, pointer: string, key: string): string | undefined {
  const tokens = pointer.split("/").slice(1).map(unescapePointerSegment);
  const names: string[] = [];
  let start = 0;
  if (tokens[0] === "$defs" && tokens.length >= 2) {
    names.push(ws.originOf(tokens[1]!));
    start = 2;
  }
  for (let i = start; i < tokens.length; i++) {
    if (tokens[i] === "properties" && i + 1 < tokens.length) names.push(tokens[++i]!);
  }
  return start === 2 ? selectorText(ws, "type", names[0], [...names.slice(1), key]) : selectorText(ws, "path", undefined, [...names, key]);
}

export function costliestFirst(a: { path: string; tokens: number }, b: { path: string; tokens: number }): number {
  return b.tokens - a.tokens || compareText(a.path, b.path);
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
