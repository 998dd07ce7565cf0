/**
 * `sluice serve` of a pack made from an MCP server is a screening proxy in front of the
 * real server (installed from npm, started by the proxy): projections served, withheld and
 * pinned arguments enforced before anything is forwarded (checked at the upstream: the
 * file system), results through the pack's handlers. Clients are the MCP SDK's, over stdio
 * and over Streamable HTTP on 127.0.0.1. The quick tier serves the server-filesystem pack by
 * the CLI's main in the worker over HTTP (packages/mcp/test/support.ts startHttpInProcess: the
 * same serve code starting the same upstream child), and its upstream that cannot start over
 * stdio there too (serveStdioInProcess); the long tier serves both from stdio children.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { childEnv, connectHttp, serveStdioInProcess, startHttpChild, startHttpInProcess, type HttpServed } from "../packages/mcp/test/support.ts";
import { BIN, ROOT, serverBin, snapshotInto, writePackModule } from "./support/mcp-pack.ts";
import { LONG } from "./support/tier.ts";

type Text = { type: string; text?: string };
const textOf = (result: unknown) => ((result as { content: Text[] }).content ?? []).map((block) => block.text ?? "").join("\n");

async function stdioClient(args: string[], cwd = ROOT): Promise<{ client: Client; stderr: () => string; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", ...args], env: childEnv(), cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "proxy-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, transport };
}

describe("serve of a server-filesystem pack", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-proxy-fs-"));
  const files = join(dir, "files");
  const pack = join(dir, "pack");
  const upstream = [process.execPath, serverBin("server-filesystem"), files];
  let client: Client;
  let stderr: () => string;
  let served: HttpServed | undefined;

  beforeAll(async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, "notes.txt"), "one\ntwo\nthree\nfour\n");
    await snapshotInto(pack, { command: upstream[0]!, args: upstream.slice(1) });
    // The write tools are not served; the read tool is cut to its head, the edit tool to a preview.
    writePackModule(
      pack,
      `export const tools = [
  tool("read_text_file").derived({ name: "read_head", description: "The first two lines of a text file.", drop: ["tail"], pin: { head: 2 } }),
  tool("list_directory"),
  tool("edit_file").derived({ name: "preview_edit", description: "Shows the diff an edit would make; never writes.", pin: { dryRun: true } }),
];`,
    );
    if (LONG) ({ client, stderr } = await stdioClient([pack, "--", ...upstream]));
    else {
      served = await startHttpInProcess([pack, "--", ...upstream], { SLUICE_USAGE: "off", SLUICE_MCP_TOKEN: undefined });
      client = await connectHttp(served);
      stderr = served.stderr;
    }
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    if (served !== undefined) expect(await served.stop()).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the projections, not the upstream's tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_directory", "preview_edit", "read_head"]);
    const read = tools.find((tool) => tool.name === "read_head")!;
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(["path"]);
    expect(Object.keys(tools.find((tool) => tool.name === "preview_edit")!.inputSchema.properties ?? {}).sort()).toEqual(["edits", "path"]);
  });

  it("answers real reads, with the pin sent upstream", async () => {
    const result = await client.callTool({ name: "read_head", arguments: { path: join(files, "notes.txt") } });
    expect(result.isError).toBeFalsy();
    // The server's own text block, as it sent it (no handler in this module), and its structuredContent beside it.
    expect(textOf(result)).toBe("one\ntwo");
    expect(result.structuredContent).toEqual({ content: "one\ntwo" });
    const listing = await client.callTool({ name: "list_directory", arguments: { path: files } });
    expect(textOf(listing)).toContain("notes.txt");
  });

  it("refuses withheld and pinned arguments before the upstream sees them", async () => {
    const tail = await client.callTool({ name: "read_head", arguments: { path: join(files, "notes.txt"), tail: 1 } });
    expect(tail.isError).toBe(true);
    expect(textOf(tail)).toMatch(/^EGRESS_DENIED: /);
    const write = await client.callTool({ name: "preview_edit", arguments: { path: join(files, "notes.txt"), edits: [{ oldText: "one", newText: "ONE" }], dryRun: false } });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toMatch(/^EGRESS_DENIED: /);
    expect(readFileSync(join(files, "notes.txt"), "utf8")).toBe("one\ntwo\nthree\nfour\n");
  });

  it("forwards the pinned preview, and the file stays as it was", async () => {
    const preview = await client.callTool({ name: "preview_edit", arguments: { path: join(files, "notes.txt"), edits: [{ oldText: "one", newText: "ONE" }] } });
    expect(preview.isError).toBeFalsy();
    expect(textOf(preview)).toContain("+ONE");
    expect(readFileSync(join(files, "notes.txt"), "utf8")).toBe("one\ntwo\nthree\nfour\n");
  });

  it("does not serve the write tools: a call is refused and nothing is written", async () => {
    await expect(client.callTool({ name: "write_file", arguments: { path: join(files, "new.txt"), content: "x" } })).rejects.toThrow(/Unknown tool: write_file/);
    expect(existsSync(join(files, "new.txt"))).toBe(false);
    expect(stderr()).toMatch(/proxying .*server-filesystem.* every tool as committed/);
  });

  it("ends with the upstream's coded error when the upstream cannot start, having listed nothing", async () => {
    const { spawn } = await import("node:child_process");
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const args = [pack, "--", join(dir, "no-such-server")];
    // A child in the long tier; in the quick tier main in the worker on two in-memory streams
    // (the same serve code; the pack is the one beforeAll's server already loaded here).
    // Awaited, not spawnSync: a blocked worker misses vitest's RPC deadline (test/support/event-loop-blocks.ts).
    const run = !LONG ? await serveStdioInProcess(args, `${init}\n${list}\n`, { SLUICE_USAGE: "off", SLUICE_MCP_TOKEN: undefined, SLUICE_BASE_URL: undefined }) : await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, "serve", ...args], { env: childEnv() });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, stdout, stderr }));
      child.stdin.on("error", () => undefined); // the child may exit before reading it all
      child.stdin.end(`${init}\n${list}\n`);
    });
    // 2: an error (main.ts), with its code on stderr.
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/sluice: MCP_UPSTREAM_EXITED: .*no-such-server: could not start or reach the MCP server/);
    // Nothing was listed: the lock never saw the upstream's tools.
    expect(run.stdout).not.toContain("read_head");
  });
});

// Long tier (tier.ts): a second real server, over HTTP.
describe.runIf(LONG)("serve of a server-memory pack over --http", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-proxy-memory-"));
  const pack = join(dir, "pack");
  const memoryFile = join(dir, "memory.jsonl");
  const upstream = [process.execPath, serverBin("server-memory")];

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates and reads entities through the proxy; the delete tools are not served", async () => {
    const env = { MEMORY_FILE_PATH: memoryFile };
    await snapshotInto(pack, { command: upstream[0]!, args: upstream.slice(1), env });
    writePackModule(
      pack,
      `export const tools = [tool("create_entities"), tool("read_graph"), tool("search_nodes")];`,
    );
    const child = await startHttpChild([pack, "--", ...upstream], childEnv(env));
    try {
      const transport = new StreamableHTTPClientTransport(new URL(child.url), { requestInit: { headers: { authorization: `Bearer ${child.generatedToken}` } } });
      const client = new Client({ name: "proxy-test", version: "1.0.0" });
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["create_entities", "read_graph", "search_nodes"]);
      const created = await client.callTool({ name: "create_entities", arguments: { entities: [{ name: "sluice", entityType: "project", observations: ["screens MCP calls"] }] } });
      expect(created.isError).toBeFalsy();
      const found = await client.callTool({ name: "search_nodes", arguments: { query: "sluice" } });
      expect(textOf(found)).toContain("screens MCP calls");
      await expect(client.callTool({ name: "delete_entities", arguments: { entityNames: ["sluice"] } })).rejects.toThrow(/Unknown tool/);
      expect(readFileSync(memoryFile, "utf8")).toContain("screens MCP calls");
      await client.close();
    } finally {
      await child.stop();
    }
  }, 60_000);
});

// Long tier (tier.ts): server-everything, the protocol's reference server.
describe.runIf(LONG)("serve of a server-everything pack", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-proxy-everything-"));
  const pack = join(dir, "pack");
  const upstream = [process.execPath, serverBin("server-everything"), "stdio"];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes progress through, reads structured content, and keeps the steps pinned", async () => {
    await snapshotInto(pack, { command: upstream[0]!, args: upstream.slice(1) });
    writePackModule(
      pack,
      `export const tools = [
  tool("trigger-long-running-operation").derived({ name: "short_operation", pin: { duration: 0.3, steps: 3 } }),
  tool("get-structured-content"),
  tool("get-sum"),
];`,
    );
    const { client, stderr } = await stdioClient([pack, "--", ...upstream]);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["get-structured-content", "get-sum", "short_operation"]);
      const progress: Array<{ progress: number; total?: number | undefined }> = [];
      const done = await client.callTool({ name: "short_operation", arguments: {} }, undefined, { onprogress: (p) => progress.push(p) });
      expect(done.isError, textOf(done)).toBeFalsy();
      // The last step comes right before the answer; the SDK client (this test's) drops a
      // progress notification read together with the answer, so it may or may not be seen.
      const seen = progress.map((p) => [p.progress, p.total]);
      expect(seen.slice(0, 2)).toEqual([[1, 3], [2, 3]]);
      expect([[[1, 3], [2, 3]], [[1, 3], [2, 3], [3, 3]]]).toContainEqual(seen);
      const refused = await client.callTool({ name: "short_operation", arguments: { duration: 600 } });
      expect(textOf(refused)).toMatch(/^EGRESS_DENIED: /);
      const weather = await client.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } });
      expect(weather.isError).toBeFalsy();
      // The body the handler read is the structured content (an object with the weather).
      expect(JSON.parse(textOf(weather))).toMatchObject({ temperature: expect.any(Number) });
      const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
      expect(textOf(sum)).toContain("5");
      const bad = await client.callTool({ name: "get-sum", arguments: { a: "two", b: 3 } });
      expect(textOf(bad)).toMatch(/^INVALID_ARGUMENTS: /);
    } finally {
      await client.close();
    }
    expect(stderr()).toMatch(/every tool as committed/);
  }, 90_000);
});

// Long tier (tier.ts): the upstream child never outlives the proxy.
describe.runIf(LONG)("the upstream's process", () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it.each([["SIGTERM"], ["stdin closed"]])("is stopped when sluice serve stops (%s)", async (how) => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-proxy-child-"));
    try {
      const definitions = join(dir, "tools.json");
      const log = join(dir, "calls.jsonl");
      writeFileSync(definitions, JSON.stringify([{ name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }]));
      const upstream = [process.execPath, join(ROOT, "test/fixtures/mcp/mutable-server.mjs"), definitions, log];
      const pack = join(dir, "pack");
      await snapshotInto(pack, { command: upstream[0]!, args: upstream.slice(1) });
      writePackModule(pack, `export const tools = [tool("echo")];`);
      const { client, transport } = await stdioClient([pack, "--", ...upstream]);
      await client.callTool({ name: "echo", arguments: { text: "x" } });
      const child = (JSON.parse(readFileSync(log, "utf8").trim().split("\n")[0]!) as { pid: number }).pid;
      expect(alive(child)).toBe(true);
      if (how === "SIGTERM") process.kill(transport.pid!, "SIGTERM");
      else await client.close();
      const deadline = Date.now() + 15_000;
      while (alive(child) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(alive(child)).toBe(false);
      await client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
