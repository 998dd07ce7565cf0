/**
 * Response hints for an MCP pack's tools, from each tool's `outputSchema`: the schema of
 * its `structuredContent`, which is the body the default response handler reads of an MCP
 * result (core's mcpResultBody). Read by the same code that reads an OpenAPI response's
 * schema (@sluice/schema-convert's responseSchemaHints), so ids, links and envelopes an
 * output schema declares are kept and unwrapped exactly as a response schema's are for HTTP.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema
 */
import type { ResponseHints, ToolIR } from "@sluice/core";
import { RefResolver, responseSchemaHints } from "@sluice/schema-convert";
import { escapePointer, type McpSnapshot } from "@sluice/mcp-client";
import { definitionsOf, rewriteRefs, withoutDefinitions } from "./schema-definitions.ts";

/**
 * Tool name -> hints, for the pack's tools (`tools`: the IR after selection, prefix and
 * renames, each bound to its upstream tool) whose output schema says more than the
 * handler's defaults; a tool without an output schema, or whose schema adds nothing, has
 * no entry, so runtime.gen.ts stays small. Never throws on an odd schema: what cannot be
 * read says nothing.
 */
export function mcpResponseHints(snapshot: McpSnapshot, tools: readonly ToolIR[]): Record<string, ResponseHints> {
  const { bundle, roots } = outputBundle(snapshot);
  const resolver = new RefResolver(bundle);
  const out: Record<string, ResponseHints> = {};
  for (const tool of tools) {
    if (tool.binding.kind !== "mcp") continue;
    const root = roots.get(tool.binding.tool);
    if (root === undefined) continue;
    const hints = responseSchemaHints(resolver, { value: bundle.$defs[root], document: resolver.main, pointer: `/$defs/${escapePointer(root)}` });
    if (Object.keys(hints).length > 0) Object.defineProperty(out, tool.name, { value: hints, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The snapshot's output schemas as one JSON Schema bundle: each tool's schema at
 * `$defs/<index>` (so a `#` reference to its root resolves) and its definitions at
 * `$defs/<index>-<name>`, every local `$ref` rewritten to match. Only read for hints:
 * nothing of it is emitted.
 */
function outputBundle(snapshot: McpSnapshot): { bundle: { $defs: Record<string, unknown> }; roots: Map<string, string> } {
  const defs: Record<string, unknown> = {};
  const roots = new Map<string, string>();
  const define = (name: string, value: unknown) => Object.defineProperty(defs, name, { value, enumerable: true, writable: true, configurable: true });
  snapshot.tools.forEach((tool, index) => {
    const output = tool.outputSchema;
    if (output === undefined || roots.has(tool.name)) return;
    const local = new Map(definitionsOf(output).map(([name]) => [name, `${index}-${name}`]));
    const root = `#/$defs/${escapePointer(String(index))}`;
    for (const [name, def] of definitionsOf(output)) if (!Object.prototype.hasOwnProperty.call(defs, local.get(name)!)) define(local.get(name)!, rewriteRefs(def, local, root));
    define(String(index), rewriteRefs(withoutDefinitions(output), local, root));
    roots.set(tool.name, String(index));
  });
  return { bundle: { $defs: defs }, roots };
}
