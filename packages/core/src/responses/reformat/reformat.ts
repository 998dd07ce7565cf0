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

/** The text the model reads, and what each enabled reformatter did on the way. */
export interface Reformatted {
  text: string;
  stages: ReformatStage[];
}

/**
 * Runs the enabled reformatters over a text, in order, each on the output of the one
 * before. A stage's rewrite is adopted only when its inverse check passes and it has fewer
 * tokens (o200k_base, the real tokenizer) than its input; otherwise the stage reports why it
 * declined and the text goes on unchanged. Pure: the same text and choice give the same bytes.
 */
export function reformatText(text: string, enabled: readonly ReformatterName[] = enabledReformatters()): Reformatted {
  const stages: ReformatStage[] = [];
  if (enabled.length === 0) return { text, stages };
  let current = text;
  let tokens: number | undefined;
  const count = () => (tokens ??= textTokens(current));
  for (const reformatter of REFORMATTERS) {
    if (!enabled.includes(reformatter.name)) continue;
    if (current.length > MAX_REFORMAT_CHARS) {
      stages.push({ reformatter: reformatter.name, adopted: false, reason: `longer than ${MAX_REFORMAT_CHARS} characters`, tokensBefore: count(), tokensAfter: count() });
      continue;
    }
    let candidate;
    try {
      candidate = reformatter.apply(current);
    } catch (error) {
      // A reformatter's own failure never costs the answer: it passes on as it was.
      candidate = { declined: `failed (${(error as Error)?.message?.slice(0, 80) ?? String(error)})` };
    }
    const before = count();
    if ("declined" in candidate) {
      stages.push({ reformatter: reformatter.name, adopted: false, reason: candidate.declined, tokensBefore: before, tokensAfter: before });
      continue;
    }
    let verified = false;
    try {
      verified = candidate.verify();
    } catch {
      verified = false;
    }
    if (!verified) {
      stages.push({ reformatter: reformatter.name, adopted: false, reason: "its inverse does not give back the input", tokensBefore: before, tokensAfter: before });
      continue;
    }
    const after = textTokens(candidate.text);
    if (after >= before) {
      stages.push({ reformatter: reformatter.name, adopted: false, reason: `not smaller (${before} -> ${after} tokens)`, tokensBefore: before, tokensAfter: before });
      continue;
    }
    stages.push({ reformatter: reformatter.name, adopted: true, tokensBefore: before, tokensAfter: after });
    current = candidate.text;
    tokens = after;
  }
  return { text: current, stages };
}

/** The text of a handler's output as the model reads it: a string as it is, anything else as compact JSON. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  return JSON.stringify(output) ?? "null";
}
