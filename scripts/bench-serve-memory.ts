/**
 * Peak RSS of `sluice serve --http` under many concurrent large calls (issue 21, item 5):
 * a real child process serving the slack pack, CALLS concurrent tools/call POSTs of SIZE
 * bytes each (chat_post_message with a long `text`) spread over SESSIONS sessions, every call
 * forwarded to a loopback mock upstream that answers {"ok":true}. The child's VmHWM (peak
 * resident set, /proc) is read after the run; "unbounded" passes limits no run reaches, which
 * is how main behaved (no concurrency bound at all).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-serve-memory.ts [--calls 600] [--size 3900000] [--out bench/SERVE-MEMORY.md]
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const { values } = parseArgs({ options: { calls: { type: "string", default: "600" }, size: { type: "string", default: "3900000" }, sessions: { type: "string", default: "20" }, out: { type: "string" } } });
const CALLS = Number(values.calls);
const SIZE = Number(values.size);
const SESSIONS = Number(values.sessions);
const BIN = fileURLToPath(new URL("../packages/cli/bin/sluice.mjs", import.meta.url));

const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true,"ts":"1"}');
  });
});
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function run(label: string, flags: string[]): Promise<string> {
  const token = "bench-token-0123456789abcdef";
  const child = spawn(process.execPath, ["--conditions=@sluice/source", BIN, "serve", "slack", "--http", "0", "--auth-token", token, "--base-url", upstreamUrl, "--max-argument-bytes", String(SIZE + 1000), ...flags], {
    env: { ...process.env, SLACK_BOT_TOKEN: "xoxb-bench" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(stderr)));
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } } }) });
    await response.text();
    const id = response.headers.get("mcp-session-id")!;
    await (await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": id }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
    sessions.push(id);
  }
  const idle = status(child.pid!, "VmRSS");
  const text = "x".repeat(SIZE);
  const outcomes = new Map<string, number>();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "chat_post_message", arguments: { channel: "C1", text } } });
      let outcome: string;
      try {
        const response = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": sessions[i % SESSIONS]! }, body });
        const answer = await response.text();
        outcome = response.status !== 200 ? `HTTP ${response.status}` : /"isError":true/.test(answer) ? `error ${/"text":"([A-Z_]+)/.exec(answer)?.[1] ?? "?"}` : "ok";
      } catch (error) {
        outcome = `failed ${(error as Error).message}`;
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const peak = status(child.pid!, "VmHWM");
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  const line = `| ${label} | ${flags.join(" ") || "(defaults)"} | ${idle.toFixed(0)} | ${peak.toFixed(0)} | ${seconds.toFixed(1)} | ${[...outcomes].sort().map(([k, n]) => `${k} ${n}`).join(", ")} |`;
  console.log(line);
  return line;
}

const lines = [
  `${CALLS} concurrent tools/call of ${(SIZE / 1e6).toFixed(1)} MB each over ${SESSIONS} sessions, slack pack, loopback upstream; Node ${process.version}.`,
  "",
  "| server | flags | RSS idle (MB) | peak RSS (MB) | wall (s) | outcomes |",
  "| --- | --- | ---: | ---: | ---: | --- |",
];
lines.push(await run("unbounded (as main)", ["--max-concurrent-calls", "100000", "--max-queued-calls", "100000"]));
lines.push(await run("bounded, defaults", []));
lines.push(await run("bounded, --max-concurrent-calls 4", ["--max-concurrent-calls", "4"]));
upstream.close();
if (values.out !== undefined) await writeFile(values.out, lines.join("\n") + "\n");
