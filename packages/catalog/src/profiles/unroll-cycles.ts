import { cloneJson, defRef, defsOf, hasOwn, isSchemaObject, parseLocalRef, ROOT, SluiceError, UNION_KEYWORDS } from "@sluice/schema";
import type { JsonSchemaObject } from "@sluice/schema";

/** Positions a property's schema passes through to reach a type (arrays, maps, unions), as `recursionCuts` reads them. */
const WRAPPERS = ["items", "prefixItems", "additionalProperties", ...UNION_KEYWORDS];

/**
 * Unrolls each cycle to `depth` levels: level 0 keeps the original definitions, level k
 * copies every type of the cycle as `Type_rk`, a ref from level k into the cycle goes to
 * level k+1, and at the last level the properties that lead back into the cycle are
 * removed. The result is acyclic and its size is bounded by (depth + 1) copies of each
 * cycle. Mutates and returns `schema` (pass a clone).
 */
export function unrollCycles(schema: JsonSchemaObject, cycles: readonly (readonly string[])[], depth: number): JsonSchemaObject {
  const defs = defsOf(schema);
  const taken = new Set(Object.keys(defs));
  for (const cycle of cycles) {
    if (cycle.includes(ROOT)) {
      throw new SluiceError("RECURSIVE_SCHEMA", "The root schema refers to itself; only cycles between $defs types can be unrolled.", { pointer: "" });
    }
    const members = new Set(cycle);
    const pristine = new Map(cycle.map((name) => [name, cloneJson(defs[name]!)]));
    const names: Array<Map<string, string>> = [];
    for (let level = 0; level <= depth; level++) {
      const map = new Map<string, string>();
      for (const name of cycle) {
        if (level === 0) map.set(name, name);
        else {
          let copy = `${name}_r${level}`;
          for (let n = 2; taken.has(copy); n++) copy = `${name}_r${level}_${n}`;
          taken.add(copy);
          map.set(name, copy);
        }
      }
      names.push(map);
    }
    for (let level = 0; level <= depth; level++) {
      for (const name of cycle) {
        const body = level === 0 ? defs[name]! : cloneJson(pristine.get(name)!);
        if (level === depth) cutBackEdges(body, members, name);
        else retarget(body, members, names[level + 1]!);
        defs[names[level]!.get(name)!] = body;
      }
    }
  }
  return schema;
}

function targetOf(ref: string): { name: string; rest: string } | undefined {
  const segments = parseLocalRef(ref);
  if (segments === undefined || segments[0] !== "$defs" || segments.length < 2) return undefined;
  const rest = ref.slice(defRef(segments[1]!).length);
  return { name: segments[1]!, rest };
}

/** Points every ref into the cycle at the next level's copy. */
function retarget(body: JsonSchemaObject, members: ReadonlySet<string>, next: ReadonlyMap<string, string>): void {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isSchemaObject(node)) continue;
    if (hasOwn(node, "$ref") && typeof node.$ref === "string") {
      const target = targetOf(node.$ref);
      if (target && members.has(target.name)) node.$ref = defRef(next.get(target.name)!) + target.rest;
    }
    for (const key of Object.keys(node)) {
      // Instance data never holds refs that matter; skip it to keep `const`/`enum` values untouched.
      if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
      const value = node[key];
      if (typeof value === "object" && value !== null) stack.push(value);
    }
  }
}

/** Whether a property's schema leads straight into the cycle (through arrays, maps and unions). */
function leadsInto(node: JsonSchemaObject, members: ReadonlySet<string>): boolean {
  const queue = [node];
  while (queue.length > 0) {
    const current = queue.pop()!;
    if (hasOwn(current, "$ref") && typeof current.$ref === "string") {
      const target = targetOf(current.$ref);
      if (target && members.has(target.name)) return true;
    }
    for (const keyword of WRAPPERS) {
      const value = current[keyword];
      if (Array.isArray(value)) queue.push(...value.filter(isSchemaObject));
      else if (isSchemaObject(value)) queue.push(value);
    }
  }
  return false;
}

/** At the last level: removes every property that leads back into the cycle, at any nesting inside the body. */
function cutBackEdges(body: JsonSchemaObject, members: ReadonlySet<string>, typeName: string): void {
  if (leadsInto(body, members)) {
    throw new SluiceError("RECURSIVE_SCHEMA", `${typeName} refers back into its cycle outside a property (through items or a union at its top); it cannot be unrolled by removing properties.`, {
      pointer: "/$defs/" + typeName,
    });
  }
  const stack = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const properties = node.properties;
    if (isSchemaObject(properties)) {
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      for (const key of Object.keys(properties)) {
        const child = properties[key];
        if (!isSchemaObject(child)) continue;
        if (leadsInto(child, members)) {
          if (required.has(key)) {
            throw new SluiceError("RECURSIVE_SCHEMA", `${typeName}.${key} is required and leads back into its cycle; the cycle cannot be cut at any depth.`, {
              pointer: "/$defs/" + typeName + "/properties/" + key,
            });
          }
          delete properties[key];
        } else stack.push(child);
      }
    }
    for (const keyword of WRAPPERS) {
      const value = node[keyword];
      if (Array.isArray(value)) stack.push(...value.filter(isSchemaObject));
      else if (isSchemaObject(value)) stack.push(value);
    }
  }
}
