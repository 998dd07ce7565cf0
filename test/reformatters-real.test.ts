/**
 * Reformatters where answers become model-facing text: a real MCP server's search and
 * directory results served by `createServer` (what `sluice serve` runs) through a generated
 * pack, the corpus specs' response examples under the default handler, and an HTTP call
 * whose answer holds a credential inside JSON held in a string (redaction runs first, so the
 * compacted text never shows it). Each adopted stage's round trip is proven per call.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { decode } from "@toon-format/toon";
import { CallCollector, definePack, generatedRuntime, Tool, unfoldPaths, type McpToolResult } from "@sluice/core";
import { buildMcpPackIR, mcpResponseHints, mcpRuntimeFacts } from "@sluice/generator-mcp";
import { makeSnapshot } from "@sluice/mcp-client";
import { createServer, ServedCatalog } from "@sluice/mcp";
import { exampleRows, scratchFiles, specResponseExamples } from "../scripts/bench-reformatters.ts";
import { serverBin } from "./support/mcp-pack.ts";
import { LONG } from "./support/tier.ts";

type Block = { type: string; text?: string; [key: string]: unknown };

describe("server-filesystem through createServer: search and directory results", () => {
  let dir: string;
  let upstream: Client;
  let client: Client;
  let close: () => Promise<void>;
  const log: string[] = [];
  const collector = new CallCollector();

  beforeAll(async () => {
    dir = scratchFiles();
    upstream = new Client({ name: "upstream", version: "1.0.0" });
    await upstream.connect(new StdioClientTransport({ command: process.execPath, args: [serverBin("server-filesystem"), dir], stderr: "ignore" }));
    const info = upstream.getServerVersion()!;
    const snapshot = makeSnapshot({ name: info.name, version: info.version }, LATEST_PROTOCOL_VERSION, (await upstream.listTools()).tools);
    const ir = buildMcpPackIR(snapshot, { name: "fs", file: "tools.snapshot.json", sha256: "" });
    const runtime = generatedRuntime({ ...mcpRuntimeFacts(ir), responses: { shared: {}, tools: mcpResponseHints(snapshot, ir.tools) } });
    const tools = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime }).tools as Tool<object>[];
    const mcp = { callTool: async (request: { name: string; arguments: Record<string, unknown> }) => (await upstream.callTool(request)) as unknown as McpToolResult };
    const server = createServer(new ServedCatalog(tools), { call: { mcp }, log: (line) => log.push(line) });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "model", version: "1.0.0" });
    await client.connect(clientSide);
    close = async () => {
      await client.close();
      await server.close();
    };
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await upstream?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** The same call straight to the server and through sluice, with the collector current. */
  const both = async (name: string, args: Record<string, unknown>) => {
    const straight = (await upstream.callTool({ name, arguments: args })) as { content: Block[]; structuredContent?: Record<string, unknown> };
    const { collecting } = await import("@sluice/core");
    const served = (await collecting(collector, () => client.callTool({ name, arguments: args }))) as { content: Block[] };
    return { straight, served };
  };

  it("search_files: the path list is folded inside its envelope, and unfolding gives the server's text back byte for byte", async () => {
    const { straight, served } = await both("search_files", { path: dir, pattern: "**/*.d.ts" });
    const sent = straight.structuredContent!["content"] as string;
    expect(sent.split("\n").length).toBeGreaterThan(50);
    const text = served.content.find((b) => b.type === "text")!.text!;
    const envelope = JSON.parse(text) as { content: string };
    expect(envelope.content).not.toBe(sent);
    expect(unfoldPaths(envelope.content)).toBe(sent);
    expect(log.at(-1)).toMatch(/; .*path-fold (\d+)->(\d+) tok/);
    const [, before, after] = /path-fold (\d+)->(\d+) tok/.exec(log.at(-1)!)!;
    expect(Number(after)).toBeLessThan(Number(before) * 0.6);
  });

  it("directory_tree: the pretty JSON held in the envelope is compacted, and reads back as the same tree", async () => {
    const { straight, served } = await both("directory_tree", { path: join(dir, "sdk/dist/esm/server") });
    const sent = straight.structuredContent!["content"] as string;
    const envelope = JSON.parse(served.content[0]!.text!) as { content: string };
    expect(envelope.content.length).toBeLessThan(sent.length * 0.7);
    expect(JSON.parse(envelope.content)).toEqual(JSON.parse(sent));
    expect(log.at(-1)).toMatch(/compact-json \d+->\d+ tok/);
  });

  it("the collector counts each stage with tokens before and after", () => {
    const totals = collector.reformatTotals();
    const fold = totals.find((t) => t.reformatter === "path-fold")!;
    const compact = totals.find((t) => t.reformatter === "compact-json")!;
    expect(fold.adopted).toBe(1);
    expect(compact.adopted).toBe(1);
    expect(fold.tokensAfter!).toBeLessThan(fold.tokensBefore!);
    expect(collector.records.every((r) => r.reformat !== undefined && r.reformat.length === 3)).toBe(true);
  });
});

describe("the corpus specs' response examples under the default handler", () => {
  // The quick tier reads three JSON documents (the YAML ones take seconds to parse); LONG reads every one.
  const QUICK = new Set(["notion/notion-openapi.json", "sendgrid/oai_v3_stoplight.json", "twilio/twilio_api_v2010.json"]);
  const sample = specResponseExamples(10, LONG ? () => true : (spec) => QUICK.has(spec));
  const rows = exampleRows(sample);

  it("finds real examples (at least 40 across the corpus)", () => expect(sample.length).toBeGreaterThanOrEqual(LONG ? 40 : 20));

  it.each(rows.map((row, i) => [row.source, row, sample[i]!] as const))("%s: what the model reads decodes to the handler's output", (_source, row, answer) => {
    const adopted = row.stages.filter((s) => s.adopted).map((s) => s.reformatter);
    const back = adopted.includes("toon") ? decode(row.text) : JSON.parse(row.text);
    expect(back).toEqual(JSON.parse(JSON.stringify(answer.handled)));
    for (const stage of row.stages) if (!stage.adopted) expect(stage.reason, stage.reformatter).toMatch(/\S/);
  });
});

describe("redaction runs before the reformatters", () => {
  it("an MCP upstream's own secret inside JSON held in a text block is redacted in the compacted block", async () => {
    const secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
    const text = JSON.stringify({ ok: true, stdout: JSON.stringify({ env: { GITHUB_TOKEN: secret }, total: 1 }, null, 2) }, null, 2);
    const upstream = { secrets: () => [secret], callTool: async () => ({ content: [{ type: "text", text }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] }) };
    const tool = Tool.create({ name: "run", description: "Runs it.", inputSchema: { type: "object", properties: {} }, binding: { kind: "mcp", tool: "run", arguments: [] } });
    const result = await tool.invoke({}, { mcp: upstream });
    expect(result.reformat.find((s) => s.reformatter === "compact-json")?.adopted).toBe(true);
    const shown = result.content!.find((b) => b.type === "text")!["text"] as string;
    expect(shown).not.toContain(secret);
    expect(shown).toContain("[redacted]");
    expect(shown.length).toBeLessThan(text.length);
    // The image passes as the upstream sent it, in its place.
    expect(result.content![1]).toEqual({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
  });

  it("a credential the API echoes inside JSON held in a string is redacted in the compacted text", async () => {
    const secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    const inner = JSON.stringify({ request: { authorization: `Bearer ${secret}` }, total: 2 }, null, 2);
    const fetch = async () => new Response(JSON.stringify({ ok: true, stdout: inner }, null, 2), { status: 200, headers: { "content-type": "application/json" } });
    const tool = Tool.create({
      name: "run",
      description: "Runs it.",
      inputSchema: { type: "object", properties: {} },
      binding: { kind: "http", method: "GET", path: "/run", server: "https://api.example.invalid", parameters: [], auth: [[{ scheme: "key", type: "bearer" }]] },
    });
    const result = await tool.invoke({}, { fetch, credentials: { key: { token: secret } } });
    expect(result.reformat.find((s) => s.reformatter === "compact-json")?.adopted).toBe(true);
    expect(result.text).not.toContain(secret);
    expect(result.text).not.toContain(secret.slice(8));
    const stdout = (JSON.parse(result.text) as { stdout: string }).stdout;
    expect(stdout).toBe(JSON.stringify(JSON.parse(stdout)));
    expect(stdout).toContain("[redacted]");
  });
});
