// The floor for `sluice serve` start-up: an MCP server written directly on the SDK that
// lists a fixed set of tool definitions (read from a JSON file: the exact definitions
// sluice lists) and does nothing else.
//   node bare-mcp-server.mjs <tools.json>
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const tools = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = new Server({ name: "bare", version: "0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
await server.connect(new StdioServerTransport());
