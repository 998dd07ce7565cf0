/**
 * The `$defs` / `definitions` of a tool's schema (input or output) and the rewriting that
 * moves them into one JSON Schema bundle, a root `$defs` shared by the tools: both the
 * pack's IR (input-bundle.ts) and its response hints (output schemas) hand the tools'
 * schemas to @sluice/schema-convert this way, each definition at one place.
 */
import type { JsonSchemaObject } from "@sluice/schema";
import { escapePointer } from "@sluice/mcp-client";

export function definitionsOf(schema: JsonSchemaObject): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const keyword of ["$defs", "definitions"]) {
    const group = (schema as Record<string, unknown>)[keyword];
    if (typeof group === "object" && group !== null && !Array.isArray(group)) out.push(...Object.entries(group));
  }
  return out;
}

export function withoutDefinitions(schema: JsonSchemaObject): JsonSchemaObject {
  const { $defs: _defs, definitions: _definitions, $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest as JsonSchemaObject;
}

/**
 * Copies a schema with its local `$ref`s pointed at the hoisted definitions
 * (`#/$defs/<bundle name>`; `local`: the tool's own definition name -> its bundle name),
 * any other local ref below `root`, the ref of the tool's whole schema in the bundle (values
 * under enum/const/default/examples untouched).
 */
export function rewriteRefs(node: unknown, local: ReadonlyMap<string, string>, root: string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, local, root));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    let next: unknown;
    if (key === "$ref" && typeof value === "string") next = rewriteRef(value, local, root);
    else if (key === "enum" || key === "const" || key === "default" || key === "examples") next = value;
    else next = rewriteRefs(value, local, root);
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function rewriteRef(ref: string, local: ReadonlyMap<string, string>, root: string): string {
  if (!ref.startsWith("#")) return ref;
  if (ref === "#" || ref === "#/") return root;
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)(.*)$/.exec(ref);
  if (match !== null) {
    let name: string;
    try {
      name = decodeURIComponent(match[1]!).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return ref;
    }
    const component = local.get(name);
    if (component !== undefined) return `#/$defs/${encodeURIComponent(escapePointer(component))}${match[2]}`;
  }
  return ref.startsWith("#/") ? `${root}${ref.slice(1)}` : ref;
}
