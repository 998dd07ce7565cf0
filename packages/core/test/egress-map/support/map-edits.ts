/**
 * Random edits of a real egress map's text, for the property test that holds the check to
 * a frozen copy of its former self (check-egress-map-equivalence.test.ts; tier.ts decides
 * how many). Each edit is a plain record of numbers so that fast-check can shrink it, and
 * applying it is deterministic: the numbers pick a block, a line and a variant modulo what
 * there is. The edits are the ones a spec or projection change makes (a member or tool
 * added or taken away, a type widened or narrowed, a withheld or pinned argument changed, a
 * shared section used by many tools changed) and some no generator writes (lines or blocks
 * reordered, a section retargeted), since the committed side of a check is any text.
 */
import { splitLimits } from "../../../src/egress-map/compare-limits.ts";
import fc from "fast-check";

export const EDIT_KINDS = [
  "add-member",
  "add-argument",
  "widen-type",
  "narrow-type",
  "retarget-type",
  "delete-line",
  "unwithhold",
  "change-pin",
  "change-endpoint",
  "add-tool",
  "delete-tool",
  "shared-add-member",
  "shared-widen-type",
  "shared-delete-line",
  "delete-section",
  "section-heading",
  "reorder-lines",
  "reorder-blocks",
] as const;

export interface MapEdit {
  kind: (typeof EDIT_KINDS)[number];
  a: number;
  b: number;
  c: number;
}

export const mapEdit: fc.Arbitrary<MapEdit> = fc.record({
  kind: fc.constantFrom(...EDIT_KINDS),
  a: fc.nat(100_000),
  b: fc.nat(100_000),
  c: fc.nat(100_000),
});

/** A map as its header and its blocks (a tool, or a shared section), each a list of lines; joined, the same text. */
export interface MapBlocks {
  head: string;
  blocks: string[][];
  trailer: string;
}

export function toBlocks(text: string): MapBlocks {
  const trailer = text.endsWith("\n") ? "\n" : "";
  const chunks = text.slice(0, text.length - trailer.length).split("\n\n");
  const head = chunks[0]!.startsWith("#") ? chunks.shift()! : "";
  return { head, blocks: chunks.map((chunk) => chunk.split("\n")), trailer };
}

export function fromBlocks(map: MapBlocks): string {
  const chunks = map.blocks.map((block) => block.join("\n"));
  return [...(map.head === "" ? [] : [map.head]), ...chunks].join("\n\n") + map.trailer;
}

const isTool = (block: string[]) => block[0]!.startsWith("tool ");
const sectionName = (block: string[]) => /^type (\S+)/.exec(block[0]!)?.[1];
const WORDS = /[^\s()|&:[\],.]+/g;

/**
 * A window of a map: `count` tools from `start`, and the shared sections their text can
 * reach (by name, generously), so that a big pack's map checks in milliseconds and stays
 * the pack's own text.
 */
export function mapWindow(text: string, start: number, count: number): string {
  const map = toBlocks(text);
  const tools = map.blocks.filter(isTool);
  const sections = new Map(map.blocks.filter((block) => !isTool(block)).map((block) => [sectionName(block)!, block]));
  const from = tools.length <= count ? 0 : start % (tools.length - count + 1);
  const chosen = tools.slice(from, from + count);
  const keep = new Set<string>();
  const queue = chosen.flat();
  for (let head = 0; head < queue.length; head++) {
    for (const word of queue[head]!.match(WORDS) ?? []) {
      const block = sections.get(word);
      if (block === undefined || keep.has(word)) continue;
      keep.add(word);
      queue.push(...block);
    }
  }
  return fromBlocks({ ...map, blocks: [...chosen, ...map.blocks.filter((block) => !isTool(block) && keep.has(sectionName(block)!))] });
}

function pick<T>(list: readonly T[], n: number): T | undefined {
  return list.length === 0 ? undefined : list[n % list.length];
}

interface Line {
  block: number;
  index: number;
  indent: string;
  marker: string;
  path: string;
  type: string;
}

function lines(map: MapBlocks, filter: (block: string[], blockIndex: number) => boolean, markers: string): Line[] {
  const out: Line[] = [];
  map.blocks.forEach((block, blockIndex) => {
    if (!filter(block, blockIndex)) return;
    block.forEach((raw, index) => {
      const match = /^( +)([-+=<]) (.*)$/.exec(raw);
      if (match === null || !markers.includes(match[2]!)) return;
      const body = match[3]!;
      const split = body.indexOf(": ");
      out.push({ block: blockIndex, index, indent: match[1]!, marker: match[2]!, path: split < 0 ? body : body.slice(0, split), type: split < 0 ? "" : body.slice(split + 2) });
    });
  });
  return out;
}

/** The shared section whose name the rest of the map mentions most (the one a change reaches furthest from). */
function mostShared(map: MapBlocks): number | undefined {
  const counts = new Map<string, number>();
  for (const block of map.blocks) for (const raw of block) for (const word of raw.match(WORDS) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  let best: [number, number] | undefined;
  map.blocks.forEach((block, index) => {
    const name = sectionName(block);
    if (isTool(block) || name === undefined) return;
    const count = counts.get(name) ?? 0;
    if (best === undefined || count > best[1]) best = [index, count];
  });
  return best?.[0];
}

function sectionNames(map: MapBlocks): string[] {
  const names = new Set<string>();
  for (const block of map.blocks) for (const raw of block) for (const match of raw.matchAll(/^ *type (\S+)/g)) names.add(match[1]!);
  return [...names];
}

function widerType(type: string, n: number, names: readonly string[]): string {
  if (type.startsWith("enum: ") && n % 2 === 0) return `${type} | zz_new`;
  const choices = ["any", "string", "object", `${type} | null`, `${type} | string`, `${type}[]`, pick(names, n) ?? "object"];
  return pick(choices, Math.floor(n / 2))!;
}

function narrowerType(type: string, n: number): string {
  if (type.startsWith("enum: ") && type.includes(" | ")) return type.slice(0, type.lastIndexOf(" | "));
  if (type.includes(" | ")) return type.slice(0, type.lastIndexOf(" | "));
  return pick(["string (date-time)", "enum: a | b", "integer", "boolean"], n)!;
}

function setLine(map: MapBlocks, line: Line, text: string): void {
  map.blocks[line.block]![line.index] = text;
}

/** Applies one edit to the map in place; an edit with nothing to act on does nothing. */
export function applyEdit(map: MapBlocks, edit: MapEdit): void {
  const { a, b, c } = edit;
  const names = sectionNames(map);
  const toolIndexes = map.blocks.flatMap((block, index) => (isTool(block) ? [index] : []));
  const inTools = (block: string[]) => isTool(block);
  const shared = mostShared(map);
  const inShared = (_block: string[], index: number) => index === shared;
  const editLines = (filter: (block: string[], index: number) => boolean, action: "add" | "widen" | "delete") => {
    const line = pick(lines(map, filter, action === "delete" ? "+-=<" : "+"), a);
    if (line === undefined) return;
    if (action === "add") {
      const type = pick(["string", "any", "object", "integer", ...names.slice(0, 3)], c)!;
      const path = b % 3 === 0 && line.path.includes(".") ? `${line.path.slice(0, line.path.lastIndexOf("."))}.zz_new${c % 7}` : `${line.path}.zz_new${c % 7}`;
      map.blocks[line.block]!.splice(line.index + 1, 0, `${line.indent}+ ${path}: ${type}`);
    } else if (action === "widen") {
      setLine(map, line, `${line.indent}+ ${line.path}: ${widerType(line.type, b, names)}`);
    } else {
      map.blocks[line.block]!.splice(line.index, 1);
    }
  };
  switch (edit.kind) {
    case "add-member":
      return editLines(() => true, "add");
    case "add-argument": {
      const block = pick(toolIndexes, a);
      if (block !== undefined) map.blocks[block]!.splice(2, 0, `  + zz_arg${c % 5}: ${pick(["string", "any", ...names.slice(0, 2)], b)}`);
      return;
    }
    case "widen-type":
      return editLines(() => true, "widen");
    case "narrow-type": {
      const line = pick(lines(map, () => true, "+"), a);
      if (line !== undefined) setLine(map, line, `${line.indent}+ ${line.path}: ${narrowerType(line.type, b)}`);
      return;
    }
    case "retarget-type": {
      const line = pick(lines(map, () => true, "+"), a);
      const name = pick(names, b);
      if (line !== undefined && name !== undefined) setLine(map, line, `${line.indent}+ ${line.path}: ${c % 2 === 0 ? name : `${name}[]`}`);
      return;
    }
    case "delete-line":
      return editLines(() => true, "delete");
    case "unwithhold": {
      const line = pick(lines(map, inTools, "-"), a);
      if (line === undefined) return;
      if (b % 3 === 0) map.blocks[line.block]!.splice(line.index, 1);
      else if (b % 3 === 1) setLine(map, line, `${line.indent}+ ${line.path}: ${pick(["string", "any", ...names.slice(0, 2)], c)}`);
      else setLine(map, line, `${line.indent}- ${line.path}: zz reason`);
      return;
    }
    case "change-pin": {
      const line = pick(lines(map, inTools, "="), a);
      if (line === undefined) return;
      if (b % 2 === 0) setLine(map, line, `${line.indent}= ${line.path}: "zz"`);
      else setLine(map, line, `${line.indent}+ ${line.path}: string`);
      return;
    }
    case "change-endpoint": {
      const block = pick(toolIndexes, a);
      if (block === undefined) return;
      const at = map.blocks[block]!.findIndex((raw) => raw.startsWith("  endpoint "));
      if (at >= 0) map.blocks[block]![at] = `  endpoint POST /zz/${c % 9}`;
      return;
    }
    case "add-tool": {
      const block = pick(toolIndexes, a);
      if (block === undefined) return;
      const copy = [...map.blocks[block]!];
      copy[0] = `${copy[0]}_zz${c % 9}`;
      if (map.blocks.some((other) => other[0] === copy[0])) return;
      if (b % 2 === 0) copy.splice(2, 0, `  + zz_extra: ${pick(["string", ...names.slice(0, 2)], c)}`);
      map.blocks.splice(block + 1, 0, copy);
      return;
    }
    case "delete-tool": {
      const block = pick(toolIndexes, a);
      if (block !== undefined && toolIndexes.length > 1) map.blocks.splice(block, 1);
      return;
    }
    case "shared-add-member":
      return editLines(inShared, "add");
    case "shared-widen-type":
      return editLines(inShared, "widen");
    case "shared-delete-line":
      return editLines(inShared, "delete");
    case "delete-section": {
      // The most shared one, or any: a type no longer listed at the end.
      const sections = map.blocks.flatMap((block, index) => (isTool(block) ? [] : [index]));
      const at = b % 2 === 0 ? shared : pick(sections, a);
      if (at !== undefined) map.blocks.splice(at, 1);
      return;
    }
    case "section-heading": {
      const headings = map.blocks.flatMap((block, blockIndex) => block.flatMap((raw, index) => (/^ *type /.test(raw) ? [[blockIndex, index] as const] : [])));
      const at = pick(headings, a);
      if (at === undefined) return;
      const raw = map.blocks[at[0]]![at[1]]!;
      const variant = b % 3;
      map.blocks[at[0]]![at[1]] =
        variant === 0
          ? raw.includes(" (recursive)")
            ? raw.replace(" (recursive)", "")
            : raw.replace(/^( *type \S+)/, "$1 (recursive)")
          : variant === 1
            ? raw.replace(/^( *type \S+(?: \(recursive\))?)( includes [^:]+)?/, `$1 includes ${pick(names, c) ?? "Zz"}`)
            : raw.replace(/^( *type \S+(?: \(recursive\))?(?: includes [^:]+)?)(: .*)?$/, "$1: string");
      return;
    }
    case "reorder-lines": {
      const block = map.blocks[a % map.blocks.length]!;
      if (block.length < 3) return;
      const at = 1 + (b % (block.length - 2));
      [block[at], block[at + 1]] = [block[at + 1]!, block[at]!];
      return;
    }
    case "reorder-blocks": {
      if (map.blocks.length < 2) return;
      const at = a % (map.blocks.length - 1);
      [map.blocks[at], map.blocks[at + 1]] = [map.blocks[at + 1]!, map.blocks[at]!];
      return;
    }
  }
}

export function editMap(text: string, edits: readonly MapEdit[]): string {
  const map = toBlocks(text);
  for (const edit of edits) applyEdit(map, edit);
  return fromBlocks(map);
}

/**
 * The map without the limits after its lines' types (`  {required, maxLength 5}`): the map as
 * the frozen reference check (support/reference-*) was written for, which reads limits as part
 * of the type. The equivalence test compares the two checks on such maps, so the reference
 * still speaks for everything but limits; limits have their own tests (egress-limits*.test.ts).
 */
export function withoutLimits(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const plus = line.indexOf("+ ");
      if (plus < 0 || line.slice(0, plus).trim() !== "") return line;
      const colon = line.indexOf(": ", plus);
      if (colon < 0) return line;
      const split = splitLimits(line.slice(colon + 2));
      return split === undefined ? line : line.slice(0, colon + 2) + split.type;
    })
    .join("\n");
}
