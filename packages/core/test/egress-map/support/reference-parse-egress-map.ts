/**
 * FROZEN: parse-egress-map.ts as it was at 407eacf (imports and this note aside), which
 * the frozen check (reference-check-egress-map.ts) reads maps with, so that a change to
 * the parser is held to the former one by the same property test as the comparison.
 */
/**
 * Reads a formatted egress map (the text `formatEgressMap` writes) back into its parts:
 * tools with their lines, the type sections listed inside a tool, and the shared sections
 * at the end. The committed map is all `--check` has of the past, so the comparison
 * works on what this recovers; the current side goes through the same text.
 */
import { SluiceError } from "@sluice/schema";

export interface MapLine {
  /** Selector spelling as written: `filter.title`, `IssueFilter.and` inside a section. */
  path: string;
  /** The short type after the path (or, for `-`, the reason; for `=`, the pinned value). */
  type: string;
  /** 1-based line number in the map text. */
  line: number;
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
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!.replace(/\r$/, "");
    const line = index + 1;
    if (raw === "" || raw.startsWith("#")) continue;
    const indent = /^ */.exec(raw)![0].length;
    const body = raw.slice(indent);
    if (indent === 0) {
      section = undefined;
      tool = undefined;
      if (body.startsWith("tool ")) {
        const name = body.slice(5);
        if (tools.has(name)) fail(line, `tool ${name} is listed twice`);
        tool = { name, line, endpoint: "", visible: [], pins: [], withheld: [], fetched: [], sections: new Map() };
        tools.set(name, tool);
        continue;
      }
      const heading = sectionHeading(body, line) ?? fail(line, `"${body}" is neither a tool nor a type heading`);
      if (shared.has(heading.name)) fail(line, `type ${heading.name} is listed twice`);
      section = heading;
      shared.set(heading.name, heading);
      continue;
    }
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
    if (section !== undefined) {
      if (marker !== "+ ") fail(line, `a type section lists only + lines`);
      section.members.push(entry);
    } else if (marker === "+ ") tool!.visible.push(entry);
    else if (marker === "- ") tool!.withheld.push(entry);
    else tool!.pins.push(entry);
  }
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
