// The floor for `sluice serve` start-up: an MCP server written directly on the SDK that
// lists a fixed set of tool definitions (read from a JSON file: the exact definitions
// sluice lists) and does nothing else.
//   node bare-mcp-server.mjs <tools.json> [page-size]   (default: every tool in one answer)
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const tools = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = new Server({ name: "bare", version: "0" }, { capabilities: { tools: {} } });
const pageSize = process.argv[3] === undefined ? tools.length : Number(process.argv[3]);
server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const offset = Number(request.params?.cursor ?? 0);
  const page = tools.slice(offset, offset + pageSize);
  return offset + pageSize < tools.length ? { tools: page, nextCursor: String(offset + pageSize) } : { tools: page };
});
await server.connect(new StdioServerTransport());
