import { textTokens, type Encoding } from "@sluice/core/tokens";

export type CompactionMethod = "strip-annotations" | "strip-annotation-bytes" | "reduce-descriptions";

/** What a compaction did, in the terms a caller decides on: tokens, and whether the model loses anything. */
export interface CompactionReport {
  method: CompactionMethod;
  /** True when the model reads the same contract (only annotations it does not act on were removed). */
  lossless: boolean;
  encoding: Encoding;
  tokensBefore: number;
  /** Tokens of the returned text (equal to `tokensBefore` when not adopted). */
  tokensAfter: number;
  /** tokensAfter / tokensBefore, rounded to 4 decimals. */
  ratio: number;
  /** False when the input is returned untouched; `reason` says why. */
  adopted: boolean;
  reason?: "parse-error" | "not-a-tools-array" | "nothing-removed" | "not-smaller" | "nothing-reduced";
  /** The parser's message, when `reason` is `parse-error`. */
  error?: string;
}

export interface CompactionResult<R extends CompactionReport = CompactionReport> {
  text: string;
  report: R;
}

export interface CompactionOptions {
  /** Tokenizer used for the report and the adoption rule; `o200k_base` by default. */
  encoding?: Encoding;
  /**
   * Counts tokens instead of the built-in BPE counter, for a provider whose tokenizer
   * differs (the report then names `encoding` only as what was not used).
   */
  tokenCounter?: (text: string) => number;
}

export function tokenRatio(before: number, after: number): number {
  return before === 0 ? 1 : Math.round((after / before) * 10_000) / 10_000;
}

/** The token counter an options object asks for. */
export function tokenCounterOf(options: CompactionOptions): { encoding: Encoding; count: (text: string) => number } {
  const encoding = options.encoding ?? "o200k_base";
  return { encoding, count: options.tokenCounter ?? ((text) => textTokens(text, { encoding })) };
}

/** The report of a compaction that returns its input untouched, saying why. */
export function untouchedReport<M extends CompactionMethod, L extends boolean>(
  method: M,
  lossless: L,
  encoding: Encoding,
  tokens: number,
  reason: NonNullable<CompactionReport["reason"]>,
  error?: string,
): CompactionReport & { method: M; lossless: L } {
  return { method, lossless, encoding, tokensBefore: tokens, tokensAfter: tokens, ratio: 1, adopted: false, reason, ...(error === undefined ? {} : { error }) };
}

/** The report of an adopted compaction. */
export function adoptedReport<M extends CompactionMethod, L extends boolean>(
  method: M,
  lossless: L,
  encoding: Encoding,
  tokensBefore: number,
  tokensAfter: number,
): CompactionReport & { method: M; lossless: L } {
  return { method, lossless, encoding, tokensBefore, tokensAfter, ratio: tokenRatio(tokensBefore, tokensAfter), adopted: true };
}
