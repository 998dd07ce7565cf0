import { getOwn, hasOwn, isSchemaObject, parseLocalRef, type JsonSchemaObject } from "@sluice/schema";

/** Depth of the property paths fit's audit compares (segments, e.g. `a.b.c.d.e.f`). */
export const AUDIT_DEPTH = 6;

/**
 * Keywords a property path passes through without a segment of its own, as selectors do:
 * arrays (items, prefixItems), unions (anyOf, oneOf, allOf) and refs.
 */
const PASS_THROUGH = ["items", "prefixItems", "additionalItems", "anyOf", "oneOf", "allOf"] as const;

/** The keywords the path set of a node is read from: a change that touches none of them keeps it. */
export const PATH_KEYWORDS: readonly string[] = ["properties", "$ref", ...PASS_THROUGH];

/**
 * Sets of dotted property paths, bounded in depth, stored as interned tries: a set is a
 * sorted list of (name, subset id) entries, and equal sets get the same id whatever schema
 * they came from. The set is semantic: it does not depend on how the schema is written
 * (refs inlined or not, allOf merged or not), so comparing ids before and after a change
 * says whether the change kept every property path. Depth, not cycle detection, bounds a
 * recursive schema (a loop that adds no segment, such as A allOf [B], B allOf [A], is
 * walked once); tries are built per (node, depth) once, so the work follows the schema's
 * size times the depth, not the number of paths.
 */
export class PropertyPathSets {
  readonly #ids = new Map<string, number>();
  readonly #entries: Array<ReadonlyArray<readonly [string, number]>> = [[]];
  readonly #counts: number[] = [0];
  readonly #unions = new Map<string, number>();

  /** The empty set. */
  static readonly EMPTY = 0;

  /** Paths of `node` (a node of `root`, or `root` itself) up to `depth` segments. */
  of(root: JsonSchemaObject, node: JsonSchemaObject, depth: number = AUDIT_DEPTH): number {
    const memo = new Map<object, number[]>();
    const trie = (start: JsonSchemaObject, left: number): number => {
      if (left === 0) return PropertyPathSets.EMPTY;
      let row = memo.get(start);
      if (row === undefined) memo.set(start, (row = []));
      const known = row[left];
      if (known !== undefined) return known;
      const entries = new Map<string, number>();
      for (const member of closure(root, start)) {
        const properties = getOwn(member, "properties");
        if (!isSchemaObject(properties)) continue;
        for (const name of Object.keys(properties)) {
          const child = properties[name];
          if (child === false) continue; // a forbidden key (how a projection withholds it): no path
          const sub = isSchemaObject(child) ? trie(child, left - 1) : PropertyPathSets.EMPTY;
          const before = entries.get(name);
          entries.set(name, before === undefined ? sub : this.union(before, sub));
        }
      }
      const id = this.#intern([...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
      row[left] = id;
      return id;
    };
    return trie(node, depth);
  }

  /** How many paths the set holds. */
  count(id: number): number {
    return this.#counts[id]!;
  }

  /** Up to `limit` paths of `a` missing from `b`, dotted. */
  missing(a: number, b: number, limit = 10): string[] {
    const out: string[] = [];
    const stack: Array<{ a: number; b: number; prefix: string }> = [{ a, b, prefix: "" }];
    while (stack.length > 0 && out.length < limit) {
      const frame = stack.pop()!;
      if (frame.a === frame.b) continue;
      const other = new Map(this.#entries[frame.b]!);
      for (const [name, sub] of this.#entries[frame.a]!) {
        const path = frame.prefix === "" ? name : `${frame.prefix}.${name}`;
        const match = other.get(name);
        if (match === undefined) {
          out.push(path);
          if (out.length >= limit) break;
        } else if (match !== sub) stack.push({ a: sub, b: match, prefix: path });
      }
    }
    return out;
  }

  union(a: number, b: number): number {
    if (a === b || b === PropertyPathSets.EMPTY) return a;
    if (a === PropertyPathSets.EMPTY) return b;
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    const known = this.#unions.get(key);
    if (known !== undefined) return known;
    const merged = new Map(this.#entries[a]!);
    for (const [name, sub] of this.#entries[b]!) {
      const mine = merged.get(name);
      merged.set(name, mine === undefined ? sub : this.union(mine, sub));
    }
    const id = this.#intern([...merged].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)));
    this.#unions.set(key, id);
    return id;
  }

  #intern(entries: Array<readonly [string, number]>): number {
    if (entries.length === 0) return PropertyPathSets.EMPTY;
    const key = entries.map(([name, id]) => `${JSON.stringify(name)}:${id}`).join(",");
    const known = this.#ids.get(key);
    if (known !== undefined) return known;
    const id = this.#entries.length;
    this.#entries.push(entries);
    this.#counts.push(entries.reduce((sum, [, sub]) => sum + 1 + this.#counts[sub]!, 0));
    this.#ids.set(key, id);
    return id;
  }
}

/** Every node reachable from `start` without adding a path segment: through arrays, unions and refs. */
function closure(root: JsonSchemaObject, start: JsonSchemaObject): JsonSchemaObject[] {
  const seen = new Set<JsonSchemaObject>([start]);
  const out: JsonSchemaObject[] = [];
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node);
    const next: unknown[] = [];
    for (const keyword of PASS_THROUGH) {
      const value = getOwn(node, keyword);
      if (Array.isArray(value)) next.push(...value);
      else next.push(value);
    }
    const ref = getOwn(node, "$ref");
    if (typeof ref === "string") next.push(resolveLocal(root, ref));
    for (const child of next) {
      if (isSchemaObject(child) && !seen.has(child)) {
        seen.add(child);
        stack.push(child);
      }
    }
  }
  return out;
}

function resolveLocal(root: JsonSchemaObject, ref: string): unknown {
  const segments = parseLocalRef(ref);
  if (segments === undefined) return undefined;
  let current: unknown = root;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null || !hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
