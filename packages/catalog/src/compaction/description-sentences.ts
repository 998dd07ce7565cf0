/**
 * Sentence splitting and constraint detection for API descriptions, tuned to what specs
 * actually contain: abbreviations (`e.g.`, `i.e.`, `etc.`, `vs.`), version numbers
 * (`1.2.3`), decimals (`0.5`), dotted names (`Node.js`, `api.github.com`) and URLs.
 */

// Lower-cased words that end with a period without ending a sentence.
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  "e.g.",
  "i.e.",
  "etc.",
  "vs.",
  "cf.",
  "approx.",
  "incl.",
  "esp.",
  "viz.",
  "al.",
  "inc.",
  "ltd.",
  "co.",
  "corp.",
  "jr.",
  "sr.",
  "mr.",
  "mrs.",
  "ms.",
  "dr.",
  "st.",
  "no.",
  "nos.",
  "fig.",
  "min.",
  "max.",
  "u.s.",
  "a.m.",
  "p.m.",
  "ex.",
  "eg.",
  "ie.",
]);

/**
 * A sentence states a constraint when it says what is required, allowed, bounded,
 * formatted, defaulted or exclusive. Deliberately wide: keeping a sentence that did not
 * need keeping costs a few tokens, dropping a constraint costs a failed call.
 */
export const CONSTRAINT_PATTERN =
  /\b(?:must|mustn[’']t|cannot|can[’']t|can ?not|won[’']t|don[’']t|do not|does not|doesn[’']t|required?|requires|requiring|only|at (?:least|most)|between|maximum|minimum|max|min|format(?:s|ted)?|exactly|mutually exclusive|exclusive|deprecated|defaults?|defaulted|not allowed|(?:dis)?allowed|limit(?:s|ed)?|up to|no (?:more|less|fewer) than|(?:greater|less|fewer|more|larger|smaller|longer|shorter) than|one of|either|neither|never|always|should(?:n[’']t)?|ignored?|unless|otherwise|not supported|unsupported|supported|unique|case[- ]?(?:in)?sensitive|length|characters?|range|positive|negative|non-?empty|empty|null|iso ?8601|rfc ?\d+|regex|pattern|in the form|scopes?|permissions?|needs?|valid|invalid|instead|if (?:not|omitted|unset|provided|set|specified|present|absent)|when (?:not|omitted|unset|provided|set|specified)|inclusive|combined|together|same as|at a time|per (?:page|request|call)|will be|fails?|error)\b/i;

export function statesConstraint(sentence: string): boolean {
  return CONSTRAINT_PATTERN.test(sentence);
}

/**
 * The sentences of a description, in order, each a trimmed slice of the text (a list
 * keeps its own line breaks); joining them with spaces loses only layout between them.
 */
export function splitSentences(text: string): string[] {
  const chunks: { start: number; end: number }[] = [];
  let start = 0;
  const push = (end: number): void => {
    const raw = text.slice(start, end);
    const trimmedStart = start + (raw.length - raw.trimStart().length);
    const trimmedEnd = end - (raw.length - raw.trimEnd().length);
    if (trimmedEnd > trimmedStart) chunks.push({ start: trimmedStart, end: trimmedEnd });
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") {
      // A blank line is a paragraph break.
      const blank = /^\n[ \t\r]*\n/.exec(text.slice(i, i + 64));
      if (blank !== null) {
        push(i);
        i += blank[0].length - 1;
      }
      continue;
    }
    if (c === "<") {
      // HTML block tags (Stripe writes descriptions in HTML) are layout: a break, then dropped.
      const tag = BLOCK_TAG.exec(text.slice(i, i + 16));
      if (tag !== null) {
        push(i);
        i += tag[0].length - 1;
        start = i + 1;
      }
      continue;
    }
    if (c !== "." && c !== "!" && c !== "?") continue;
    // Closing quotes and brackets belong to the sentence they end.
    let end = i + 1;
    while (end < text.length && /["')\]*_`]/.test(text[end]!)) end++;
    if (end < text.length && !/\s/.test(text[end]!) && !BLOCK_TAG.test(text.slice(end, end + 16))) continue; // 1.2.3, 0.5, Node.js, a URL
    if (c === "." && isAbbreviation(text, i)) continue;
    const next = /\S/.exec(text.slice(end, end + 8));
    if (next !== null && /[a-z]/.test(next[0])) continue; // lower case after the period: not a new sentence
    push(end);
    i = end - 1;
  }
  push(text.length);
  // A sentence introducing a list (`Can be one of:`) keeps the list, items included. Merged
  // sentences are one slice of the text unless a block tag sat between them.
  const merged: { start: number; end: number; text: string }[] = [];
  for (const chunk of chunks) {
    const piece = text.slice(chunk.start, chunk.end);
    const previous = merged[merged.length - 1];
    const continuesList = previous !== undefined && LIST_ITEM.test(piece) && (LIST_INTRO.test(previous.text) || LIST_ITEM.test(previous.text));
    if (previous !== undefined && (previous.text.endsWith(":") || continuesList)) {
      const between = text.slice(previous.end, chunk.start);
      previous.text += BLOCK_TAG_ANYWHERE.test(between) ? ` ${piece}` : `${between}${piece}`;
      previous.end = chunk.end;
    } else merged.push({ ...chunk, text: piece });
  }
  return merged.map((sentence) => sentence.text);
}

// Markdown bullets (GitHub escapes them as `\-`) and numbered items.
const LIST_ITEM = /^(?:\\?[-*•+]|\d+[.)])\s/;
const LIST_INTRO = /:\s*(?:\\?[-*•+]|\d+[.)])\s/;

const BLOCK_TAG = /^<\/?(?:p|br|li|ul|ol|div)\s*\/?>/i;
const BLOCK_TAG_ANYWHERE = /<\/?(?:p|br|li|ul|ol|div)\s*\/?>/i;

function isAbbreviation(text: string, periodIndex: number): boolean {
  let wordStart = periodIndex;
  while (wordStart > 0 && !/[\s(\["'`]/.test(text[wordStart - 1]!)) wordStart--;
  const word = text.slice(wordStart, periodIndex + 1).toLowerCase();
  return ABBREVIATIONS.has(word);
}

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes (an ellipsis included) on a code-point
 * boundary, preferring the last word boundary in the second half of the budget.
 */
export function capBytes(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const ellipsis = "…";
  const budget = maxBytes - utf8Length(ellipsis);
  let bytes = 0;
  let cut = 0;
  for (const codePoint of text) {
    const size = utf8Length(codePoint);
    if (bytes + size > budget) break;
    bytes += size;
    cut += codePoint.length;
  }
  let head = text.slice(0, cut);
  // Never end inside a markup tag (`<a href="…`).
  const open = head.lastIndexOf("<");
  if (open > head.lastIndexOf(">")) head = head.slice(0, open);
  const space = head.lastIndexOf(" ");
  if (space > 0 && utf8Length(head.slice(0, space)) >= budget / 2) head = head.slice(0, space);
  return `${head.trimEnd()}${ellipsis}`;
}
