/**
 * The tool names a text (a system prompt) mentions. A name matches as a whole word, case
 * ignored, and each `_` or `-` in it also matches a `-`, a `_` or a run of white space, so
 * `list_pets` is found in "call list pets first", "List-Pets" and "`list_pets`", but not in
 * "list_pets_full" or "relist_pets": the characters around a match may not be letters,
 * digits, `_` or `-`.
 */
export function toolsNamedIn(text: string, names: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const name of names) {
    const words = name.split(/[_-]+/).filter((word) => word !== "");
    if (words.length === 0) continue;
    const pattern = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("(?:[_-]|\\s+)");
    if (new RegExp(`(?<![A-Za-z0-9_-])${pattern}(?![A-Za-z0-9_-])`, "iu").test(text)) found.add(name);
  }
  return found;
}
