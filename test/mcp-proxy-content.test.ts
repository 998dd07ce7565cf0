/**
 * Content passes through the proxy as content. The oracle is server-everything itself
 * (a devDependency, over stdio), asked straight through the SDK client: through sluice,
 * with the default response handler a generated pack has, its image, resource links,
 * embedded resource and structuredContent reach the client as the server sent them, and
 * each listed tool keeps the `title`, `outputSchema` and annotations the server declared. A
 * tool that declares no annotations (the hostile fixture's) is listed without any.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION, type Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import { definePack, generatedRuntime, type Tool } from "@sluice/core";
import { buildMcpPackIR, mcpResponseHints, mcpRuntimeFacts } from "@sluice/generator-mcp";
import { makeSnapshot, type McpSnapshot } from "@sluice/mcp-client";
import { createServer, McpProxy, ServedCatalog, UpstreamManager, type UpstreamSource } from "@sluice/mcp";
import { ROOT, serverBin } from "./support/mcp-pack.ts";
import { sweep } from "./support/tier.ts";

type Block = { type: string; [key: string]: unknown };
type Answer = { content: Block[]; structuredContent?: unknown; isError?: boolean };

interface Through {
  client: Client;
  close(): Promise<void>;
}

/** A pack as `sluice generate` makes it (default response handlers from the snapshot's hints), served through the proxy to an in-memory client. */
async function through(source: UpstreamSource, snapshot: McpSnapshot): Promise<Through> {
  const ir = buildMcpPackIR(snapshot, { name: "upstream", file: "tools.snapshot.json", sha256: "" });
  const runtime = generatedRuntime({ ...mcpRuntimeFacts(ir), responses: { shared: {}, tools: mcpResponseHints(snapshot, ir.tools) } });
  const tools = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime }).tools as Tool<object>[];
  expect(tools.every((tool) => tool.responseHandler !== undefined)).toBe(true);
  const proxy = new McpProxy(source, snapshot, {});
  await proxy.start();
  const server = createServer(new ServedCatalog(tools), { gate: proxy, call: { mcp: proxy.mcp, timeoutMs: 20_000 } });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "content-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
      await proxy.close();
    },
  };
}

async function listingOf(source: UpstreamSource): Promise<McpSnapshot> {
  const lister = new UpstreamManager(source);
  try {
    const listing = await lister.listTools();
    return makeSnapshot(listing.server, listing.protocolVersion, listing.tools);
  } finally {
    await lister.close();
  }
}

describe("server-everything through sluice, against server-everything straight", () => {
  const source: UpstreamSource = { command: process.execPath, args: [serverBin("server-everything"), "stdio"] };
  let straight: Client;
  let proxied: Through;
  let upstreamTools: ListedTool[];

  beforeAll(async () => {
    straight = new Client({ name: "straight", version: "1.0.0" });
    await straight.connect(new StdioClientTransport({ command: source.command, args: source.args!, stderr: "ignore" }));
    upstreamTools = (await straight.listTools()).tools;
    // The lock is the server's own listing, as the straight client got it (one start fewer).
    const info = straight.getServerVersion()!;
    proxied = await through(source, makeSnapshot({ name: info.name, version: info.version }, LATEST_PROTOCOL_VERSION, upstreamTools));
  }, 60_000);
  afterAll(async () => {
    await straight?.close();
    await proxied?.close();
  });

  const calls: Array<[string, string, Record<string, unknown>, string[]]> = [
    ["an image (get-tiny-image)", "get-tiny-image", {}, ["image"]],
    ["resource links (get-resource-links)", "get-resource-links", { count: 3 }, ["resource_link"]],
    ["an embedded resource (get-resource-reference)", "get-resource-reference", { resourceType: "Text", resourceId: 1 }, ["resource"]],
    ["an image beside annotated text (get-annotated-message)", "get-annotated-message", { messageType: "success", includeImage: true }, ["image"]],
  ];

  // Quick tier: an image and an embedded resource; the long tier adds resource links and an image beside annotated text.
  it.each(sweep(calls, ([what]) => what.startsWith("an image (") || what.startsWith("an embedded")))("%s: every non-text block arrives as the server sent it, in its place", async (_what, name, args, kinds) => {
    const want = (await straight.callTool({ name, arguments: args })) as Answer;
    const got = (await proxied.client.callTool({ name, arguments: args })) as Answer;
    expect(got.isError).toBeFalsy();
    for (const kind of kinds) expect(want.content.some((block) => block.type === kind)).toBe(true);
    // Same kinds in the same order; every block that is not text is the server's own.
    expect(got.content.map((block) => block.type)).toEqual(want.content.map((block) => block.type));
    // server-everything stamps a dynamic resource with the time it was made ("created at
    // 4:43:40 PM"), so two calls a second apart differ there and nowhere else.
    const unstamped = (block: unknown) => JSON.parse(JSON.stringify(block).replace(/created at \d{1,2}:\d{2}:\d{2}\s?[AP]M/g, "created at <time>")) as unknown;
    want.content.forEach((block, i) => {
      if (block.type !== "text") expect(unstamped(got.content[i])).toEqual(unstamped(block));
    });
    // And no image data was turned into text.
    const image = want.content.find((block) => block.type === "image");
    if (image !== undefined) expect(got.content.filter((block) => block.type === "text").some((block) => String(block["text"]).includes(String(image["data"]).slice(0, 40)))).toBe(false);
  });

  it("structuredContent arrives as the server sent it, and validates against the served outputSchema", async () => {
    const want = (await straight.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } })) as Answer;
    // The SDK client checks structuredContent against the listed outputSchema: this call fails if either is off.
    const got = (await proxied.client.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } })) as Answer;
    expect(want.structuredContent).toBeDefined();
    expect(got.structuredContent).toEqual(want.structuredContent);
  });

  it("lists each tool with the server's title, outputSchema and annotations, as declared", async () => {
    const served = (await proxied.client.listTools()).tools;
    expect(served.map((tool) => tool.name).sort()).toEqual(upstreamTools.map((tool) => tool.name).sort());
    for (const tool of upstreamTools) {
      const mine = served.find((entry) => entry.name === tool.name)!;
      expect({ title: mine.title, outputSchema: mine.outputSchema, annotations: mine.annotations }).toEqual({ title: tool.title, outputSchema: tool.outputSchema, annotations: tool.annotations });
    }
  });
});

describe("a tool that declares no annotations", () => {
  it("is served without any (none invented), one that declares some keeps exactly those", async () => {
    const source: UpstreamSource = { command: process.execPath, args: [join(ROOT, "test/fixtures/mcp/hostile-server.mjs")] };
    const proxied = await through(source, await listingOf(source));
    try {
      const served = (await proxied.client.listTools()).tools;
      expect(served.find((tool) => tool.name === "echo_text")).not.toHaveProperty("annotations");
      const kinds = served.find((tool) => tool.name === "kinds")!;
      expect(kinds.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
      expect(kinds.title).toBe("Every content kind");
      // Every kind MCP has, audio too, passes whole beside the structured content.
      const answer = (await proxied.client.callTool({ name: "kinds", arguments: {} })) as Answer;
      expect(answer.content.map((block) => block.type)).toEqual(["text", "image", "audio", "resource_link", "resource"]);
      expect(answer.structuredContent).toEqual({ n: 1 });
    } finally {
      await proxied.close();
    }
  }, 30_000);
});
