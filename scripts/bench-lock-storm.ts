/**
 * A storm of `notifications/tools/list_changed` in front of the snapshot lock: the hostile
 * test server (test/fixtures/mcp/hostile-lister.mjs) sends N notices at once, a call is made
 * right after the first one is seen, and this prints how many listings the proxy asked for
 * and how long the call waited, with notices coalesced (the default) and, for comparison,
 * with the guard `mcpRelistCoalesce` off (one listing per notice, one after another, as
 * before). Writes nothing; bench/MCP-LOCK-STORM.md has the figures and the command.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-lock-storm.ts [notices] [rounds]
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { withoutGuard } from "@sluice/core/guards";
import { makeSnapshot } from "@sluice/mcp-client";
import { McpProxy } from "@sluice/mcp";

const SERVER = fileURLToPath(new URL("../test/fixtures/mcp/hostile-lister.mjs", import.meta.url));
const notices = Number(process.argv[2] ?? 3_000);
const rounds = Number(process.argv[3] ?? 3);
const ECHO = { name: "echo", description: "Echoes a text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false } };

async function once(): Promise<{ listings: number; callMs: number; settleMs: number; seenMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-storm-"));
  const control = join(dir, "control.json");
  const log = join(dir, "requests.jsonl");
  writeFileSync(log, "");
  writeFileSync(control, JSON.stringify({ list: "ok", tools: [ECHO], notify: 0, seq: 0 }));
  const proxy = new McpProxy({ command: process.execPath, args: [SERVER, control, log] }, makeSnapshot({ name: "hostile", version: "1.0.0" }, LATEST_PROTOCOL_VERSION, [ECHO]), { lockWaitMs: 60_000 });
  try {
    await proxy.start();
    const before = readFileSync(log, "utf8").split("\n").filter((line) => line.includes('"tools/list"')).length;
    const sent = Date.now();
    writeFileSync(`${control}.next`, JSON.stringify({ list: "ok", tools: [ECHO], notify: notices, seq: 1 }));
    renameSync(`${control}.next`, control);
    while (proxy.lock.state.pending === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    const asked = Date.now();
    let seenMs = -1;
    const watch = setInterval(() => {
      if (seenMs < 0 && proxy.lock.generation >= notices) seenMs = Date.now() - asked;
    }, 1);
    await proxy.mcp.callTool({ name: "echo", arguments: { text: "hi" } }, {});
    const callMs = Date.now() - asked;
    while (proxy.lock.state.pending !== undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    const settleMs = Date.now() - sent;
    while (seenMs < 0) await new Promise((resolve) => setTimeout(resolve, 1));
    clearInterval(watch);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const listings = readFileSync(log, "utf8").split("\n").filter((line) => line.includes('"tools/list"')).length - before;
    return { listings, callMs, settleMs, seenMs };
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [label, run] of [
  ["coalesced (default)", () => once()],
  ["one listing per notice (mcpRelistCoalesce off)", () => withoutGuard("mcpRelistCoalesce", once)],
] as const) {
  const results: Array<{ listings: number; callMs: number; settleMs: number; seenMs: number }> = [];
  for (let round = 0; round < rounds; round++) results.push(await run());
  console.log(`${label}: ${notices} notices -> listings ${results.map((r) => r.listings).join("/")}, call waited median ${median(results.map((r) => r.callMs))} ms (${results.map((r) => r.callMs).join("/")}), the last notice read by the proxy ${median(results.map((r) => r.seenMs))} ms after the first (${results.map((r) => r.seenMs).join("/")})`);
}
