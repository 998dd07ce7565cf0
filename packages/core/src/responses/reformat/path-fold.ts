import type { Candidate } from "./reformatter.ts";

/**
 * Path fold: a hit list (`grep -rn`, ripgrep without a heading: `path:line:text`) or a path
 * list (`find`, a file server's search results) says the same path or directory again on
 * every line. A run of two or more lines with the same prefix (`path:` of a hit, the
 * directory `dir/` of a path) becomes the prefix on a line of its own and each line's rest
 * under it, indented by two spaces:
 *
 *     src/a.ts:12:foo          src/a.ts:
 *     src/a.ts:40:bar    ->      12:foo
 *                                40:bar
 *
 * Unfolding (a header line ending in `:` or `/` followed by indented lines means header +
 * rest for each) must give back the input byte for byte, or the fold is not adopted: an
 * input that already has such lines cannot be folded unambiguously.
 */
export function foldPaths(text: string): Candidate {
  const lines = text.split("\n");
  const prefixes = lines.map(prefixOf);
  const content = lines.filter((line) => line.trim() !== "").length;
  const listed = prefixes.filter((p) => p !== undefined).length;
  if (content < MIN_LINES) return { declined: `fewer than ${MIN_LINES} lines` };
  // Mostly a list: a few headings or a count line may sit among the hits.
  if (listed < content * MIN_SHARE) return { declined: `not a path or hit list (${listed} of ${content} lines)` };
  const out: string[] = [];
  let folded = 0;
  for (let i = 0; i < lines.length; ) {
    const prefix = prefixes[i];
    let end = i + 1;
    while (prefix !== undefined && end < lines.length && prefixes[end] === prefix) end++;
    if (prefix === undefined || end - i < 2) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    out.push(prefix);
    for (let j = i; j < end; j++) out.push(INDENT + lines[j]!.slice(prefix.length));
    folded += end - i;
    i = end;
  }
  if (folded === 0) return { declined: "no two lines share a path" };
  const result = out.join("\n");
  return { text: result, verify: () => unfoldPaths(result) === text };
}

const MIN_LINES = 3;
const MIN_SHARE = 0.8;
const INDENT = "  ";

// `path:line:` of a hit (grep -n, ripgrep --no-heading): a path without spaces at its ends, a line number.
const HIT = /^([^\s:][^:\n]*):\d+[:-]/;

/** The prefix a line shares with its neighbours: `path:` of a hit, `dir/` of a path; undefined for other lines. */
function prefixOf(line: string): string | undefined {
  const hit = HIT.exec(line);
  if (hit !== null) return `${hit[1]}:`;
  if (line === "" || /^\s|[\u0000-\u001f]/.test(line) || line.endsWith("/") || line.endsWith(":")) return undefined;
  const slash = line.lastIndexOf("/");
  if (slash <= 0 || line.includes("://")) return undefined;
  return line.slice(0, slash + 1);
}

/** The inverse of the fold: a header line (ending in `:` or `/`) followed by indented lines stands for header + rest of each. */
export function unfoldPaths(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    if ((line.endsWith(":") || line.endsWith("/")) && next !== undefined && next.startsWith(INDENT)) {
      let j = i + 1;
      while (j < lines.length && lines[j]!.startsWith(INDENT)) out.push(line + lines[j++]!.slice(INDENT.length));
      i = j - 1;
    } else out.push(line);
  }
  return out.join("\n");
}
