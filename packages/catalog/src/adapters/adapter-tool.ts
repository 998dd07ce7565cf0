import type { ToolAnnotations } from "@sluice/core";
import { cloneJson, SluiceError, type JsonSchemaObject } from "@sluice/schema";

/**
 * What an adapter reads from a tool: the definition the model sees and the annotations.
 * A `Tool` from @sluice/core fits; so does any value of the same shape (a session's
 * search tool, a tool loaded from JSON).
 */
export interface AdapterTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly annotations?: Readonly<ToolAnnotations>;
}

/**
 * The order tools are emitted in. `"by-name"` (the default) sorts by name, by UTF-16
 * code units, so the same set gives the same bytes however it was assembled.
 * `"as-given"` keeps the caller's order: deferred loading appends tools in load order so
 * each turn's tool list extends the previous one and the provider's cached prefix survives.
 */
export type ToolOrder = "by-name" | "as-given";

export interface AdapterOptions {
  /** Default `"by-name"`. */
  order?: ToolOrder;
}

/** The tools in emission order. Duplicate names are refused: every provider rejects them, and they would make the order ambiguous. */
export function orderTools<T extends AdapterTool>(tools: readonly T[], options: AdapterOptions = {}): T[] {
  const order = options.order ?? "by-name";
  if (order !== "by-name" && order !== "as-given") {
    throw new SluiceError("INVALID_OPTION", `order must be "by-name" or "as-given", not ${JSON.stringify(order)}.`);
  }
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new SluiceError("INVALID_NAME", `Two tools are named ${tool.name}; a provider rejects the whole request.`);
    seen.add(tool.name);
  }
  const ordered = [...tools];
  if (order === "by-name") ordered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ordered;
}

/** A JSON Schema whose root is an object, as function-calling APIs require. */
export interface ObjectRootSchema {
  type: "object";
  [keyword: string]: unknown;
}

/**
 * A private copy of the tool's input schema (tool schemas are shared and frozen; the
 * caller may edit what an adapter returns). The Tool model promises an object root;
 * a tool that breaks the promise is refused here rather than sent.
 */
export function inputSchemaCopy(tool: AdapterTool): ObjectRootSchema {
  return cloneJson(objectRootSchema(tool));
}

/** The tool's input schema itself (shared, frozen: read only), checked to have an object root. */
export function objectRootSchema(tool: AdapterTool): Readonly<ObjectRootSchema> {
  const schema = tool.inputSchema;
  if (schema.type !== "object") {
    throw new SluiceError("SPEC_INVALID", `Tool ${tool.name}: the input schema's root must be {"type": "object"}; function-calling APIs take arguments as one object.`, { pointer: "" });
  }
  return schema as ObjectRootSchema;
}
