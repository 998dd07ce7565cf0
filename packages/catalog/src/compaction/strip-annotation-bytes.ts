import { forEachSchemaNode, toolSchemas } from "./catalog-schemas.ts";
import { adoptedReport, tokenCounterOf, untouchedReport, type CompactionOptions, type CompactionReport, type CompactionResult } from "./compaction-report.ts";
import { JsonTextError, parseJsonText, type JsonObject } from "./json-text.ts";

/** The annotations the byte-preserving strip removes. */
export const BYTE_STRIP_KEYWORDS: readonly string[] = ["$schema", "title", "examples", "deprecated"];
const STRIPPED: ReadonlySet<string> = new Set(BYTE_STRIP_KEYWORDS);

/** One cut: bytes [start, end) of the input's UTF-8 encoding, holding these members (and one comma). */
export interface RemovedSpan {
  start: number;
  end: number;
  members: readonly string[];
}

export interface StripAnnotationBytesReport extends CompactionReport {
  method: "strip-annotation-bytes";
  lossless: true;
  /** In input order; deleting exactly these byte ranges from the input gives the output. */
  removed: readonly RemovedSpan[];
}

interface CodeUnitSpan {
  start: number;
  end: number;
  members: string[];
}

/**
 * Cuts the members `$schema`, `title`, `examples` and `deprecated` out of the tools' input
 * schemas as byte spans of the original text and copies every other byte unchanged: key
 * order, whitespace, number spelling, escapes and the position of a `cache_control`
 * breakpoint all survive, so a provider's cached prefix changes only where a cut was made.
 *
 * The input must be one JSON array of tools. A tool is entered only through
 * `input_schema`, `inputSchema`, `parameters` or `function.parameters`, then only through
 * subschema positions. Invalid JSON, a second value after the array, or nothing to cut
 * returns the input untouched, which makes the function idempotent.
 */
export function stripAnnotationBytes(catalogText: string, options: CompactionOptions = {}): CompactionResult<StripAnnotationBytesReport> {
  const { encoding, count } = tokenCounterOf(options);
  const untouched = (reason: NonNullable<CompactionReport["reason"]>, error?: string): CompactionResult<StripAnnotationBytesReport> => {
    return {
      text: catalogText,
      report: { ...untouchedReport("strip-annotation-bytes", true, encoding, count(catalogText), reason, error), removed: [] },
    };
  };

  let spans: CodeUnitSpan[];
  try {
    const root = parseJsonText(catalogText);
    if (root.kind !== "array") return untouched("not-a-tools-array");
    spans = [];
    for (const tool of root.items) {
      for (const schema of toolSchemas(tool)) forEachSchemaNode(schema, (node) => spans.push(...cutsIn(node)));
    }
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    return untouched("parse-error", error.message);
  }
  if (spans.length === 0) return untouched("nothing-removed");

  spans.sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  let copiedTo = 0;
  for (const span of spans) {
    pieces.push(catalogText.slice(copiedTo, span.start));
    copiedTo = span.end;
  }
  pieces.push(catalogText.slice(copiedTo));
  const text = pieces.join("");

  const tokensBefore = count(catalogText);
  const tokensAfter = count(text);
  return {
    text,
    report: { ...adoptedReport("strip-annotation-bytes", true, encoding, tokensBefore, tokensAfter), removed: toByteOffsets(catalogText, spans) },
  };
}

/**
 * The spans to cut from one object so that what remains is still valid JSON with every
 * kept byte in place. Each run of consecutive removed members goes with the comma after
 * it (up to the next member's key), or, for a run at the end, with the comma before it
 * (from the end of the previous kept value). An object that loses every member keeps the
 * whitespace around them.
 */
function cutsIn(node: JsonObject): CodeUnitSpan[] {
  const { members } = node;
  const cuts: CodeUnitSpan[] = [];
  let index = 0;
  while (index < members.length) {
    if (!STRIPPED.has(members[index]!.key)) {
      index++;
      continue;
    }
    const first = index;
    while (index < members.length && STRIPPED.has(members[index]!.key)) index++;
    const last = index - 1;
    const names = members.slice(first, index).map((member) => member.key);
    const next = members[index];
    const previous = members[first - 1];
    if (next !== undefined) cuts.push({ start: members[first]!.start, end: next.start, members: names });
    else if (previous !== undefined) cuts.push({ start: previous.end, end: members[last]!.end, members: names });
    else cuts.push({ start: members[first]!.start, end: members[last]!.end, members: names });
  }
  return cuts;
}

/** Code-unit spans (sorted) as UTF-8 byte offsets of the same text. */
function toByteOffsets(text: string, spans: readonly CodeUnitSpan[]): RemovedSpan[] {
  const result: RemovedSpan[] = [];
  let unit = 0;
  let byte = 0;
  const advanceTo = (target: number): number => {
    byte += Buffer.byteLength(text.slice(unit, target), "utf8");
    unit = target;
    return byte;
  };
  for (const span of spans) {
    const start = advanceTo(span.start);
    const end = advanceTo(span.end);
    result.push({ start, end, members: span.members });
  }
  return result;
}
