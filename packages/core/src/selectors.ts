import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { BRANCH_KEYWORDS, type BranchKeyword, type BranchSlot, type Found, type Located, type SchemaWorkspace } from "./schema-workspace.ts";
import { editDistance } from "./edit-distance.ts";

/**
 * A selector names argument locations: a dotted path from the root (`filter.and`), a
 * type path (`IssueFilter.and`, every place that type is reached), or a bare name that
 * names exactly one path. Arrays, unions and refs are passed through transparently.
 *
 * A segment `anyOf[Label]` or `oneOf[Label]` names a union branch at that place: Label is
 * the type the branch refers to (`body.anyOf[ModalInteractionCallbackRequest]`) or, for
 * any branch, its 0-based position (`body.oneOf[2]`). Branches can be dropped or kept like
 * members, and paths can continue below them (`body.oneOf[Message].data.content`).
 * `allOf` parts are not alternatives (every part applies), so they have no selector.
 */
export interface Selector {
  kind: "path" | "type";
  /** For type selectors, the type name; segments then start below it. */
  type?: string;
  segments: string[];
  /** The canonical spelling, as shown in egress maps. */
  text: string;
}

/** How many property visits a bare-name search may make before it gives up (failing closed). */
const BARE_NAME_BUDGET = 50_000;

/** A union branch segment: `anyOf[Label]` / `oneOf[Label]`. */
export interface BranchSegment {
  keyword: BranchKeyword;
  label: string;
}

const BRANCH_SEGMENT = /^(anyOf|oneOf|allOf)\[([^\]]+)\]$/;

export function parseBranchSegment(segment: string): BranchSegment | undefined {
  const match = BRANCH_SEGMENT.exec(segment);
  if (match === null) return undefined;
  if (match[1] === "allOf") {
    throw new SluiceError("UNKNOWN_SELECTOR", `"${segment}": the parts of an allOf all apply at once, so a part cannot be selected; select the members to withhold instead.`);
  }
  return { keyword: match[1] as BranchKeyword, label: match[2]! };
}

/** Splits a selector into segments at dots outside brackets (type names inside `oneOf[...]` may hold dots). */
export function splitSelector(raw: string): string[] {
  const segments: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of raw) {
    if (char === "[") depth++;
    else if (char === "]") depth = Math.max(0, depth - 1);
    if (char === "." && depth === 0) {
      segments.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments;
}

export function parseSelector(ws: SchemaWorkspace, raw: string): Selector {
  if (typeof raw !== "string" || raw.length === 0 || splitSelector(raw).some((s) => s.length === 0)) {
    throw new SluiceError("UNKNOWN_SELECTOR", `Selector ${JSON.stringify(raw)} is malformed: use a dotted path of property names such as "filter.and".`, {
      candidates: rootCandidates(ws),
    });
  }
  const segments = splitSelector(raw);
  for (const segment of segments) parseBranchSegment(segment);
  const first = segments[0]!;
  const isArgument = hasOwn(rootProperties(ws), first);
  const isType = segments.length > 1 && ws.hasType(first);
  if (isArgument && isType) {
    throw new SluiceError("AMBIGUOUS_SELECTOR", `Selector "${raw}" names both the argument path "${raw}" and the type ${first}; rename is not possible, so narrow with a longer path.`, {
      candidates: [raw, `type ${first}`],
    });
  }
  if (isArgument) return { kind: "path", segments, text: raw };
  if (isType) return { kind: "type", type: first, segments: segments.slice(1), text: raw };
  if (segments.length === 1) return resolveBareName(ws, first);
  throw unknown(raw, first, rootCandidates(ws).concat(typeCandidates(ws)));
}

/** A location a selector names: property `key` of `holder`, or, for a branch selector, the union slot of a branch. */
export interface Location {
  holder: Located;
  key: string;
  branch?: BranchSlot;
}

/** The locations a selector names. With `split`, shared definitions on the way are copied first. */
export function locate(ws: SchemaWorkspace, selector: Selector, split: boolean): Location[] {
  let nodes: Located[] = startNodes(ws, selector);
  const prefix: string[] = selector.kind === "type" ? [selector.type!] : [];
  for (let i = 0; i < selector.segments.length; i++) {
    const key = selector.segments[i]!;
    const last = i === selector.segments.length - 1;
    const branch = parseBranchSegment(key);
    if (branch !== undefined) {
      const slots = branchSlots(ws, nodes, branch, split);
      if (slots.length === 0) throw unknownBranch(ws, selector, nodes, [...prefix, ...selector.segments.slice(0, i)], branch);
      if (last) return slots.map((slot) => ({ holder: { node: slot.container, pointer: "" }, key, branch: slot }));
      nodes = uniqueNodes(slots.flatMap((slot) => {
        const element = (slot.container[slot.keyword] as unknown[])[slot.index];
        return isSchemaObject(element) ? [{ node: element, pointer: "" }] : [];
      }));
      continue;
    }
    const holders = uniqueNodes(nodes.flatMap((node) => ws.holdersOf(node, key, split)));
    if (holders.length === 0) {
      const here = [...prefix, ...selector.segments.slice(0, i)];
      const siblings = unique(nodes.flatMap((node) => ws.membersOf(node).map((m) => m.key))).map((k) => [...here, k].join("."));
      const where = here.length === 0 ? "at the top level" : `under "${here.join(".")}"`;
      throw new SluiceError(
        "UNKNOWN_SELECTOR",
        siblings.length === 0
          ? `Selector "${selector.text}" does not exist: "${here.join(".")}" has no members.`
          : `Selector "${selector.text}" does not exist: no "${key}" ${where}.`,
        { candidates: rankCandidates(siblings, [...here, key].join(".")), pointer: nodes[0]?.pointer ?? "" },
      );
    }
    if (last) return holders.map((holder) => ({ holder, key }));
    nodes = holders.map((holder) => {
      const child = (holder.node.properties as Record<string, unknown>)[key];
      return { node: isSchemaObject(child) ? child : {}, pointer: holder.pointer + "/properties/" + escapePointerSegment(key) };
    });
  }
  return [];
}

/** The nodes a selector starts from: the root, or every definition standing for its type. */
export function startNodes(ws: SchemaWorkspace, selector: Selector): Located[] {
  return selector.kind === "type"
    ? ws.defsOfType(selector.type!).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name) }))
    : [{ node: ws.root, pointer: "" }];
}

/** The union slots below `nodes` whose branch answers to the segment's label. */
function branchSlots(ws: SchemaWorkspace, nodes: readonly Located[], segment: BranchSegment, split: boolean): BranchSlot[] {
  const slots: BranchSlot[] = [];
  const hasMatch = (node: JsonSchemaObject): boolean => {
    const list = node[segment.keyword];
    return Array.isArray(list) && list.some((branch, index) => ws.branchMatches(branch, index, segment.label));
  };
  for (const start of nodes) {
    for (const container of ws.findNodes(start, hasMatch, split)) {
      const list = container.node[segment.keyword] as unknown[];
      list.forEach((branch, index) => {
        if (ws.branchMatches(branch, index, segment.label)) slots.push({ container: container.node, keyword: segment.keyword, index });
      });
    }
  }
  const seen = new Map<JsonSchemaObject, Set<string>>();
  return slots.filter((slot) => {
    const taken = seen.get(slot.container) ?? new Set<string>();
    seen.set(slot.container, taken);
    const id = `${slot.keyword}:${slot.index}`;
    if (taken.has(id)) return false;
    taken.add(id);
    return true;
  });
}

/** The branch selectors available below `nodes`, one level: `<here>.anyOf[Label]`. */
export function branchCandidates(ws: SchemaWorkspace, nodes: readonly Located[], here: readonly string[]): string[] {
  const out: string[] = [];
  for (const start of nodes) {
    for (const container of ws.findNodes(start, (node) => BRANCH_KEYWORDS.some((k) => Array.isArray(node[k])), false)) {
      for (const keyword of BRANCH_KEYWORDS) {
        const list = container.node[keyword];
        if (Array.isArray(list)) list.forEach((branch, index) => out.push([...here, `${keyword}[${ws.branchLabel(branch, index)}]`].join(".")));
      }
    }
  }
  return unique(out);
}

function unknownBranch(ws: SchemaWorkspace, selector: Selector, nodes: readonly Located[], here: string[], segment: BranchSegment): SluiceError {
  const candidates = branchCandidates(ws, nodes, here);
  return new SluiceError(
    "UNKNOWN_SELECTOR",
    candidates.length === 0
      ? `Selector "${selector.text}" does not exist: there is no union (anyOf/oneOf) ${here.length === 0 ? "at the top level" : `at "${here.join(".")}"`}.`
      : `Selector "${selector.text}" does not exist: no ${segment.keyword} branch "${segment.label}" there; branches are named by the type they refer to or by position.`,
    { candidates: rankCandidates(candidates, [...here, `${segment.keyword}[${segment.label}]`].join(".")) },
  );
}

/**
 * Dotted paths below `start`, `depth` levels deep, cycles cut where a definition
 * repeats on the current path. Stops after `budget` visits and reports that it did.
 */
export function enumeratePaths(
  ws: SchemaWorkspace,
  start: Located,
  prefix: string[],
  depth: number,
  budget = Number.POSITIVE_INFINITY,
  branches = false,
): { paths: Array<{ segments: string[]; child: Located }>; complete: boolean } {
  const paths: Array<{ segments: string[]; child: Located }> = [];
  let visits = 0;
  const stack: Array<{ node: Located; segments: string[]; onPath: ReadonlySet<string>; level: number }> = [
    { node: start, segments: prefix, onPath: new Set(), level: 0 },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const members = ws.membersOf(frame.node);
    const seenKeys = new Set<string>();
    const next: typeof stack = [];
    for (const member of members) {
      if (member.via.some((def) => frame.onPath.has(def))) continue; // a repetition of a cycle
      if (++visits > budget) return { paths, complete: false };
      const segments = [...frame.segments, member.key];
      const child = { node: member.child, pointer: member.pointer };
      if (!seenKeys.has(member.key)) {
        seenKeys.add(member.key);
        paths.push({ segments, child });
      }
      if (frame.level + 1 < depth) {
        next.push({ node: child, segments, onPath: new Set([...frame.onPath, ...member.via]), level: frame.level + 1 });
      }
    }
    if (branches) {
      // Union branches are selectable too (`body.oneOf[Modal]`); their members are listed unqualified above.
      for (const container of ws.findNodes(frame.node, hasAlternatives, false)) {
        for (const keyword of BRANCH_KEYWORDS) {
          const list = container.node[keyword];
          if (!Array.isArray(list) || list.length < 2) continue;
          for (let index = 0; index < list.length; index++) {
            if (++visits > budget) return { paths, complete: false };
            const segment = `${keyword}[${ws.branchLabel(list[index], index)}]`;
            if (seenKeys.has(segment)) continue;
            seenKeys.add(segment);
            const element = list[index];
            paths.push({ segments: [...frame.segments, segment], child: { node: isSchemaObject(element) ? element : {}, pointer: `${container.pointer}/${keyword}/${index}` } });
          }
        }
      }
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return { paths, complete: true };
}

function hasAlternatives(node: JsonSchemaObject): boolean {
  return BRANCH_KEYWORDS.some((keyword) => Array.isArray(node[keyword]) && (node[keyword] as unknown[]).length > 1);
}

function resolveBareName(ws: SchemaWorkspace, name: string): Selector {
  const { paths, complete } = enumeratePaths(ws, { node: ws.root, pointer: "" }, [], Number.POSITIVE_INFINITY, BARE_NAME_BUDGET);
  const matches = unique(paths.filter((p) => p.segments[p.segments.length - 1] === name).map((p) => p.segments.join(".")));
  if (matches.length === 1 && complete) return { kind: "path", segments: matches[0]!.split("."), text: matches[0]! };
  if (matches.length > 1 || (matches.length === 1 && !complete)) {
    throw new SluiceError(
      "AMBIGUOUS_SELECTOR",
      `"${name}" names ${complete ? matches.length : "more than one"} paths; write the full path.`,
      { candidates: matches.sort().slice(0, 50) },
    );
  }
  throw unknown(name, name, rootCandidates(ws).concat(typeCandidates(ws)));
}

function unknown(raw: string, first: string, pool: string[]): SluiceError {
  return new SluiceError("UNKNOWN_SELECTOR", `Selector "${raw}" does not exist: "${first}" is neither an argument, a type, nor a unique property name.`, {
    candidates: rankCandidates(pool, raw),
  });
}

function rootProperties(ws: SchemaWorkspace): Record<string, unknown> {
  return isSchemaObject(ws.root.properties) ? ws.root.properties : {};
}

function rootCandidates(ws: SchemaWorkspace): string[] {
  return Object.keys(rootProperties(ws));
}

function typeCandidates(ws: SchemaWorkspace): string[] {
  return unique(Object.keys(ws.defs).map((name) => ws.originOf(name)));
}

/** Closest names first (edit distance), then alphabetical; at most 20. */
export function rankCandidates(pool: readonly string[], wanted: string): string[] {
  const scored = unique(pool).map((candidate) => ({ candidate, score: editDistance(candidate.toLowerCase(), wanted.toLowerCase()) }));
  scored.sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0));
  return scored.slice(0, 20).map((s) => s.candidate);
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function uniqueNodes(items: readonly Located[]): Located[] {
  const seen = new Set<object>();
  return items.filter((item) => !seen.has(item.node) && seen.add(item.node));
}
