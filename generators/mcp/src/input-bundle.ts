/**
 * The chosen tools' input schemas as one JSON Schema bundle, the document
 * @sluice/schema-convert converts them in: each tool's `$defs` / `definitions` hoisted to the
 * bundle's root `$defs` (one name for a definition that reads the same in every tool, else
 * `<tool>_<Name>`), each tool's schema (its definitions taken out) at
 * `/tools/<index>/inputSchema`, where it sits in the snapshot, so a pointer the converter
 * reports into a tool is already the snapshot's; and every local `$ref` rewritten to where
 * its target now lives. A ref into the tool's own schema (`#`, `#/properties/...` left after
 * hoistPropertyRefs) points at a copy of it in `$defs`, `<tool>_input`.
 */
import { canonicalJson, type JsonSchemaObject } from "@sluice/schema";
import { escapePointer, type McpSnapshotTool } from "@sluice/mcp-client";
import { hoistPropertyRefs } from "./hoist-property-refs.ts";
import { definitionsOf, rewriteRefs, withoutDefinitions } from "./schema-definitions.ts";

export interface PlacedTool {
  tool: McpSnapshotTool;
  /** Its index in the snapshot's `tools`. */
  index: number;
  /** Its wire name in the pack. */
  name: string;
}

export interface InputBundle {
  root: { $defs: Record<string, unknown>; tools: Record<string, { inputSchema: unknown }> };
  /** Bundle pointers of the hoisted definitions -> their snapshot pointers, longest first (for messages). */
  pointers: Array<[string, string]>;
}

export function inputBundle(placed: readonly PlacedTool[]): InputBundle {
  const chosen = placed.map((entry) => ({ ...entry, schema: hoistPropertyRefs(entry.tool.inputSchema) }));
  const defs: Record<string, unknown> = {};
  const tools: Record<string, { inputSchema: unknown }> = {};
  const pointers: Array<[string, string]> = [];
  const define = (name: string, value: unknown) => Object.defineProperty(defs, name, { value, enumerable: true, writable: true, configurable: true });
  // A definition name shared by tools that define it alike keeps its name; otherwise it is qualified.
  const seen = new Map<string, Set<string>>();
  for (const { schema } of chosen) {
    for (const [name, def] of definitionsOf(schema)) {
      const forms = seen.get(name) ?? new Set<string>();
      forms.add(canonicalJson(def));
      seen.set(name, forms);
    }
  }
  const shared = new Set([...seen].filter(([, forms]) => forms.size === 1).map(([name]) => name));
  const taken = new Set<string>(shared);
  for (const { schema, index, name: toolName } of chosen) {
    const local = new Map<string, string>();
    for (const [name] of definitionsOf(schema)) {
      if (local.has(name)) continue;
      let bundled = shared.has(name) ? name : `${toolName}_${name}`;
      for (let n = 2; !shared.has(name) && taken.has(bundled); n++) bundled = `${toolName}_${name}_${n}`;
      taken.add(bundled);
      local.set(name, bundled);
      pointers.push([`/$defs/${escapePointer(bundled)}`, `/tools/${index}/inputSchema/${definitionsKeyword(schema, name)}/${escapePointer(name)}`]);
    }
    const root = `${toolName}_input`;
    const rewrite = (node: unknown): unknown => rewriteRefs(node, local, `#/$defs/${escapePointer(root)}`);
    for (const [name, def] of definitionsOf(schema)) {
      if (shared.has(name) && Object.prototype.hasOwnProperty.call(defs, name)) continue;
      define(local.get(name)!, rewrite(def));
    }
    const body = rewrite(withoutDefinitions(schema));
    if (refersToItself(schema)) define(root, body);
    // A ref to what the tool does not define lands below its root copy: named like the tool's own schema either way.
    pointers.push([`/$defs/${escapePointer(root)}`, `/tools/${index}/inputSchema`]);
    Object.defineProperty(tools, String(index), { value: { inputSchema: body }, enumerable: true, writable: true, configurable: true });
  }
  // Longest prefixes first, so a nested location maps by its most specific entry.
  pointers.sort((a, b) => b[0].length - a[0].length);
  return { root: { $defs: defs, tools }, pointers };
}

/** Whether a schema has a local `$ref` into itself other than into its definitions (`#`, `#/properties/a/items`). */
function refersToItself(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersToItself);
  if (typeof node !== "object" || node === null) return false;
  const ref = (node as Record<string, unknown>)["$ref"];
  if (typeof ref === "string" && ref.startsWith("#") && !/^#\/(?:\$defs|definitions)\//.test(ref)) return true;
  return Object.entries(node).some(([key, value]) => key !== "enum" && key !== "const" && key !== "default" && key !== "examples" && refersToItself(value));
}

function definitionsKeyword(schema: JsonSchemaObject, name: string): string {
  const defs = (schema as Record<string, unknown>)["$defs"];
  return typeof defs === "object" && defs !== null && Object.prototype.hasOwnProperty.call(defs, name) ? "$defs" : "definitions";
}

/**
 * Bundle pointers in a text (or a pointer) mapped back to snapshot pointers, each by its
 * longest known prefix that ends where a segment ends; the rest of the pointer is kept as
 * it is (it is below that place in the snapshot too, never another mapped place).
 */
export function snapshotPointers(text: string, pointers: ReadonlyArray<[string, string]>): string {
  if (pointers.length === 0 || !text.includes("/$defs/")) return text;
  const to = new Map(pointers);
  const prefixes = pointers.map(([from]) => from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return text.replace(new RegExp(`(${prefixes})((?:/[^\\s"']*)?)(?![^\\s"'.,:;)\\]])`, "g"), (_match, from: string, rest: string) => `${to.get(from)!}${rest}`);
}
