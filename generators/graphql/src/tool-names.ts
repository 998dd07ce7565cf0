import { createHash } from "node:crypto";

/** Wire-name rule shared by every provider (OpenAI, Anthropic, MCP). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME_LENGTH = 64;

/** `issueCreate` -> `issue_create`, `URLPreview` -> `url_preview`, `oauth2Token` -> `oauth2_token`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/_+/g, "_")
    .toLowerCase();
}

export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 6);
}

/** Longer names keep a readable prefix and a hash of the full name, so they stay distinct. */
export function fitToolName(name: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_NAME_LENGTH - 7)}_${shortHash(name)}`;
}

export interface RootFieldRef {
  operationType: "query" | "mutation";
  field: string;
  /** Query fields that return a connection get a `_list` suffix. */
  isConnection: boolean;
}

/**
 * Assign unique wire names to root fields. Deterministic: depends only on the set of fields.
 * Query/mutation collisions get `_query` / `_mutation`; anything still colliding gets a
 * hash of `<operationType>.<field>`.
 */
export function assignToolNames(fields: readonly RootFieldRef[]): Map<RootFieldRef, string> {
  const base = new Map<RootFieldRef, string>();
  for (const ref of fields) {
    const snake = snakeCase(ref.field);
    base.set(ref, ref.operationType === "query" && ref.isConnection ? `${snake}_list` : snake);
  }
  const byBase = groupBy(fields, (ref) => base.get(ref)!);
  const named = new Map<RootFieldRef, string>();
  for (const [name, group] of byBase) {
    const kinds = new Set(group.map((ref) => ref.operationType));
    for (const ref of group) {
      let candidate = name;
      if (kinds.size > 1) candidate = `${name}_${ref.operationType}`;
      named.set(ref, candidate);
    }
  }
  const byCandidate = groupBy(fields, (ref) => named.get(ref)!);
  const taken = new Set<string>();
  const result = new Map<RootFieldRef, string>();
  const ordered = [...fields].sort((a, b) => compareText(`${a.operationType}.${a.field}`, `${b.operationType}.${b.field}`));
  for (const ref of ordered) {
    let candidate = named.get(ref)!;
    if (byCandidate.get(candidate)!.length > 1) candidate = `${candidate}_${shortHash(`${ref.operationType}.${ref.field}`)}`;
    candidate = fitToolName(candidate);
    while (taken.has(candidate)) candidate = fitToolName(`${candidate}_${shortHash(candidate)}`);
    taken.add(candidate);
    result.set(ref, candidate);
  }
  return result;
}

/** Code-unit order: locale-independent, so output does not depend on the machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}
