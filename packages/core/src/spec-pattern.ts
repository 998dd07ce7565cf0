import { createRequire } from "node:module";
import type { RE2JS as RE2JSClass } from "re2js";
import { SluiceError } from "@sluice/schema";
import { guards } from "./guards.ts";

let engine: typeof RE2JSClass | undefined;

/** RE2JS (~260 kB), required on first use: importing a pack or sluice's CLI does not pay ~50 ms for it. */
function re2(): typeof RE2JSClass {
  engine ??= (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JSClass }).RE2JS;
  return engine;
}

/**
 * Regular expressions that come from specs (`pattern`, `patternProperties` keys, and through
 * them `propertyNames`) run here and nowhere else, on RE2JS, a linear-time engine: a
 * backtracking engine takes hours on `^(a+)+$` against a few dozen characters, and one such
 * call stalls every session of `sluice serve`.
 *
 * JSON Schema patterns are ECMA-262 regular expressions
 * (https://json-schema.org/draft/2020-12/json-schema-validation#section-6.3.3), and validators
 * compile them with the `u` flag. RE2 reads several constructs differently (`\s`, `.`, `[^]`,
 * `\p{..}` names, `\uXXXX`), so each pattern is parsed as ECMA syntax and written out again
 * in RE2 syntax with the ECMA meaning spelled out; look-aheads at the start anchor
 * (`^(?!A)(?=B)C`) become a conjunction of linear-time checks (`anchoredLookaheads`); what
 * RE2 cannot run in linear time (backreferences, any other lookaround) or cannot express (a
 * repetition count above 1000) is refused with a reason, never handed to a backtracking engine.
 */

/** What a pattern needs that the engine cannot do, or why it is not a pattern at all. */
export type SpecPatternProblem = { code: "PATTERN_INVALID" | "PATTERN_UNSUPPORTED"; reason: string };

export interface SpecPattern {
  /** The pattern as the spec wrote it. */
  readonly source: string;
  /** Unanchored search, as `RegExp.prototype.test` (JSON Schema patterns are not implicitly anchored). */
  test(text: string): boolean;
  toString(): string;
}

/** Whitespace as ECMA-262 `\s` means it (WhiteSpace and LineTerminator); RE2's `\s` lacks \v and the Unicode spaces. */
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const DIGIT: ReadonlyArray<readonly [number, number]> = [[0x30, 0x39]];
const WORD: ReadonlyArray<readonly [number, number]> = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** ECMA `.` without the `s` flag: anything but a line terminator. RE2's `.` excludes only \n. */
const LINE_TERMINATORS: ReadonlyArray<readonly [number, number]> = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const MAX_CODE_POINT = 0x10ffff;
/** RE2 refuses larger counts (and nested products above it). */
const MAX_REPEAT = 1000;

/** General_Category long names (ECMA accepts both) to the short names RE2 reads. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Letter: "L", Cased_Letter: "LC", Uppercase_Letter: "Lu", Lowercase_Letter: "Ll", Titlecase_Letter: "Lt", Modifier_Letter: "Lm", Other_Letter: "Lo",
  Mark: "M", Combining_Mark: "M", Nonspacing_Mark: "Mn", Spacing_Mark: "Mc", Enclosing_Mark: "Me",
  Number: "N", Decimal_Number: "Nd", digit: "Nd", Letter_Number: "Nl", Other_Number: "No",
  Punctuation: "P", punct: "P", Connector_Punctuation: "Pc", Dash_Punctuation: "Pd", Open_Punctuation: "Ps", Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi", Final_Punctuation: "Pf", Other_Punctuation: "Po",
  Symbol: "S", Math_Symbol: "Sm", Currency_Symbol: "Sc", Modifier_Symbol: "Sk", Other_Symbol: "So",
  Separator: "Z", Space_Separator: "Zs", Line_Separator: "Zl", Paragraph_Separator: "Zp",
  Other: "C", Control: "Cc", cntrl: "Cc", Format: "Cf", Surrogate: "Cs", Private_Use: "Co", Unassigned: "Cn",
};
const SHORT_CATEGORIES = new Set(Object.values(CATEGORY_ALIASES));

/** Sticky, so the parser reads at its position without copying the rest of the pattern. */
const BRACES = /\{(\d+)(,(\d*))?\}/y;
const TRAIL_SURROGATE = /\\u([dD][c-fC-F][0-9a-fA-F]{2})/y;

class Refusal extends Error {
  constructor(readonly code: SpecPatternProblem["code"], reason: string) {
    super(reason);
  }
}

type Ranges = Array<readonly [number, number]>;

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16).toUpperCase()}}`;
}

function literal(codePoint: number): string {
  // Letters and digits as themselves (readable sources in errors); everything else by code point,
  // which RE2 reads the same inside and outside a class.
  return /^[0-9A-Za-z]$/.test(String.fromCodePoint(codePoint)) ? String.fromCodePoint(codePoint) : hex(codePoint);
}

function complement(ranges: readonly (readonly [number, number])[]): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function rangeText(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");
}

function classOf(ranges: readonly (readonly [number, number])[]): string {
  // An empty set (ECMA `[]`) has no RE2 spelling as a class of nothing; a complement of everything is one.
  return ranges.length === 0 ? `[^${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[${rangeText(ranges)}]`;
}

/** Reads an ECMA-262 pattern (already known to compile with the `u` flag) and writes RE2 syntax. */
class Translator {
  #at = 0;
  constructor(readonly source: string) {}

  translate(): string {
    const out = this.#disjunction();
    if (this.#at < this.source.length) throw new Refusal("PATTERN_INVALID", `unexpected "${this.source[this.#at]}" at ${this.#at}`);
    return out;
  }

  #peek(offset = 0): string | undefined {
    return this.source[this.#at + offset];
  }

  #codePointAt(): number {
    const cp = this.source.codePointAt(this.#at)!;
    this.#at += cp > 0xffff ? 2 : 1;
    return cp;
  }

  #disjunction(): string {
    const parts = [this.#alternative()];
    while (this.#peek() === "|") {
      this.#at++;
      parts.push(this.#alternative());
    }
    return parts.join("|");
  }

  #alternative(): string {
    let out = "";
    while (this.#at < this.source.length && this.#peek() !== "|" && this.#peek() !== ")") {
      const start = this.#at;
      const atom = this.#term();
      out += atom.quantifiable ? atom.text + this.#quantifier(start) : atom.text;
    }
    return out;
  }

  #term(): { text: string; quantifiable: boolean } {
    const c = this.#peek()!;
    if (c === "^" || c === "$") {
      this.#at++;
      // Without the `m` flag both mean the ends of the whole text, as RE2's do without (?m).
      return { text: c, quantifiable: false };
    }
    if (c === "(") return { text: this.#group(), quantifiable: true };
    if (c === "[") return { text: this.#characterClass(), quantifiable: true };
    if (c === ".") {
      this.#at++;
      return { text: classOf(complement(LINE_TERMINATORS)), quantifiable: true };
    }
    if (c === "\\") {
      const next = this.#peek(1);
      if (next === "b" || next === "B") {
        // Both engines mean an ASCII word boundary here.
        this.#at += 2;
        return { text: `\\${next}`, quantifiable: false };
      }
      return { text: this.#atomEscape(), quantifiable: true };
    }
    return { text: literal(this.#codePointAt()), quantifiable: true };
  }

  #group(): string {
    const rest = this.source.slice(this.#at, this.#at + 4);
    if (rest.startsWith("(?=") || rest.startsWith("(?!")) throw new Refusal("PATTERN_UNSUPPORTED", `lookahead "${rest.slice(0, 3)}" at ${this.#at}`);
    if (rest.startsWith("(?<=") || rest.startsWith("(?<!")) throw new Refusal("PATTERN_UNSUPPORTED", `lookbehind "${rest}" at ${this.#at}`);
    if (rest.startsWith("(?:")) this.#at += 3;
    else if (rest.startsWith("(?<")) {
      const close = this.source.indexOf(">", this.#at);
      this.#at = close + 1; // a named group: only matching matters here, so it becomes a plain group
    } else if (rest.startsWith("(?")) throw new Refusal("PATTERN_UNSUPPORTED", `group syntax "${rest.slice(0, 3)}" at ${this.#at}`);
    else this.#at += 1;
    const inner = this.#disjunction();
    if (this.#peek() !== ")") throw new Refusal("PATTERN_INVALID", `unclosed group`);
    this.#at++;
    return `(?:${inner})`;
  }

  #quantifier(start: number): string {
    const c = this.#peek();
    let out: string;
    if (c === "*" || c === "+" || c === "?") {
      this.#at++;
      out = c;
    } else if (c === "{") {
      BRACES.lastIndex = this.#at;
      const match = BRACES.exec(this.source);
      if (match === null) return "";
      const min = Number(match[1]);
      const max = match[3] === undefined || match[3] === "" ? undefined : Number(match[3]);
      if (min > MAX_REPEAT || (max !== undefined && max > MAX_REPEAT)) {
        throw new Refusal("PATTERN_UNSUPPORTED", `repetition "${match[0]}" at ${this.#at} counts above ${MAX_REPEAT}, more than the linear-time engine expands (the atom starts at ${start})`);
      }
      this.#at += match[0].length;
      out = match[0];
    } else return "";
    if (this.#peek() === "?") {
      this.#at++;
      out += "?";
    }
    return out;
  }

  /** After a backslash outside a class. */
  #atomEscape(): string {
    const c = this.#peek(1)!;
    if (/[1-9]/.test(c)) throw new Refusal("PATTERN_UNSUPPORTED", `backreference "\\${c}" at ${this.#at}`);
    if (c === "k") throw new Refusal("PATTERN_UNSUPPORTED", `named backreference "\\k" at ${this.#at}`);
    const set = this.#classEscape();
    if (set.kind === "ranges") return set.ranges.length === 1 && set.ranges[0]![0] === set.ranges[0]![1] ? literal(set.ranges[0]![0]) : classOf(set.ranges);
    return set.text;
  }

  /**
   * A backslash escape, inside or outside a class, as a set of code points (or a Unicode
   * property RE2 names itself). Consumes the escape.
   */
  #classEscape(inClass = false): { kind: "ranges"; ranges: Ranges } | { kind: "property"; text: string } {
    this.#at++; // the backslash
    const c = this.#peek()!;
    const single = (cp: number) => ({ kind: "ranges" as const, ranges: [[cp, cp] as const] });
    switch (c) {
      case "d": this.#at++; return { kind: "ranges", ranges: [...DIGIT] };
      case "D": this.#at++; return { kind: "ranges", ranges: complement(DIGIT) };
      case "w": this.#at++; return { kind: "ranges", ranges: [...WORD] };
      case "W": this.#at++; return { kind: "ranges", ranges: complement(WORD) };
      case "s": this.#at++; return { kind: "ranges", ranges: [...WHITESPACE] };
      case "S": this.#at++; return { kind: "ranges", ranges: complement(WHITESPACE) };
      case "f": this.#at++; return single(0x0c);
      case "n": this.#at++; return single(0x0a);
      case "r": this.#at++; return single(0x0d);
      case "t": this.#at++; return single(0x09);
      case "v": this.#at++; return single(0x0b);
      case "b": this.#at++; return single(0x08); // only reached inside a class: backspace
      case "0": this.#at++; return single(0);
      case "c": {
        const letter = this.source.charCodeAt(this.#at + 1);
        this.#at += 2;
        return single(letter % 32);
      }
      case "x": {
        const cp = parseInt(this.source.slice(this.#at + 1, this.#at + 3), 16);
        this.#at += 3;
        return single(cp);
      }
      case "u": return single(this.#unicodeEscape());
      case "p":
      case "P": return this.#property(c === "P", inClass);
      default: {
        // Identity escapes of syntax characters (and `-` in a class): the character itself.
        return single(this.#codePointAt());
      }
    }
  }

  #unicodeEscape(): number {
    if (this.#peek(1) === "{") {
      const close = this.source.indexOf("}", this.#at);
      const cp = parseInt(this.source.slice(this.#at + 2, close), 16);
      this.#at = close + 1;
      return cp;
    }
    const lead = parseInt(this.source.slice(this.#at + 1, this.#at + 5), 16);
    this.#at += 5;
    // With `u`, an escaped surrogate pair is one code point.
    TRAIL_SURROGATE.lastIndex = this.#at;
    const trail = TRAIL_SURROGATE.exec(this.source);
    if (lead >= 0xd800 && lead <= 0xdbff && trail !== null) {
      this.#at += 6;
      return 0x10000 + ((lead - 0xd800) << 10) + (parseInt(trail[1]!, 16) - 0xdc00);
    }
    return lead;
  }

  #property(negated: boolean, _inClass: boolean): { kind: "property"; text: string } | { kind: "ranges"; ranges: Ranges } {
    const close = this.source.indexOf("}", this.#at);
    const body = this.source.slice(this.#at + 2, close);
    this.#at = close + 1;
    const [name, value] = body.includes("=") ? (body.split("=") as [string, string]) : [undefined, body];
    let re2Name: string | undefined;
    if (name === undefined || name === "General_Category" || name === "gc") {
      re2Name = SHORT_CATEGORIES.has(value) ? value : CATEGORY_ALIASES[value];
      if (re2Name === undefined && name === undefined) {
        if (value === "Any") return { kind: "ranges", ranges: negated ? [] : [[0, MAX_CODE_POINT]] };
        if (value === "ASCII") return { kind: "ranges", ranges: negated ? complement([[0, 0x7f]]) : [[0, 0x7f]] };
        throw new Refusal("PATTERN_UNSUPPORTED", `Unicode property "\\${negated ? "P" : "p"}{${body}}" (binary properties other than Any and ASCII have no RE2 equivalent)`);
      }
      // RE2 has no LC: cased letters are Lu, Ll and Lt.
      if (re2Name === "LC") return { kind: "property", text: negated ? "[^\\p{Lu}\\p{Ll}\\p{Lt}]" : "[\\p{Lu}\\p{Ll}\\p{Lt}]" };
    } else if (name === "Script" || name === "sc") {
      re2Name = value;
    }
    if (re2Name === undefined || !/^[A-Za-z_]+$/.test(re2Name)) {
      throw new Refusal("PATTERN_UNSUPPORTED", `Unicode property "\\${negated ? "P" : "p"}{${body}}" (Script_Extensions has no RE2 equivalent)`);
    }
    const text = `\\${negated ? "P" : "p"}{${re2Name}}`;
    try {
      re2().compile(text);
    } catch {
      throw new Refusal("PATTERN_UNSUPPORTED", `Unicode property "\\${negated ? "P" : "p"}{${body}}" (RE2 knows the script by its long name only)`);
    }
    return { kind: "property", text };
  }

  #characterClass(): string {
    this.#at++; // [
    let negated = false;
    if (this.#peek() === "^") {
      negated = true;
      this.#at++;
    }
    const ranges: Ranges = [];
    const properties: string[] = [];
    const atom = (): { ranges: Ranges } | { property: string } => {
      if (this.#peek() === "\\") {
        const set = this.#classEscape(true);
        return set.kind === "ranges" ? { ranges: set.ranges } : { property: set.text };
      }
      const cp = this.#codePointAt();
      return { ranges: [[cp, cp]] };
    };
    while (this.#peek() !== "]") {
      if (this.#at >= this.source.length) throw new Refusal("PATTERN_INVALID", "unclosed character class");
      const first = atom();
      if (this.#peek() === "-" && this.#peek(1) !== "]" && "ranges" in first && first.ranges.length === 1 && first.ranges[0]![0] === first.ranges[0]![1]) {
        this.#at++;
        const second = atom();
        if (!("ranges" in second) || second.ranges.length !== 1 || second.ranges[0]![0] !== second.ranges[0]![1]) throw new Refusal("PATTERN_INVALID", "class range with a class escape");
        ranges.push([first.ranges[0]![0], second.ranges[0]![0]]);
        continue;
      }
      if ("ranges" in first) ranges.push(...first.ranges);
      else properties.push(first.property);
    }
    this.#at++; // ]
    // Properties that are themselves classes ([\p{Lu}\p{Ll}\p{Lt}]) are inlined as their members.
    const propertyText = properties.map((p) => (p.startsWith("[") ? (p.startsWith("[^") ? undefined : p.slice(1, -1)) : p));
    if (propertyText.includes(undefined)) throw new Refusal("PATTERN_UNSUPPORTED", "a negated cased-letter property inside a class");
    const members = rangeText(ranges) + propertyText.join("");
    if (members === "") return negated ? classOf([[0, MAX_CODE_POINT]]) : classOf([]);
    return `[${negated ? "^" : ""}${members}]`;
  }
}

/** Checks a spec's pattern and writes it in RE2 syntax, or says why it cannot run here. */
export function translateSpecPattern(pattern: string): { ok: true; re2: string } | ({ ok: false } & SpecPatternProblem) {
  const verdict = compileSpecPattern(pattern);
  return verdict.ok ? { ok: true, re2: verdict.re2 } : verdict;
}

type Compiled = { test(text: string): boolean };

function compileSpecPattern(pattern: string): { ok: true; re2: string; compiled: Compiled } | ({ ok: false } & SpecPatternProblem) {
  try {
    // V8 parses (without running) in time linear in the pattern: the syntax check ECMA validators make.
    new RegExp(pattern, "u");
  } catch (error) {
    return { ok: false, code: "PATTERN_INVALID", reason: `not an ECMA-262 regular expression with the u flag (${(error as Error).message})` };
  }
  try {
    const source = new Translator(pattern).translate();
    return { ok: true, re2: source, compiled: re2().compile(source) };
  } catch (error) {
    if (error instanceof Refusal) {
      const decomposed = error.message.startsWith("lookahead") ? anchoredLookaheads(pattern) : undefined;
      if (decomposed !== undefined) return decomposed;
      return { ok: false, code: error.code, reason: error.message };
    }
    return { ok: false, code: "PATTERN_UNSUPPORTED", reason: `the linear-time engine cannot compile it (${(error as Error).message})` };
  }
}

/**
 * `^(?!A)(?=B)...C`, look-aheads at the start anchor and nowhere else, is a conjunction that
 * needs no look-around: the text matches `^C`, and `^(?:B)`, and not `^(?:A)` (a look-ahead at
 * position 0 asks exactly whether its body matches from the start). Each part runs on the
 * linear-time engine, so the whole stays linear. Sentry's slugs: `^(?![0-9]+$)[a-z0-9_\-]+$`.
 * Undefined when the pattern is of another shape (a look-ahead elsewhere, a top-level `|`
 * after the anchor, which would take the look-aheads into one branch only): it is refused.
 */
function anchoredLookaheads(pattern: string): { ok: true; re2: string; compiled: Compiled } | undefined {
  if (!pattern.startsWith("^")) return undefined;
  const checks: { negated: boolean; body: string }[] = [];
  let at = 1;
  while (pattern.startsWith("(?=", at) || pattern.startsWith("(?!", at)) {
    const close = closingParen(pattern, at);
    if (close === undefined) return undefined;
    checks.push({ negated: pattern[at + 2] === "!", body: pattern.slice(at + 3, close) });
    at = close + 1;
  }
  const rest = pattern.slice(at);
  if (checks.length === 0 || hasTopLevelBar(rest)) return undefined;
  try {
    const main = new Translator(`^${rest}`).translate();
    const parts = checks.map(({ negated, body }) => ({ negated, source: new Translator(`^(?:${body})`).translate() }));
    const compiledMain = re2().compile(main);
    const compiledParts = parts.map(({ negated, source }) => ({ negated, compiled: re2().compile(source) }));
    return {
      ok: true,
      re2: [main, ...parts.map(({ negated, source }) => `${negated ? "!" : ""}${source}`)].join(" && "),
      compiled: { test: (text) => compiledMain.test(text) && compiledParts.every(({ negated, compiled }) => compiled.test(text) !== negated) },
    };
  } catch {
    return undefined; // a part holds what the engine cannot run (another look-around, a backreference): refused as a whole
  }
}

/** Index of the `)` closing the group opened at `open`, skipping escapes and character classes. */
function closingParen(pattern: string, open: number): number | undefined {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === "\\") i += 1;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth += 1;
    else if (c === ")" && (depth -= 1) === 0) return i;
  }
  return undefined;
}

function hasTopLevelBar(pattern: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === "\\") i += 1;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth += 1;
    else if (c === ")") depth -= 1;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

const CACHE_LIMIT = 512;
/** Most recently used last; holds refusals too, so a hostile schema is not re-parsed on every call. */
const cache = new Map<string, SpecPattern | SpecPatternProblem>();

/** A spec's pattern compiled for the linear-time engine (cached, bounded), or the reason it cannot be. */
export function specPattern(pattern: string): SpecPattern | SpecPatternProblem {
  if (!guards.linearPatterns) return backtracking(pattern);
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  const translated = compileSpecPattern(pattern);
  let made: SpecPattern | SpecPatternProblem;
  if (translated.ok) {
    const { compiled } = translated;
    made = { source: pattern, test: (text) => compiled.test(text), toString: () => `re2:${pattern}` };
  } else {
    made = { code: translated.code, reason: translated.reason };
  }
  cache.set(pattern, made);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return made;
}

/** Mutation tests only (guard off): the backtracking engine the guard keeps out, uncached. */
function backtracking(pattern: string): SpecPattern | SpecPatternProblem {
  try {
    const native = new RegExp(pattern, "u");
    return { source: pattern, test: (text) => native.test(text), toString: () => `/${pattern}/u` };
  } catch (error) {
    return { code: "PATTERN_INVALID", reason: (error as Error).message };
  }
}

/** Whether `text` matches a spec's `pattern`; a pattern the engine cannot run fails closed with a coded error. */
export function specPatternTest(pattern: string, text: string, pointer?: string): boolean {
  const compiled = specPattern(pattern);
  if ("test" in compiled) return compiled.test(text);
  throw patternError(pattern, compiled, pointer);
}

export function patternError(pattern: string, problem: SpecPatternProblem, pointer?: string): SluiceError {
  const what = problem.code === "PATTERN_INVALID" ? "is not a valid regular expression" : "cannot run on the linear-time engine";
  return new SluiceError(problem.code, `The pattern ${JSON.stringify(pattern)} ${what}: ${problem.reason}. No value is checked against it with a backtracking engine; remove or rewrite the pattern.`, pointer === undefined ? {} : { pointer });
}

/**
 * Ajv's `code.regExp` engine (https://ajv.js.org/options.html#code): every `pattern`,
 * `patternProperties` key and `propertyNames` pattern Ajv compiles goes through here.
 * A pattern the engine cannot run makes the schema fail to compile (a coded error), so no
 * value is ever checked against it.
 */
export const ajvSpecRegExp = Object.assign(
  (pattern: string, _flags: string): { test: (text: string) => boolean; toString: () => string } => {
    const compiled = specPattern(pattern);
    if ("test" in compiled) return compiled;
    throw patternError(pattern, compiled);
  },
  { code: 'require("@sluice/core").ajvSpecRegExp' },
);
