/**
 * Generates a string matching a simple regular expression, for schema `pattern`s such as
 * Slack's `^[CGD][A-Z0-9]{8,}$` or Stripe's `^/v1/customers`. Only the plain subset
 * (literals, escapes, classes, groups, alternation, quantifiers) is understood; anything
 * else gives undefined, and so does a result the real RegExp rejects.
 */
import type { Rng } from "./text.ts";

const DIGITS = "0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const WORD = UPPER + LOWER + DIGITS + "_";

class Unsupported extends Error {}

interface Cursor {
  text: string;
  at: number;
}

function classChars(c: Cursor): string {
  // c.at is just past "["
  let negate = false;
  if (c.text[c.at] === "^") {
    negate = true;
    c.at++;
  }
  let chars = "";
  let first = true;
  while (c.at < c.text.length && (c.text[c.at] !== "]" || first)) {
    first = false;
    const ch = c.text[c.at++]!;
    if (ch === "\\") {
      const esc = c.text[c.at++]!;
      if (esc === "d") chars += DIGITS;
      else if (esc === "w") chars += WORD;
      else if (esc === "s") chars += " ";
      else chars += esc;
      continue;
    }
    if (c.text[c.at] === "-" && c.text[c.at + 1] !== undefined && c.text[c.at + 1] !== "]") {
      let end = c.text[c.at + 1]!;
      c.at += 2;
      if (end === "\\") end = c.text[c.at++]!;
      for (let code = ch.charCodeAt(0); code <= end.charCodeAt(0); code++) chars += String.fromCharCode(code);
      continue;
    }
    chars += ch;
  }
  if (c.text[c.at] !== "]") throw new Unsupported("unclosed class");
  c.at++;
  if (negate) return [...(LOWER + DIGITS)].filter((ch) => !chars.includes(ch)).join("") || "x";
  return chars || "x";
}

/** Parses one alternative sequence until `)` or end; returns a generator for it. */
function sequence(c: Cursor, rng: Rng): () => string {
  const parts: (() => string)[] = [];
  while (c.at < c.text.length && c.text[c.at] !== ")" && c.text[c.at] !== "|") {
    const ch = c.text[c.at++]!;
    let atom: () => string;
    if (ch === "(") {
      if (c.text[c.at] === "?") {
        if (c.text[c.at + 1] !== ":") throw new Unsupported("lookaround or named group");
        c.at += 2;
      }
      const alternatives = [sequence(c, rng)];
      while (c.text[c.at] === "|") {
        c.at++;
        alternatives.push(sequence(c, rng));
      }
      if (c.text[c.at] !== ")") throw new Unsupported("unclosed group");
      c.at++;
      atom = alternatives[0]!;
    } else if (ch === "[") {
      const chars = classChars(c);
      atom = () => chars[Math.floor(rng.next() * chars.length)]!;
    } else if (ch === "\\") {
      const esc = c.text[c.at++];
      if (esc === undefined) throw new Unsupported("trailing backslash");
      if (esc === "d") atom = () => DIGITS[rng.int(0, 9)]!;
      else if (esc === "w") atom = () => WORD[rng.int(0, WORD.length - 1)]!;
      else if (esc === "s") atom = () => " ";
      else if (/[bBDWSpPk0-9]/.test(esc)) throw new Unsupported(`escape \\${esc}`);
      else atom = () => esc;
    } else if (ch === ".") {
      atom = () => LOWER[rng.int(0, 25)]!;
    } else if (ch === "^" || ch === "$") {
      continue;
    } else if ("*+?{".includes(ch)) {
      throw new Unsupported("dangling quantifier");
    } else {
      atom = () => ch;
    }
    // Quantifier
    let min = 1;
    let max = 1;
    const q = c.text[c.at];
    if (q === "*") [min, max, c.at] = [0, 3, c.at + 1];
    else if (q === "+") [min, max, c.at] = [1, 4, c.at + 1];
    else if (q === "?") [min, max, c.at] = [1, 1, c.at + 1];
    else if (q === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(c.text.slice(c.at));
      if (!m) throw new Unsupported("bad braces");
      c.at += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" || m[3] === undefined ? min + 2 : Number(m[3]);
    }
    if (c.text[c.at] === "?") c.at++; // lazy modifier changes nothing here
    const lo = min;
    const hi = Math.max(min, Math.min(max, min + 12));
    parts.push(() => {
      const count = lo === hi ? lo : rng.int(lo, hi);
      let out = "";
      for (let i = 0; i < count; i++) out += atom();
      return out;
    });
  }
  return () => parts.map((p) => p()).join("");
}

/** A string that `pattern` accepts, or undefined when the pattern is beyond this sampler. */
export function sampleForPattern(pattern: string, rng: Rng): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
  try {
    const c: Cursor = { text: pattern, at: 0 };
    const alternatives = [sequence(c, rng)];
    while (c.text[c.at] === "|") {
      c.at++;
      alternatives.push(sequence(c, rng));
    }
    if (c.at !== pattern.length) return undefined;
    const value = alternatives[0]!();
    return re.test(value) ? value : undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}
