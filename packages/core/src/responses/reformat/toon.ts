import { decode, encode } from "@toon-format/toon";
import { jsonTokens, type JsonToken } from "./json-text.ts";
import type { Candidate } from "./reformatter.ts";

/**
 * TOON (Token-Oriented Object Notation, https://toonformat.dev): an array of records that
 * all have the same keys and only scalar values is written as one header naming the keys
 * and one comma-separated row per record, instead of repeating every key in every record.
 * It changes the notation, not the content; it is adopted only for a JSON answer that holds
 * such an array, only when decoding the TOON text gives back the answer exactly (every
 * number spelled as it was, every key in its order, no duplicate key lost), and only when it
 * is smaller (the pipeline's gate).
 */
export function toonText(text: string): Candidate {
  const tokens = jsonTokens(text);
  if (tokens === undefined) return { declined: "not JSON" };
  const value = JSON.parse(text) as unknown;
  // JSON.parse respells numbers and keeps one of duplicate keys: such an answer cannot be re-encoded without loss.
  if (!sameValue(jsonTokens(JSON.stringify(value)), tokens)) return { declined: "a number's spelling or a duplicate key would not survive parsing" };
  if (!hasUniformRecords(value)) return { declined: "no array of uniform flat records" };
  let out: string;
  try {
    out = encode(value);
  } catch (error) {
    return { declined: `the encoder refused it (${(error as Error).message.slice(0, 80)})` };
  }
  return {
    text: out,
    verify: () => {
      try {
        return sameValue(jsonTokens(JSON.stringify(decode(out, { strict: true }))), tokens);
      } catch {
        return false;
      }
    },
  };
}

/** Same tokens one for one; strings compare by what they decode to (`\u00e9` is `é`), everything else by spelling. */
function sameValue(after: readonly JsonToken[] | undefined, before: readonly JsonToken[]): boolean {
  if (after === undefined || after.length !== before.length) return false;
  for (let i = 0; i < before.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    if (a.kind !== b.kind) return false;
    if (a.text === b.text) continue;
    if (a.kind !== "string" || JSON.parse(a.text) !== JSON.parse(b.text)) return false;
  }
  return true;
}

/** Whether somewhere in the value an array holds two or more objects with the same keys, in the same order, and scalar values only. */
function hasUniformRecords(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      if (node.length >= 2 && isTable(node)) return true;
      for (const item of node) stack.push(item);
    } else for (const member of Object.values(node)) stack.push(member);
  }
  return false;
}

function isTable(items: readonly unknown[]): boolean {
  let keys: string | undefined;
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
    const names = Object.keys(item);
    if (names.length === 0 || Object.values(item).some((v) => typeof v === "object" && v !== null)) return false;
    const signature = JSON.stringify(names);
    if (keys === undefined) keys = signature;
    else if (keys !== signature) return false;
  }
  return true;
}
