import type { JsonSchemaObject } from "@sluice/schema";
import { escapePointer } from "@sluice/mcp-client";
import { definitionsOf } from "./schema-definitions.ts";

const PROPERTY_REF = /^#((?:\/properties\/[^/]+)+)$/;

/** Keywords that say something about a value without constraining it. */
const ANNOTATIONS = new Set(["description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"]);

/**
 * A schema whose `$ref`s point into its own properties (`#/properties/nextThoughtNeeded`,
 * as zod-to-json-schema writes a type it met before) without them: a ref beside annotations
 * only is written out in place (the target with those annotations), any other is pointed at
 * a copy of its target in the definitions, under the property's name. The same schema, but
 * the converter would otherwise name each target after its whole path
 * (`<tool>_input_properties_<name>`), which the served definition then
 * spells at every use: larger than what the server sent.
 */
export function hoistPropertyRefs(schema: JsonSchemaObject): JsonSchemaObject {
  const refs = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && PROPERTY_REF.test(value)) refs.add(value);
      else if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") collect(value);
    }
  };
  collect(schema);
  if (refs.size === 0) return schema;
  const keyword = Object.prototype.hasOwnProperty.call(schema, "definitions") && !Object.prototype.hasOwnProperty.call(schema, "$defs") ? "definitions" : "$defs";
  const taken = new Set(definitionsOf(schema).map(([name]) => name));
  const named = new Map<string, { name: string; target: unknown }>();
  for (const ref of [...refs].sort()) {
    const segments = PROPERTY_REF.exec(ref)![1]!.split("/").slice(1);
    let target: unknown = schema;
    for (const segment of segments) {
      const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
      target = typeof target === "object" && target !== null && Object.prototype.hasOwnProperty.call(target, key) ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (typeof target !== "object" || target === null) continue;
    const base = segments[segments.length - 1]!.replace(/~1/g, "/").replace(/~0/g, "~");
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    named.set(ref, { name, target });
  }
  const rewrite = (node: unknown, inlining: ReadonlySet<string> = new Set()): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, inlining));
    if (typeof node !== "object" || node === null) return node;
    const ref = (node as Record<string, unknown>)["$ref"];
    const target = typeof ref === "string" ? named.get(ref) : undefined;
    // A ref beside annotations only reads the same as its target with those annotations:
    // written out in place (smaller than a definition and a ref), unless it refers back to itself.
    if (target !== undefined && !inlining.has(ref as string) && Object.keys(node).every((key) => key === "$ref" || ANNOTATIONS.has(key))) {
      const { $ref: _ref, ...annotations } = node as Record<string, unknown>;
      const inlined = rewrite(target.target, new Set([...inlining, ref as string]));
      if (typeof inlined === "object" && inlined !== null && !Array.isArray(inlined)) return { ...inlined, ...annotations };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const hoisted = key === "$ref" && typeof value === "string" ? named.get(value) : undefined;
      const next = hoisted !== undefined ? `#/${keyword}/${escapePointer(hoisted.name)}` : key === "enum" || key === "const" || key === "default" || key === "examples" ? value : rewrite(value, inlining);
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const out = rewrite(schema) as Record<string, unknown>;
  // Definitions only for the targets still referred to (a ref that could not be written out in place).
  const used = new Set<string>();
  const scan = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(scan);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") used.add(value);
      else if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") scan(value);
    }
  };
  const defs = { ...((out[keyword] as Record<string, unknown> | undefined) ?? {}) };
  const pending = [...named.values()];
  scan(out);
  for (let added = true; added; ) {
    added = false;
    for (const entry of pending) {
      if (Object.prototype.hasOwnProperty.call(defs, entry.name) || !used.has(`#/${keyword}/${escapePointer(entry.name)}`)) continue;
      const body = rewrite(entry.target);
      Object.defineProperty(defs, entry.name, { value: body, enumerable: true, writable: true, configurable: true });
      scan(body);
      added = true;
    }
  }
  if (Object.keys(defs).length > 0) out[keyword] = defs;
  return out as JsonSchemaObject;
}
