import { createRequire } from "node:module";
import { guards } from "@sluice/core/guards";
import { SluiceError } from "@sluice/schema";

/**
 * Parse an OpenAPI or Swagger document from JSON or YAML, detected by content (a JSON
 * document starts with `{`). Syntax errors are `SPEC_INVALID` with the line and column.
 * Only parses: never fetches, never resolves references.
 * https://spec.openapis.org/oas/v3.1.0#format
 */
export function loadDocument(input: string | Uint8Array, fileName = "document"): unknown {
  const decoded = typeof input === "string" ? input : new TextDecoder().decode(input);
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  let document: unknown;
  try {
    document = /^\s*[{[]/.test(text) ? parseJson(text, fileName) : parseYaml(text, fileName);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(fileName, error);
    throw error;
  }
  assertWithinLimits(document, fileName, expansionBudget(text.length));
  return document;
}

/**
 * How deep a document may nest. The deepest spec in our corpus nests 30 levels
 * (DigitalOcean); the conversion below recurses per level, so a hostile document is
 * refused here rather than overflowing the stack later.
 */
export const MAX_DOCUMENT_DEPTH = 256;

/**
 * How many members (object entries and array items, counted again each time a shared
 * value is reached) a document may have, for a text of `length` characters. Without YAML
 * aliases every member takes at least one character of its own, so a document within its
 * length always passes; aliases may repeat a value, and ten times the text leaves the
 * corpus's specs far inside (at most 0.4% of it used, bench/YAML-PARSE.md) while an alias
 * bomb (585 bytes that expand to 10^10 nodes) stops after a million steps. The parser shares an
 * aliased value instead of copying it, so the parse itself stays small; every later walk
 * of the document (this one first) pays the expansion, and this budget bounds it.
 */
export function expansionBudget(length: number): number {
  return Math.max(1_000_000, 10 * length);
}

function assertWithinLimits(document: unknown, fileName: string, budget: number): void {
  // Recursion is bounded by the depth limit itself (at most MAX_DOCUMENT_DEPTH + 1 frames),
  // and needs no [node, depth] pair per node of a 4 MB document.
  // Index loops over arrays and over Object.keys: no array of values per object (a 4 MB
  // document is some 200,000 objects), and no for-in, which would also follow anything
  // enumerable on Object.prototype.
  let members = 0;
  const counted = guards.yamlExpansionBudget;
  const visit = (value: object, depth: number): void => {
    if (depth > MAX_DOCUMENT_DEPTH) throw tooDeep(fileName);
    if (Array.isArray(value)) {
      members += value.length;
      if (counted && members > budget) throw tooLarge(fileName, budget);
      for (let i = 0; i < value.length; i += 1) {
        const child: unknown = value[i];
        if (typeof child === "object" && child !== null) visit(child, depth + 1);
      }
      return;
    }
    const keys = Object.keys(value);
    members += keys.length;
    if (counted && members > budget) throw tooLarge(fileName, budget);
    for (let i = 0; i < keys.length; i += 1) {
      const child: unknown = (value as Record<string, unknown>)[keys[i]!];
      if (typeof child === "object" && child !== null) visit(child, depth + 1);
    }
  };
  if (typeof document === "object" && document !== null) visit(document, 1);
}

function tooDeep(fileName: string, cause?: unknown): SluiceError {
  return new SluiceError("SPEC_INVALID", `${fileName}: the document nests deeper than ${MAX_DOCUMENT_DEPTH} levels; no API description needs that many.`, {
    ...(cause === undefined ? {} : { cause }),
  });
}

function tooLarge(fileName: string, budget: number): SluiceError {
  return new SluiceError(
    "SPEC_INVALID",
    `${fileName}: the document expands to more than ${budget} members (YAML aliases repeating values, an "alias bomb"); no API description needs that many.`,
  );
}

function parseJson(text: string, fileName: string): unknown {
  try {
    // JSON.parse keeps `__proto__` keys as own data properties.
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const offset = at === null ? text.length : Number(at[1]);
    const { line, column } = lineColumn(text, offset);
    throw new SluiceError("SPEC_INVALID", `${fileName}:${line}:${column}: malformed JSON: ${message}`, { line, column, cause: error });
  }
}

/** What this module uses of js-yaml (loaded on the first YAML spec). */
interface JsYaml {
  CORE_SCHEMA: unknown;
  load(text: string, options: { schema: unknown; json: boolean; maxDepth: number; filename: string }): unknown;
}

/** Where js-yaml's errors say the problem is (0-based), when they say. */
interface YamlMark {
  line?: number;
  column?: number;
}

function parseYaml(text: string, fileName: string): unknown {
  // js-yaml 4, not `yaml` (or js-yaml 5): on the 27 MB spec of issue 37 it parses in a fraction of
  // their time and memory, to the same data on every YAML spec of the corpus (bench/YAML-PARSE.md).
  // It loads for YAML specs only; JSON specs never pay for it. The YAML 1.2 core schema, as
  // `yaml` read specs: no timestamps turned into Dates, no merge keys. `json: true` keeps the
  // last of duplicate keys instead of refusing them, as before.
  const jsYaml = createRequire(import.meta.url)("js-yaml") as JsYaml;
  try {
    return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: true, maxDepth: MAX_DOCUMENT_DEPTH, filename: fileName });
  } catch (error) {
    const mark = (error as { mark?: YamlMark } | null)?.mark;
    const reason = (error as { reason?: unknown } | null)?.reason;
    const message = typeof reason === "string" ? reason : error instanceof Error ? error.message.split("\n")[0]! : String(error);
    if (typeof mark?.line === "number" && typeof mark.column === "number") {
      const line = mark.line + 1;
      const column = mark.column + 1;
      throw new SluiceError("SPEC_INVALID", `${fileName}:${line}:${column}: malformed YAML: ${message}`, { line, column, cause: error });
    }
    throw new SluiceError("SPEC_INVALID", `${fileName}: malformed YAML: ${message}`, { cause: error });
  }
}

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}
