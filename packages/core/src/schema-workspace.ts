import {
  cloneJson,
  escapePointerSegment,
  collectGarbage,
  defRef,
  defsOf,
  hasOwn,
  isSchemaObject,
  refTarget,
  ROOT,
  setOwn,
  SluiceError,
  UNION_KEYWORDS,
  walkSchema,
  type JsonSchemaObject,
} from "@sluice/schema";

/** A schema node and its JSON pointer in the workspace root. */
export interface Located {
  node: JsonSchemaObject;
  pointer: string;
}

/** A property as seen by selectors. */
export interface Member {
  key: string;
  holder: Located;
  child: JsonSchemaObject;
  pointer: string;
  /** Definitions passed through (by ref) from the start node to the holder. */
  via: string[];
}

const TRANSPARENT_KEYWORDS = ["items", "prefixItems", ...UNION_KEYWORDS];

/**
 * A private, mutable copy of a tool's input schema that projections edit in place.
 * It keeps a count of `$ref` sites per definition so that an edit reached through a
 * definition shared with other places can split that definition copy-on-write: only
 * the location named by the selector changes.
 */
export class SchemaWorkspace {
  readonly root: JsonSchemaObject;
  readonly defs: Record<string, JsonSchemaObject>;
  /** Split copy name -> the type it was copied from (type selectors reach copies too). */
  readonly origins: Map<string, string>;
  private readonly refCounts = new Map<string, number>();

  constructor(schema: JsonSchemaObject, origins: ReadonlyMap<string, string>) {
    this.root = cloneJson(schema);
    if (!isSchemaObject(this.root.$defs)) setOwn(this.root, "$defs", {});
    this.defs = defsOf(this.root);
    this.origins = new Map(origins);
    this.countRefs(this.root, +1, true);
    for (const name of Object.keys(this.defs)) this.countRefs(this.defs[name]!, +1, false);
  }

  /** The type a definition stands for: itself, or the type it was split from. */
  originOf(defName: string): string {
    return this.origins.get(defName) ?? defName;
  }

  /** Definition names standing for `typeName`: the type itself and its split copies. */
  defsOfType(typeName: string): string[] {
    // A split copy named directly (`IssueFilter_2.and`) means that copy alone.
    if (this.origins.has(typeName) && hasOwn(this.defs, typeName)) return [typeName];
    return Object.keys(this.defs)
      .filter((name) => this.originOf(name) === typeName)
      .sort();
  }

  hasType(typeName: string): boolean {
    return hasOwn(this.defs, typeName) || [...this.origins.values()].includes(typeName);
  }

  /**
   * Follows `node` through refs, array items and union branches (transparently, as
   * selectors do) to the nodes holding property `key`. With `split`, each ref on the
   * way to such a holder is first pointed at a private copy of a shared definition, so
   * what the caller edits next belongs to this location alone. Branches that do not
   * lead to `key` are left as they are.
   */
  holdersOf(node: Located, key: string, split: boolean): Located[] {
    const holders: Located[] = [];
    const seen = new Set<JsonSchemaObject>();
    const queue: Located[] = [node];
    while (queue.length > 0) {
      const current = queue.shift()!;
      if (seen.has(current.node)) continue;
      seen.add(current.node);
      for (const next of this.transparentChildren(current)) {
        if (next.viaRef === undefined) {
          queue.push(next);
        } else if (!split) {
          queue.push(next);
        } else if (this.holdersOf(next, key, false).length > 0) {
          const name = this.splitIfShared(current.node, next.viaRef);
          queue.push({ node: this.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name) });
        }
      }
      const properties = current.node.properties;
      if (isSchemaObject(properties) && hasOwn(properties, key)) holders.push(current);
    }
    return holders;
  }

  /** Every property reachable transparently from `node`: name, schema, and the definitions passed through. */
  membersOf(node: Located): Member[] {
    const members: Member[] = [];
    const seen = new Set<JsonSchemaObject>();
    const queue: Array<Located & { via: string[] }> = [{ ...node, via: [] }];
    while (queue.length > 0) {
      const current = queue.shift()!;
      if (seen.has(current.node)) continue;
      seen.add(current.node);
      const properties = current.node.properties;
      if (isSchemaObject(properties)) {
        for (const key of Object.keys(properties)) {
          const child = properties[key];
          members.push({
            key,
            holder: current,
            child: isSchemaObject(child) ? child : {},
            pointer: current.pointer + "/properties/" + escapePointerSegment(key),
            via: current.via,
          });
        }
      }
      for (const next of this.transparentChildren(current)) {
        queue.push({ ...next, via: next.viaRef === undefined ? current.via : [...current.via, next.viaRef] });
      }
    }
    return members;
  }

  /** One transparent step: a ref's target, array items, union branches. */
  private transparentChildren(current: Located): Array<Located & { viaRef?: string }> {
    const out: Array<Located & { viaRef?: string }> = [];
    const node = current.node;
    if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
      const target = refTarget(node.$ref, current.pointer);
      if (target !== ROOT && hasOwn(this.defs, target)) {
        out.push({ node: this.defs[target]!, pointer: "/$defs/" + escapePointerSegment(target), viaRef: target });
      }
    }
    for (const keyword of TRANSPARENT_KEYWORDS) {
      if (!hasOwn(node, keyword)) continue;
      const value = node[keyword];
      if (Array.isArray(value)) {
        value.forEach((branch, i) => {
          if (isSchemaObject(branch)) out.push({ node: branch, pointer: `${current.pointer}/${keyword}/${i}` });
        });
      } else if (isSchemaObject(value)) {
        out.push({ node: value, pointer: `${current.pointer}/${keyword}` });
      }
    }
    return out;
  }

  /** Removes one property (and its `required` entry) from a holder. */
  removeProperty(holder: JsonSchemaObject, key: string): void {
    const properties = holder.properties as Record<string, JsonSchemaObject>;
    if (!hasOwn(properties, key)) return;
    const removed = properties[key];
    if (isSchemaObject(removed)) this.countRefs(removed, -1, false);
    delete properties[key];
    if (Array.isArray(holder.required)) {
      const required = holder.required.filter((name) => name !== key);
      if (required.length > 0) holder.required = required;
      else delete holder.required;
    }
  }

  /** The schema after garbage collection of unreachable definitions. */
  result(): JsonSchemaObject {
    return collectGarbage(this.root);
  }

  private splitIfShared(refNode: JsonSchemaObject, defName: string): string {
    if ((this.refCounts.get(defName) ?? 0) <= 1) return defName;
    const origin = this.originOf(defName);
    let n = 2;
    while (hasOwn(this.defs, `${origin}_${n}`)) n++;
    const copyName = `${origin}_${n}`;
    const copy = cloneJson(this.defs[defName]!);
    setOwn(this.defs, copyName, copy);
    this.origins.set(copyName, origin);
    this.countRefs(copy, +1, false);
    refNode.$ref = defRef(copyName);
    this.refCounts.set(defName, (this.refCounts.get(defName) ?? 0) - 1);
    this.refCounts.set(copyName, (this.refCounts.get(copyName) ?? 0) + 1);
    return copyName;
  }

  private countRefs(body: JsonSchemaObject, delta: number, isRoot: boolean): void {
    walkSchema(
      body,
      ({ node, pointer }) => {
        if (typeof node.$ref !== "string" || !hasOwn(node, "$ref")) return;
        const target = refTarget(node.$ref, pointer);
        if (target === ROOT) return;
        if (!hasOwn(this.defs, target)) {
          throw new SluiceError("UNRESOLVED_REF", `"${node.$ref}" does not resolve: there is no $defs entry "${target}".`, { pointer });
        }
        this.refCounts.set(target, (this.refCounts.get(target) ?? 0) + delta);
      },
      isRoot ? { skipKeywords: new Set(["$defs"]) } : {},
    );
  }
}
