// Where a stdio MCP server spends its time to the last page of tools/list: runs
// `node --cpu-prof <server args>` under a raw JSON-RPC client (newline-delimited JSON, each
// line only JSON.parse'd; the cursors followed), prints ms to initialize and to the last page,
// then the profile's self time by function (top 15).
//   node bench/startup/profile-serve-list.mjs bench/startup/sluice-dist.mjs serve packs/k8x8 --page-size 100 --no-usage
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "serve-profile-"));
const start = performance.now();
const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, ...process.argv.slice(2)], { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map();
let held = [];
child.stdout.on("data", (chunk) => {
  for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10)) {
    const line = held.length === 0 ? chunk.subarray(0, at) : Buffer.concat([...held, chunk.subarray(0, at)]);
    held = [];
    chunk = chunk.subarray(at + 1);
    const message = JSON.parse(line.toString("utf8"));
    waiting.get(message.id)?.(message);
  }
  if (chunk.length > 0) held.push(chunk);
});
let id = 0;
const request = (method, params) =>
  new Promise((done) => {
    id += 1;
    waiting.set(id, done);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  });
await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "profile-serve-list", version: "0" } });
const initialized = performance.now() - start;
child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
let cursor;
let tools = 0;
do {
  const answer = await request("tools/list", cursor === undefined ? {} : { cursor });
  tools += answer.result.tools.length;
  cursor = answer.result.nextCursor;
} while (cursor !== undefined);
const listed = performance.now() - start;
child.stdin.end();
await new Promise((done) => child.once("exit", done));
console.log(`${tools} tools; initialize answered at ${Math.round(initialized)} ms, the last page at ${Math.round(listed)} ms`);

const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((name) => name.endsWith(".cpuprofile"))), "utf8"));
rmSync(dir, { recursive: true, force: true });
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((sample, i) => {
  const { functionName, url, lineNumber } = nodes.get(sample).callFrame;
  const key = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[i]);
  total += profile.timeDeltas[i];
});
console.log(`samples: ${Math.round(total / 1000)} ms (to the server's exit); self time:`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${String(Math.round(us / 1000)).padStart(7)} ms  ${key}`);
