/**
 * The query language of the session's search tool, and keyword ranking.
 *
 * - `select:a,b,c` names tools exactly (whitespace around names is ignored).
 * - Otherwise the query is keywords separated by whitespace; a keyword written `+term`
 *   is required (it must occur in the tool's name, pack or description).
 *
 * Ranking is deterministic and independent of catalog order: tools are compared by the
 * number of distinct keywords they match, then by a weighted score (a keyword that is a
 * whole word of the name counts most, part of the name less, a description word least),
 * then by fewer name words left unmatched, then by shorter name (the general tool before its specialisations and `*_full` twins),
 * then by name in code-point order.
 */

export type ParsedQuery =
  | { kind: "select"; names: string[] }
  | { kind: "keywords"; terms: string[]; required: string[] };

export function parseQuery(query: string): ParsedQuery {
  const trimmed = query.trim();
  const select = /^select\s*:/i.exec(trimmed);
  if (select) {
    const names = trimmed
      .slice(select[0].length)
      .split(/[\s,]+/)
      .filter((name) => name.length > 0);
    return { kind: "select", names: [...new Set(names)] };
  }
  const terms: string[] = [];
  const required: string[] = [];
  for (const raw of trimmed.split(/\s+/)) {
    const isRequired = raw.startsWith("+");
    const word = (isRequired ? raw.slice(1) : raw).toLowerCase().replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
    if (word.length === 0) continue;
    if (isRequired) {
      if (!required.includes(word)) required.push(word);
    } else if (!terms.includes(word)) {
      terms.push(word);
    }
  }
  return { kind: "keywords", terms, required };
}

/** Lower-case words of an identifier: `issueCreate`, `issue_create`, `issue-create` -> issue, create. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Lower-case words of free text. */
export function textWords(text: string): string[] {
  return nameWords(text);
}

/** Singular-ish form so `issues` finds `issue` and the reverse. Deliberately crude. */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("sses")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** What keyword search looks at for one tool, precomputed once per session. */
export interface SearchEntry {
  name: string;
  /** Pack (group) name, searchable like a name word; empty when there are no packs. */
  pack: string;
  nameLower: string;
  nameStems: ReadonlySet<string>;
  packStems: ReadonlySet<string>;
  descriptionLower: string;
  descriptionStems: ReadonlySet<string>;
}

export function searchEntry(name: string, pack: string, description: string): SearchEntry {
  return {
    name,
    pack,
    nameLower: name.toLowerCase(),
    nameStems: new Set(nameWords(name).map(stem)),
    packStems: new Set(nameWords(pack).map(stem)),
    descriptionLower: description.toLowerCase(),
    descriptionStems: new Set(textWords(description).map(stem)),
  };
}

/** Score of one keyword against one tool; 0 when it does not occur. */
function termScore(entry: SearchEntry, term: string): number {
  const stemmed = stem(term);
  let score = 0;
  if (entry.nameStems.has(stemmed)) score += 8;
  else if (entry.nameLower.includes(term)) score += 4;
  if (entry.packStems.has(stemmed)) score += 4;
  if (entry.descriptionStems.has(stemmed)) score += 2;
  else if (entry.descriptionLower.includes(term)) score += 1;
  return score;
}

export interface RankedTool {
  name: string;
  matched: number;
  score: number;
  /** Words of the name (other than its pack's) that no keyword matched: fewer is a closer fit. */
  extra: number;
}

/** Tools matching every required term and at least one term (or only required terms), best first. */
export function rank(entries: readonly SearchEntry[], terms: readonly string[], required: readonly string[]): RankedTool[] {
  const ranked: RankedTool[] = [];
  for (const entry of entries) {
    let score = 0;
    let matched = 0;
    let ok = true;
    for (const term of required) {
      const s = termScore(entry, term);
      if (s === 0) {
        ok = false;
        break;
      }
      score += s;
    }
    if (!ok) continue;
    for (const term of terms) {
      const s = termScore(entry, term);
      if (s > 0) {
        matched += 1;
        score += s;
      }
    }
    if (terms.length > 0 && matched === 0) continue;
    const stems = [...terms, ...required].map(stem);
    let extra = 0;
    for (const word of entry.nameStems) {
      if (!entry.packStems.has(word) && !stems.some((term) => word === term || word.includes(term))) extra += 1;
    }
    ranked.push({ name: entry.name, matched, score, extra });
  }
  return ranked.sort(compareRanked);
}

function compareRanked(a: RankedTool, b: RankedTool): number {
  if (a.matched !== b.matched) return b.matched - a.matched;
  if (a.score !== b.score) return b.score - a.score;
  if (a.extra !== b.extra) return a.extra - b.extra;
  if (a.name.length !== b.name.length) return a.name.length - b.name.length;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
