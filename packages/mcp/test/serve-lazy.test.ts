/**
 * Serving a pack computes nothing nobody asked for (issue 14): building the served
 * catalog, the start-up report of credentials and endpoints, and listing a page that
 * holds no curated tool compute no curated projection; the page that lists a curated
 * tool computes its projection once. A listed definition hands out the tool's frozen
 * schema itself, not a copy, and serializes exactly as the MCP adapter's copy does.
 * Work is counted through a hook on `Tool.prototype.project`, never timed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { toMCP } from "@sluice/catalog";
import { SluiceError, Tool, type Binding, type DeriveOptions } from "@sluice/core";
import { curatedTools, tools as githubRestTools } from "@sluice/pack-github-rest";
import { curatedTools as gmailCurated, generatedTools as gmailGenerated, tools as gmailTools } from "@sluice/pack-gmail";
import { tools as linearTools } from "@sluice/pack-linear";
import { createServer, describeCredentialEnv, ServedCatalog } from "../src/index.ts";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

/** Runs `fn` and returns the names of the tools whose schema a narrowing derive computed meanwhile. */
async function projections(fn: () => Promise<void> | void): Promise<string[]> {
  const narrowed: string[] = [];
  const project = Tool.prototype.project;
  Tool.prototype.project = function (this: Tool, options: DeriveOptions, projectOptions) {
    const result = project.call(this, options, projectOptions);
    if (options.drop !== undefined || options.keep !== undefined || options.pin !== undefined) narrowed.push(result.name);
    return result;
  } as typeof project;
  try {
    await fn();
  } finally {
    Tool.prototype.project = project;
  }
  return narrowed;
}

async function connect(catalog: ServedCatalog, pageSize: number): Promise<Client> {
  const server = createServer(catalog, { pageSize });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lazy-test", version: "0" });
  await client.connect(clientSide);
  open.push(client, server);
  return client;
}

/** What `sluice serve` reads of every tool before it answers anything (serve.ts). */
function startUpReport(tools: readonly Tool<object>[]): void {
  describeCredentialEnv(tools, { GITHUB_TOKEN: "ghp_test" });
  for (const tool of tools) void [tool.callSettings.endpointEnv, tool.callSettings.api, tool.endpoint];
}

describe("serving a pack is lazy", () => {
  it("computes no curated projection until a listed page holds the curated tool, then each once", async () => {
    const curatedNames = curatedTools.curated.map((tool) => tool.name).sort();
    expect(curatedNames.length).toBeGreaterThan(0);
    let catalog!: ServedCatalog;
    let client!: Client;
    let firstPage: string[] = [];
    const atStartUp = await projections(async () => {
      catalog = new ServedCatalog(githubRestTools);
      startUpReport(githubRestTools);
      client = await connect(catalog, 100);
      firstPage = (await client.listTools()).tools.map((tool) => tool.name);
    });
    // The first page must not hold a curated tool, or this test would prove nothing.
    expect(firstPage).toHaveLength(100);
    expect(firstPage.filter((name) => curatedNames.includes(name))).toEqual([]);
    expect(atStartUp).toEqual([]);

    const listed: string[] = [...firstPage];
    const rest = await projections(async () => {
      let cursor: string | undefined = (await client.listTools()).nextCursor;
      while (cursor !== undefined) {
        const page = await client.listTools({ cursor });
        listed.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      }
    });
    expect(listed).toEqual(catalog.tools.map((tool) => tool.name));
    expect(rest.sort()).toEqual(curatedNames);
  });

  it("reports the credentials of a curated tool's API from its parent, as the built tool would", async () => {
    // Gmail's curated tools withhold arguments; their API, host and variables are the generated tools'.
    const unbuilt = await projections(() => {
      expect(describeCredentialEnv(gmailTools, {})).toEqual([{ api: "Gmail", set: [], expected: ["GMAIL_ACCESS_TOKEN", "GOOGLE_ACCESS_TOKEN"] }]);
    });
    expect(unbuilt).toEqual([]);
    const generatedByName = new Map(gmailGenerated.tools.map((tool) => [tool.name, tool as Tool<object>]));
    expect(gmailCurated.curated.length).toBeGreaterThan(6);
    for (const tool of gmailCurated.curated) {
      const parent = generatedByName.get(tool.name)!;
      const before = { settings: tool.callSettings, endpoint: tool.endpoint, server: tool.server };
      expect(before.server).toBe(parent.server);
      expect(before.server).toBe("https://gmail.googleapis.com");
      void tool.inputSchema; // builds it
      expect({ settings: tool.callSettings, endpoint: tool.endpoint, server: tool.server }).toEqual(before);
      expect(tool.callSettings).toBe(before.settings);
      expect(tool.binding.kind === "http" ? tool.binding.server : undefined).toBe(before.server);
    }
  });

  it("reads a GraphQL tool's server from its endpoint", () => {
    const tool = linearTools.find((candidate) => candidate.binding.kind === "graphql")!;
    expect(tool.server).toBe(tool.endpoint);
    expect(tool.server).toMatch(/^https:\/\/api\.linear\.app\//);
  });
});

describe("tools/list definitions", () => {
  it("share each tool's frozen schema and serialize byte for byte as the MCP adapter's copy", () => {
    const catalog = new ServedCatalog([...githubRestTools, ...gmailTools.filter((tool) => tool.name.startsWith("gmail_users_messages"))]);
    for (const tool of catalog.tools) {
      const definition = catalog.definition(tool);
      expect(definition.inputSchema).toBe(tool.inputSchema);
      expect(Object.isFrozen(definition.inputSchema)).toBe(true);
      expect(JSON.stringify(definition)).toBe(JSON.stringify(toMCP([tool])[0]));
    }
  });

  it("keeps the hints and refuses a tool whose schema root is not an object, as the adapter does", () => {
    const binding: Binding = { kind: "http", method: "GET", path: "/x", server: "https://example.test", parameters: [] };
    const hinted = Tool.create({ name: "hinted", description: "Reads.", inputSchema: { type: "object" }, binding, annotations: { readOnly: true, idempotent: true } });
    expect(new ServedCatalog([hinted]).definition(hinted)).toEqual({
      name: "hinted",
      description: "Reads.",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
    const scalar = Tool.create({ name: "scalar", description: "Bad root.", inputSchema: { type: "string" }, binding });
    const catalog = new ServedCatalog([scalar]);
    let error: unknown;
    try {
      catalog.definition(scalar);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).code).toBe("SPEC_INVALID");
    expect(() => toMCP([scalar])).toThrow((error as Error).message);
  });
});
