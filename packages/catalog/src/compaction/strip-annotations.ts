import { createHash } from "node:crypto";
import { forEachSchemaNode, toolSchemas, toolsArray } from "./catalog-schemas.ts";
import { adoptedReport, tokenCounterOf, untouchedReport, type CompactionOptions, type CompactionReport, type CompactionResult } from "./compaction-report.ts";
import { JsonTextError, parseJsonText, serializeJsonNode, type JsonObject } from "./json-text.ts";

/**
 * Keywords a model does not act on when it writes arguments: identifiers, dialect,
 * comments, editor hints, sample values and access annotations (JSON Schema 2020-12
 * Core §8.2, §8.3; Validation §9). `description` and `default` carry meaning and stay.
 */
export const ANNOTATION_KEYWORDS: readonly string[] = [
  "$id",
  "$schema",
  "$comment",
  "deprecated",
  "examples",
  "example",
  "markdownDescription",
  "readOnly",
  "title",
  "writeOnly",
];

// Keywords that resolve against `$id` (and whose dialect `$schema` names): with any of
// these in a tool's schema, removing `$id`/`$schema` could change what a ref points at.
const REFERENCE_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$dynamicRef", "$anchor", "$dynamicAnchor"]);
const BASE_KEYWORDS: ReadonlySet<string> = new Set(["$id", "$schema"]);
const ANNOTATIONS: ReadonlySet<string> = new Set(ANNOTATION_KEYWORDS);

export interface StripAnnotationsReport extends CompactionReport {
  method: "strip-annotations";
  lossless: true;
  /** Schema members removed (counted also when the result is not adopted). */
  removed: number;
}

const MEMO_LIMIT = 64;
const memo = new Map<string, CompactionResult<StripAnnotationsReport>>();

/**
 * Removes annotation keywords from every tool's input schema, positionally (see
 * `forEachSchemaNode`), and returns compact JSON in which every other member keeps its
 * order and every literal its spelling. The tools array may be the root or a root
 * object's `tools`; anything outside the tools' schemas is copied as is.
 *
 * Adopted only when strictly smaller in tokens; otherwise, and for text that does not
 * parse, the input is returned untouched. Results are memoized by the input's SHA-256.
 */
export function stripAnnotations(catalogText: string, options: CompactionOptions = {}): CompactionResult<StripAnnotationsReport> {
  const { encoding, count } = tokenCounterOf(options);
  const key = options.tokenCounter === undefined ? `${encoding}:${createHash("sha256").update(catalogText).digest("hex")}` : undefined;
  if (key !== undefined) {
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
  }

  const tokensBefore = count(catalogText);
  const untouched = (removed: number, reason: NonNullable<CompactionReport["reason"]>, error?: string): CompactionResult<StripAnnotationsReport> => ({
    text: catalogText,
    report: { ...untouchedReport("strip-annotations", true, encoding, tokensBefore, reason, error), removed },
  });

  let result: CompactionResult<StripAnnotationsReport>;
  try {
    const root = parseJsonText(catalogText);
    const tools = toolsArray(root, true);
    if (tools === undefined) {
      result = untouched(0, "not-a-tools-array");
    } else {
      let removed = 0;
      for (const tool of tools.items) removed += stripToolSchemas(toolSchemas(tool));
      if (removed === 0) {
        result = untouched(0, "nothing-removed");
      } else {
        const text = serializeJsonNode(root);
        const tokensAfter = count(text);
        result =
          tokensAfter < tokensBefore
            ? {
                text,
                report: { ...adoptedReport("strip-annotations", true, encoding, tokensBefore, tokensAfter), removed },
              }
            : untouched(removed, "not-smaller");
      }
    }
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    result = untouched(0, "parse-error", error.message);
  }

  Object.freeze(result.report);
  Object.freeze(result);
  if (key !== undefined) {
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
    memo.set(key, result);
  }
  return result;
}

/** Removes the annotations from one tool's schemas (in place); returns how many members went. */
function stripToolSchemas(schemas: readonly JsonObject[]): number {
  let usesReferences = false;
  for (const schema of schemas) {
    forEachSchemaNode(schema, (node) => {
      if (node.members.some((member) => REFERENCE_KEYWORDS.has(member.key))) usesReferences = true;
    });
  }
  let removed = 0;
  for (const schema of schemas) {
    forEachSchemaNode(schema, (node) => {
      const kept = node.members.filter((member) => !ANNOTATIONS.has(member.key) || (usesReferences && BASE_KEYWORDS.has(member.key)));
      removed += node.members.length - kept.length;
      node.members = kept;
    });
  }
  return removed;
}
