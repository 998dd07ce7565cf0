// Runs in the consumer project on plain `node`: starts the installed `sluice serve` as an
// MCP server over stdio, as a client configured with `npx sluice serve <pack>` would,
// lists its tools with the MCP SDK client and calls one against a local GraphQL server on
// 127.0.0.1 that checks the credential came from the environment variable.
//   node serve.mjs <pack> <tool>
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [pack = "linear", tool = "issues_list"] = process.argv.slice(2);
const received = [];
const api = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    received.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ data: { issues: { nodes: [{ id: "i1", identifier: "ENG-7", title: "Served" }], pageInfo: { hasNextPage: false, endCursor: null } } } }));
  });
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${api.address().port}/graphql`;

const transport = new StdioClientTransport({
  command: join(process.cwd(), "node_modules", ".bin", "sluice"),
  args: ["serve", pack, "--base-url", endpoint],
  env: { PATH: process.env.PATH ?? "", LINEAR_API_KEY: "lin_consumer" },
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (chunk) => (stderr += chunk));
const client = new Client({ name: "consumer-serve", version: "0" });
try {
  await client.connect(transport);
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((entry) => entry.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.ok(names.includes(tool), `served tools include ${tool} (got ${names.length})`);
  assert.ok(!names.some((name) => name.endsWith("_full")), "the *_full twins are not served by default");
  const result = await client.callTool({ name: tool, arguments: { first: 3 } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /ENG-7/);
  assert.equal(received.length, 1);
  assert.equal(received[0].authorization, "lin_consumer");
  assert.equal(received[0].body.variables.first, 3);
  console.log(`consumer serve: ok (${names.length} tools listed over stdio, ${tool} called)`);
} catch (error) {
  console.error(`consumer serve failed; the server said:\n${stderr}`);
  throw error;
} finally {
  await client.close();
  api.close();
}
