import { createRequire } from "node:module";
import { canonicalJson, SluiceError } from "@sluice/schema";
import type { ToolDefinition } from "./tool-definition.ts";

/**
 * Token counts with a real BPE tokenizer, offline (the ranks ship inside the package).
 * The counter is gpt-tokenizer: it gives the same counts as js-tiktoken on every tool of
 * the Linear and GitHub packs, in both encodings (test/token-counts.test.ts), and counts
 * 5 to 6 times faster (bench/RESULTS.md; 5.3x and 6.1x in two runs). This module is
 * its own entry point (`@sluice/core/tokens`) and loads an encoding's ranks on first
 * use, so importing the core loads no ranks at all.
 */
export type Encoding = "o200k_base" | "cl100k_base";

export interface TokenOptions {
  /** `o200k_base` (GPT-4o and later, the default) or `cl100k_base`. */
  encoding?: Encoding;
}

type CountTokens = (text: string, options: { disallowedSpecial: ReadonlySet<string> }) => number;

const ENCODING_MODULES: Readonly<Record<Encoding, string>> = {
  o200k_base: "gpt-tokenizer/encoding/o200k_base",
  cl100k_base: "gpt-tokenizer/encoding/cl100k_base",
};

// Special-token markers found in specs (`<|endoftext|>`) are counted as the plain text they are.
const NO_SPECIAL_TOKENS: ReadonlySet<string> = new Set();

const require = createRequire(import.meta.url);
const counters = new Map<Encoding, CountTokens>();

function counter(encoding: Encoding): CountTokens {
  let count = counters.get(encoding);
  if (count === undefined) {
    if (!Object.hasOwn(ENCODING_MODULES, encoding)) {
      throw new SluiceError("INVALID_OPTION", `Unknown encoding "${String(encoding)}"; use o200k_base or cl100k_base.`);
    }
    count = (require(ENCODING_MODULES[encoding]) as { countTokens: CountTokens }).countTokens;
    counters.set(encoding, count);
  }
  return count;
}

/** Tokens in a text. */
export function textTokens(text: string, options: TokenOptions = {}): number {
  return counter(options.encoding ?? "o200k_base")(text, { disallowedSpecial: NO_SPECIAL_TOKENS });
}

/**
 * Tokens of tool definitions as sent: name, description and input schema in canonical
 * compact JSON. An array is counted as one JSON array.
 */
export function schemaTokens(tools: ToolDefinition | readonly ToolDefinition[], options: TokenOptions = {}): number {
  const value = Array.isArray(tools) ? (tools as readonly ToolDefinition[]).map((t) => t.toJSON()) : (tools as ToolDefinition).toJSON();
  return textTokens(canonicalJson(value), options);
}
