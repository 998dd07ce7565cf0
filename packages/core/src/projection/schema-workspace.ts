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
import { declaresKey } from "../object-openness.ts";

/** A schema node and its JSON pointer in the workspace root. */
export interface Located {
  node: JsonSchemaObject;
  pointer: string;
}

/** Where a union branch sits: `container[keyword][index]`. */
export interface BranchSlot {
  container: JsonSchemaObject;
  keyword: BranchKeyword;
  index: number;
}

/** Union keywords whose branches are alternatives (an `allOf` part is not: all of them apply). */
export type BranchKeyword = "anyOf" | "oneOf";
export const BRANCH_KEYWORDS: readonly BranchKeyword[] = ["anyOf", "oneOf"];

/** A node found below a start, with the union slot it fills when it is (or a ref wrapper for) a branch. */
export interface Found extends Located {
  slot?: BranchSlot;
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

/** Keywords that only annotate: a node with nothing else beside its `$ref` is a plain reference. */
const ANNOTATIONS = new Set(["$ref", "description", "title", "$comment", "deprecated", "readOnly", "writeOnly", "examples", "default"]);

function isRefWrapper(node: JsonSchemaObject): boolean {
  return Object.keys(node).every((key) => ANNOTATIONS.has(key));
}

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
  holdersOf(node: Located, key: string, split: boolean): Found[] {
    return this.findNodes(node, (candidate) => declaresKey(candidate, key), split);
  }

  /**
   * The nodes reachable transparently from `node` (through refs, array items and union
   * branches) for which `isTarget` holds, splitting shared definitions on the way when
   * `split` is set. Each node found carries its union slot, when it is a branch.
   */
  findNodes(node: Located, isTarget: (node: JsonSchemaObject) => boolean, split: boolean): Found[] {
    const found: Found[] = [];
    const seen = new Set<JsonSchemaObject>();
    // Types entered through a ref on this walk: a ref back into one of them is a cycle of
    // refs and unions (A allOf [B], B allOf [A]) that no copy can take apart, and splitting
    // it again would copy forever. Such a ref is followed as it is.
    const entered = new Set<string>();
    const start = /^\/\$defs\/([^/]+)$/.exec(node.pointer);
    if (start !== null) entered.add(this.originOf(start[1]!.replace(/~1/g, "/").replace(/~0/g, "~")));
    const queue: Found[] = [node];
    for (let head = 0; head < queue.length; head++) {
      const current = queue[head]!;
      if (seen.has(current.node)) continue;
      seen.add(current.node);
      for (const next of this.transparentChildren(current)) {
        if (next.viaRef === undefined || !split) {
          queue.push(next);
          continue;
        }
        const origin = this.originOf(next.viaRef);
        if (entered.has(origin)) {
          // Narrowing a shared definition here may narrow its other places too: never wider.
          queue.push(next);
        } else if (this.findNodes(next, isTarget, false).length > 0) {
          entered.add(origin);
          const name = this.splitIfShared(current.node, next.viaRef);
          const located: Found = { node: this.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name) };
          if (next.slot !== undefined) located.slot = next.slot;
          queue.push(located);
        }
      }
      if (isTarget(current.node)) found.push(current);
    }
    return found;
  }

  /** The label selectors use for a union branch: the type it refers to, else its position. */
  branchLabel(branch: unknown, index: number): string {
    if (isSchemaObject(branch) && typeof branch.$ref === "string" && hasOwn(branch, "$ref")) {
      const target = refTarget(branch.$ref, "");
      if (target !== ROOT && hasOwn(this.defs, target)) return this.originOf(target);
    }
    return String(index);
  }

  /** Whether the branch at `index` answers to `label` (its type, a split copy's own name, or its position). */
  branchMatches(branch: unknown, index: number, label: string): boolean {
    if (label === String(index)) return true;
    if (!isSchemaObject(branch) || typeof branch.$ref !== "string" || !hasOwn(branch, "$ref")) return false;
    const target = refTarget(branch.$ref, "");
    return target !== ROOT && (target === label || this.originOf(target) === label);
  }

  /** Removes union branches, highest position first per union; an emptied union is refused. */
  removeBranches(slots: readonly BranchSlot[], selector: string): void {
    const byUnion = new Map<unknown[], Set<number>>();
    for (const slot of slots) {
      const list = slot.container[slot.keyword] as unknown[];
      const indexes = byUnion.get(list) ?? new Set<number>();
      indexes.add(slot.index);
      byUnion.set(list, indexes);
    }
    for (const [list, indexes] of byUnion) {
      if (indexes.size >= list.length) {
        throw new SluiceError("LAST_BRANCH", `Cannot withhold "${selector}": it would remove every branch of a union, so no value could be sent there; withhold the property that holds the union instead.`);
      }
      for (const index of [...indexes].sort((x, y) => y - x)) {
        const removed = list[index];
        if (isSchemaObject(removed)) this.countRefs(removed, -1, false);
        list.splice(index, 1);
      }
    }
  }

  /** Forbids `key` in an open node that does not declare it (`"key": false`): withheld means forbidden in every branch. */
  forbidProperty(node: JsonSchemaObject, key: string): void {
    if (!isSchemaObject(node.properties)) node.properties = {};
    setOwn(node.properties as Record<string, unknown>, key, false);
  }

  /**
   * Makes member `key` of `node` meet `constraints` as well (copies, refs counted): what
   * applied to it through `patternProperties` or `additionalProperties` before a keep
   * closed the node must still apply.
   */
  constrainProperty(node: JsonSchemaObject, key: string, constraints: readonly unknown[]): void {
    if (constraints.length === 0) return;
    if (!isSchemaObject(node.properties)) node.properties = {};
    const properties = node.properties as Record<string, unknown>;
    const copies = constraints.map((constraint) => cloneJson(constraint));
    for (const copy of copies) if (isSchemaObject(copy)) this.countRefs(copy, +1, false);
    const current = hasOwn(properties, key) ? properties[key] : true;
    // An unconstrained member (`{}`, true) is simply replaced.
    const parts = current === true || (isSchemaObject(current) && Object.keys(current).length === 0) ? copies : [current, ...copies];
    setOwn(properties, key, parts.length === 1 ? parts[0] : { allOf: parts });
  }

  /** Every property reachable transparently from `node`: name, schema, and the definitions passed through. */
  membersOf(node: Located): Member[] {
    const members: Member[] = [];
    const seen = new Set<JsonSchemaObject>();
    const queue: Array<Located & { via: string[] }> = [{ ...node, via: [] }];
    for (let head = 0; head < queue.length; head++) {
      const current = queue[head]!;
      if (seen.has(current.node)) continue;
      seen.add(current.node);
      const properties = current.node.properties;
      if (isSchemaObject(properties)) {
        for (const key of Object.keys(properties)) {
          const child = properties[key];
          if (child === false) continue;
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

  /** One transparent step: a ref's target, array items, union branches (with their slots). */
  private transparentChildren(current: Found): Array<Found & { viaRef?: string }> {
    const out: Array<Found & { viaRef?: string }> = [];
    const node = current.node;
    if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
      const target = refTarget(node.$ref, current.pointer);
      if (target !== ROOT && hasOwn(this.defs, target)) {
        const next: Found & { viaRef?: string } = { node: this.defs[target]!, pointer: "/$defs/" + escapePointerSegment(target), viaRef: target };
        // A branch written as a ref: the definition fills the branch's slot.
        if (current.slot !== undefined && isRefWrapper(node)) next.slot = current.slot;
        out.push(next);
      }
    }
    for (const keyword of TRANSPARENT_KEYWORDS) {
      if (!hasOwn(node, keyword)) continue;
      const value = node[keyword];
      if (Array.isArray(value)) {
        value.forEach((branch, i) => {
          if (!isSchemaObject(branch)) return;
          const next: Found = { node: branch, pointer: `${current.pointer}/${keyword}/${i}` };
          if (keyword === "anyOf" || keyword === "oneOf") next.slot = { container: node, keyword, index: i };
          out.push(next);
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

  /** Takes `key` out of a node's `required` (measurement only: the caller decided a required member may go). */
  removeRequired(node: JsonSchemaObject, key: string): void {
    if (!Array.isArray(node.required)) return;
    const required = node.required.filter((name) => name !== key);
    if (required.length > 0) node.required = required;
    else delete node.required;
  }

  /** Removes a keyword holding a subschema (or a map of them), keeping the ref counts right. */
  removeKeyword(node: JsonSchemaObject, keyword: string): void {
    const value = node[keyword];
    if (isSchemaObject(value)) {
      if (keyword === "patternProperties") {
        for (const child of Object.values(value)) if (isSchemaObject(child)) this.countRefs(child, -1, false);
      } else {
        this.countRefs(value, -1, false);
      }
    }
    delete node[keyword];
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
