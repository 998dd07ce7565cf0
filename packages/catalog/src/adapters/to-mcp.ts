import type { Tool as McpTool, ToolAnnotations as McpToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { inputSchemaCopy, objectRootSchema, orderTools, type AdapterOptions, type AdapterTool, type ObjectRootSchema } from "./adapter-tool.ts";

export interface McpOptions extends AdapterOptions {
  /**
   * `openWorldHint` for every tool. Left out when undefined: whether an API's domain is
   * "open" (web search) or closed (one workspace) is the server author's call.
   */
  openWorldHint?: boolean;
}

/**
 * MCP `tools/list` entries: `{ name, description, inputSchema, annotations }`, the hints
 * taken from the tool's annotations (read-only, destructive, idempotent). A hint the tool
 * does not state is left out, so clients apply the spec's cautious defaults; with no
 * hint at all there is no `annotations` object.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool
 */
export function toMCP(tools: readonly AdapterTool[], options: McpOptions = {}): McpTool[] {
  return orderTools(tools, options).map((tool) => mcpEntry(tool, inputSchemaCopy(tool), options));
}

/**
 * One tool's `tools/list` entry, as `toMCP` makes it, whose `inputSchema` is the tool's own
 * schema object rather than a copy: for a server, which only serializes what it lists. The
 * entry is read only (a `Tool`'s schema is frozen and shared with other tools); an entry to
 * edit comes from `toMCP`. A root that is not an object is refused as `toMCP` refuses it.
 */
export function toMCPShared(tool: AdapterTool, options: McpOptions = {}): McpTool {
  return mcpEntry(tool, objectRootSchema(tool), options);
}

/** What the entry of a tool made from an MCP server reads of its binding: the upstream's own declarations. */
interface UpstreamDeclared {
  kind: string;
  annotations?: McpToolAnnotations;
  title?: string;
  outputSchema?: object;
}

function mcpEntry(tool: AdapterTool, inputSchema: Readonly<ObjectRootSchema>, options: McpOptions): McpTool {
  const binding = (tool as { binding?: UpstreamDeclared }).binding;
  if (binding?.kind === "mcp") return upstreamEntry(tool, binding, inputSchema, options);
  const annotations = mcpAnnotations(tool, options);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema as McpTool["inputSchema"],
    ...(annotations === undefined ? {} : { annotations }),
  };
}

/**
 * A tool made from an MCP server is listed with what its server declared: its `title`,
 * `outputSchema` and annotations as they were listed, and no hint the server did not give
 * (sluice's own reading of a missing hint is cautious, `destructive`, but that is a default
 * for sluice's filters, not something to tell a client: it costs tokens and says nothing
 * the spec's defaults do not). `openWorldHint` is added only when the caller asks.
 */
function upstreamEntry(tool: AdapterTool, binding: UpstreamDeclared, inputSchema: Readonly<ObjectRootSchema>, options: McpOptions): McpTool {
  const annotations: McpToolAnnotations | undefined =
    options.openWorldHint === undefined ? binding.annotations : { ...binding.annotations, openWorldHint: options.openWorldHint };
  return {
    name: tool.name,
    ...(binding.title === undefined ? {} : { title: binding.title }),
    description: tool.description,
    inputSchema: inputSchema as McpTool["inputSchema"],
    ...(binding.outputSchema === undefined ? {} : { outputSchema: binding.outputSchema as McpTool["outputSchema"] }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

function mcpAnnotations(tool: AdapterTool, options: McpOptions): McpToolAnnotations | undefined {
  const given = tool.annotations ?? {};
  const hints: McpToolAnnotations = {};
  if (given.readOnly !== undefined) hints.readOnlyHint = given.readOnly;
  if (given.destructive !== undefined) hints.destructiveHint = given.destructive;
  if (given.idempotent !== undefined) hints.idempotentHint = given.idempotent;
  if (options.openWorldHint !== undefined) hints.openWorldHint = options.openWorldHint;
  return Object.keys(hints).length === 0 ? undefined : hints;
}
