#!/usr/bin/env node
/**
 * The floor of any stdio MCP proxy, for bench/MCP-PROXY.md: the SDK's own Server (stdio, to
 * the client) and Client (stdio, to the upstream), forwarding tools/list and tools/call as
 * they come, with no screening, no lock and no handlers. Plain JavaScript on plain Node, so
 * it loads no faster or slower than a built CLI would for reasons of its own.
 *
 *   node scripts/bench-bare-mcp-proxy.mjs <command> [args...]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, ResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: bench-bare-mcp-proxy.mjs <command> [args...]\n");
  process.exit(2);
}
const upstream = new Client({ name: "bare-proxy", version: "0.0.0" }, { capabilities: {} });
await upstream.connect(new StdioClientTransport({ command, args, env: getDefaultEnvironment(), stderr: "ignore" }));

const server = new Server({ name: "bare-proxy", version: "0.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.request({ method: "tools/list", params: request.params ?? {} }, ResultSchema));
server.setRequestHandler(CallToolRequestSchema, (request, extra) => upstream.request({ method: "tools/call", params: request.params }, ResultSchema, { signal: extra.signal }));
server.onclose = () => void upstream.close().finally(() => process.exit(0));
await server.connect(new StdioServerTransport());
