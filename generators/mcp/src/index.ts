export { buildMcpPackIR, mcpToolNames, type BuildMcpOptions, type McpPackSourceInfo } from "./build-pack-ir.ts";
export { emitPackFiles, emitPackSources, mcpRuntimeFacts } from "./emit-pack-sources.ts";
export { mcpResponseHints } from "./response-hints.ts";
export { MCP_GENERATOR } from "./generator-info.ts";
export { mcpSource } from "./pack-source.ts";
