// Runs in the consumer project: a small MCP server (the SDK that @sluice/mcp installs),
// the upstream of a pack the project generates. Each call it receives is appended to the
// file argv[2], so the test can tell what reached it.
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const log = process.argv[2];
const server = new Server({ name: "consumer-notes", version: "1.0.0" }, { capabilities: { tools: {} } });
const tools = [
  {
    name: "greet",
    description: "Greets someone.",
    inputSchema: { type: "object", properties: { name: { type: "string" }, loud: { type: "boolean" } }, required: ["name"], additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: "write_note",
    description: "Writes a note.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  },
];
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  appendFileSync(log, JSON.stringify(request.params) + "\n");
  const args = request.params.arguments ?? {};
  if (request.params.name === "greet") return { content: [{ type: "text", text: JSON.stringify({ greeting: `Hello, ${args.name}${args.loud ? "!" : "."}` }) }] };
  return { content: [{ type: "text", text: "written" }] };
});
await server.connect(new StdioServerTransport());
