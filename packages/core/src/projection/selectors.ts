import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { BRANCH_KEYWORDS, type BranchKeyword, type BranchSlot, type Found, type Located, type SchemaWorkspace } from "./schema-workspace.ts";
import { editDistance, nearestBy, nearestNames, withSuggestion } from "../edit-distance.ts";

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

/**
 * Characters that are selector syntax. A property name holding one of them, starting with
 * `/` (an egress map's `/pattern/` segment), or empty is written as a quoted segment: a JSON
 * string (`body."@odata.type"`), which is always a property name, never a type or a branch.
 */
const PLAIN_SEGMENT = /^[^./\[\]*:"'\\\s\p{Cc}\p{Cf}][^.[\]*:"'\\\s\p{Cc}\p{Cf}]*$/u;
const PLAIN_TYPE = /^[^[\]*:"'\\\s\p{Cc}\p{Cf}]+$/u;

/** One property name as a selector segment: as is when plain, else quoted. */
export function formatSegment(key: string): string {
  return PLAIN_SEGMENT.test(key) ? key : JSON.stringify(key);
}

/** Property names (and branch segments, which pass as they are) as a dotted path. */
export function formatPath(segments: readonly string[]): string {
  return segments.map((segment) => (isBranchText(segment) ? segment : formatSegment(segment))).join(".");
}

function isBranchText(segment: string): boolean {
  return BRANCH_SEGMENT.test(segment);
}

/**
 * The canonical spelling of a selector. A type selector is `Type.member` when that cannot
 * be read otherwise, else `Type:member` (the type name holds a dot, or an argument has the
 * same name). A path whose first name is also a type quotes that name (`"Address".street`),
 * so neither reading is ever a guess.
 */
export function selectorText(ws: SchemaWorkspace | undefined, kind: "path" | "type", type: string | undefined, segments: readonly string[]): string {
  if (kind === "type") {
    const name = PLAIN_TYPE.test(type!) ? type! : JSON.stringify(type);
    if (segments.length === 0) return `${name}:`;
    const colon = name !== type || type!.includes(".") || (ws !== undefined && hasOwn(rootProperties(ws), type!));
    return `${name}${colon ? ":" : "."}${formatPath(segments)}`;
  }
  const text = formatPath(segments);
  const first = segments[0];
  if (ws !== undefined && first !== undefined && segments.length > 1 && !isBranchText(first) && PLAIN_SEGMENT.test(first) && ws.hasType(first)) {
    return JSON.stringify(first) + text.slice(first.length);
  }
  return text;
}

/** The same selector with other segments, spelled canonically. */
export function withSegments(ws: SchemaWorkspace | undefined, selector: Selector, segments: readonly string[]): Selector {
  return { ...selector, segments: [...segments], text: selectorText(ws, selector.kind, selector.type, segments) };
}

export interface RawSelector {
  /** The type before `:`, when the selector is written `Type:member`. */
  type?: string;
  segments: string[];
  /** Positions of quoted segments: property names whatever they look like. */
  quoted: Set<number>;
}

/**
 * Reads a selector's text: segments at dots outside brackets and quotes (type names inside
 * `oneOf[...]` may hold dots), quoted segments decoded, and a leading `Type:`. Undefined
 * when malformed.
 */
export function readSelector(raw: string): RawSelector | undefined {
  const out: RawSelector = { segments: [], quoted: new Set() };
  let i = 0;
  let expectSegment = true;
  while (i <= raw.length) {
    if (expectSegment) {
      if (raw[i] === '"') {
        const end = closingQuote(raw, i);
        if (end < 0) return undefined;
        let decoded: unknown;
        try {
          decoded = JSON.parse(raw.slice(i, end + 1));
        } catch {
          return undefined;
        }
        out.quoted.add(out.segments.length);
        out.segments.push(decoded as string);
        i = end + 1;
      } else {
        let depth = 0;
        let current = "";
        while (i < raw.length) {
          const char = raw[i]!;
          if (char === "[") depth++;
          else if (char === "]") depth = Math.max(0, depth - 1);
          if (depth === 0 && (char === "." || char === ":" || char === '"')) break;
          current += char;
          i++;
        }
        if (current === "") return undefined;
        out.segments.push(current);
      }
      expectSegment = false;
      continue;
    }
    if (i === raw.length) break;
    const char = raw[i]!;
    if (char === ".") {
      i++;
      expectSegment = true;
      continue;
    }
    if (char === ":" && out.type === undefined && out.segments.length >= 1) {
      // `Type:rest`: everything before is the type name (it may hold dots).
      const head = raw.slice(0, i);
      const name = out.quoted.has(0) && out.segments.length === 1 ? out.segments[0]! : head;
      if (!out.quoted.has(0) && out.quoted.size > 0) return undefined;
      if (out.quoted.has(0) && out.segments.length > 1) return undefined;
      out.type = name;
      out.segments = [];
      out.quoted = new Set();
      i++;
      if (i === raw.length) return out;
      expectSegment = true;
      continue;
    }
    return undefined;
  }
  return expectSegment ? undefined : out;
}

function closingQuote(raw: string, start: number): number {
  for (let i = start + 1; i < raw.length; i++) {
    if (raw[i] === "\\") i++;
    else if (raw[i] === '"') return i;
  }
  return -1;
}

/** The segments of a selector (property names decoded); a leading `Type:` is dropped. Malformed text gives one segment, the text. */
export function splitSelector(raw: string): string[] {
  return readSelector(raw)?.segments ?? [raw];
}

export function parseSelector(ws: SchemaWorkspace, raw: string): Selector {
  const read = typeof raw === "string" ? readSelector(raw) : undefined;
  if (read === undefined || (read.type !== undefined && read.segments.length === 0)) {
    throw new SluiceError(
      "UNKNOWN_SELECTOR",
      `Selector ${JSON.stringify(raw)} is malformed: use a dotted path of property names such as "filter.and"; quote a name holding selector syntax as a JSON string ("body.\\"@odata.type\\""), and write a type's member as Type:member.`,
      { candidates: rootCandidates(ws) },
    );
  }
  const { segments, quoted } = read;
  segments.forEach((segment, index) => {
    if (!quoted.has(index)) parseBranchSegment(segment);
  });
  if (read.type !== undefined) {
    if (!ws.hasType(read.type)) throw unknown(raw, read.type, typeCandidates(ws));
    return { kind: "type", type: read.type, segments, text: selectorText(ws, "type", read.type, segments) };
  }
  const first = segments[0]!;
  // A root union's branch (`anyOf[0]`, as paths() lists it) is a path from the root.
  if (!quoted.has(0) && BRANCH_SEGMENT.test(first)) return { kind: "path", segments, text: selectorText(ws, "path", undefined, segments) };
  const isArgument = hasOwn(rootProperties(ws), first);
  const isType = !quoted.has(0) && segments.length > 1 && ws.hasType(first);
  if (isArgument && isType) {
    const rest = formatPath(segments.slice(1));
    throw new SluiceError(
      "AMBIGUOUS_SELECTOR",
      `Selector "${raw}" has two readings: the argument path ${JSON.stringify(first)}.${rest} (below argument "${first}") and the type selector ${first}:${rest} (every place type ${first} is reached); write the one you mean.`,
      { candidates: [`${JSON.stringify(first)}.${rest}`, `${first}:${rest}`] },
    );
  }
  if (isArgument || quoted.has(0)) {
    if (!isArgument) throw unknown(raw, first, rootCandidates(ws));
    return { kind: "path", segments, text: selectorText(ws, "path", undefined, segments) };
  }
  if (isType) return { kind: "type", type: first, segments: segments.slice(1), text: selectorText(ws, "type", first, segments.slice(1)) };
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
  const spell = (segments: readonly string[]): string => (selector.kind === "path" && segments.length === 0 ? "" : selectorText(ws, selector.kind, selector.type, segments).replace(/:$/, ""));
  for (let i = 0; i < selector.segments.length; i++) {
    const key = selector.segments[i]!;
    const last = i === selector.segments.length - 1;
    const branch = parseBranchSegment(key);
    if (branch !== undefined) {
      const slots = branchSlots(ws, nodes, branch, split);
      if (slots.length === 0) throw unknownBranch(ws, selector, nodes, spell(selector.segments.slice(0, i)), branch);
      if (last) return slots.map((slot) => ({ holder: { node: slot.container, pointer: "" }, key, branch: slot }));
      nodes = uniqueNodes(slots.flatMap((slot) => {
        const element = (slot.container[slot.keyword] as unknown[])[slot.index];
        return isSchemaObject(element) ? [{ node: element, pointer: "" }] : [];
      }));
      continue;
    }
    const holders = uniqueNodes(nodes.flatMap((node) => ws.holdersOf(node, key, split)));
    if (holders.length === 0) {
      const here = spell(selector.segments.slice(0, i));
      const keys = unique(nodes.flatMap((node) => ws.membersOf(node).map((m) => m.key)));
      const siblings = keys.map((k) => spell([...selector.segments.slice(0, i), k]));
      const near = nearestNames(key, keys).map((k) => spell([...selector.segments.slice(0, i), k]));
      const where = here === "" ? "at the top level" : `under "${here}"`;
      throw new SluiceError(
        "UNKNOWN_SELECTOR",
        siblings.length === 0
          ? `Selector "${selector.text}" does not exist: "${here}" has no members.`
          : withSuggestion(`Selector "${selector.text}" does not exist: no ${JSON.stringify(key)} ${where}.`, near),
        { candidates: rankCandidates(siblings, spell(selector.segments.slice(0, i + 1))), pointer: nodes[0]?.pointer ?? "" },
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

/** The branch selectors available below `nodes`, one level: `<here>.anyOf[Label]` (`here` spelled as a selector, or ""). */
export function branchCandidates(ws: SchemaWorkspace, nodes: readonly Located[], here: string): string[] {
  const out: string[] = [];
  for (const start of nodes) {
    for (const container of ws.findNodes(start, (node) => BRANCH_KEYWORDS.some((k) => Array.isArray(node[k])), false)) {
      for (const keyword of BRANCH_KEYWORDS) {
        const list = container.node[keyword];
        if (Array.isArray(list)) list.forEach((branch, index) => out.push(`${here === "" ? "" : `${here}.`}${keyword}[${ws.branchLabel(branch, index)}]`));
      }
    }
  }
  return unique(out);
}

function unknownBranch(ws: SchemaWorkspace, selector: Selector, nodes: readonly Located[], here: string, segment: BranchSegment): SluiceError {
  const candidates = branchCandidates(ws, nodes, here);
  return new SluiceError(
    "UNKNOWN_SELECTOR",
    candidates.length === 0
      ? `Selector "${selector.text}" does not exist: there is no union (anyOf/oneOf) ${here === "" ? "at the top level" : `at "${here}"`}.`
      : withSuggestion(
          `Selector "${selector.text}" does not exist: no ${segment.keyword} branch "${segment.label}" there; branches are named by the type they refer to or by position.`,
          nearestNames(`${here === "" ? "" : `${here}.`}${segment.keyword}[${segment.label}]`, candidates),
        ),
    { candidates: rankCandidates(candidates, `${here === "" ? "" : `${here}.`}${segment.keyword}[${segment.label}]`) },
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
  const matches = unique(paths.filter((p) => p.segments[p.segments.length - 1] === name).map((p) => p.segments.join("\u0000")));
  if (matches.length === 1 && complete) {
    const segments = paths.find((p) => p.segments.join("\u0000") === matches[0])!.segments;
    return { kind: "path", segments, text: selectorText(ws, "path", undefined, segments) };
  }
  if (matches.length > 1 || (matches.length === 1 && !complete)) {
    throw new SluiceError(
      "AMBIGUOUS_SELECTOR",
      `"${name}" names ${complete ? matches.length : "more than one"} paths; write the full path.`,
      { candidates: matches.map((m) => selectorText(ws, "path", undefined, m.split("\u0000"))).sort().slice(0, 50) },
    );
  }
  // A bare name may have meant a member anywhere below the root (`nmae` for `body.name`):
  // those are ranked by their last name, the shallowest first, beside arguments and types.
  const deep = new Map<string, { text: string; last: string; depth: number }>();
  for (const path of paths) {
    const text = selectorText(ws, "path", undefined, path.segments);
    if (!deep.has(text)) deep.set(text, { text, last: path.segments[path.segments.length - 1]!, depth: path.segments.length });
  }
  const pool = rootCandidates(ws).concat(typeCandidates(ws));
  const entries = [...pool.map((text) => ({ text, last: text, depth: 0 })), ...[...deep.values()].sort((a, b) => a.depth - b.depth)];
  const near = unique(nearestBy(name, entries, (entry) => entry.last, 12).map((entry) => entry.text)).slice(0, 3);
  throw unknown(name, name, pool, near);
}

function unknown(raw: string, first: string, pool: string[], near: readonly string[] = nearestNames(first, pool)): SluiceError {
  return new SluiceError("UNKNOWN_SELECTOR", withSuggestion(`Selector "${raw}" does not exist: "${first}" is neither an argument, a type, nor a unique property name.`, near), {
    candidates: unique([...near, ...rankCandidates(pool, raw)]).slice(0, 20),
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
