/**
 * Every failure sluice reports is a SluiceError with a string code. Callers branch on
 * `code`, never on the message; the message is written for the person (or, for call
 * errors, the model) who has to act on it.
 */
export type ErrorCode =
  | "UNKNOWN_SELECTOR"
  | "AMBIGUOUS_SELECTOR"
  | "REQUIRED_DROPPED"
  | "PIN_INVALID"
  | "INVALID_NAME"
  | "INVALID_OPTION"
  | "UNRESOLVED_REF"
  | "EXTERNAL_REF"
  | "SPEC_INVALID"
  | "EGRESS_DENIED"
  | "PACK_NOT_FOUND"
  | "TOOL_NOT_FOUND"
  | "TOOL_NOT_LOADED"
  | "EGRESS_MAP_CHANGED"
  | "INVALID_ARGUMENTS"
  | "RECURSIVE_SCHEMA"
  | "INLINE_BUDGET_EXCEEDED"
  | "LOSSY_FIT_REFUSED";

export interface SluiceErrorDetails {
  /** JSON pointer of the schema location involved, when there is one. */
  pointer?: string;
  /** Valid alternatives, for unknown or ambiguous selectors. */
  candidates?: readonly string[];
  /** Line and column in a source document, for spec syntax errors. */
  line?: number;
  column?: number;
  cause?: unknown;
}

export class SluiceError extends Error {
  override readonly name = "SluiceError";
  readonly code: ErrorCode;
  readonly pointer: string | undefined;
  readonly candidates: readonly string[] | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(code: ErrorCode, message: string, details: SluiceErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.pointer = details.pointer;
    this.candidates = details.candidates;
    this.line = details.line;
    this.column = details.column;
  }
}

export function isSluiceError(value: unknown, code?: ErrorCode): value is SluiceError {
  return value instanceof SluiceError && (code === undefined || value.code === code);
}
