/**
 * An MCP server's `tools/list` snapshot as a source of the pipeline (@sluice/emit's
 * PackSource): a tool per listed tool (the binding keeps the upstream name), the server as
 * its runtime fact, response hints from each tool's `outputSchema`. It has no operations
 * beyond its tools, no security schemes and no external references, and says so.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#listing-tools
 */
import type { PackIR } from "@sluice/core";
import type { EmittedFile, PackSource, SourceInput, SourceRead } from "@sluice/emit";
import { buildMcpPackIR } from "./build-pack-ir.ts";
import { emitPackSources, mcpRuntimeFacts } from "./emit-pack-sources.ts";
import { MCP_GENERATOR } from "./generator-info.ts";
import { mcpResponseHints } from "./response-hints.ts";
import { parseSnapshot } from "@sluice/mcp-client";

const NO_TAGS = "MCP tools have no tags; select by operations or tools";
const NO_PATHS = "MCP tools have no paths; select by operations or tools";

export const mcpSource: PackSource = {
  kind: "mcp",
  unsupported: {
    authHeader: "secrets reach the server through mcp.env or mcp.headers",
    baseUrl: "the server is the mcp source",
    endpoint: "the server is the mcp source",
    credentialArguments: "an MCP snapshot declares no security schemes; give the server its secret through mcp.env or mcp.headers, and withhold the argument with withhold",
    detectCredentialArguments: "an MCP snapshot declares no security schemes",
    externalRefs: "an MCP snapshot's schemas are self-contained",
    pagination: "sluice reads next-page markers from HTTP answers, and passes an MCP server's results on as it sends them",
    "include.tags": NO_TAGS,
    "include.paths": NO_PATHS,
    "exclude.tags": NO_TAGS,
    "exclude.paths": NO_PATHS,
  },
  withholdsItself: false,
  // The snapshot is what a reviewer must read when the server changes: never collapsed.
  collapseSpec: false,
  read: readMcp,
};

async function readMcp(input: SourceInput): Promise<SourceRead> {
  const snapshot = parseSnapshot(input.text(), input.file);
  const ir = buildMcpPackIR(snapshot, { name: input.name, file: input.file, sha256: input.sha256 }, { select: (info) => input.select({ tool: info.tool, names: [info.upstream] }) });
  const server = input.choices.mcpServer;
  return {
    ir,
    generator: MCP_GENERATOR,
    facts: (final) => mcpRuntimeFacts(final, server),
    // As for OpenAPI: the default handler's hints, here from each tool's outputSchema (what its structuredContent is).
    responseHints: (final) => ({ shared: {}, tools: mcpResponseHints(snapshot, final.tools) }),
    emit: emitSources,
  };
}

function emitSources(ir: PackIR, options: { regenerate: string }): EmittedFile[] {
  return emitPackSources(ir, { runtimeModule: "./runtime.ts", regenerate: options.regenerate });
}
