// Runs in the consumer project on plain `node`: a pack generated from an MCP server (the
// project's own mcp-server.mjs), then `sluice serve` of it as a proxy, driven by the MCP
// SDK client over stdio: a real round trip to the upstream, and an argument the pack's
// schema refuses answered by sluice without reaching the server.
//   node serve-mcp.mjs
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const sluice = join(process.cwd(), "node_modules", ".bin", "sluice");
const log = join(process.cwd(), "notes-calls.jsonl");
const generated = spawnSync(sluice, ["generate", "mcp", "--name", "notes", "--out", "packs/notes", "--", process.execPath, "mcp-server.mjs", log], { encoding: "utf8" });
assert.equal(generated.status, 0, `sluice generate mcp: ${generated.stdout}${generated.stderr}`);
assert.ok(existsSync(join("packs", "notes", "spec", "tools.snapshot.json")), "the snapshot is written");

const transport = new StdioClientTransport({ command: sluice, args: ["serve", "packs/notes"], env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
let stderr = "";
transport.stderr?.on("data", (chunk) => (stderr += chunk));
const client = new Client({ name: "consumer-serve-mcp", version: "0" });
const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((entry) => entry.name).sort(), ["greet", "write_note"]);
  const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /Hello, Ada\./);
  const refused = await client.callTool({ name: "greet", arguments: { name: "Ada", as: "admin" } });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^INVALID_ARGUMENTS: /);
  assert.deepEqual(calls(), [{ name: "greet", arguments: { name: "Ada" } }], "only the screened call reached the server");
  assert.match(stderr, /proxying .*mcp-server\.mjs .*every tool as committed/);
  console.log(`consumer serve (MCP pack): ok (${tools.length} tools proxied, greet round trip, a refused call never forwarded)`);
} catch (error) {
  console.error(`consumer serve (MCP pack) failed; the server said:\n${stderr}`);
  throw error;
} finally {
  await client.close();
}
