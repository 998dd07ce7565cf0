/**
 * Reads a formatted egress map (the text `formatEgressMap` writes) back into its parts:
 * tools with their lines, the type sections listed inside a tool, and the shared sections
 * at the end. The committed map is all `--check` has of the past, so the comparison
 * works on what this recovers; the current side goes through the same text.
 */
import { SluiceError } from "@sluice/schema";
import { splitLimits } from "./compare-limits.ts";

export interface MapLine {
  /** Selector spelling as written: `filter.title`, `IssueFilter.and` inside a section. */
  path: string;
  /** The short type after the path (or, for `-`, the reason; for `=`, the pinned value). */
  type: string;
  /** 1-based line number in the map text. */
  line: number;
  /** A `+` line's limits, as listed after its type (`{required, maxLength 255}`), when it has any. */
  limits?: string[];
}

export interface ParsedSection {
  name: string;
  recursive: boolean;
  includes: string[];
  /** A member-less type's values or base type (`type Status: enum: a | b`). */
  type?: string;
  /** `+` lines, paths starting with `<name>.`. */
  members: MapLine[];
  line: number;
}

export interface ParsedTool {
  name: string;
  line: number;
  endpoint: string;
  visible: MapLine[];
  pins: MapLine[];
  withheld: MapLine[];
  /** `<` lines: `path` is the fetched field, `type` is empty. */
  fetched: MapLine[];
  /** Sections particular to this tool (listed inside it). */
  sections: Map<string, ParsedSection>;
}

export interface ParsedEgressMap {
  tools: Map<string, ParsedTool>;
  /** Sections with one shape in every tool that lists them (at the end of the map). */
  shared: Map<string, ParsedSection>;
}

/** The text each tool and shared section was read from: see `sourceText`. */
const sources = new WeakMap<ParsedTool | ParsedSection, string>();

/**
 * The lines a tool or a shared section of a parsed map was read from, as one slice of the
 * map's text (from its heading to its last line, comments and blank lines between included,
 * line numbers not): two parts with the same text parse to the same content, whatever their
 * place in the map. Undefined for a part not made by `parseEgressMap`.
 */
export function sourceText(part: ParsedTool | ParsedSection): string | undefined {
  return sources.get(part);
}

const HEADING = /^type (\S+)( \(recursive\))?(?: includes (.+?))?(?:: (.*))?$/;

/** Parses a map; a line it cannot place is an EGRESS_MAP_INVALID error naming the line. */
export function parseEgressMap(text: string, label = "egress map"): ParsedEgressMap {
  const tools = new Map<string, ParsedTool>();
  const shared = new Map<string, ParsedSection>();
  let tool: ParsedTool | undefined;
  let section: ParsedSection | undefined;
  const fail = (line: number, why: string): never => {
    throw new SluiceError("EGRESS_MAP_INVALID", `${label}, line ${line}: ${why}; write the map again with sluice egress --out.`, { line });
  };
  const lines = text.split("\n");
  // The block being read (a tool or a shared section): where its text starts and ends.
  let block: ParsedTool | ParsedSection | undefined;
  let blockStart = 0;
  let blockEnd = 0;
  let offset = 0;
  for (let index = 0; index < lines.length; index++) {
    const start = offset;
    const whole = lines[index]!;
    offset += whole.length + 1;
    const raw = whole.endsWith("\r") ? whole.slice(0, -1) : whole;
    const line = index + 1;
    if (raw === "" || raw.startsWith("#")) continue;
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    const body = indent === 0 ? raw : raw.slice(indent);
    if (indent === 0) {
      section = undefined;
      tool = undefined;
      if (block !== undefined) sources.set(block, text.slice(blockStart, blockEnd));
      block = undefined;
      blockStart = start;
      blockEnd = start + whole.length;
      if (body.startsWith("tool ")) {
        const name = body.slice(5);
        if (tools.has(name)) fail(line, `tool ${name} is listed twice`);
        tool = { name, line, endpoint: "", visible: [], pins: [], withheld: [], fetched: [], sections: new Map() };
        tools.set(name, tool);
        block = tool;
        continue;
      }
      const heading = sectionHeading(body, line) ?? fail(line, `"${body}" is neither a tool nor a type heading`);
      if (shared.has(heading.name)) fail(line, `type ${heading.name} is listed twice`);
      section = heading;
      shared.set(heading.name, heading);
      block = heading;
      continue;
    }
    blockEnd = start + whole.length;
    if (tool !== undefined && indent === 2) {
      section = undefined;
      if (body.startsWith("endpoint ")) {
        tool.endpoint = body.slice(9);
        continue;
      }
      if (body.startsWith("type ")) {
        const heading = sectionHeading(body, line) ?? fail(line, `"${body}" is not a type heading`);
        if (tool.sections.has(heading.name)) fail(line, `type ${heading.name} is listed twice in tool ${tool.name}`);
        section = heading;
        tool.sections.set(heading.name, heading);
        continue;
      }
    }
    // Inside a tool: two spaces for its own lines, four for the members of its sections.
    const memberIndent = tool !== undefined && section !== undefined ? 4 : 2;
    const marker = body.slice(0, 2);
    if (indent !== memberIndent || (tool === undefined && section === undefined)) fail(line, `"${body}" is outside any tool or type`);
    if (marker === "< " && section === undefined) {
      tool!.fetched.push({ path: body.slice(2), type: "", line });
      continue;
    }
    if (marker !== "+ " && marker !== "- " && marker !== "= ") fail(line, `"${body}" starts with neither +, -, = nor <`);
    // Types and reasons may hold ": " (`enum: a | b`); a path holds one only inside a quoted name, so the first outside quotes splits.
    const rest = body.slice(2);
    const split = separatorAt(rest);
    const entry: MapLine = split < 0 ? { path: rest, type: "", line } : { path: rest.slice(0, split), type: rest.slice(split + 2), line };
    if (marker === "+ ") {
      const limited = splitLimits(entry.type);
      if (limited !== undefined) {
        entry.type = limited.type;
        entry.limits = limited.limits;
      }
    }
    if (section !== undefined) {
      if (marker !== "+ ") fail(line, `a type section lists only + lines`);
      section.members.push(entry);
    } else if (marker === "+ ") tool!.visible.push(entry);
    else if (marker === "- ") tool!.withheld.push(entry);
    else tool!.pins.push(entry);
  }
  if (block !== undefined) sources.set(block, text.slice(blockStart, blockEnd));
  return { tools, shared };
}

function sectionHeading(body: string, line: number): ParsedSection | undefined {
  const match = HEADING.exec(body);
  if (match === null) return undefined;
  const section: ParsedSection = { name: match[1]!, recursive: match[2] !== undefined, includes: match[3] === undefined ? [] : match[3].split(", "), members: [], line };
  if (match[4] !== undefined) section.type = match[4];
  return section;
}

/** The first ": " of a map line's text that is not inside a quoted name (`body."a: b": string`), or -1. */
function separatorAt(text: string): number {
  // Most lines have no quoted name, or none before the separator.
  const first = text.indexOf(": ");
  const quote = text.indexOf('"');
  if (quote < 0 || (first >= 0 && first < quote)) return first;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if (char === ":" && text[i + 1] === " ") {
      return i;
    }
  }
  return -1;
}
