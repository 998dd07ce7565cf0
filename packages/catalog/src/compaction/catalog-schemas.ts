import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "@sluice/schema";
import { memberValue, type JsonArray, type JsonNode, type JsonObject } from "./json-text.ts";

/**
 * Where the tools and their input schemas sit in a catalog as a provider receives it:
 * Anthropic `{name, description, input_schema}`, MCP `{name, description, inputSchema}`,
 * OpenAI Responses `{type: "function", name, parameters}` and Chat Completions
 * `{type: "function", function: {name, description, parameters}}`.
 */
const SCHEMA_MEMBERS: readonly string[] = ["input_schema", "inputSchema", "parameters"];

/** The tools array: the root itself, or (when `allowToolsMember`) a root object's `tools`. */
export function toolsArray(root: JsonNode, allowToolsMember: boolean): JsonArray | undefined {
  if (root.kind === "array") return root;
  if (allowToolsMember && root.kind === "object") {
    const tools = memberValue(root, "tools");
    if (tools?.kind === "array") return tools;
  }
  return undefined;
}

/** The objects that describe a tool: the tool itself and, for Chat Completions, its `function`. */
export function toolBodies(tool: JsonNode): JsonObject[] {
  if (tool.kind !== "object") return [];
  const fn = memberValue(tool, "function");
  return fn?.kind === "object" ? [tool, fn] : [tool];
}

/** The input schemas of one tool, entered only through the members providers define. */
export function toolSchemas(tool: JsonNode): JsonObject[] {
  const schemas: JsonObject[] = [];
  for (const body of toolBodies(tool)) {
    for (const name of SCHEMA_MEMBERS) {
      const schema = memberValue(body, name);
      if (schema?.kind === "object") schemas.push(schema);
    }
  }
  return schemas;
}

/**
 * Visits every schema node under `schema`, descending only where a keyword holds a
 * subschema (JSON Schema 2020-12 Core §10): the keys of `properties`, `$defs` and the other
 * name-to-schema maps are names, and `enum`, `const`, `default`, `examples` and `x-`
 * extensions hold instance data, so neither is ever visited as a schema.
 */
export function forEachSchemaNode(schema: JsonObject, visit: (node: JsonObject) => void): void {
  visit(schema);
  for (const member of schema.members) {
    const { key, value } = member;
    if (SUBSCHEMA_MAP_KEYWORDS.has(key)) {
      if (value.kind === "object") {
        for (const entry of value.members) if (entry.value.kind === "object") forEachSchemaNode(entry.value, visit);
      }
    } else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && value.kind === "array") {
      for (const item of value.items) if (item.kind === "object") forEachSchemaNode(item, visit);
    } else if (SINGLE_SUBSCHEMA_KEYWORDS.has(key) && value.kind === "object") {
      forEachSchemaNode(value, visit);
    }
  }
}
