import { textTokens } from "../../tokens.ts";
import { compactJson } from "./compact-json.ts";
import { foldPaths } from "./path-fold.ts";
import { inJsonStrings } from "./in-json-strings.ts";
import { enabledReformatters } from "./reformat-choice.ts";
import type { Reformatter, ReformatStage, ReformatterName } from "./reformatter.ts";
import { cleanText } from "./text-clean.ts";
import { toonText } from "./toon.ts";

const REFORMATTERS: readonly Reformatter[] = [
  { name: "text-clean", apply: inJsonStrings(cleanText) },
  { name: "compact-json", apply: compactJson },
  { name: "path-fold", apply: inJsonStrings(foldPaths) },
  { name: "toon", apply: toonText },
];

/** Texts longer than this are passed as they are: every stage reads the text several times and counts its tokens. */
export const MAX_REFORMAT_CHARS = 1 << 20;

/**
 * A BPE tokenizer encodes each pre-token (a run of letters, of punctuation, ...) in time
 * quadratic in its length: 20,000 `[` in a row take a second to count, 200,000 take minutes.
 * An answer is the API's to shape, so before any count the text's cost is bounded: the sum
 * of the squared lengths of its runs of one character class (an over-estimate of the
 * tokenizer's work) must stay under this, or the reformatters decline the text as it is.
 */
export const MAX_TOKENIZER_COST = 100_000_000;

/** The sum of squared run lengths of letters and of punctuation (whitespace breaks runs; digits come in threes). Linear. */
export function tokenizerCost(text: string): number {
  let cost = 0;
  let run = 0;
  let kind = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const k = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 ? 0 : c >= 0x30 && c <= 0x39 ? 2 : (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c >= 0x80 ? 1 : 3;
    if (k === kind && k !== 0) run++;
    else {
      cost += kind === 2 ? run * 3 : run * run;
      run = k === 0 ? 0 : 1;
      kind = k;
    }
  }
  return cost + (kind === 2 ? run * 3 : run * run);
}

/** The text the model reads, and what each enabled reformatter did on the way. */
export interface Reformatted {
  text: string;
  stages: ReformatStage[];
}

/** How `reformatText` reports. */
export interface ReformatOptions {
  /** Count each stage's tokens for its report (default true); `invoke` counts when a collector or a log will read them. */
  tokens?: boolean;
}

/**
 * Runs the enabled reformatters over a text, in order, each on the output of the one
 * before. A stage's rewrite is adopted only when its inverse check passes and it is smaller
 * than its input: in UTF-8 bytes for the passes that take characters out, in tokens
 * (o200k_base, the real tokenizer) for TOON, which changes the notation and can grow a text
 * in tokens while it shrinks in bytes. Otherwise the stage reports why it declined and the
 * text goes on unchanged. The decision never depends on `options`: the same text and choice
 * give the same bytes, counted or not, in any process.
 */
export function reformatText(text: string, enabled: readonly ReformatterName[] = enabledReformatters(), options: ReformatOptions = {}): Reformatted {
  const stages: ReformatStage[] = [];
  if (enabled.length === 0) return { text, stages };
  const counting = options.tokens !== false;
  const bytes = (t: string) => Buffer.byteLength(t, "utf8");
  // Declined before any count: too long to read several times, or too costly to count.
  const tooMuch = text.length > MAX_REFORMAT_CHARS ? `longer than ${MAX_REFORMAT_CHARS} characters` : tokenizerCost(text) > MAX_TOKENIZER_COST ? "holds runs too long to count its tokens in bounded time" : undefined;
  if (tooMuch !== undefined) {
    const size = bytes(text);
    return { text, stages: enabled.map((reformatter) => ({ reformatter, adopted: false, reason: tooMuch, bytesBefore: size, bytesAfter: size })) };
  }
  let current = text;
  let currentBytes = bytes(text);
  let tokens: number | undefined;
  const count = () => (tokens ??= textTokens(current));
  const declined = (name: ReformatterName, reason: string): ReformatStage => ({
    reformatter: name,
    adopted: false,
    reason,
    bytesBefore: currentBytes,
    bytesAfter: currentBytes,
    ...(counting ? { tokensBefore: count(), tokensAfter: count() } : {}),
  });
  for (const reformatter of REFORMATTERS) {
    if (!enabled.includes(reformatter.name)) continue;
    let candidate;
    try {
      candidate = reformatter.apply(current);
    } catch (error) {
      // A reformatter's own failure never costs the answer: it passes on as it was.
      candidate = { declined: `failed (${(error as Error)?.message?.slice(0, 80) ?? String(error)})` };
    }
    if ("declined" in candidate) {
      stages.push(declined(reformatter.name, candidate.declined));
      continue;
    }
    let verified = false;
    try {
      verified = candidate.verify();
    } catch {
      verified = false;
    }
    if (!verified) {
      stages.push(declined(reformatter.name, "its inverse does not give back the input"));
      continue;
    }
    if (tokenizerCost(candidate.text) > MAX_TOKENIZER_COST) {
      stages.push(declined(reformatter.name, "its rewrite holds runs too long to count in bounded time"));
      continue;
    }
    const afterBytes = bytes(candidate.text);
    let afterTokens: number | undefined;
    if (reformatter.name === "toon") {
      const before = count();
      afterTokens = textTokens(candidate.text);
      if (afterTokens >= before) {
        stages.push(declined(reformatter.name, `not smaller (${before} -> ${afterTokens} tokens)`));
        continue;
      }
    } else if (afterBytes >= currentBytes) {
      stages.push(declined(reformatter.name, `not smaller (${currentBytes} -> ${afterBytes} bytes)`));
      continue;
    }
    if (counting) afterTokens ??= textTokens(candidate.text);
    stages.push({
      reformatter: reformatter.name,
      adopted: true,
      bytesBefore: currentBytes,
      bytesAfter: afterBytes,
      ...(counting ? { tokensBefore: count(), tokensAfter: afterTokens! } : {}),
    });
    current = candidate.text;
    currentBytes = afterBytes;
    tokens = afterTokens;
  }
  return { text: current, stages };
}

/** The text of a handler's output as the model reads it: a string as it is, anything else as compact JSON. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  return JSON.stringify(output) ?? "null";
}
