import { forEachSchemaNode, toolBodies, toolSchemas, toolsArray } from "./catalog-schemas.ts";
import { adoptedReport, tokenCounterOf, untouchedReport, type CompactionOptions, type CompactionReport, type CompactionResult } from "./compaction-report.ts";
import { capBytes, splitSentences, statesConstraint, utf8Length } from "./description-sentences.ts";
import { JsonTextError, memberValue, parseJsonText, type JsonObject, type JsonString } from "./json-text.ts";

export interface ReduceDescriptionsOptions extends CompactionOptions {
  /** Descriptions of at most this many UTF-8 bytes are kept whole (160). */
  maxBytes?: number;
  /** The first sentence that states no constraint is cut to this many bytes (80). */
  leadBytes?: number;
}

export interface ReduceDescriptionsReport extends CompactionReport {
  method: "reduce-descriptions";
  lossless: false;
  /** Descriptions that were shortened. */
  reduced: number;
}

const DEFAULT_MAX_BYTES = 160;
const DEFAULT_LEAD_BYTES = 80;

/**
 * One description, reduced: at most `maxBytes` it stays; longer, it keeps every sentence
 * that states a constraint, whole and in order, plus the first other sentence capped at
 * `leadBytes`. Returned unchanged when that would not be shorter.
 */
export function reduceDescription(description: string, options: Pick<ReduceDescriptionsOptions, "maxBytes" | "leadBytes"> = {}): string {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const leadBytes = options.leadBytes ?? DEFAULT_LEAD_BYTES;
  if (utf8Length(description) <= maxBytes) return description;
  let leadTaken = false;
  const kept: string[] = [];
  for (const sentence of splitSentences(description)) {
    if (statesConstraint(sentence)) kept.push(sentence);
    else if (!leadTaken) {
      leadTaken = true;
      kept.push(capBytes(sentence, leadBytes));
    }
  }
  const reduced = kept.join(" ");
  return utf8Length(reduced) < utf8Length(description) ? reduced : description;
}

/**
 * Shortens long descriptions (lossy, opt-in): each tool's own `description` and every
 * `description` keyword of its input schemas (positionally: a property named
 * `description` is a name, not prose). Only description strings change, and only their
 * bytes are rewritten: names, types, `enum`, `required`, `default`, `const`, `$ref`
 * targets and every other byte of the text stay as they were.
 *
 * The tools array may be the root or a root object's `tools`. Text that does not parse,
 * or a catalog with nothing to shorten, is returned untouched.
 */
export function reduceDescriptions(catalogText: string, options: ReduceDescriptionsOptions = {}): CompactionResult<ReduceDescriptionsReport> {
  const { encoding, count } = tokenCounterOf(options);
  const untouched = (reason: NonNullable<CompactionReport["reason"]>, error?: string): CompactionResult<ReduceDescriptionsReport> => {
    return {
      text: catalogText,
      report: { ...untouchedReport("reduce-descriptions", false, encoding, count(catalogText), reason, error), reduced: 0 },
    };
  };

  const edits: { node: JsonString; text: string }[] = [];
  try {
    const root = parseJsonText(catalogText);
    const tools = toolsArray(root, true);
    if (tools === undefined) return untouched("not-a-tools-array");
    const consider = (holder: JsonObject): void => {
      const description = memberValue(holder, "description");
      if (description?.kind !== "string") return;
      const reduced = reduceDescription(description.value, options);
      if (reduced !== description.value) edits.push({ node: description, text: JSON.stringify(reduced) });
    };
    for (const tool of tools.items) {
      for (const body of toolBodies(tool)) consider(body);
      for (const schema of toolSchemas(tool)) forEachSchemaNode(schema, consider);
    }
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    return untouched("parse-error", error.message);
  }
  if (edits.length === 0) return untouched("nothing-reduced");

  // The same node can be reached twice only through duplicate schema members; edit it once.
  const unique = [...new Map(edits.map((edit) => [edit.node.start, edit])).values()].sort((a, b) => a.node.start - b.node.start);
  const pieces: string[] = [];
  let copiedTo = 0;
  for (const edit of unique) {
    pieces.push(catalogText.slice(copiedTo, edit.node.start), edit.text);
    copiedTo = edit.node.end;
  }
  pieces.push(catalogText.slice(copiedTo));
  const text = pieces.join("");

  const tokensBefore = count(catalogText);
  const tokensAfter = count(text);
  if (tokensAfter >= tokensBefore) return untouched("not-smaller");
  return {
    text,
    report: { ...adoptedReport("reduce-descriptions", false, encoding, tokensBefore, tokensAfter), reduced: unique.length },
  };
}
