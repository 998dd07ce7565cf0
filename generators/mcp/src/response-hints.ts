/**
 * Response hints for an MCP pack's tools, from each tool's `outputSchema`: the schema of
 * its `structuredContent`, which is the body the default response handler reads of an MCP
 * result (core's mcpResultBody). The hints are the OpenAPI generator's, computed by the
 * same code: the output schemas are read as the 200 responses of a document (one POST
 * operation per tool, definitions hoisted to components), as the input schemas are read as
 * request bodies to build the IR (build-pack-ir.ts). So ids, links and envelopes an output
 * schema declares are kept and unwrapped exactly as a response schema's are for HTTP.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema
 */
import type { ResponseHints, ToolIR } from "@sluice/core";
import { openapiResponseHints } from "@sluice/generator-openapi";
import { definitionsOf, rewriteRefs, withoutDefinitions } from "./schema-definitions.ts";
import { escapePointer, type McpSnapshot } from "@sluice/mcp-client";

/**
 * Tool name -> hints, for the pack's tools (`tools`: the IR after selection, prefix and
 * renames, each bound to its upstream tool) whose output schema says more than the
 * handler's defaults; a tool without an output schema, or whose schema adds nothing, has
 * no entry, so runtime.gen.ts stays small. Never throws on an odd schema: the OpenAPI
 * reader answers `{}` for what it cannot read.
 */
export function mcpResponseHints(snapshot: McpSnapshot, tools: readonly ToolIR[]): Record<string, ResponseHints> {
  const { document, operations } = outputDocument(snapshot);
  const out: Record<string, ResponseHints> = {};
  for (const tool of tools) {
    if (tool.binding.kind !== "mcp") continue;
    const path = operations.get(tool.binding.tool);
    if (path === undefined) continue;
    const hints = openapiResponseHints(document, { method: "post", path });
    if (Object.keys(hints).length > 0) Object.defineProperty(out, tool.name, { value: hints, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The snapshot's output schemas as an OpenAPI 3.1 document: `POST /<index>` answering 200
 * with the tool's output schema as JSON; its root at `components/schemas/<index>` (so a
 * `#` reference to the root resolves) and its definitions at `<index>-<name>`, every
 * local `$ref` rewritten to match. Only read for hints: nothing of it is emitted.
 */
function outputDocument(snapshot: McpSnapshot): { document: unknown; operations: Map<string, string> } {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  const operations = new Map<string, string>();
  const define = (name: string, value: unknown) => Object.defineProperty(schemas, name, { value, enumerable: true, writable: true, configurable: true });
  snapshot.tools.forEach((tool, index) => {
    const output = tool.outputSchema;
    if (output === undefined || operations.has(tool.name)) return;
    const local = new Map(definitionsOf(output).map(([name]) => [name, `${index}-${name}`]));
    const root = `#/components/schemas/${escapePointer(String(index))}`;
    for (const [name, def] of definitionsOf(output)) if (!Object.prototype.hasOwnProperty.call(schemas, local.get(name)!)) define(local.get(name)!, rewriteRefs(def, local, root));
    define(String(index), rewriteRefs(withoutDefinitions(output), local, root));
    const path = `/${index}`;
    paths[path] = { post: { responses: { "200": { description: "the tool's structured content", content: { "application/json": { schema: { $ref: root } } } } } } };
    operations.set(tool.name, path);
  });
  return { document: { openapi: "3.1.0", info: { title: snapshot.server.name || "mcp", version: snapshot.server.version || "0" }, paths, components: { schemas } }, operations };
}
