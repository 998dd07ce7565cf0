import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";
import cl100k_base from "js-tiktoken/ranks/cl100k_base";
import { canonicalJson, SluiceError } from "@sluice/schema";
import type { Tool } from "./tool.ts";

/**
 * Token counts with a real tokenizer (js-tiktoken, ranks bundled, offline). This module
 * is a separate entry point (`@sluice/core/tokens`) so that importing the core does not
 * load megabytes of ranks.
 */
export type Encoding = "o200k_base" | "cl100k_base";

export interface TokenOptions {
  /** `o200k_base` (GPT-4o and later, the default) or `cl100k_base`. */
  encoding?: Encoding;
}

const RANKS = { o200k_base, cl100k_base } as const;
const encoders = new Map<Encoding, Tiktoken>();

function encoder(encoding: Encoding): Tiktoken {
  let found = encoders.get(encoding);
  if (found === undefined) {
    const ranks = RANKS[encoding];
    if (ranks === undefined) throw new SluiceError("INVALID_OPTION", `Unknown encoding "${String(encoding)}"; use o200k_base or cl100k_base.`);
    found = new Tiktoken(ranks);
    encoders.set(encoding, found);
  }
  return found;
}

/** Tokens in a text. Special-token markers in specs are counted as plain text. */
export function textTokens(text: string, options: TokenOptions = {}): number {
  return encoder(options.encoding ?? "o200k_base").encode(text, [], []).length;
}

/**
 * Tokens of tool definitions as sent: name, description and input schema in canonical
 * compact JSON. An array is counted as one JSON array.
 */
export function schemaTokens(tools: Tool<object> | readonly Tool<object>[], options: TokenOptions = {}): number {
  const value = Array.isArray(tools) ? (tools as readonly Tool<object>[]).map((t) => t.toJSON()) : (tools as Tool<object>).toJSON();
  return textTokens(canonicalJson(value), options);
}
