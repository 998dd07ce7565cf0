// Runs in the consumer project on plain `node`: `sluice serve` of a pack the project
// generated itself, driven by the MCP SDK client over stdio. The call must reach a local
// API on 127.0.0.1 with the credential read from the variable the pack names, and the
// answer must come back trimmed by the generated pack's default response handler.
//   node serve-generated.mjs <pack dir> <tool> <arguments JSON> <variable> <header>
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [dir, tool, argsJson, variable, header] = process.argv.slice(2);
const secret = "consumer-secret-7";
const received = [];
const api = createServer((req, res) => {
  received.push({ url: req.url, credential: req.headers[header.toLowerCase()] });
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: 10, name: "Rex", status: "available", photoUrls: [], tags: [], category: null }));
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${api.address().port}/api/v3`;
const transport = new StdioClientTransport({
  command: join(process.cwd(), "node_modules", ".bin", "sluice"),
  args: ["serve", dir, "--base-url", base],
  env: { PATH: process.env.PATH ?? "", [variable]: secret },
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (chunk) => (stderr += chunk));
const client = new Client({ name: "consumer-serve-generated", version: "0" });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(tools.some((entry) => entry.name === tool), `${tool} is served`);
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const text = JSON.stringify(result.content);
  assert.match(text, /Rex/);
  assert.doesNotMatch(text, /photoUrls/, "the default response handler drops empty members");
  assert.equal(received.length, 1);
  assert.equal(received[0].credential, secret, `the ${header} header carries ${variable}`);
  assert.match(stderr, new RegExp(`credentials from ${variable}`));
  assert.doesNotMatch(stderr, new RegExp(secret));
  console.log(`consumer serve (generated pack): ok (${tools.length} tools, ${tool} called with ${variable})`);
} catch (error) {
  console.error(`consumer serve (generated pack) failed; the server said:\n${stderr}`);
  throw error;
} finally {
  await client.close();
  api.close();
}
