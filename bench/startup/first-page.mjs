// Time from spawn to initialize's answer and to the first tools/list page, at a raw JSON-RPC
// client, for servers in interleaved rounds (the part of serve's start that its own work
// decides; the rest of the listing is mostly the client reading). Medians, and the median of
// per-round ratios to the first server.
//   node bench/startup/first-page.mjs <rounds> <label> [--no-cache DIR] <server args...> [--vs <label> [--no-cache DIR] <server args...>]...
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";

const rounds = Number(process.argv[2]);
const groups = [[]];
for (const arg of process.argv.slice(3)) {
  if (arg === "--vs") groups.push([]);
  else groups.at(-1).push(arg);
}
const servers = groups.map(([label, ...rest]) => (rest[0] === "--no-cache" ? { label, clear: rest[1], args: rest.slice(2) } : { label, clear: undefined, args: rest }));

function firstPage(args) {
  return new Promise((done, fail) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "ignore"] });
    const times = [];
    let held = [];
    child.stdout.on("data", (chunk) => {
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10)) {
        held = [];
        chunk = chunk.subarray(at + 1);
        times.push(performance.now() - start);
        if (times.length === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })}\n`);
        else if (times.length === 2) child.stdin.end();
      }
      if (chunk.length > 0) held.push(chunk);
    });
    child.once("exit", () => (times.length === 2 ? done({ initialize: times[0], page: times[1] }) : fail(new Error(`${args.join(" ")}: ${times.length} answers`))));
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "first-page", version: "0" } } })}\n`);
  });
}

const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");
console.log(`load ${load()}`);
const results = Object.fromEntries(servers.map((server) => [server.label, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < servers.length; i++) {
    const server = servers[(i + round) % servers.length];
    if (server.clear !== undefined) rmSync(server.clear, { recursive: true, force: true });
    results[server.label].push(await firstPage(server.args));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = results[servers[0].label];
for (const { label } of servers) {
  const runs = results[label];
  const ratio = (key) => median(runs.map((run, i) => run[key] / base[i][key])).toFixed(2);
  console.log(`${label}: initialize ${median(runs.map((r) => r.initialize)).toFixed(0)} ms, first page ${median(runs.map((r) => r.page)).toFixed(0)} ms (per round ${ratio("initialize")}x, ${ratio("page")}x the first)`);
}
console.log(`load ${load()}`);
