/**
 * The snapshot lock fails closed after `notifications/tools/list_changed`, in front of a
 * hostile upstream (test/fixtures/mcp/hostile-lister.mjs, a hand-written stdio server) that
 * widens a tool and then cannot be listed: a JSON-RPC error, `tools` that is not a list, a
 * cursor without end, no answer. No call of any tool is forwarded until a listing begun after
 * the notice has passed the lock; each call meanwhile answers MCP_LOCK_PENDING; the failed
 * listing is tried again with backoff; `recheck` never keeps the verdict from before; a storm
 * of 3,000 notices costs at most two listings. The guards `mcpLockPending` and `mcpRelistCoalesce`
 * are switched off once each to show what they stop.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { definePack, isSluiceError, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { listMcpTools, makeSnapshot } from "@sluice/mcp-client";
import { buildMcpPackIR } from "../generators/mcp/src/build-pack-ir.ts";
import { createServer, McpProxy, ServedCatalog, type ProxyOptions } from "@sluice/mcp";
import { ROOT, serverBin } from "./support/mcp-pack.ts";
import { LONG, sweep } from "./support/tier.ts";

// Each test starts the hostile server (a plain node script, no SDK: quick to start). The
// quick tier runs two failure shapes (the error, and the hang that used to let a call out
// 29 s later); the long tier all four.

const SERVER = join(ROOT, "test/fixtures/mcp/hostile-lister.mjs");
/** The storm in the long tier; a third of it in the quick one (coalesced, it still costs at most two listings). */
const STORM = LONG ? 3_000 : 1_000;

const ECHO = { name: "echo", description: "Echoes a text.", inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 10 } }, required: ["text"], additionalProperties: false } };
const NOTE = { name: "note", description: "Keeps a note.", inputSchema: { type: "object", properties: { body: { type: "string" } }, required: ["body"], additionalProperties: false } };
/** echo as the upstream rewrites it: a second argument the snapshot never had. */
const WIDE_ECHO = { ...ECHO, inputSchema: { ...ECHO.inputSchema, properties: { ...ECHO.inputSchema.properties, path: { type: "string" } } } };

type Shape = "ok" | "slow" | "error" | "not-array" | "endless" | "hang";
interface Entry {
  method: string;
  name?: string;
  cursor?: string;
}

interface Rig {
  proxy: McpProxy;
  lines: string[];
  /** Rewrites the control file: how tools/list answers, what it lists, and how many list_changed notices to send now. */
  set(list: Shape, tools: object[], notify: number): void;
  received(): Entry[];
  call(name: string, args: Record<string, unknown>): Promise<{ code?: string; message: string }>;
  dir: string;
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

async function rig(options: ProxyOptions = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-lock-pending-"));
  const control = join(dir, "control.json");
  const log = join(dir, "requests.jsonl");
  writeFileSync(log, "");
  let seq = 0;
  // Written whole and renamed in: the server never reads half a file.
  const set = (list: Shape, tools: object[], notify: number) => {
    writeFileSync(`${control}.next`, JSON.stringify({ list, tools, notify, seq: ++seq }));
    renameSync(`${control}.next`, control);
  };
  set("ok", [ECHO, NOTE], 0);
  const snapshot = makeSnapshot({ name: "hostile", version: "1.0.0" }, LATEST_PROTOCOL_VERSION, [ECHO, NOTE]);
  const lines: string[] = [];
  const proxy = new McpProxy({ command: process.execPath, args: [SERVER, control, log] }, snapshot, { log: (line) => lines.push(line), backoffMs: 40, maxBackoffMs: 200, lockWaitMs: 150, listTimeoutMs: 400, ...options });
  await proxy.start();
  opened.push(async () => {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    proxy,
    lines,
    set,
    dir,
    received: () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Entry),
    async call(name, args) {
      try {
        await proxy.mcp.callTool({ name, arguments: args }, {});
        return { message: "forwarded" };
      } catch (error) {
        if (!isSluiceError(error)) throw error;
        return { code: error.code, message: error.message };
      }
    },
  };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const calls = (r: Rig, name: string) => r.received().filter((entry) => entry.method === "tools/call" && entry.name === name).length;
const listings = (r: Rig) => r.received().filter((entry) => entry.method === "tools/list" && entry.cursor === undefined).length;

describe("the snapshot lock after tools/list_changed", () => {
  // [shape, what the log says of the failed listing]
  const shapes: Array<[Exclude<Shape, "ok">, RegExp]> = [
    ["error", /tools are being rebuilt/],
    ["not-array", /without a tools list/],
    ["endless", /more than \d+ pages|no answer to tools\/list within 400 ms/],
    ["hang", /no answer to tools\/list within 400 ms/],
  ];
  for (const [shape, said] of sweep(shapes, ([name]) => name === "error" || name === "hang")) {
    it(`forwards no call while the re-list fails (${shape}), retries it with backoff, and decides again once it passes`, async () => {
      const r = await rig();
      expect((await r.call("echo", { text: "before" })).message).toBe("forwarded");
      const listedBefore = listings(r);
      r.set(shape, [WIDE_ECHO, NOTE], 1);
      await until(() => r.proxy.lock.state.pending !== undefined, "the notice");
      // Both the widened tool and the one left alone: no call of any tool goes out.
      for (const [name, args] of [["echo", { text: "x", path: "/etc/passwd" }], ["note", { body: "y" }]] as const) {
        const refused = await r.call(name, args);
        expect(refused.code).toBe("MCP_LOCK_PENDING");
        expect(refused.message).toMatch(/nothing is forwarded to the upstream until its tools have been listed again .* Retry the call/);
      }
      // Tried again, with the failure logged and named in what the next call says.
      await until(() => listings(r) >= listedBefore + 2, "a second try of the listing");
      expect(r.lines.filter((line) => line.startsWith("snapshot lock: could not list")).join("\n")).toMatch(said);
      expect((await r.call("note", { body: "z" })).message).toMatch(/the last listing failed: .*listing again in \d+ ms/);
      expect(calls(r, "echo")).toBe(1);
      expect(calls(r, "note")).toBe(0);
      // The upstream lists again: the widened tool is held to the lock, the other one served.
      r.set("ok", [WIDE_ECHO, NOTE], 0);
      await until(() => r.proxy.lock.state.pending === undefined, "a listing that passes", 15_000);
      expect((await r.call("echo", { text: "x", path: "/etc/passwd" })).code).toBe("MCP_TOOL_CHANGED");
      expect((await r.call("note", { body: "after" })).message).toBe("forwarded");
      expect(calls(r, "echo")).toBe(1);
    });
  }

  it("is what keeps the widened tool from being called: without mcpLockPending the call goes out on the old verdict", async () => {
    await withoutGuard("mcpLockPending", async () => {
      const r = await rig();
      r.set("error", [WIDE_ECHO, NOTE], 1);
      await until(() => r.lines.some((line) => line.startsWith("snapshot lock: could not list")), "the failed listing");
      expect((await r.call("echo", { text: "x", path: "/etc/passwd" })).message).toBe("forwarded");
      expect(calls(r, "echo")).toBe(1);
    });
  });

  it("recheck never keeps the verdict from before: a failed re-list refuses every call", async () => {
    const r = await rig();
    r.set("error", [ECHO, NOTE], 0);
    await r.proxy.recheck("asked by the test");
    expect(r.proxy.lock.state.pending).toBe("asked by the test");
    expect((await r.call("echo", { text: "hi" })).code).toBe("MCP_LOCK_PENDING");
    expect(calls(r, "echo")).toBe(0);
  });

  it.runIf(LONG)("a call made during a healthy re-list waits for its verdict instead of being refused", async () => {
    // The listing takes half a second, so the wait below sees it under way however loaded the machine (a fast one could begin and pass between two polls).
    const r = await rig({ lockWaitMs: 5_000, listTimeoutMs: 5_000 });
    r.set("slow", [ECHO, NOTE], 1);
    await until(() => r.proxy.lock.state.pending !== undefined, "the notice");
    expect((await r.call("echo", { text: "hi" })).message).toBe("forwarded");
  });

  it("coalesces a storm: 3,000 notices (1,000 in the quick tier) make at most two listings, and a call made during them is forwarded once they settle", async () => {
    // The wait is generous: the SDK client reads the 3,000 notices one by one (about 0.2 ms
    // each on a quiet machine), and the lock can only settle after the last of them.
    const r = await rig({ lockWaitMs: 15_000 });
    r.set("ok", [ECHO, NOTE], STORM);
    await until(() => r.proxy.lock.state.pending !== undefined, "the storm");
    expect((await r.call("echo", { text: "hi" })).message).toBe("forwarded");
    await until(() => r.proxy.lock.state.pending === undefined, "the lock settled");
    await new Promise((resolve) => setTimeout(resolve, 100));
    // One at start, one in flight when the storm began, at most one after it.
    expect(r.proxy.relistings).toBeLessThanOrEqual(2);
    expect(listings(r)).toBeLessThanOrEqual(3);
  });

  it("without mcpRelistCoalesce each notice is a listing of its own (the storm the guard stops)", async () => {
    await withoutGuard("mcpRelistCoalesce", async () => {
      const r = await rig();
      r.set("ok", [ECHO, NOTE], 300);
      await until(() => r.proxy.relistings >= 300, "one listing per notice", 20_000);
      expect(listings(r)).toBeGreaterThan(100);
    });
  });

  it("a client of serve reads the coded refusal, and the tool stays listed (its definition is the committed one)", async () => {
    const r = await rig();
    const snapshot = r.proxy.lock.committed;
    const packTools = definePack(buildMcpPackIR(snapshot, { name: "hostile", file: "tools.snapshot.json", sha256: "" })).tools as Tool<object>[];
    const server = createServer(new ServedCatalog(packTools), { gate: r.proxy, call: { mcp: r.proxy.mcp, timeoutMs: 5_000 } });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "lock-pending-test", version: "1.0.0" });
    await client.connect(clientSide);
    opened.push(async () => {
      await client.close();
      await server.close();
    });
    r.set("hang", [WIDE_ECHO, NOTE], 1);
    await until(() => r.proxy.lock.state.pending !== undefined, "the notice");
    const result = (await client.callTool({ name: "note", arguments: { body: "x" } })) as { isError?: boolean; content: Array<{ text?: string }>; _meta?: Record<string, unknown> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^MCP_LOCK_PENDING: nothing is forwarded/);
    expect(result._meta?.["sluice/error"]).toEqual({ code: "MCP_LOCK_PENDING" });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo", "note"]);
    expect(calls(r, "note")).toBe(0);
  });

  // Long tier: the protocol's reference server, which registers some tools once a client
  // has initialized and so sends tools/list_changed right after the proxy's first listing.
  it.runIf(LONG)("server-everything: its list_changed after initialize is listed through the lock before a call goes out", async () => {
    const source = { command: process.execPath, args: [serverBin("server-everything"), "stdio"] };
    const snapshot = await listMcpTools(source);
    const lines: string[] = [];
    const proxy = new McpProxy(source, snapshot, { log: (line) => lines.push(line), lockWaitMs: 10_000 });
    opened.push(() => proxy.close());
    await proxy.start();
    const result = (await proxy.mcp.callTool({ name: "echo", arguments: { message: "through the lock" } }, {})) as { content: Array<{ text?: string }> };
    expect(result.content[0]?.text).toContain("through the lock");
    await until(() => proxy.relistings >= 1 && proxy.lock.state.pending === undefined, "the notice listed and passed");
    expect(lines.some((line) => line.includes("listing the upstream's tools again (the upstream sent tools/list_changed)"))).toBe(true);
    expect(proxy.lock.state.held.size).toBe(0);
  });
});
