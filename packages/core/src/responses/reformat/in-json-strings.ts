import { jsonTokens } from "./json-text.ts";
import type { Candidate } from "./reformatter.ts";

/**
 * A text reformatter applied inside a JSON answer: many tools wrap their text in an envelope
 * (`{"content": "<a path list>"}` from a file server's structured content, a runner's
 * `{"stdout": "<coloured log>"}`). Each string value with a line break is given to `apply`
 * on its own; a rewrite it proposes and verifies replaces that string (still a string), and
 * every other token keeps its exact spelling. A text that is not JSON goes to `apply` whole.
 */
export function inJsonStrings(apply: (text: string) => Candidate): (text: string) => Candidate {
  return (text) => {
    const tokens = jsonTokens(text);
    if (tokens === undefined) return apply(text);
    let changed = false;
    let firstReason: string | undefined;
    const checks: Array<() => boolean> = [];
    let out = "";
    for (const token of tokens) {
      // Only multi-line strings: a list or a log has lines; a line break is spelled `\n` inside JSON.
      if (token.kind !== "string" || !token.text.includes("\\n")) {
        out += token.text;
        continue;
      }
      const candidate = apply(JSON.parse(token.text) as string);
      if ("declined" in candidate) {
        firstReason ??= candidate.declined;
        out += token.text;
        continue;
      }
      changed = true;
      checks.push(candidate.verify);
      out += JSON.stringify(candidate.text);
    }
    if (!changed) return { declined: firstReason === undefined ? "JSON without a multi-line string" : `in every string: ${firstReason}` };
    return { text: out, verify: () => checks.every((check) => check()) };
  };
}
