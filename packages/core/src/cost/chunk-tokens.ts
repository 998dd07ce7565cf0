import { canonicalJson } from "@sluice/schema";
import { textTokens, type Encoding } from "../tokens.ts";

/**
 * Token counts of long JSON texts that differ from each other in a few places, without
 * re-tokenizing what they share.
 *
 * A BPE tokenizer first splits text into pre-tokens with one regular expression and then
 * encodes each pre-token on its own, so the count of a text is the sum of the counts of
 * its pre-tokens. Cutting a text where a pre-token always ends (whatever follows or
 * precedes) therefore keeps the count exact: count(a + b) = count(a) + count(b).
 *
 * Such a place, for both o200k_base and cl100k_base: just after `{"` or `,"` and before a
 * letter or digit (`,"name` cut as `,"` | `name`). The pre-token holding the `,` or `{`
 * can only be a run of punctuation (the word and number patterns take at most one
 * leading non-letter, and `"` is not a letter), that run swallows the `"` and stops at
 * the letter or digit, and nothing in the patterns looks behind. Between `}` and `,`, or
 * before `"$defs`, no such guarantee holds (`}},"` is one pre-token): those are never
 * cut points. The test of this counter checks both on real tools.
 */
export function isCutPoint(text: string, at: number): boolean {
  if (at < 2 || at >= text.length) return false;
  if (text.charCodeAt(at - 1) !== QUOTE) return false;
  const before = text.charCodeAt(at - 2);
  if (before !== COMMA && before !== OPEN_BRACE) return false;
  return startsWithLetterOrDigit(text, at);
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;

function startsWithLetterOrDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39)) return true;
  if (code < 0x80) return false;
  return LETTER_OR_DIGIT.test(text.slice(at, at + 2));
}

/**
 * Whether a key written right after `{"` or `,"` starts with a cut point (a letter or
 * digit): `isCutPoint` of the key in place, without making that text.
 */
export function startsPiece(key: string): boolean {
  return key.length > 0 && startsWithLetterOrDigit(key, 0);
}

/** Every cut point of `text`, ascending. */
export function cutPoints(text: string): number[] {
  const out: number[] = [];
  let at = text.indexOf('"', 1);
  while (at !== -1) {
    if (isCutPoint(text, at + 1)) out.push(at + 1);
    at = text.indexOf('"', at + 1);
  }
  return out;
}

/**
 * Counts texts as sums of pieces cut at cut points, remembering the count of every piece
 * and every whole text it saw. Meant to live for one measurement (one `paths()` call):
 * it holds the strings it was given, so it is never shared between calls.
 */
export class PieceCounter {
  readonly #encoding: Encoding;
  readonly #pieces = new Map<string, number>();
  readonly #texts = new Map<string, number>();
  // Per object, shared by everything counting with this counter (a report's totals and every pricer):
  // canonical texts, and counts of members as a `$defs` or `properties` text holds them.
  readonly #objectTexts = new WeakMap<object, string>();
  readonly #members = new WeakMap<object, Map<string, [number | undefined, number | undefined]>>();
  /** Characters handed to the tokenizer (for measurements and tests). */
  tokenizedChars = 0;

  constructor(encoding: Encoding, readonly cuts: (text: string) => number[] = cutPoints) {
    this.#encoding = encoding;
  }

  /** Tokens of `text`, exactly as `textTokens` counts them; the text and its count are remembered. */
  count(text: string): number {
    const known = this.#texts.get(text);
    if (known !== undefined) return known;
    const total = this.#sumOfPieces(text);
    this.#texts.set(text, total);
    return total;
  }

  /**
   * `count` for a text seen once (a whole tool, or what a price joined around its edits):
   * only its pieces are remembered, not the text, so a report's thousands of tools and
   * prices do not keep every text they counted alive (they were most of its heap growth
   * and of its scavenges' work).
   */
  countOnce(text: string): number {
    return this.#sumOfPieces(text);
  }

  #sumOfPieces(text: string): number {
    const cuts = this.cuts(text);
    let total = 0;
    let start = 0;
    for (let i = 0; i <= cuts.length; i++) {
      const cut = i < cuts.length ? cuts[i]! : text.length;
      if (cut <= start) continue;
      total += this.#piece(text.slice(start, cut));
      start = cut;
    }
    return total;
  }

  /**
   * Tokens of the concatenation of `parts`, cutting only where a cut point falls between
   * them or inside one. A number stands for a whole piece already counted: the caller
   * guarantees that it starts at a cut point and ends with `,"` before one.
   */
  countJoined(parts: ReadonlyArray<string | number>): number {
    let total = 0;
    let pending = "";
    // The last two characters before the next part, wherever they came from.
    let beforeLast = -1;
    let last = -1;
    for (const part of parts) {
      if (typeof part === "number") {
        if (pending.length > 0) total += this.countOnce(pending);
        pending = "";
        total += part;
        beforeLast = COMMA;
        last = QUOTE;
        continue;
      }
      if (part.length === 0) continue;
      if (pending.length > 0 && last === QUOTE && (beforeLast === COMMA || beforeLast === OPEN_BRACE) && startsWithLetterOrDigit(part, 0)) {
        total += this.countOnce(pending);
        pending = part;
      } else {
        pending += part;
      }
      if (part.length >= 2) {
        beforeLast = part.charCodeAt(part.length - 2);
      } else {
        beforeLast = last;
      }
      last = part.charCodeAt(part.length - 1);
    }
    return pending.length > 0 ? total + this.countOnce(pending) : total;
  }

  /**
   * `canonicalJson(value)`, remembered per object. Whoever counts with this counter never
   * edits an object after asking for its text (tools are frozen; projections make new ones).
   */
  textOf(value: unknown): string {
    if (typeof value !== "object" || value === null) return canonicalJson(value);
    let text = this.#objectTexts.get(value);
    if (text === undefined) this.#objectTexts.set(value, (text = canonicalJson(value)));
    return text;
  }

  /** Records the canonical text of a new object, computed another way (from the parts it shares with another). */
  remember(value: object, text: string): void {
    this.#objectTexts.set(value, text);
  }

  /**
   * Tokens of one object member, from its key's first character to the quote before the
   * next key: `key":<value>,"`, or with `closesObject` the last member of an object that a
   * sibling member follows (`key":<value>},"`). A whole piece (it starts and ends at cut
   * points when both keys start with a letter or digit; the caller checks), counted once
   * per value object and key for every tool that carries it.
   */
  memberCount(key: string, value: object, closesObject = false): number {
    let byKey = this.#members.get(value);
    if (byKey === undefined) this.#members.set(value, (byKey = new Map()));
    let pair = byKey.get(key);
    if (pair === undefined) byKey.set(key, (pair = [undefined, undefined]));
    const slot = closesObject ? 1 : 0;
    return (pair[slot] ??= this.count(`${JSON.stringify(key).slice(1)}:${this.textOf(value)}${closesObject ? '},"' : ',"'}`));
  }

  #piece(piece: string): number {
    let count = this.#pieces.get(piece);
    if (count === undefined) {
      count = textTokens(piece, { encoding: this.#encoding });
      this.tokenizedChars += piece.length;
      this.#pieces.set(detached(piece), count);
    }
    return count;
  }
}

/**
 * A copy of `text` that does not keep a longer string alive: V8 makes a slice of a long
 * string a view of it, and a remembered piece would hold its whole text (a price's joined
 * text) for the life of the counter.
 */
function detached(text: string): string {
  return text.length < 13 ? text : (" " + text).slice(1);
}
