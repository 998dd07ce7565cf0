/**
 * Credentials never reach the model through an MCP error result: an API that echoes the
 * token, a URL with the key, a fetch failure quoting the request. The server runs in
 * process over the SDK's in-memory transport; `fetch` is faked, nothing leaves the process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { tools as notionTools } from "@sluice/pack-notion";
import { tools as slackTools } from "@sluice/pack-slack";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { createServer, ServedCatalog } from "../src/index.ts";

const TOKEN = "tok_S3cr3t+b/c=d&e!x*y";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((c) => c.close()));
});

function pick(tools: readonly Tool<object>[], name: string): Tool<object> {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

/** A fetch that answers 401 with everything it was sent (URL, headers, body) in the message. */
const echoing = (async (url: string | URL | Request, init?: RequestInit) => {
  const sent = { url: String(url), headers: init?.headers, body: typeof init?.body === "string" ? init.body : undefined };
  return new Response(JSON.stringify({ ok: false, error: "invalid_auth", message: `Bad credentials: ${JSON.stringify(sent)}` }), { status: 401, headers: { "content-type": "application/json" } });
}) as typeof globalThis.fetch;

/** A custom fetch that fails quoting the request (URL, headers, body) in its message. */
const failing = (async (url: string | URL | Request, init?: RequestInit) => {
  throw new Error(`proxy refused ${String(url)} with ${JSON.stringify(init?.headers)} and ${String(init?.body)}`);
}) as typeof globalThis.fetch;

async function callThrough(tool: Tool<object>, args: Record<string, unknown>, env: Record<string, string>, fetch: typeof globalThis.fetch): Promise<{ result: CallToolResult; log: string[] }> {
  const log: string[] = [];
  const server = createServer(new ServedCatalog([tool]), { call: { fetch, env }, log: (line) => log.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  open.push(client, server);
  const result = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
  return { result, log };
}

function spellings(value: string): string[] {
  const encoded = encodeURIComponent(value);
  const unreserved = encoded.replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  return [value, encoded, unreserved, encoded.toLowerCase(), unreserved.toLowerCase(), JSON.stringify(value).slice(1, -1), JSON.stringify(JSON.stringify(value)).slice(3, -3)];
}

function leaks(text: string): string[] {
  return spellings(TOKEN).filter((form) => text.includes(form));
}

const cases: Array<[string, Tool<object>, Record<string, unknown>, Record<string, string>]> = [
  ["GitHub REST (token as an Authorization header the server adds)", pick(githubRestTools, "repos_get"), { owner: "o", repo: "r" }, { GITHUB_TOKEN: TOKEN }],
  ["Notion (bearer for undeclared security, pinned Notion-Version)", pick(notionTools, "retrieve_a_page"), { page_id: "p1" }, { NOTION_TOKEN: TOKEN }],
  ["Stripe (declared bearer scheme)", pick(stripeTools, "get_customers"), {}, { STRIPE_API_KEY: TOKEN }],
  ["Slack (token filled into a parameter)", pick(slackTools, "chat_post_message"), { channel: "C1", text: "hi" }, { SLACK_TOKEN: TOKEN }],
];

describe("MCP error results carry no credential", () => {
  it.each(cases)("%s: an API echoing the request", async (_name, tool, args, env) => {
    const { result, log } = await callThrough(tool, args, env, echoing);
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result);
    expect(text).toContain("[redacted]");
    expect(leaks(text)).toEqual([]);
    expect(leaks(log.join("\n"))).toEqual([]);
  });

  it.each(cases)("%s: a fetch failure quoting the request", async (_name, tool, args, env) => {
    const { result } = await callThrough(tool, args, env, failing);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain("NETWORK_ERROR");
    expect(leaks(JSON.stringify(result))).toEqual([]);
  });

  it("guard redaction: switched off, the token reaches the model in every case above", async () => {
    const leaking: string[] = [];
    await withoutGuard("redaction", async () => {
      for (const [name, tool, args, env] of cases) {
        for (const fetch of [echoing, failing]) {
          const { result } = await callThrough(tool, args, env, fetch);
          if (leaks(JSON.stringify(result)).length > 0) leaking.push(name);
        }
      }
    });
    expect(leaking).toEqual(cases.flatMap(([name]) => [name, name]));
  });
});
