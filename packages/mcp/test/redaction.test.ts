/**
 * Credentials never reach the model through an MCP result: an error (an API that echoes
 * the token, a URL with the key, a fetch failure quoting the request) or a success (a 200
 * echoing the token in assorted spellings, as text, structured content and the next-page
 * arguments). The server runs in process over the SDK's in-memory transport; `fetch` is
 * faked, nothing leaves the process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Tool } from "@sluice/core";
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

/** Spellings of the token a 200 answer echoes: as sent, HTML-escaped, as entities, base64, upper case, split by a line break, cut short. */
const SPELLED = [
  TOKEN,
  TOKEN.replace(/&/g, "&amp;"),
  [...TOKEN].map((c) => `&#${c.codePointAt(0)};`).join(""),
  Buffer.from(TOKEN).toString("base64"),
  TOKEN.toUpperCase(),
  `${TOKEN.slice(0, 6)}\r\n${TOKEN.slice(6)}`,
  TOKEN.slice(0, -4),
];

function successLeaks(text: string): string[] {
  const upper = TOKEN.toUpperCase();
  const pieces = [...spellings(TOKEN), TOKEN.slice(0, 8), upper.slice(0, 8), Buffer.from(TOKEN).toString("base64").slice(0, 12), "&#116;&#111;&#107;"];
  return pieces.filter((piece) => text.includes(piece));
}

/** A fetch that answers 200 with the token echoed in every spelling of SPELLED, and a next-page cursor holding it. */
const echoingOk = (async () =>
  new Response(JSON.stringify({ items: SPELLED.map((spelled, i) => ({ id: `i${i}`, echo: `seen ${spelled} here` })), next: `c-${TOKEN}` }), {
    status: 200,
    headers: { "content-type": "application/json" },
  })) as typeof globalThis.fetch;

function echoTool(): Tool<object> {
  return Tool.create({
    name: "echo_items",
    description: "Lists items (the API echoes the request).",
    inputSchema: { type: "object", properties: { cursor: { type: "string" } } },
    binding: {
      kind: "http",
      method: "GET",
      path: "/items",
      server: "https://api.example.invalid",
      parameters: [{ arg: "cursor", name: "cursor", in: "query", style: "form", explode: true }],
      auth: [[{ scheme: "bearerAuth", type: "bearer" }]],
    },
  }).derived({ name: "echo_items", pagination: { style: "cursor", arg: "cursor", cursor: "next" } }) as Tool<object>;
}

describe("MCP success results carry no credential", () => {
  const env = { ECHO_TOKEN: TOKEN };
  const credentialEnv = [{ api: "Echo", packs: [], hosts: ["api.example.invalid"], token: ["ECHO_TOKEN"] }];

  async function served(structured: boolean): Promise<CallToolResult> {
    const tool = echoTool();
    const catalog = new ServedCatalog([tool], structured ? { outputSchemas: { echo_items: { type: "object" } } } : {});
    const log: string[] = [];
    const server = createServer(catalog, { call: { fetch: echoingOk, env, credentialEnv }, log: (line) => log.push(line) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    open.push(client, server);
    const result = (await client.callTool({ name: tool.name, arguments: {} })) as CallToolResult;
    expect(leaks(log.join("\n"))).toEqual([]);
    return result;
  }

  it.each([
    ["text content", false],
    ["structured content", true],
  ])("a 200 echoing the token in every spelling: %s and nextPageArgs are redacted", async (_name, structured) => {
    const result = await served(structured);
    expect(result.isError ?? false).toBe(false);
    const text = JSON.stringify(result);
    expect(successLeaks(text)).toEqual([]);
    expect(text).toContain("seen [redacted] here");
    expect(result._meta?.["sluice/nextPageArgs"]).toEqual({ cursor: "c-[redacted]" });
    if (structured) expect(JSON.stringify(result.structuredContent)).toContain("[redacted]");
  });

  it("guard redaction: switched off, the token reaches the model in a success result", async () => {
    const result = await withoutGuard("redaction", () => served(false));
    expect(successLeaks(JSON.stringify(result)).length).toBeGreaterThan(0);
  });
});
