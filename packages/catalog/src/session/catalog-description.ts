import { textTokens, type Encoding } from "@sluice/core/tokens";
import { nameWords, stem } from "./search.ts";

/**
 * The catalog as the search tool's description shows it: within a token budget, as
 * much as fits, chosen deterministically.
 *
 * Each group (a pack, or the whole catalog when there are no packs) is shown at one of
 * two levels:
 * - `names`: every tool name, compacted by common prefix (`sheets_spreadsheets_{create,get}`);
 * - `words`: the tool count and the most frequent words of its tool names
 *   (`stripe: 421 tools; names mention account, customer, ...`), so the model knows what to search for.
 *
 * Every group starts at `words`; then groups are raised to `names`, cheapest first, while
 * the whole description stays within the budget. If even the word lists do not fit, they
 * are shortened. Measured over the nine shipped packs (2,485 tools): all names cost about
 * 14,300 tokens, which is 0.8% of sending every tool but 16x a whole first turn with word
 * lists, so large packs are summarized and small ones listed.
 */

export interface CatalogGroup {
  /** Pack name, or "" for a catalog without packs. */
  label: string;
  /** Tool names in catalog order. */
  names: readonly string[];
}

export type GroupLevel = "names" | "words";

export interface CatalogDescription {
  text: string;
  tokens: number;
  /** The level each group is shown at, by label. */
  levels: ReadonlyMap<string, GroupLevel>;
}

// Words that say what a tool does rather than what it is about; they tell the model nothing.
const STOP_WORDS = new Set([
  "a", "add", "all", "an", "and", "as", "by", "create", "delete", "for", "from", "full", "get", "id", "in", "list",
  "of", "on", "patch", "post", "put", "remove", "set", "the", "to", "update", "with",
]);

const MAX_WORDS = 24;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names compacted by common `_`-separated prefix, in code-point order. */
export function compactNames(names: readonly string[]): string {
  const sorted = [...names].sort(compare);
  const byHead = new Map<string, string[]>();
  for (const name of sorted) {
    const head = name.split("_")[0] ?? name;
    const list = byHead.get(head);
    if (list) list.push(name);
    else byHead.set(head, [name]);
  }
  const parts: string[] = [];
  for (const all of byHead.values()) {
    // A name that is only the head (`issue` beside `issue_create`) stands alone.
    const group = all.filter((name) => name.includes("_"));
    parts.push(...all.filter((name) => !name.includes("_")));
    if (group.length === 0) continue;
    if (group.length === 1) {
      parts.push(group[0]!);
      continue;
    }
    const split = group.map((name) => name.split("_"));
    // Longest common prefix in whole segments, strictly shorter than every name.
    let common = Math.min(...split.map((segments) => segments.length)) - 1;
    for (let i = 0; i < common; i++) {
      const segment = split[0]![i];
      if (!split.every((segments) => segments[i] === segment)) {
        common = i;
        break;
      }
    }
    if (common === 0) {
      parts.push(...group);
      continue;
    }
    const prefix = split[0]!.slice(0, common).join("_");
    parts.push(`${prefix}_{${split.map((segments) => segments.slice(common).join("_")).join(",")}}`);
  }
  return parts.join(" ");
}

/**
 * The most frequent topic words of a group's tool names, each counted once per tool;
 * forms of one word (`customer`, `customers`) count together and show as the shortest.
 */
export function topicWords(label: string, names: readonly string[], limit: number): string[] {
  const own = new Set(nameWords(label).map(stem));
  const counts = new Map<string, { count: number; shown: string }>();
  for (const name of names) {
    for (const word of new Set(nameWords(name).map(stem))) {
      if (STOP_WORDS.has(word) || own.has(word) || /^\d+$/.test(word)) continue;
      const entry = counts.get(word);
      if (entry) entry.count += 1;
      else counts.set(word, { count: 1, shown: word });
    }
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || compare(a.shown, b.shown))
    .slice(0, limit)
    .map((entry) => entry.shown);
}

function renderGroup(group: CatalogGroup, level: GroupLevel, words: number): string {
  const head = group.label === "" ? "" : `${group.label}: `;
  const count = `${group.names.length} tool${group.names.length === 1 ? "" : "s"}`;
  if (level === "names") return `${head}${compactNames(group.names)}`;
  const topics = topicWords(group.label, group.names, words);
  return topics.length === 0 ? `${head}${count}` : `${head}${count}; names mention ${topics.join(", ")}`;
}

export function describeCatalog(
  intro: string,
  groups: readonly CatalogGroup[],
  budget: number,
  encoding: Encoding,
): CatalogDescription {
  const total = groups.reduce((n, group) => n + group.names.length, 0);
  const packs = groups.filter((group) => group.label !== "").length;
  const header = packs > 0 ? `Catalog: ${total} tools in ${packs} packs.` : `Catalog: ${total} tools.`;
  const render = (levels: ReadonlyMap<string, GroupLevel>, words: number): string =>
    [intro, header, ...groups.map((group) => renderGroup(group, levels.get(group.label) ?? "words", words))].join("\n");
  const measure = (text: string): number => textTokens(text, { encoding });

  const allNames = new Map(groups.map((group) => [group.label, "names" as GroupLevel]));
  const full = render(allNames, MAX_WORDS);
  const fullTokens = measure(full);
  if (fullTokens <= budget) return { text: full, tokens: fullTokens, levels: allNames };

  const levels = new Map(groups.map((group) => [group.label, "words" as GroupLevel]));
  let words = MAX_WORDS;
  let text = render(levels, words);
  let tokens = measure(text);
  while (tokens > budget && words > 0) {
    words = Math.floor(words / 2);
    text = render(levels, words);
    tokens = measure(text);
  }
  // Raise groups to full names, cheapest first (ties by label), while the budget holds.
  const costs = groups.map((group) => ({ label: group.label, cost: measure(renderGroup(group, "names", 0)) }));
  costs.sort((a, b) => a.cost - b.cost || compare(a.label, b.label));
  for (const { label } of costs) {
    levels.set(label, "names");
    const candidate = render(levels, words);
    const candidateTokens = measure(candidate);
    if (candidateTokens <= budget) {
      text = candidate;
      tokens = candidateTokens;
    } else {
      levels.set(label, "words");
    }
  }
  return { text, tokens, levels };
}
