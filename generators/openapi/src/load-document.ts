import { createRequire } from "node:module";
import type { parseDocument as ParseDocument } from "yaml";
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
  assertNestingWithin(document, fileName);
  return document;
}

/**
 * How deep a document may nest. The deepest spec in our corpus nests 30 levels
 * (DigitalOcean); the conversion below recurses per level, so a hostile document is
 * refused here rather than overflowing the stack later.
 */
export const MAX_DOCUMENT_DEPTH = 256;

function assertNestingWithin(document: unknown, fileName: string): void {
  // Recursion is bounded by the limit itself (at most MAX_DOCUMENT_DEPTH + 1 frames), and
  // needs no [node, depth] pair per node of a 4 MB document.
  // Index loops over arrays and over Object.keys: no array of values per object (a 4 MB
  // document is some 200,000 objects), and no for-in, which would also follow anything
  // enumerable on Object.prototype.
  const visit = (value: object, depth: number): void => {
    if (depth > MAX_DOCUMENT_DEPTH) throw tooDeep(fileName);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const child: unknown = value[i];
        if (typeof child === "object" && child !== null) visit(child, depth + 1);
      }
      return;
    }
    const keys = Object.keys(value);
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

function parseYaml(text: string, fileName: string): unknown {
  // The YAML parser (70-odd modules) loads for YAML specs only; JSON specs never pay for it.
  const { parseDocument } = createRequire(import.meta.url)("yaml") as { parseDocument: typeof ParseDocument };
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  const error = document.errors[0];
  if (error !== undefined) {
    const position = error.linePos?.[0] ?? lineColumnFromOffset(text, error.pos[0]);
    const line = position.line;
    const column = position.col;
    throw new SluiceError("SPEC_INVALID", `${fileName}:${line}:${column}: malformed YAML: ${error.message.split("\n")[0]}`, { line, column, cause: error });
  }
  try {
    return document.toJS() as unknown;
  } catch (cause) {
    // e.g. too many alias expansions (a YAML "billion laughs" document).
    throw new SluiceError("SPEC_INVALID", `${fileName}: YAML cannot be converted to data: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

function lineColumnFromOffset(text: string, offset: number): { line: number; col: number } {
  const { line, column } = lineColumn(text, offset);
  return { line, col: column };
}

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}
