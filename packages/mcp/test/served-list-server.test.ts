/**
 * The server over a pack's stored list (createServedListServer), in process over the SDK's
 * in-memory transport, held to createServer over the loaded catalog: the same initialize
 * answer and the same pages and cursors, the pack loaded once at the first call (never for
 * a listing), a call screened as the loaded server screens it; and its usage record, which
 * takes a listing's definitions once the listing goes quiet, and always before a call.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Tool } from "@sluice/core";
import { formatServedList, parseServedList } from "@sluice/catalog/served-list";
import { createServedListServer, createServer, ServedCatalog, type SessionOptions } from "../src/index.ts";
import { listToolPages } from "../../../test/support/list-tool-pages.ts";

function httpTool(name: string): Tool<object> {
  return Tool.create({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties: { id: { type: "string", maxLength: 4 } }, required: ["id"] },
    binding: { kind: "http", method: "GET", path: "/things/{id}", server: "https://api.example.test", parameters: [{ arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true }] },
    annotations: { readOnly: true },
  });
}

const tools = ["delta", "alpha", "echo", "charlie", "bravo"].map(httpTool);
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function connect(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "listed-test", version: "0" });
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

async function pages(client: Client): Promise<Array<{ names: string[]; nextCursor: string | undefined }>> {
  return (await listToolPages(client)).map((page) => ({ names: page.tools.map((tool) => tool.name), nextCursor: page.nextCursor }));
}

/**
 * A stored list as generate writes it (the loaded catalog's own definitions), as objects or
 * as the list's text (the pages copied from its bytes), and how often its pack was loaded.
 */
function storedAs(form: "objects" | "text", options: SessionOptions) {
  const catalog = new ServedCatalog(tools);
  const definitions = JSON.parse(JSON.stringify(catalog.tools.map((tool) => catalog.definition(tool)))) as never[];
  const loads = { count: 0 };
  const load = async () => (loads.count++, new ServedCatalog(tools));
  const list = parseServedList(formatServedList(definitions, null))!;
  const server = createServedListServer(form === "objects" ? { definitions, load } : { count: list.count, listedJson: list.listedJson, load }, options);
  return { server, loads };
}

describe.each(["objects", "text"] as const)("the stored list's server, the list as %s", (form) => {
  const stored = (options: SessionOptions) => storedAs(form, options);

  it("answers initialize and every page as createServer over the loaded pack does, without loading the pack", async () => {
    const listed = stored({ pageSize: 2 });
    const fromList = await connect(listed.server);
    const loaded = await connect(createServer(new ServedCatalog(tools), { pageSize: 2 }));
    expect(fromList.getServerVersion()).toEqual(loaded.getServerVersion());
    expect(fromList.getServerCapabilities()).toEqual(loaded.getServerCapabilities());
    const listedPages = await pages(fromList);
    expect(listedPages).toEqual(await pages(loaded));
    expect(listedPages.map((page) => page.names.length)).toEqual([2, 2, 1]);
    expect((await fromList.listTools()).tools).toEqual((await loaded.listTools()).tools);
    await expect(fromList.listTools({ cursor: "not-a-cursor" })).rejects.toThrow(/Invalid tools\/list cursor/);
    expect(listed.loads.count).toBe(0);
  });

  it("loads the pack once, at the first call, and screens calls as the loaded server does", async () => {
    const listed = stored({});
    const client = await connect(listed.server);
    const calls = await Promise.all([client.callTool({ name: "alpha", arguments: { id: "too long" } }), client.callTool({ name: "bravo", arguments: {} })]);
    for (const result of calls) expect(result).toMatchObject({ isError: true, _meta: { "sluice/error": { code: "INVALID_ARGUMENTS" } } });
    await expect(client.callTool({ name: "zulu", arguments: {} })).rejects.toThrow(/Unknown tool: zulu/);
    expect(listed.loads.count).toBe(1);
  });

  it("refuses what needs the loaded catalog (a deferred session, a proxy's gate) with a coded error", () => {
    expect(() => stored({ defer: true })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
    expect(() => stored({ pageSize: 0 })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("records a listing's definitions once the listing is quiet, and before any call it makes", async () => {
    const events: string[] = [];
    const recorded: unknown[] = [];
    const usage = {
      declared: (definitions: readonly { name: string }[]) => (recorded.push(...definitions), events.push(`declared ${definitions.map((d) => d.name).join(",")}`)),
      invoked: (name: string) => events.push(`invoked ${name}`),
      close: () => events.push("close"),
    };
    const listed = stored({ pageSize: 2, usage });
    const client = await connect(listed.server);
    await pages(client);
    // Answered before recorded: the token counts of a record would otherwise hold every page.
    expect(events).toEqual([]);
    await new Promise((done) => setTimeout(done, 1_500));
    expect(events.join(";")).toBe("declared alpha,bravo,charlie,delta,echo");
    // The record gets the definitions as listed, objects made from the text when the list is text.
    const catalog = new ServedCatalog(tools);
    expect(recorded).toEqual(catalog.tools.map((tool) => catalog.definition(tool)));
    events.length = 0;
    await client.listTools();
    await client.callTool({ name: "alpha", arguments: { id: "a1" } });
    expect(events.slice(0, 2)).toEqual(["declared alpha,bravo", "invoked alpha"]);
    await client.listTools();
    await listed.server.close();
    // Closing records what is pending first (the in-memory pair closes the server's side twice).
    expect(events.slice(2, 4)).toEqual(["declared alpha,bravo", "close"]);
  });
});
