import { createHash } from "node:crypto";
import {
  canonicalJson,
  cloneJson,
  defRef,
  defsOf,
  escapePointerSegment,
  getOwn,
  hasOwn,
  isSchemaObject,
  parseLocalRef,
  setOwn,
  SluiceError,
  subschemasOf,
  SUBSCHEMA_MAP_KEYWORDS,
  unescapePointerSegment,
  walkSchema,
  type JsonSchemaObject,
} from "@sluice/schema";
import { walkBodies } from "./schema-bodies.ts";

// allOf (JSON Schema 2020-12 Core §10.2.1.1): an instance is valid when it is valid against
// every part. A provider that does not accept the keyword (Gemini's OpenAPI subset, OpenAI
// strict mode) must receive the parts merged into one schema; removing the keyword instead
// removes every property the parts declare. The merge here is exact where one schema can say
// what the parts say together, and reports every place where it cannot (a conflict), with
// what it kept instead: such a change is lossy and is refused unless the caller allows it.

/** Keywords that only annotate; the last part that has one wins (the outer node's own last). */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  "title", "description", "default", "examples", "example", "deprecated", "readOnly", "writeOnly",
  "$comment", "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary",
  "discriminator", "xml", "externalDocs", "contentMediaType", "contentEncoding", "contentSchema",
]);

/** Keywords whose combined meaning is the largest of the parts' values. */
const TAKE_MAX: ReadonlySet<string> = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
/** Keywords whose combined meaning is the smallest of the parts' values. */
const TAKE_MIN: ReadonlySet<string> = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);
/** Subschema keywords where "both apply" is exactly one keyword holding the allOf of the values. */
const CONJOIN: ReadonlySet<string> = new Set(["items", "additionalItems", "propertyNames", "unevaluatedItems"]);
/** Keywords the object block below handles together. */
const OBJECT_KEYWORDS: ReadonlySet<string> = new Set(["properties", "additionalProperties", "patternProperties", "unevaluatedProperties", "required"]);
/** Unions whose conjunction distributes: (a1 | a2) & (b1 | b2) = (a1 & b1) | (a1 & b2) | ...; exact for oneOf too. */
const UNIONS = ["anyOf", "oneOf"] as const;
/** Above this many combinations, unions of several parts are not distributed. */
const MAX_UNION_PRODUCT = 32;
/** Merges of one schema, counting nested ones; past it the schema is refused (INTERNAL_LIMIT). */
const MAX_MERGES = 100_000;

export interface AllOfConflict {
  /** Where the disagreeing parts meet (the allOf node, or a property inside the merged node). */
  pointer: string;
  /** Says what the parts disagree on and what was kept instead; grouped by this text. */
  message: string;
}

export interface MergeAllOfResult {
  /** Pointers of the allOf nodes merged, in the order they were merged. */
  merged: string[];
  /** Pointers of `$ref`s with sibling keywords merged with their target (when asked). */
  refSiblings: string[];
  conflicts: AllOfConflict[];
  /** allOf loops (A allOf [B], B allOf [A]) met, as the definitions on each; each part was merged once. */
  loops: Array<{ pointer: string; defs: string[] }>;
  /** Definitions added for an intersection that refers to itself (recursive types on both sides), with the definitions it merges. */
  hoisted: Array<{ name: string; parts: string[] }>;
}

export interface MergeAllOfOptions {
  /**
   * Also merge a `$ref` that has validation keywords beside it (2020-12 applies both, like an
   * allOf): the inliner would otherwise write that node as an allOf.
   */
  refSiblings: boolean;
  /** Schema nodes the merge may copy in all before it stops with INLINE_BUDGET_EXCEEDED. */
  maxCopiedNodes: number;
  /** Names the tool in errors. */
  tool: string;
}

/** Whether a `$ref` node carries keywords that constrain beside it (not only annotations). */
function hasValidatingRefSiblings(node: JsonSchemaObject): boolean {
  if (!(hasOwn(node, "$ref") && typeof node.$ref === "string")) return false;
  return Object.keys(node).some((key) => key !== "$ref" && key !== "$defs" && !ANNOTATIONS.has(key) && !key.startsWith("x-"));
}

/**
 * Whether `schema` has anything `mergeAllOf` would merge, and how many schema nodes it has
 * (a budget for the merge's copies). One pass, no pointers built: most tools have no allOf.
 */
export function allOfCensus(schema: JsonSchemaObject, refSiblings: boolean): { pending: number; nodes: number } {
  let pending = 0;
  let nodes = 0;
  const seen = new Set<object>();
  const stack: JsonSchemaObject[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    nodes++;
    if (Array.isArray(getOwn(node, "allOf")) || (refSiblings && hasValidatingRefSiblings(node))) pending++;
    for (const edge of subschemasOf(node)) stack.push(edge.child);
  }
  return { pending, nodes };
}

interface Leaf {
  /** A part with neither `allOf` nor `$ref` left in it; `false` accepts nothing. */
  schema: JsonSchemaObject | false;
  /** Identity of the part, stable across merges: equal key sets mean the same intersection. */
  key: string;
  /**
   * Reached without passing a `$ref`: the part belongs to the node being merged alone (the
   * working schema is a tree), so its children can move into the result instead of being copied.
   */
  owned: boolean;
  /** The `$ref` string when the leaf is a whole definition reached through one. */
  ref?: string;
  defName?: string;
}

/**
 * Merges every `allOf` of `schema` (a tool's input schema, mutated in place: pass a copy)
 * into the node that holds it. Dependencies are merged before the nodes that use them, so a
 * part is read once already flat; a part met again through a loop of refs adds nothing
 * (A and A is A) and is skipped. An intersection that contains itself (two recursive types)
 * is stored once under a new `$defs` name and referred to, so the result stays finite. No
 * recursion on the schema's depth: every walk uses an explicit stack or queue.
 */
export function mergeAllOf(schema: JsonSchemaObject, options: MergeAllOfOptions): MergeAllOfResult {
  const result: MergeAllOfResult = { merged: [], refSiblings: [], conflicts: [], loops: [], hoisted: [] };
  const isPending = (node: JsonSchemaObject) => Array.isArray(getOwn(node, "allOf")) || (options.refSiblings && hasValidatingRefSiblings(node));
  const pointers = new Map<JsonSchemaObject, string>();
  walkBodies(schema, ({ node, pointer }) => {
    if (isPending(node)) pointers.set(node, pointer);
  });
  if (pointers.size === 0) return result;

  // Leaf keys: a definition by identity (its body is one object for the whole merge), any
  // other part by content, so that a copy of a part is the same part.
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const idOf = (value: object): number => {
    let id = ids.get(value);
    if (id === undefined) ids.set(value, (id = nextId++));
    return id;
  };
  const contentKey = (value: JsonSchemaObject): string => "c:" + createHash("sha256").update(canonicalJson(value)).digest("base64");
  let copiedNodes = 0;
  let merges = 0;
  // Which merge created a queued node, and each merged node's leaf key: a node whose key is
  // its creator's (or an earlier creator's) is an intersection that contains itself.
  const parentOf = new Map<JsonSchemaObject, JsonSchemaObject>();
  const keyOf = new Map<JsonSchemaObject, string>();
  let current: JsonSchemaObject | undefined;
  const enqueue = (node: JsonSchemaObject, pointer: string) => {
    if (current !== undefined) parentOf.set(node, current);
    queue.push({ node, pointer });
  };
  const hoistedNames = new Map<JsonSchemaObject, string>();
  const queue: Array<{ node: JsonSchemaObject; pointer: string }> = [];

  const resolve = (ref: string, pointer: string): { target: unknown; name: string } => {
    const segments = parseLocalRef(ref);
    if (segments === undefined) {
      throw new SluiceError("EXTERNAL_REF", `${options.tool}: "${ref}" points outside this schema; only local refs can be merged and nothing is fetched.`, { pointer });
    }
    if (segments.length === 0) {
      throw new SluiceError("RECURSIVE_SCHEMA", `${options.tool}: an allOf part is "$ref": "#" (the whole input schema inside itself); it has no finite merged form.`, { pointer });
    }
    let current: unknown = schema;
    for (const segment of segments) {
      if (typeof current !== "object" || current === null || !hasOwn(current, segment)) {
        throw new SluiceError("UNRESOLVED_REF", `${options.tool}: "${ref}" does not resolve: no "${segment}" there.`, { pointer });
      }
      current = (current as Record<string, unknown>)[segment];
    }
    return { target: current, name: segments[segments.length - 1]! };
  };

  /** The parts of `node` that hold neither allOf nor $ref, in order: ref target, allOf items, own keywords. */
  const flatten = (node: JsonSchemaObject, pointer: string): { leaves: Leaf[]; loopDefs: string[] } => {
    const leaves: Leaf[] = [];
    const seenLeaves = new Set<string>();
    const seenTargets = new Set<object>();
    // Ref targets being expanded, with their names: a ref back to one of them is a loop.
    // The node's own name is read from its pointer only when a loop is found (pointers of deep
    // nodes are long, and reading one costs its length).
    const onChain = new Map<object, string | undefined>([[node, undefined]]);
    const ownName = () => (pointer.startsWith("/$defs/") ? unescapePointerSegment(pointer.split("/")[2]!) : "(this node)");
    const loopDefs: string[] = [];
    type Item = { schema: unknown; owned: boolean; ref?: string; defName?: string } | { exit: object };
    const stack: Item[] = [{ schema: node, owned: true }];
    let steps = 0;
    const add = (leaf: Leaf) => {
      if (seenLeaves.has(leaf.key)) return;
      seenLeaves.add(leaf.key);
      leaves.push(leaf);
    };
    while (stack.length > 0) {
      if (++steps > 1_000_000) throw new SluiceError("INTERNAL_LIMIT", `${options.tool}: merging allOf at ${pointer || "the root"} met more than 1,000,000 parts.`, { pointer });
      const item = stack.pop()!;
      if ("exit" in item) {
        onChain.delete(item.exit);
        continue;
      }
      const part = item.schema;
      if (part === false) {
        add({ schema: false, key: "false", owned: false });
        continue;
      }
      if (!isSchemaObject(part)) continue; // `true` (or junk) adds no constraint
      const allOf = getOwn(part, "allOf");
      const ref = getOwn(part, "$ref");
      if (!Array.isArray(allOf) && typeof ref !== "string") {
        if (item.ref === undefined) add({ schema: part, key: contentKey(part), owned: item.owned });
        else add({ schema: part, key: "d:" + idOf(part), owned: false, ref: item.ref, ...(item.defName === undefined ? {} : { defName: item.defName }) });
        continue;
      }
      const rest: JsonSchemaObject = {};
      for (const key of Object.keys(part)) {
        if (key === "allOf" || key === "$ref" || (part === schema && key === "$defs")) continue;
        setOwn(rest, key, part[key]);
      }
      // Pushed in reverse: popped as ref target, then allOf items, then the node's own keywords.
      if (Object.keys(rest).length > 0) stack.push({ schema: rest, owned: item.owned });
      if (Array.isArray(allOf)) for (let i = allOf.length - 1; i >= 0; i--) stack.push({ schema: allOf[i], owned: item.owned });
      if (typeof ref === "string") {
        const { target, name } = resolve(ref, pointer);
        if (typeof target !== "object" || target === null) {
          if (target === false) add({ schema: false, key: "false", owned: false });
          continue;
        }
        if (target === schema) {
          throw new SluiceError("RECURSIVE_SCHEMA", `${options.tool}: "${ref}" is the whole input schema inside itself; it has no finite merged form.`, { pointer });
        }
        if (onChain.has(target)) loopDefs.push(...[...onChain.values()].map((n) => n ?? ownName()), name);
        else if (!seenTargets.has(target)) {
          seenTargets.add(target);
          onChain.set(target, name);
          stack.push({ exit: target });
          stack.push({ schema: target, owned: false, ref, defName: name });
        }
      }
    }
    return { leaves, loopDefs };
  };

  const charge = (nodes: number, pointer: string) => {
    copiedNodes += nodes;
    if (copiedNodes > options.maxCopiedNodes) {
      throw new SluiceError(
        "INLINE_BUDGET_EXCEEDED",
        `${options.tool}: merging allOf would copy more than ${options.maxCopiedNodes} schema nodes (the parts repeat large definitions); project the tool first, or raise inlineBudget.`,
        { pointer },
      );
    }
  };

  // Children of owned parts, for the merge in progress: each can move into the result once.
  let movable = new WeakSet<object>();

  /** A part's child for the merged node: moved when its part is owned, else copied (allOf nodes inside a copy are queued too). */
  const copy = <T>(value: T, pointer: string): T => {
    if (typeof value === "object" && value !== null && movable.has(value)) {
      movable.delete(value);
      return value;
    }
    const out = cloneJson(value);
    if (isSchemaObject(out)) {
      let nodes = 0;
      walkSchema(out, ({ node, pointer: inner }) => {
        nodes++;
        if (isPending(node)) enqueue(node, pointer + inner);
      });
      charge(nodes, pointer);
    }
    return out;
  };

  /**
   * A new node that stands for "all of these" and is merged in its turn. Parts of an owned
   * part move in; the others are copied, since one of them can be the very node being
   * merged (a property that leads back to it), which is about to be rewritten.
   */
  const conjoin = (parts: unknown[], pointer: string): JsonSchemaObject => {
    let nodes = 1;
    const items = parts.map((part) => {
      if (typeof part === "object" && part !== null && movable.has(part)) {
        movable.delete(part);
        return part;
      }
      const clone = cloneJson(part);
      if (isSchemaObject(clone)) walkSchema(clone, () => void nodes++);
      return clone;
    });
    const node: JsonSchemaObject = { allOf: items as JsonSchemaObject[] };
    charge(nodes, pointer);
    enqueue(node, pointer);
    return node;
  };

  const conflict = (pointer: string, message: string) => result.conflicts.push({ pointer, message });

  const replace = (node: JsonSchemaObject, content: JsonSchemaObject) => {
    for (const key of Object.keys(node)) if (!(node === schema && key === "$defs")) delete node[key];
    for (const key of Object.keys(content)) setOwn(node, key, content[key]);
  };

  const hoist = (node: JsonSchemaObject, leaves: readonly Leaf[]): string => {
    const known = hoistedNames.get(node);
    if (known !== undefined) return known;
    let defs = getOwn(schema, "$defs");
    if (!isSchemaObject(defs)) {
      defs = {};
      setOwn(schema, "$defs", defs);
    }
    const base = (leaves.find((l) => l.defName !== undefined)?.defName ?? "AllOf").replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 48);
    let name = `${base}_merged`;
    for (let n = 2; hasOwn(defs as object, name); n++) name = `${base}_merged_${n}`;
    const body: JsonSchemaObject = {};
    for (const key of Object.keys(node)) setOwn(body, key, node[key]);
    setOwn(defs as Record<string, unknown>, name, body);
    replace(node, { $ref: defRef(name) });
    hoistedNames.set(node, name);
    result.hoisted.push({ name, parts: [...new Set(leaves.flatMap((l) => (l.defName === undefined ? [] : [l.defName])))] });
    return name;
  };

  const mergeNode = (node: JsonSchemaObject, pointer: string) => {
    if (!isPending(node)) return; // merged already (a node shared by two places)
    if (++merges > MAX_MERGES) throw new SluiceError("INTERNAL_LIMIT", `${options.tool}: merging allOf took more than ${MAX_MERGES} merges; the schema is too large to merge.`, { pointer });
    const { leaves, loopDefs } = flatten(node, pointer);
    if (loopDefs.length > 0) result.loops.push({ pointer, defs: [...new Set(loopDefs)].sort() });
    // One definition plus annotations: keep the ref (the inliner, where needed, copies it once).
    const refLeaves = leaves.filter((l) => l.ref !== undefined);
    if (
      node !== schema &&
      loopDefs.length === 0 &&
      refLeaves.length === 1 &&
      leaves.every((l) => l === refLeaves[0] || (l.schema !== false && Object.keys(l.schema).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-"))))
    ) {
      const content: JsonSchemaObject = {};
      for (const leaf of leaves) if (leaf !== refLeaves[0] && leaf.schema !== false) for (const key of Object.keys(leaf.schema)) setOwn(content, key, cloneJson(leaf.schema[key]));
      content.$ref = refLeaves[0]!.ref!;
      replace(node, content);
      return;
    }
    const key = leaves.map((l) => l.key).sort().join("|");
    let steps = 0;
    for (let up = parentOf.get(node); up !== undefined && up !== schema; up = parentOf.get(up)) {
      if (++steps > MAX_MERGES) throw new SluiceError("INTERNAL_LIMIT", `${options.tool}: merging allOf nested more than ${MAX_MERGES} merges deep.`, { pointer });
      if (keyOf.get(up) === key) {
        replace(node, { $ref: defRef(hoist(up, leaves)) });
        return;
      }
    }
    movable = new WeakSet();
    for (const leaf of leaves) if (leaf.owned && leaf.schema !== false) markMovable(leaf.schema, movable);
    current = node;
    replace(node, mergeLeaves(leaves, pointer, { copy, conjoin, conflict }));
    current = undefined;
    movable = new WeakSet();
    keyOf.set(node, key);
  };

  let drained = 0;
  const drain = () => {
    for (; drained < queue.length; drained++) mergeNode(queue[drained]!.node, queue[drained]!.pointer);
    queue.length = 0;
    drained = 0;
    parentOf.clear();
    keyOf.clear();
  };

  // Post-order over children and ref targets: what a node's parts depend on is flat first.
  const order: JsonSchemaObject[] = [];
  const visited = new Set<object>();
  const starts: JsonSchemaObject[] = [schema, ...Object.values(defsOf(schema)).filter(isSchemaObject)];
  for (const start of starts) {
    if (visited.has(start)) continue;
    const stack: Array<{ node: JsonSchemaObject; children: JsonSchemaObject[] | undefined; index: number }> = [{ node: start, children: undefined, index: 0 }];
    visited.add(start);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.children === undefined) {
        frame.children = subschemasOf(frame.node)
          .filter((e) => !(frame.node === schema && e.keyword === "$defs"))
          .map((e) => e.child);
        const ref = getOwn(frame.node, "$ref");
        if (typeof ref === "string") {
          const segments = parseLocalRef(ref);
          if (segments !== undefined && segments.length > 0) {
            let target: unknown = schema;
            for (const segment of segments) target = getOwn(target, segment);
            if (isSchemaObject(target)) frame.children.push(target);
          }
        }
      }
      const next = frame.children[frame.index++];
      if (next === undefined) {
        stack.pop();
        if (pointers.has(frame.node)) order.push(frame.node);
        continue;
      }
      if (visited.has(next)) continue;
      visited.add(next);
      stack.push({ node: next, children: undefined, index: 0 });
    }
  }
  for (const node of order) {
    const pointer = pointers.get(node)!;
    if (Array.isArray(getOwn(node, "allOf"))) result.merged.push(pointer);
    else result.refSiblings.push(pointer);
    mergeNode(node, pointer);
    // The nodes this merge created are merged before the next one uses its result: a chain
    // of allOf that each add the same property would otherwise nest one allOf per level.
    drain();
  }
  return result;
}

/** Marks the keyword values of an owned part, and the members of its maps and lists, as free to move. */
function markMovable(part: JsonSchemaObject, movable: WeakSet<object>): void {
  for (const key of Object.keys(part)) {
    const value = part[key];
    if (typeof value !== "object" || value === null) continue;
    movable.add(value);
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === "object" && item !== null) movable.add(item);
    } else if (SUBSCHEMA_MAP_KEYWORDS.has(key)) {
      for (const name of Object.keys(value)) {
        const child = (value as Record<string, unknown>)[name];
        if (typeof child === "object" && child !== null) movable.add(child);
      }
    }
  }
}

interface MergeTools {
  copy: <T>(value: T, pointer: string) => T;
  conjoin: (parts: unknown[], pointer: string) => JsonSchemaObject;
  conflict: (pointer: string, message: string) => void;
}

function brief(value: unknown): string {
  const text = canonicalJson(value);
  return text.length > 60 ? text.slice(0, 57) + "..." : text;
}

/** Types as a set; "integer" is a "number". */
function typesOf(value: unknown): string[] | undefined {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((t) => typeof t === "string")) return value as string[];
  return undefined;
}

function intersectTypes(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of a) {
    if (b.includes(t)) out.push(t);
    else if (t === "integer" && b.includes("number")) out.push("integer");
    else if (t === "number" && b.includes("integer")) out.push("integer");
  }
  return [...new Set(out)];
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * One schema that says what every leaf says. Children are copies (never shared with the
 * parts); where two parts constrain the same child, the child is a new allOf node that is
 * merged in its turn.
 */
function mergeLeaves(leaves: readonly Leaf[], pointer: string, tools: MergeTools): JsonSchemaObject {
  const { copy, conjoin, conflict } = tools;
  const parts: JsonSchemaObject[] = [];
  for (const leaf of leaves) {
    if (leaf.schema === false) conflict(pointer, "An allOf part is `false` (it accepts nothing); it was left out, so the merged schema accepts values the original refused.");
    else parts.push(leaf.schema);
  }
  const out: JsonSchemaObject = {};
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) for (const key of Object.keys(part)) if (!seen.has(key)) (seen.add(key), keys.push(key));
  const having = (key: string) => parts.filter((p) => hasOwn(p, key));
  let objectDone = false;
  let conditionDone = false;

  for (const key of keys) {
    const holders = having(key);
    const values = holders.map((p) => p[key]);
    const first = values[0];
    if (OBJECT_KEYWORDS.has(key)) {
      if (!objectDone) mergeObject(parts, pointer, out, tools);
      objectDone = true;
      continue;
    }
    if (key === "if" || key === "then" || key === "else") {
      if (conditionDone) continue;
      conditionDone = true;
      const conditional = parts.filter((p) => hasOwn(p, "if") || hasOwn(p, "then") || hasOwn(p, "else"));
      const distinct = new Set(conditional.map((p) => canonicalJson([getOwn(p, "if") ?? null, getOwn(p, "then") ?? null, getOwn(p, "else") ?? null])));
      if (distinct.size > 1) conflict(pointer, "Several allOf parts have if/then/else; one schema holds only one condition: the first part's was kept, the others no longer apply.");
      const chosen = conditional[0]!;
      for (const k of ["if", "then", "else"]) if (hasOwn(chosen, k)) setOwn(out, k, copy(chosen[k], `${pointer}/${k}`));
      continue;
    }
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) {
      setOwn(out, key, cloneJson(values[values.length - 1]));
      continue;
    }
    if (values.length === 1) {
      setOwn(out, key, copy(first, `${pointer}/${key}`));
      continue;
    }
    const distinct = new Map<string, unknown>();
    for (const value of values) distinct.set(canonicalJson(value), value);
    if (distinct.size === 1) {
      setOwn(out, key, copy(first, `${pointer}/${key}`));
      continue;
    }
    if (key === "type") {
      const sets = values.map(typesOf);
      if (sets.every((s) => s !== undefined)) {
        const common = sets.reduce((a, b) => intersectTypes(a!, b!))!;
        if (common.length === 0) {
          conflict(pointer, `allOf parts need types that cannot both hold (${[...distinct.keys()].join(" and ")}): no value is valid; the first part's type was kept.`);
          setOwn(out, key, cloneJson(first));
        } else setOwn(out, key, common.length === 1 ? common[0]! : common);
        continue;
      }
    }
    if (key === "enum" && values.every(Array.isArray)) {
      const lists = values as unknown[][];
      const common = lists[0]!.filter((v) => lists.every((list) => list.some((w) => canonicalJson(w) === canonicalJson(v))));
      if (common.length === 0) {
        conflict(pointer, "allOf parts allow enum values with none in common: no value is valid; the first part's enum was kept.");
        setOwn(out, key, cloneJson(first));
      } else setOwn(out, key, cloneJson(common));
      continue;
    }
    if (TAKE_MAX.has(key) && values.every((v) => typeof v === "number")) {
      setOwn(out, key, Math.max(...(values as number[])));
      continue;
    }
    if (TAKE_MIN.has(key) && values.every((v) => typeof v === "number")) {
      setOwn(out, key, Math.min(...(values as number[])));
      continue;
    }
    if (key === "uniqueItems" && values.every((v) => typeof v === "boolean")) {
      setOwn(out, key, values.some((v) => v === true));
      continue;
    }
    if (key === "multipleOf" && values.every((v) => Number.isSafeInteger(v) && (v as number) > 0)) {
      const lcm = (values as number[]).reduce((a, b) => (a / gcd(a, b)) * b);
      if (Number.isSafeInteger(lcm)) {
        setOwn(out, key, lcm);
        continue;
      }
    }
    if (CONJOIN.has(key)) {
      setOwn(out, key, conjoin(values, `${pointer}/${key}`));
      continue;
    }
    if (key === "dependentRequired" && values.every(isSchemaObject)) {
      const merged: Record<string, string[]> = {};
      for (const value of values as Record<string, unknown>[]) {
        for (const name of Object.keys(value)) {
          const list = Array.isArray(value[name]) ? (value[name] as string[]) : [];
          setOwn(merged, name, [...new Set([...(hasOwn(merged, name) ? merged[name]! : []), ...list])]);
        }
      }
      setOwn(out, key, merged);
      continue;
    }
    if (key === "dependentSchemas" && values.every(isSchemaObject)) {
      const merged: Record<string, unknown> = {};
      const names = [...new Set((values as Record<string, unknown>[]).flatMap((v) => Object.keys(v)))];
      for (const name of names) {
        const own = (values as Record<string, unknown>[]).filter((v) => hasOwn(v, name)).map((v) => v[name]);
        const at = `${pointer}/${key}/${escapePointerSegment(name)}`;
        setOwn(merged, name, own.length === 1 ? copy(own[0], at) : conjoin(own, at));
      }
      setOwn(out, key, merged);
      continue;
    }
    if (key === "not") {
      // not a and not b = not (a or b).
      setOwn(out, key, { anyOf: values.map((v, i) => copy(v, `${pointer}/not/anyOf/${i}`)) });
      continue;
    }
    if ((UNIONS as readonly string[]).includes(key) && values.every(Array.isArray)) {
      const lists = values as unknown[][];
      const product = lists.reduce((n, list) => n * Math.max(list.length, 1), 1);
      if (product <= MAX_UNION_PRODUCT) {
        let combos: unknown[][] = [[]];
        for (const list of lists) combos = combos.flatMap((combo) => list.map((branch) => [...combo, branch]));
        setOwn(out, key, combos.map((combo, i) => conjoin(combo, `${pointer}/${key}/${i}`)));
      } else {
        conflict(pointer, `${lists.length} allOf parts each have ${key} (${product} combinations, over ${MAX_UNION_PRODUCT}): their branches were put in one ${key}, which accepts more than the original.`);
        setOwn(out, key, lists.flat().map((branch, i) => copy(branch, `${pointer}/${key}/${i}`)));
      }
      continue;
    }
    conflict(pointer, `allOf parts disagree on "${key}" (${[...distinct.keys()].slice(0, 3).map(brief).join(" vs ")}), which one schema cannot say together; the first part's value was kept.`);
    setOwn(out, key, copy(first, `${pointer}/${key}`));
  }
  if (hasOwn(out, "const") && Array.isArray(out.enum) && !out.enum.some((v) => canonicalJson(v) === canonicalJson(out.const))) {
    conflict(pointer, "An allOf part's const is not among another part's enum values: no value is valid; both were kept as written.");
  }
  return out;
}

/**
 * properties, required, additionalProperties, patternProperties, unevaluatedProperties of
 * the parts, together: a name declared by several parts gets the allOf of its schemas; a
 * part's additionalProperties schema also applies to the names other parts add; a part
 * closed with `false` that does not list a name another part declares is a conflict (the
 * original accepts that name in no object; the merged object accepts it).
 */
function mergeObject(parts: readonly JsonSchemaObject[], pointer: string, out: JsonSchemaObject, tools: MergeTools): void {
  const { copy, conjoin, conflict } = tools;
  const declared = (part: JsonSchemaObject): Record<string, unknown> => (isSchemaObject(part.properties) ? (part.properties as Record<string, unknown>) : {});
  const names: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) for (const name of Object.keys(declared(part))) if (!seen.has(name)) (seen.add(name), names.push(name));
  const closedBy = (part: JsonSchemaObject) => part.additionalProperties === false || part.unevaluatedProperties === false;
  const hasPatterns = (part: JsonSchemaObject) => isSchemaObject(part.patternProperties) && Object.keys(part.patternProperties).length > 0;

  if (names.length > 0) {
    const properties: Record<string, unknown> = {};
    const forbidden: string[] = [];
    const unknownPattern: string[] = [];
    for (const name of names) {
      const contributions: unknown[] = [];
      for (const part of parts) {
        const own = declared(part);
        if (hasOwn(own, name)) contributions.push(own[name]);
        else if (hasPatterns(part)) unknownPattern.push(name);
        else if (isSchemaObject(part.additionalProperties)) contributions.push(part.additionalProperties);
        else if (closedBy(part)) forbidden.push(name);
      }
      const at = `${pointer}/properties/${escapePointerSegment(name)}`;
      setOwn(properties, name, contributions.length === 1 ? copy(contributions[0], at) : conjoin(contributions, at));
    }
    setOwn(out, "properties", properties);
    if (forbidden.length > 0) {
      const list = [...new Set(forbidden)];
      conflict(pointer, `allOf parts close the object to different properties (a part with additionalProperties: false does not list ${list.slice(0, 5).join(", ")}${list.length > 5 ? ", ..." : ""}); the merged object accepts every part's properties.`);
    }
    if (unknownPattern.length > 0) {
      const list = [...new Set(unknownPattern)];
      conflict(pointer, `A part's patternProperties may apply to ${list.slice(0, 5).join(", ")}${list.length > 5 ? ", ..." : ""} declared by another part; the merged object does not check those names against the patterns.`);
    }
  }
  const required: string[] = [];
  for (const part of parts) if (Array.isArray(part.required)) for (const name of part.required) if (typeof name === "string" && !required.includes(name)) required.push(name);
  if (required.length > 0) setOwn(out, "required", required);

  const patterned = parts.filter(hasPatterns);
  if (patterned.length > 0) {
    const patterns: Record<string, unknown> = {};
    const keys = [...new Set(patterned.flatMap((p) => Object.keys(p.patternProperties as object)))];
    for (const key of keys) {
      const own = patterned.filter((p) => hasOwn(p.patternProperties as object, key)).map((p) => (p.patternProperties as Record<string, unknown>)[key]);
      const at = `${pointer}/patternProperties/${escapePointerSegment(key)}`;
      setOwn(patterns, key, own.length === 1 ? copy(own[0], at) : conjoin(own, at));
    }
    setOwn(out, "patternProperties", patterns);
    if (patterned.length > 1) conflict(pointer, "Several allOf parts have patternProperties; merged into one map, each pattern now also admits names another part's patterns or properties would have refused.");
  }
  if (parts.some((p) => p.additionalProperties === false)) setOwn(out, "additionalProperties", false);
  else {
    const schemas = parts.filter((p) => isSchemaObject(p.additionalProperties)).map((p) => p.additionalProperties);
    if (schemas.length === 1) setOwn(out, "additionalProperties", copy(schemas[0], `${pointer}/additionalProperties`));
    else if (schemas.length > 1) setOwn(out, "additionalProperties", conjoin(schemas, `${pointer}/additionalProperties`));
  }
  const unevaluated = parts.filter((p) => hasOwn(p, "unevaluatedProperties") && p.unevaluatedProperties !== true).map((p) => p.unevaluatedProperties);
  if (unevaluated.length > 0) {
    if (new Set(unevaluated.map((u) => canonicalJson(u))).size > 1) {
      conflict(pointer, "allOf parts have different unevaluatedProperties; the first part's was kept.");
    }
    setOwn(out, "unevaluatedProperties", copy(unevaluated[0], `${pointer}/unevaluatedProperties`));
  }
}
