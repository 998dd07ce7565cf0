/**
 * Finds credentials in text in any spelling an echo of them can take, without listing the
 * spellings. The text is read once into its decoded skeleton: every escape is replaced by
 * the character it stands for (percent-encoding and `%25` layers of it, JSON `\u` and
 * short escapes at any depth of backslashes, HTML named and numeric entities and `&amp;`
 * layers of them), whitespace (also escaped whitespace) is left out, and each skeleton
 * character remembers the span of the text it came from. Credentials are looked up in
 * the skeleton with `indexOf` and extended character by character, so the longest
 * leading run present is found; the spans found are replaced in the original text.
 *
 * Time is linear in the text: one decoding pass, then per credential form one native
 * substring search, each hit extended by at most the form's length.
 */

/** Values shorter than this are never redacted (a 3-letter password would blank out ordinary words). */
export const MIN_SECRET_LENGTH = 4;

/**
 * From this length on (whitespace aside), a value is matched in any letter case, across
 * inserted whitespace, as base64, and by any leading run of at least this many
 * characters. Shorter values (4 to 7 characters) are matched only whole, in exact case,
 * without inserted whitespace, and where no letter or digit touches them, so a short
 * password does not turn every word that contains it into `[redacted]`.
 */
export const PREFIX_LENGTH = 8;

/** The most characters an escape glued before a credential can take from it (`\\u` + 4 hex digits). */
const MAX_SWALLOWED = 4;

/** Base64 characters fully determined by the first {@link PREFIX_LENGTH} bytes of a value. */
const BASE64_PREFIX_LENGTH = Math.floor((PREFIX_LENGTH * 8) / 6);

/** One matchable spelling-independent form of a credential. */
interface Form {
  /** The skeleton to find (lower case when `fold`). */
  text: string;
  /** Its first `minimum` characters: what is searched for. */
  needle: string;
  /** Characters that must be present: a leading run this long, or the whole form. */
  minimum: number;
  /** Compared with the lower-cased skeleton. */
  fold: boolean;
  /** Short forms: whole, no whitespace inside, no letter or digit on either side in the text. */
  bounded: boolean;
  /** Base64: `=` padding after the whole form is redacted with it. */
  padded: boolean;
  /** A run from inside the value: counts only right after an escape (which may have swallowed the value's start). */
  afterEscape: boolean;
  /** Upper bound of the text length of a single-escaped spelling: how far past a cut the form can reach. */
  reach: number;
}

function isWhitespaceCode(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Two hex digits at `at` as a byte, or -1. */
function hexByte(text: string, at: number): number {
  const high = hexValue(text.charCodeAt(at));
  const low = hexValue(text.charCodeAt(at + 1));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

/** A percent-escape at `at` (with any `25` layers): its byte and where it ends, or undefined. */
function percentByte(text: string, at: number): { byte: number; end: number } | undefined {
  if (text.charCodeAt(at) !== 0x25) return undefined;
  let j = at + 1;
  // "%2541" is "%41" encoded again; "%25" alone is a percent sign.
  while (text.startsWith("25", j) && hexByte(text, j + 2) >= 0) j += 2;
  const byte = hexByte(text, j);
  return byte < 0 ? undefined : { byte, end: j + 2 };
}

/** A percent-encoded character at `at` (a UTF-8 sequence of escapes): its code point and end. */
function percentChar(text: string, at: number): { code: number; end: number } | undefined {
  const first = percentByte(text, at);
  if (first === undefined) return undefined;
  if (first.byte < 0x80) return { code: first.byte, end: first.end };
  const length = first.byte >= 0xf0 ? 4 : first.byte >= 0xe0 ? 3 : first.byte >= 0xc0 ? 2 : 0;
  if (length === 0) return undefined;
  const bytes = [first.byte];
  let end = first.end;
  for (let n = 1; n < length; n++) {
    const next = percentByte(text, end);
    if (next === undefined || (next.byte & 0xc0) !== 0x80) return undefined;
    bytes.push(next.byte);
    end = next.end;
  }
  const decoded = Buffer.from(bytes).toString("utf8");
  const code = decoded.codePointAt(0)!;
  return code === 0xfffd ? undefined : { code, end };
}

/** A JSON escape at `at` (a run of backslashes, then `uXXXX`, a short escape): what it stands for and its end. */
function jsonEscape(text: string, at: number): { code: number; end: number } | { gap: true; end: number } | undefined {
  let j = at;
  while (text.charCodeAt(j) === 0x5c) j++;
  const next = text.charCodeAt(j);
  if (next === 0x75) {
    let unit = 0;
    for (let k = 1; k <= 4; k++) {
      const digit = hexValue(text.charCodeAt(j + k));
      if (digit < 0) return undefined;
      unit = unit * 16 + digit;
    }
    let end = j + 5;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = jsonEscape(text, end);
      if (low !== undefined && "code" in low && low.code >= 0xdc00 && low.code <= 0xdfff) return { code: 0x10000 + ((unit - 0xd800) << 10) + (low.code - 0xdc00), end: low.end };
    }
    return { code: unit, end };
  }
  // n r t f v b: escaped whitespace (and backspace), a fold inside an escaped credential.
  if (next === 0x6e || next === 0x72 || next === 0x74 || next === 0x66 || next === 0x76 || next === 0x62) return { gap: true, end: j + 1 };
  if (next === 0x22 || next === 0x2f || next === 0x27) return { code: next, end: j + 1 };
  return undefined;
}

const NAMED: ReadonlyArray<readonly [string, number]> = [
  ["amp;", 0x26],
  ["lt;", 0x3c],
  ["gt;", 0x3e],
  ["quot;", 0x22],
  ["apos;", 0x27],
  ["nbsp;", 0xa0],
];

/** An HTML entity at `at` (named or numeric, under any `amp;` layers): its code point and end. */
function entity(text: string, at: number): { code: number; end: number } | undefined {
  let j = at + 1;
  for (;;) {
    if (text.charCodeAt(j) === 0x23) {
      const hex = text.charCodeAt(j + 1) === 0x78 || text.charCodeAt(j + 1) === 0x58;
      let k = hex ? j + 2 : j + 1;
      let code = 0;
      const digitsFrom = k;
      for (; k - digitsFrom < 8; k++) {
        const c = text.charCodeAt(k);
        const digit = hex ? hexValue(c) : c >= 0x30 && c <= 0x39 ? c - 0x30 : -1;
        if (digit < 0) break;
        code = code * (hex ? 16 : 10) + digit;
      }
      if (k === digitsFrom || text.charCodeAt(k) !== 0x3b || code > 0x10ffff) return undefined;
      return { code, end: k + 1 };
    }
    const named = NAMED.find(([name]) => text.startsWith(name, j));
    if (named === undefined) return undefined;
    const after = j + named[0].length;
    // "&amp;lt;" is "&lt;" escaped again: read through the layer when an entity follows it.
    if (named[1] === 0x26 && (text.charCodeAt(after) === 0x23 || NAMED.some(([name]) => text.startsWith(name, after)))) {
      j = after;
      continue;
    }
    return { code: named[1], end: after };
  }
}

function lowerUnit(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return c + 32;
  if (c < 0x80) return c;
  const lowered = String.fromCharCode(c).toLowerCase();
  return lowered.length === 1 ? lowered.charCodeAt(0) : c;
}

function lowerText(text: string): string {
  const lowered = text.toLowerCase();
  if (lowered.length === text.length) return lowered;
  // A few characters lower-case to two (U+0130): kept as they are, so positions stay aligned.
  let out = "";
  for (let i = 0; i < text.length; i++) out += String.fromCharCode(lowerUnit(text.charCodeAt(i)));
  return out;
}

/** Whitespace runs, and the characters that start an escape: everything else is copied as it is. */
const SPECIAL = /\s+|[%\\&]/g;

/** Segment tables shared by every reading (grown on demand): decoding runs on every string of every answer. */
let segmentAt = new Int32Array(256);
let segmentFrom = new Int32Array(256);
let segmentTo = new Int32Array(256);
let segmentLiteral = new Uint8Array(256);

function growSegments(): void {
  const grow = <T extends Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
    const out = make(old.length * 2);
    out.set(old);
    return out;
  };
  segmentAt = grow(segmentAt, (n) => new Int32Array(n));
  segmentFrom = grow(segmentFrom, (n) => new Int32Array(n));
  segmentTo = grow(segmentTo, (n) => new Int32Array(n));
  segmentLiteral = grow(segmentLiteral, (n) => new Uint8Array(n));
}

/**
 * A text read into its skeleton. The skeleton is a sequence of segments: a literal
 * segment maps its characters one to one onto the text, an escape segment maps its one
 * character (two for an astral code point) onto the whole escape. The segment tables are
 * shared: a reading is valid until the next one starts (`spans` uses one at a time).
 */
export class Skeleton {
  readonly plain: string;
  #lower: string | undefined;
  readonly #segments: number;

  constructor(text: string) {
    let plain = "";
    let n = 0;
    const segment = (piece: string, from: number, to: number, literal: boolean): void => {
      if (literal && n > 0 && segmentLiteral[n - 1] === 1 && segmentTo[n - 1] === from) segmentTo[n - 1] = to;
      else {
        if (n === segmentAt.length) growSegments();
        segmentAt[n] = plain.length;
        segmentFrom[n] = from;
        segmentTo[n] = to;
        segmentLiteral[n] = literal ? 1 : 0;
        n++;
      }
      plain += piece;
    };
    // One shared regex: the constructor never yields, so no other reading can interleave.
    const special = SPECIAL;
    special.lastIndex = 0;
    let copied = 0;
    for (let match = special.exec(text); match !== null; match = special.exec(text)) {
      const i = match.index;
      if (i > copied) segment(text.slice(copied, i), copied, i, true);
      const c = text.charCodeAt(i);
      if (c !== 0x25 && c !== 0x5c && c !== 0x26) {
        copied = i + match[0].length;
        continue;
      }
      let decoded: { code: number; end: number } | { gap: true; end: number } | undefined;
      if (c === 0x25) decoded = percentChar(text, i);
      else if (c === 0x5c) {
        decoded = jsonEscape(text, i);
        if (decoded === undefined) {
          // A run of backslashes before anything else stands for one backslash.
          let j = i;
          while (text.charCodeAt(j) === 0x5c) j++;
          decoded = { code: 0x5c, end: j };
        }
      } else decoded = entity(text, i);
      if (decoded === undefined) segment(text[i]!, i, i + 1, true);
      else if ("code" in decoded && !isWhitespaceCode(decoded.code)) segment(String.fromCodePoint(decoded.code), i, decoded.end, false);
      copied = decoded?.end ?? i + 1;
      special.lastIndex = copied;
    }
    if (copied === 0) segment(text, 0, text.length, true);
    else if (copied < text.length) segment(text.slice(copied), copied, text.length, true);
    this.plain = plain;
    this.#segments = n;
  }

  /** The skeleton in lower case, same length. */
  get lower(): string {
    this.#lower ??= lowerText(this.plain);
    return this.#lower;
  }

  #segmentOf(index: number): number {
    let low = 0;
    let high = this.#segments - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (segmentAt[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** Whether skeleton character `index` was read from an escape. */
  isEscape(index: number): boolean {
    return segmentLiteral[this.#segmentOf(index)] === 0;
  }

  /** Where skeleton character `index` starts in the text. */
  start(index: number): number {
    const s = this.#segmentOf(index);
    return segmentLiteral[s] === 1 ? segmentFrom[s]! + (index - segmentAt[s]!) : segmentFrom[s]!;
  }

  /** Where skeleton character `index` ends in the text. */
  end(index: number): number {
    const s = this.#segmentOf(index);
    return segmentLiteral[s] === 1 ? segmentFrom[s]! + (index - segmentAt[s]!) + 1 : segmentTo[s]!;
  }
}

/** Reads `text` into its skeleton (see the module comment). */
export function skeletonOf(text: string): Skeleton {
  return new Skeleton(text);
}

/** Length of the longest single-escaped spelling of each character, summed. */
function reachOf(value: string): number {
  let reach = 0;
  for (const char of value) reach += Math.max(3 * Buffer.byteLength(char, "utf8"), 6 * char.length, `&#${char.codePointAt(0)};`.length);
  return reach;
}

/** The skeletons a literal value is found as: whitespace left out; `+` for whitespace (form encoding); as its own escapes would decode. */
function textSkeletons(value: string): string[] {
  const out = new Set<string>();
  out.add(value.replace(/\s+/g, ""));
  if (/\s/.test(value)) out.add(value.replace(/\s+/g, "+"));
  // A value that itself looks escaped ("a%41b") is decoded when the text is read; so is it here.
  out.add(skeletonOf(value).plain);
  return [...out];
}

/** The base64 text of `bytes` starting `shift` bytes into a 3-byte group of a longer run, from the first character that does not depend on the bytes before. */
function base64Text(bytes: Buffer, shift: number): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
  // The last character also holds bits of what follows; it reads as here when the value
  // ends the run. Embedded further, the leading-run rule still finds all before it.
  return encoded.slice([0, 2, 3][shift]).replace(/=+$/, "");
}

/** Every form of a value (none when it is too short to redact). `withShortBase64`: a short value is also found as its whole base64 (a Basic pair). */
export function formsOf(value: string, withShortBase64 = false): Form[] {
  const trimmed = value.trim();
  const forms: Form[] = [];
  const reach = reachOf(trimmed);
  for (const text of textSkeletons(trimmed)) {
    if (text.length < MIN_SECRET_LENGTH) continue;
    const long = text.length >= PREFIX_LENGTH;
    const folded = long ? lowerText(text) : text;
    const minimum = long ? PREFIX_LENGTH : text.length;
    forms.push({ text: folded, needle: folded.slice(0, minimum), minimum, fold: long, bounded: !long, padded: false, afterEscape: false, reach });
    // An escape-like piece glued before a credential can swallow its first characters
    // ("%4" + "1abc…" reads as "A" + "bc…", "\\u" + "a1b2c3…" as one character + "c3…"):
    // runs starting up to 4 in count too, right after an escape. What was swallowed (at
    // most 4) stays visible.
    for (let skip = 1; long && skip <= MAX_SWALLOWED && folded.length - skip >= PREFIX_LENGTH; skip++) {
      const rest = folded.slice(skip);
      forms.push({ text: rest, needle: rest.slice(0, PREFIX_LENGTH), minimum: PREFIX_LENGTH, fold: true, bounded: false, padded: false, afterEscape: true, reach });
    }
  }
  const length = trimmed.replace(/\s+/g, "").length;
  if (length >= PREFIX_LENGTH) {
    const bytes = Buffer.from(trimmed, "utf8");
    for (const shift of [0, 1, 2]) {
      const text = base64Text(bytes, shift);
      for (const alphabet of [text, text.replace(/\+/g, "-").replace(/\//g, "_")]) {
        const minimum = Math.min(BASE64_PREFIX_LENGTH, alphabet.length);
        forms.push({ text: alphabet, needle: alphabet.slice(0, minimum), minimum, fold: false, bounded: false, padded: true, afterEscape: false, reach: alphabet.length + 2 });
      }
    }
  } else if (withShortBase64 && length >= MIN_SECRET_LENGTH) {
    const text = Buffer.from(trimmed, "utf8").toString("base64").replace(/=+$/, "");
    forms.push({ text, needle: text, minimum: text.length, fold: false, bounded: true, padded: true, afterEscape: false, reach: text.length + 2 });
  }
  return forms;
}

/** Spans sorted and merged where they overlap or touch. */
function merge(found: Array<[number, number]>): Array<[number, number]> {
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const span of found) {
    const previous = merged.at(-1);
    if (previous !== undefined && span[0] <= previous[1]) previous[1] = Math.max(previous[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

const NON_ASCII = /[^\x00-\x7f]/;
const ESCAPE_START = /[%\\&]/;
/** The same set as `isWhitespaceCode` (JavaScript's `\s`). */
const WHITESPACE_RUN = /\s+/g;

function needlesRegex(forms: readonly Form[], flags: string): RegExp | undefined {
  if (forms.length === 0) return undefined;
  return new RegExp([...new Set(forms.map((f) => f.needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))].join("|"), flags);
}

function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * The recorded credential forms of one call and the spans they occupy in a text.
 * Values are added as the call runtime hands credentials out.
 */
export class CredentialPattern {
  readonly #values = new Set<string>();
  readonly #forms = new Map<string, Form>();
  #sorted: Form[] | undefined;
  /** Every needle at once (case-insensitive ones, exact ones): one native pass rules out most texts. */
  #quick: { folded: RegExp | undefined; exact: RegExp | undefined } | undefined;

  get size(): number {
    return this.#values.size;
  }

  /** Upper bound of how many characters a single-escaped spelling of any value spans (0 when none). */
  get reach(): number {
    let reach = 0;
    for (const form of this.#forms.values()) reach = Math.max(reach, form.reach);
    return reach;
  }

  /** Records a value; `withShortBase64`: a short value is also found as its whole base64 (a Basic pair). */
  add(value: string, withShortBase64 = false): void {
    const key = `${withShortBase64 ? "b" : "t"}:${value}`;
    if (this.#values.has(key)) return;
    const forms = formsOf(value, withShortBase64);
    if (forms.length === 0) return;
    this.#values.add(key);
    for (const form of forms) {
      const id = `${form.fold ? "i" : "c"}${form.bounded ? "b" : "-"}${form.afterEscape ? "e" : "-"}${form.minimum}:${form.text}`;
      if (!this.#forms.has(id)) {
        this.#forms.set(id, form);
        this.#sorted = undefined;
        this.#quick = undefined;
      }
    }
  }

  /**
   * The spans `[start, end)` of `text` that hold a credential form, sorted and merged;
   * with `first`, stops at the first one found.
   */
  spans(text: string, first = false): Array<[number, number]> {
    if (this.#forms.size === 0 || text.length < MIN_SECRET_LENGTH) return [];
    this.#sorted ??= [...this.#forms.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, form]) => form);
    // Without escapes the skeleton is the text less its whitespace, read natively; most
    // texts are ruled out by that alone, before any segment is built.
    let skeleton = ESCAPE_START.test(text) ? skeletonOf(text) : undefined;
    if (!this.#mayHold(skeleton?.plain ?? text.replace(WHITESPACE_RUN, ""))) return [];
    skeleton ??= skeletonOf(text);
    const found: Array<[number, number]> = [];
    this.#find(text, skeleton, found, first);
    return first ? found.slice(0, 1) : merge(found);
  }

  /** Adds the spans of every form found in one reading of `text` to `found`; with `first`, stops at one. */
  #find(text: string, skeleton: Skeleton, found: Array<[number, number]>, first: boolean): void {
    for (const form of this.#sorted!) {
      const hay = form.fold ? skeleton.lower : skeleton.plain;
      if (hay.length < form.minimum) continue;
      for (let at = hay.indexOf(form.needle); at >= 0; at = hay.indexOf(form.needle, at + 1)) {
        let length = form.minimum;
        while (length < form.text.length && hay.charCodeAt(at + length) === form.text.charCodeAt(length)) length++;
        if (form.bounded && !this.#standsAlone(text, skeleton, at, length)) continue;
        if (form.afterEscape && (at === 0 || !skeleton.isEscape(at - 1))) continue;
        let last = at + length - 1;
        if (form.padded && length === form.text.length) for (let pad = 0; pad < 2 && hay.charCodeAt(last + 1) === 0x3d; pad++) last++;
        found.push([skeleton.start(at), skeleton.end(last)]);
        if (first) return;
      }
    }
  }

  /** False when no needle is in the skeleton (ASCII skeletons only: for others the regex's case rules and `lowerUnit` may differ). */
  #mayHold(plain: string): boolean {
    if (NON_ASCII.test(plain)) return true;
    this.#quick ??= {
      folded: needlesRegex(this.#sorted!.filter((f) => f.fold), "i"),
      exact: needlesRegex(this.#sorted!.filter((f) => !f.fold), ""),
    };
    return (this.#quick.folded?.test(plain) ?? false) || (this.#quick.exact?.test(plain) ?? false);
  }

  /** A short form counts only written in one piece (no whitespace inside) with no letter or digit touching it. */
  #standsAlone(text: string, skeleton: Skeleton, at: number, length: number): boolean {
    for (let i = at + 1; i < at + length; i++) {
      const from = skeleton.start(i);
      if (from !== skeleton.end(i - 1) && from !== skeleton.start(i - 1)) return false;
    }
    const from = skeleton.start(at);
    const to = skeleton.end(at + length - 1);
    return !(from > 0 && isWordCode(text.charCodeAt(from - 1))) && !(to < text.length && isWordCode(text.charCodeAt(to)));
  }
}
