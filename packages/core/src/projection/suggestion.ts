import type { Encoding } from "../tokens.ts";

/** What suggestProjection is asked, and what it answers. */
export interface SuggestOptions {
  /** Tokens: `schemaTokens` of the suggested projection is at most this. */
  budget: number;
  /** Selectors to keep: never dropped, nor anything containing them. */
  keep?: readonly string[];
  /** Default `o200k_base`. */
  encoding?: Encoding;
}

export interface Suggestion {
  tool: string;
  budget: number;
  /** `schemaTokens(tool.derived({ drop, keep }))`, counted on that tool. */
  tokens: number;
  drop: string[];
  /** `derived({ keep })` selectors; the search only drops, so this is empty. */
  keep: string[];
  /** In the order applied: the tokens each drop saved on the tool derived with the drops before it. */
  steps: Array<{ selector: string; saved: number }>;
}
