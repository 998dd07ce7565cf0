import { jsonTokens, looksLikeJsonContainer, type JsonToken } from "./json-text.ts";
import type { Candidate } from "./reformatter.ts";

/**
 * How deep compaction descends into JSON held in string fields: a tool runner's
 * `{"ok":true,"stdout":"{\n  \"total\": 50 ..."}` is one level, a log line quoting such an
 * answer inside it is two. Deeper envelopes are left as they are (each level re-reads the
 * text, and nothing real nests further).
 */
export const ENVELOPE_LEVELS = 2;

/**
 * Compact JSON: the answer's tokens with no whitespace between them, and every string that
 * holds a JSON object or array (up to {@link ENVELOPE_LEVELS} levels down) compacted the
 * same way, still as a string. Numbers, literals, keys (duplicates included) and every
 * other string keep their exact spelling: the text is rewritten token by token, never
 * parsed into JS values. Declines what is not JSON and what is compact already.
 */
export function compactJson(text: string): Candidate {
  const tokens = jsonTokens(text);
  if (tokens === undefined) return { declined: "not JSON" };
  const out = compactTokens(tokens, ENVELOPE_LEVELS);
  if (out === text) return { declined: "already compact" };
  return { text: out, verify: () => sameTokens(jsonTokens(out), tokens, ENVELOPE_LEVELS) };
}

function compactTokens(tokens: readonly JsonToken[], levels: number): string {
  let out = "";
  for (const token of tokens) out += token.kind === "string" && levels > 0 ? compactString(token.text, levels) : token.text;
  return out;
}

/** A string token whose text is a JSON container, with that JSON compacted; the token itself otherwise. */
function compactString(token: string, levels: number): string {
  // Cheap look first: a JSON container in a string starts with `{` or `[` after spaces (`\n` escaped as two characters).
  if (!/^"(?:\s|\\[nrt])*[[{]/.test(token)) return token;
  const inner = JSON.parse(token) as string;
  if (!looksLikeJsonContainer(inner)) return token;
  const tokens = jsonTokens(inner);
  if (tokens === undefined) return token;
  const compacted = compactTokens(tokens, levels - 1);
  return compacted === inner ? token : JSON.stringify(compacted);
}

/**
 * The inverse check: `after` has the tokens of `before` one for one, each spelled the same,
 * except strings that hold JSON, whose JSON must again have the same tokens (one level less).
 */
function sameTokens(after: readonly JsonToken[] | undefined, before: readonly JsonToken[], levels: number): boolean {
  if (after === undefined || after.length !== before.length) return false;
  for (let i = 0; i < before.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    if (a.kind !== b.kind) return false;
    if (a.text === b.text) continue;
    if (a.kind !== "string" || levels === 0) return false;
    const innerBefore = JSON.parse(b.text) as string;
    const tokensBefore = jsonTokens(innerBefore);
    if (tokensBefore === undefined || !sameTokens(jsonTokens(JSON.parse(a.text) as string), tokensBefore, levels - 1)) return false;
  }
  return true;
}
