/**
 * The contract every reformatter implements: given the text the model would read, either a
 * candidate rewrite with the check that proves it loses nothing, or the reason it declines.
 * The pipeline (reformat.ts) runs the check and the size gate; a reformatter knows neither
 * the others nor where its text came from.
 */
export type Candidate =
  | {
      text: string;
      /** The inverse check: true only when `text` gives back everything the input held. */
      verify: () => boolean;
    }
  | { declined: string };

export interface Reformatter {
  readonly name: ReformatterName;
  apply(text: string): Candidate;
}

/** Every reformatter, in the order they run. */
export const REFORMATTER_NAMES = ["text-clean", "compact-json", "path-fold", "toon"] as const;

export type ReformatterName = (typeof REFORMATTER_NAMES)[number];

/**
 * Which reformatters run: a name set to `true` or `false` overrides the default
 * (`DEFAULT_REFORMATTERS`), a name left out keeps it. A pack's choice applies to its tools,
 * a tool's own choice on top of that.
 */
export type ReformatChoice = Readonly<Partial<Record<ReformatterName, boolean>>>;

/** What one reformatter did with one text: its size before and after, in UTF-8 bytes and, when counted, o200k tokens (the real tokenizer). */
export interface ReformatStage {
  reformatter: ReformatterName;
  adopted: boolean;
  /** Why it declined (its gate, a failed inverse check, or no saving); absent when adopted. */
  reason?: string;
  bytesBefore: number;
  bytesAfter: number;
  /** Present when the call's tokens were counted (a collector or a log reads them; `reformatText` counts by default). */
  tokensBefore?: number;
  tokensAfter?: number;
}
