import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError } from "@sluice/schema";
import type { Located, SchemaWorkspace } from "./schema-workspace.ts";
import { editDistance } from "./edit-distance.ts";

/**
 * A selector names argument locations: a dotted path from the root (`filter.and`), a
 * type path (`IssueFilter.and`, every place that type is reached), or a bare name that
 * names exactly one path. Arrays, unions and refs are passed through transparently.
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

export function parseSelector(ws: SchemaWorkspace, raw: string): Selector {
  if (typeof raw !== "string" || raw.length === 0 || raw.split(".").some((s) => s.length === 0)) {
    throw new SluiceError("UNKNOWN_SELECTOR", `Selector ${JSON.stringify(raw)} is malformed: use a dotted path of property names such as "filter.and".`, {
      candidates: rootCandidates(ws),
    });
  }
  const segments = raw.split(".");
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

/** The locations a selector names, as (holder, property) pairs. With `split`, shared definitions on the way are copied first. */
export function locate(ws: SchemaWorkspace, selector: Selector, split: boolean): Array<{ holder: Located; key: string }> {
  let nodes: Located[] =
    selector.kind === "type"
      ? ws.defsOfType(selector.type!).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name) }))
      : [{ node: ws.root, pointer: "" }];
  const prefix: string[] = selector.kind === "type" ? [selector.type!] : [];
  for (let i = 0; i < selector.segments.length; i++) {
    const key = selector.segments[i]!;
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
    if (i === selector.segments.length - 1) return holders.map((holder) => ({ holder, key }));
    nodes = holders.map((holder) => {
      const child = (holder.node.properties as Record<string, unknown>)[key];
      return { node: isSchemaObject(child) ? child : {}, pointer: holder.pointer + "/properties/" + escapePointerSegment(key) };
    });
  }
  return [];
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
    stack.push(...next.reverse());
  }
  return { paths, complete: true };
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
