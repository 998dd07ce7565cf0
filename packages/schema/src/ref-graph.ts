import { isSchemaObject, type JsonSchemaObject } from "./json-schema.ts";
import { parseLocalRef } from "./json-pointer.ts";
import { getOwn, hasOwn } from "./own-properties.ts";
import { SluiceError } from "./sluice-error.ts";
import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "./subschema-keywords.ts";
import { walkSchema } from "./walk-schema.ts";

/** The graph node standing for the root schema (everything outside `$defs`). */
export const ROOT = "#";

const SKIP_DEFS: ReadonlySet<string> = new Set(["$defs"]);

/**
 * The `$defs` entry a local ref lands in (`#/$defs/A/properties/x` -> `A`), or ROOT for
 * refs elsewhere in the document. A ref to another document is refused: sluice never
 * fetches, and a tool must be self-contained.
 */
export function refTarget(ref: string, pointer = ""): string {
  const target = localTarget(ref);
  if (target === undefined) {
    throw new SluiceError("EXTERNAL_REF", `"${ref}" points outside this schema; only local refs (#/$defs/Name) are supported and nothing is fetched.`, { pointer });
  }
  return target;
}

/**
 * Targets of local refs already read. Every schema assembly, ref graph and egress map asks
 * for the same few hundred `$ref` strings thousands of times (Kubernetes' egress map: 0.3 s
 * of its 0.6 s went to decoding and splitting them again). Bounded in entries (cleared
 * when full) and in length (a longer ref is decoded each time), so that what it keeps
 * after a spec is gone stays small.
 */
const TARGETS = new Map<string, string>();
const TARGETS_MAX = 65_536;
const TARGET_REF_MAX_LENGTH = 512;

/** refTarget without the error: undefined for a ref that is not local. */
function localTarget(ref: string): string | undefined {
  const known = TARGETS.get(ref);
  if (known !== undefined) return known;
  const segments = parseLocalRef(ref);
  if (segments === undefined) return undefined;
  const target = segments[0] === "$defs" && segments.length >= 2 ? segments[1]! : ROOT;
  if (ref.length > TARGET_REF_MAX_LENGTH) return target;
  if (TARGETS.size >= TARGETS_MAX) TARGETS.clear();
  TARGETS.set(ref, target);
  return target;
}

/** The `$defs` map of a root schema, or an empty one. */
export function defsOf(root: JsonSchemaObject): Record<string, JsonSchemaObject> {
  const defs = getOwn(root, "$defs");
  return isSchemaObject(defs) ? (defs as Record<string, JsonSchemaObject>) : {};
}

/**
 * Refs made from one place (the root body or one def body), to def names or ROOT, in the
 * order `walkSchema` meets them. Every tool's schema assembly and every ref graph run
 * through here, so it walks without building a JSON pointer per node (`walkSchema` does);
 * only a ref it must refuse is looked up again with its pointer, for the error.
 */
export function refsFrom(body: JsonSchemaObject, basePointer: string, skipDefs: boolean): string[] {
  const targets = new Set<string>();
  const seen = new Set<JsonSchemaObject>();
  const stack: JsonSchemaObject[] = [body];
  const children: JsonSchemaObject[] = [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") {
      const target = localTarget(node.$ref);
      if (target === undefined) return refsWithPointers(body, basePointer, skipDefs);
      targets.add(target);
    }
    // The children in document order, pushed last-first so that they pop first-first, as in walkSchema.
    // Indexed loops: most of a build runs before V8 optimises this, and unoptimised code
    // allocates an iterator object for every for-of (Kubernetes: 2.7 MB of them here).
    children.length = 0;
    const keywords = Object.keys(node);
    for (let k = 0; k < keywords.length; k++) {
      const keyword = keywords[k]!;
      if (skipDefs && keyword === "$defs") continue;
      const value = node[keyword];
      if (SUBSCHEMA_MAP_KEYWORDS.has(keyword)) {
        if (!isSchemaObject(value)) continue;
        const keys = Object.keys(value);
        for (let i = 0; i < keys.length; i++) {
          const child = value[keys[i]!];
          if (isSchemaObject(child)) children.push(child);
        }
      } else if (SUBSCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (isSchemaObject(value[i])) children.push(value[i] as JsonSchemaObject);
      } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(keyword) && isSchemaObject(value)) {
        children.push(value);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return [...targets];
}

/** The same walk with pointers: refTarget then names where the refused ref sits. */
function refsWithPointers(body: JsonSchemaObject, basePointer: string, skipDefs: boolean): string[] {
  const targets = new Set<string>();
  walkSchema(
    body,
    ({ node, pointer }) => {
      if (hasOwn(node, "$ref") && typeof node.$ref === "string") targets.add(refTarget(node.$ref, basePointer + pointer));
    },
    skipDefs ? { skipKeywords: SKIP_DEFS } : {},
  );
  return [...targets];
}

/**
 * Who references whom: ROOT and every `$defs` name, each with the defs (or ROOT) its
 * body refers to. A ref to a name missing from `$defs` is an UNRESOLVED_REF.
 * `bodyRefs` keeps what each definition body refers to, per body object, for graphs of
 * schemas that share their definition objects (a pack's tools): each body is walked once
 * for all of them. The arrays in the graph are then shared: read them, never edit them.
 */
export function refGraph(root: JsonSchemaObject, bodyRefs?: WeakMap<object, string[]>): Map<string, string[]> {
  const defs = defsOf(root);
  const graph = new Map<string, string[]>();
  graph.set(ROOT, refsFrom(root, "", true));
  for (const name of Object.keys(defs)) {
    const body = defs[name]!;
    if (!isSchemaObject(body)) {
      graph.set(name, []);
      continue;
    }
    let targets = bodyRefs?.get(body);
    if (targets === undefined) {
      targets = refsFrom(body, "/$defs/" + name, false);
      bodyRefs?.set(body, targets);
    }
    graph.set(name, targets);
  }
  for (const [from, targets] of graph) {
    for (const target of targets) {
      if (!graph.has(target)) {
        throw new SluiceError("UNRESOLVED_REF", `"#/$defs/${target}" is referenced from ${from === ROOT ? "the root" : from} but not defined.`, {
          pointer: "/$defs/" + target,
        });
      }
    }
  }
  return graph;
}

/** Names reachable from `start` (included) by following refs. */
export function reachable(graph: ReadonlyMap<string, readonly string[]>, start: string = ROOT): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of graph.get(queue.pop()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}
