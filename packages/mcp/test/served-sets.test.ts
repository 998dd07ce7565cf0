/**
 * Served sets: a pack's `allTools` holds curated tools and their `*_full` twins (the
 * unprojected originals); its `tools` is the default served set, without the twins. What
 * a server, a session or `egress --served` offers is that set, whether it is given the
 * pack, its `allTools` or its `tools`, unless `includeFull` / `--include-full` asks for
 * the twins: a served twin would send what its curated tool withholds (issue 11,
 * observation 6; issue 21, item 6). In process here, through the MCP SDK client;
 * `sluice serve` as a child in serve.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { defaultServedSet, fullNameOf, Tool } from "@sluice/core";
import * as githubRest from "@sluice/pack-github-rest";
import * as gmail from "@sluice/pack-gmail";
import { main } from "../../cli/src/main.ts";
import { createServer, ServedCatalog, type SessionOptions } from "../src/index.ts";
import { listToolPages } from "../../../test/support/list-tool-pages.ts";

interface Sent {
  url: string;
  body: string | undefined;
}

function recordingFetch(): { fetch: typeof globalThis.fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(input), body: typeof init?.body === "string" ? init.body : undefined });
    return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

const ENV = { GOOGLE_ACCESS_TOKEN: "ya29.test", GITHUB_TOKEN: "ghp_test" };

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

async function connect(catalog: ServedCatalog, options: SessionOptions): Promise<Client> {
  const server = createServer(catalog, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

async function listAll(client: Client): Promise<{ tools: McpTool[]; pages: number }> {
  const listed = await listToolPages(client);
  return { tools: listed.flatMap((page) => page.tools), pages: listed.length };
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

/** A twin, its curated tool, arguments only the twin accepts, and how to see them on the wire. */
const cases: Array<[string, { pack: { tools: readonly Tool<object>[]; allTools: readonly Tool<object>[] }; tools: readonly Tool<object>[]; twin: string; curated: string; args: Record<string, unknown>; leaked: (sent: Sent) => boolean }]> = [
  [
    "gmail",
    {
      pack: gmail,
      tools: gmail.allTools,
      twin: "gmail_users_messages_list_full",
      curated: "gmail_users_messages_list",
      args: { userId: "me", access_token: "ya29.leaked", callback: "cb", key: "api-key" },
      leaked: (sent) => /[?&]access_token=ya29\.leaked/.test(sent.url) && /[?&]key=api-key/.test(sent.url),
    },
  ],
  [
    "github-rest",
    {
      pack: githubRest,
      tools: githubRest.allTools,
      twin: "apps_create_installation_access_token_full",
      curated: "apps_create_installation_access_token",
      args: { installation_id: 1, permissions: { administration: "write", contents: "read" } },
      leaked: (sent) => sent.body !== undefined && (JSON.parse(sent.body) as { permissions?: Record<string, unknown> }).permissions?.administration === "write",
    },
  ],
];

describe("defaultServedSet", () => {
  it("leaves out exactly the tools named fullNameOf(x) for another tool x, keeping order", () => {
    const make = (name: string) =>
      Tool.create({ name, description: name, inputSchema: { type: "object", properties: {} }, binding: { kind: "http", method: "GET", path: "/", parameters: [] } });
    const long = "l".repeat(62);
    const given = [make("b_full"), make("a"), make("a_full"), make("export_full"), make(long), make(fullNameOf(long)), make("b")];
    expect(fullNameOf(long)).not.toBe(`${long}_full`);
    expect(defaultServedSet(given).map((t) => t.name)).toEqual(["a", "export_full", long, "b"]);
    expect(defaultServedSet([])).toEqual([]);
  });

  it.each(cases)("%s: every *_full tool of the pack is a twin and is left out", (_pack, { tools, twin }) => {
    const served = defaultServedSet(tools);
    expect(served.some((t) => t.name.endsWith("_full"))).toBe(false);
    expect(served.length + tools.filter((t) => t.name.endsWith("_full")).length).toBe(tools.length);
    expect(tools.some((t) => t.name === twin)).toBe(true);
  });

  it.each(cases)("%s: the pack's tools export is exactly that set, the same values in the same order", (_pack, { pack, tools }) => {
    expect(pack.tools).toEqual(defaultServedSet(tools));
    expect(pack.tools.every((tool, i) => tool === defaultServedSet(tools)[i])).toBe(true);
  });
});

describe("a pack served through ServedCatalog and createServer", () => {
  it.each(cases)("%s: tools/list has no twin on any page, and the twin cannot be called", async (_pack, { tools, twin, curated, args, leaked }) => {
    const catalog = new ServedCatalog(tools);
    expect(catalog.includeFull).toBe(false);
    expect(catalog.twins).toContain(twin);
    const { fetch, sent } = recordingFetch();
    const client = await connect(catalog, { pageSize: 25, call: { fetch, env: ENV } });
    const { tools: listed, pages } = await listAll(client);
    expect(pages).toBeGreaterThan(1);
    expect(listed).toHaveLength(defaultServedSet(tools).length);
    expect(listed.filter((t) => t.name.endsWith("_full"))).toEqual([]);
    expect(listed.map((t) => t.name)).toContain(curated);

    await expect(client.callTool({ name: twin, arguments: args })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(new RegExp(`${twin} is the unprojected \\*_full twin of ${curated} and is not served.*--include-full`)),
    });
    // The curated tool refuses what the twin would have sent: a tool result, nothing sent.
    const refused = await client.callTool({ name: curated, arguments: args });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^EGRESS_DENIED: /);
    expect(sent.filter(leaked)).toEqual([]);
    expect(sent).toHaveLength(0);
  });

  it.each(cases)("%s: deferred, a twin cannot be loaded either", async (_pack, { tools, twin }) => {
    const client = await connect(new ServedCatalog(tools), { defer: true, call: { ...recordingFetch(), env: ENV } });
    const search = await client.callTool({ name: "tool_search", arguments: { query: `select:${twin}` } });
    expect(textOf(search)).toContain(`No tool named ${twin}`);
    await expect(client.callTool({ name: twin, arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it.each(cases)("%s: with includeFull the twins are listed and callable", async (_pack, { tools, twin, args, leaked }) => {
    const catalog = new ServedCatalog(tools, { includeFull: true });
    const { fetch, sent } = recordingFetch();
    const client = await connect(catalog, { pageSize: 100, call: { fetch, env: ENV } });
    const { tools: listed } = await listAll(client);
    expect(listed).toHaveLength(tools.length);
    expect(listed.map((t) => t.name)).toContain(twin);
    const result = await client.callTool({ name: twin, arguments: args });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(sent.filter(leaked)).toHaveLength(1);
  });

  it.each(cases)("%s: given the pack module, its tools or its allTools, the catalog serves the same set; includeFull on the module adds the twins", (_pack, { pack, tools, twin }) => {
    const names = (catalog: ServedCatalog) => catalog.tools.map((t) => t.name);
    const fromModule = new ServedCatalog(pack);
    expect(names(fromModule)).toEqual(names(new ServedCatalog(pack.tools)));
    expect(names(fromModule)).toEqual(names(new ServedCatalog(tools)));
    expect(names(fromModule)).not.toContain(twin);
    expect(fromModule.twins).toContain(twin);
    const full = new ServedCatalog(pack, { includeFull: true });
    expect(names(full)).toContain(twin);
    expect(names(full)).toEqual(tools.map((t) => t.name).sort());
    // The served array alone has no twins to add: includeFull cannot widen it.
    expect(names(new ServedCatalog(pack.tools, { includeFull: true }))).toEqual(names(fromModule));
  });

  it("a pack module whose tools holds a tool its allTools lacks is refused, not served", () => {
    const stray = gmail.allTools[0]!.derived({ name: "stray" });
    expect(() => new ServedCatalog({ tools: [...gmail.tools, stray], allTools: gmail.allTools })).toThrow(expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringMatching(/holds stray, which its `allTools` lacks/) }));
  });

  it("an output schema for a twin that is not served says why", () => {
    expect(() => new ServedCatalog(gmail.allTools, { outputSchemas: { gmail_users_messages_list_full: { type: "object" } } })).toThrow(/served only with includeFull/);
  });
});

describe("sluice egress --served", () => {
  async function egress(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const code = await main(["egress", ...args], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      cwd: process.cwd(),
    });
    return { code, stdout, stderr };
  }
  const toolsIn = (map: string) => map.split("\n").filter((line) => line.startsWith("tool ")).map((line) => line.slice(5));

  it.each(cases)("%s: lists what serve serves; --include-full adds the twins; plain egress keeps every exported tool", async (pack, { tools, twin, curated }) => {
    const served = await egress(pack, "--served");
    expect(served.code).toBe(0);
    expect(toolsIn(served.stdout)).toEqual(defaultServedSet(tools).map((t) => t.name).sort());
    expect(toolsIn(served.stdout)).toContain(curated);
    expect(toolsIn(served.stdout)).not.toContain(twin);
    const full = await egress(pack, "--served", "--include-full");
    const plain = await egress(pack);
    expect(toolsIn(full.stdout)).toContain(twin);
    expect(full.stdout).toBe(plain.stdout);
    expect(toolsIn(plain.stdout)).toHaveLength(tools.length);
  });

  it("--include-full without --served is a usage error", async () => {
    const result = await egress("gdocs", "--include-full");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^sluice: INVALID_OPTION: --include-full applies to --served/);
  });
});
