import { compareText, fitToolName, groupBy, shortHash, snakeCase } from "@sluice/emit";

// Shared with the OpenAPI generator; re-exported so this module stays the GraphQL naming entry point.
export { compareText, fitToolName, shortHash, snakeCase, TOOL_NAME_PATTERN } from "@sluice/emit";

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
