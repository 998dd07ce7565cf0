// The new user's first hour (issue 25, "Done means"), in the consumer project on plain
// `node`, with the installed tarballs only: generate a pack from a spec whose OAuth 2 flow
// names a token endpoint, narrow a tool, write and check the egress map, write the report,
// serve the pack over HTTP and call it with an MCP client (the token fetched from the
// token server, refreshed after the API revokes it), and a provider round trip through the
// dispatch helper. Every server is local (127.0.0.1) and stops at the end.
//   SLUICE_BIN: the sluice command (default node_modules/.bin/sluice of the current directory)
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { toAnthropic, toolCallRouter } from "@sluice/catalog";
import { tools as stripeTools } from "@sluice/pack-stripe";

const cwd = process.cwd();
const sluice = process.env.SLUICE_BIN ?? join(cwd, "node_modules", ".bin", "sluice");
const say = (line) => process.stderr.write(`   ${line}\n`);

function listen(handler) {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => handler(req, body, res));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}
const json = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

// The token server: client credentials, HTTP Basic client authentication.
const issued = [];
const revoked = new Set();
const tokens = await listen((req, body, res) => {
  const expected = "Basic " + Buffer.from("walkthrough-client:walkthrough-secret-0123").toString("base64");
  if (req.headers.authorization !== expected || new URLSearchParams(body).get("grant_type") !== "client_credentials") return json(res, 401, { error: "invalid_client" });
  const token = `at_walkthrough_${issued.length + 1}_0123456789`;
  issued.push(token);
  json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
});
// The API: a live token only; it answers who the caller is.
const apiCalls = [];
const api = await listen((req, _body, res) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  apiCalls.push({ url: req.url, token });
  if (token === undefined || !issued.includes(token) || revoked.has(token)) return json(res, 401, { error: "invalid_token" });
  json(res, 200, { id: "proj_1", name: "Walkthrough", owner: "walkthrough-client", internal_notes: "not for the model" });
});

const run = (args, env = {}) => {
  const result = spawnSync(sluice, args, { cwd, env: { ...process.env, NODE_OPTIONS: "", ...env }, encoding: "utf8" });
  assert.equal(result.status, 0, `sluice ${args.join(" ")}: exit ${result.status}\n${result.stderr}`);
  return result;
};

let served;
try {
  // 1. A spec of the user's own, with an OAuth 2 client-credentials flow.
  mkdirSync(join(cwd, "walkthrough"), { recursive: true });
  const spec = {
    openapi: "3.0.3",
    info: { title: "Projects", version: "1" },
    servers: [{ url: "https://api.projects.example" }],
    components: { securitySchemes: { oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${tokens.url}/oauth/token`, scopes: {} } } } } },
    security: [{ oauth: [] }],
    paths: {
      "/projects/{id}": {
        get: {
          operationId: "getProject",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "expand", in: "query", schema: { type: "string", enum: ["owner", "notes"] } },
          ],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };
  writeFileSync(join(cwd, "walkthrough", "projects.json"), JSON.stringify(spec, null, 2));

  // 2. generate, narrow, egress check, report: the documented path.
  const generated = run(["generate", "walkthrough/projects.json", "--name", "projects", "--out", "walkthrough/projects"]);
  assert.match(generated.stdout + generated.stderr, /PROJECTS_OAUTH/);
  const index = readFileSync(join(cwd, "walkthrough/projects/src/index.ts"), "utf8");
  assert.match(index, /export function credentialsFromEnv/);
  assert.match(index, /PROJECTS_OAUTH_CLIENT_ID/);
  say("sluice generate: the pack's index exports credentialsFromEnv and names PROJECTS_OAUTH_CLIENT_ID");
  run(["narrow", "walkthrough/projects", "get_project", "--name", "get_project", "--drop", "expand"]);
  run(["egress", "walkthrough/projects", "--out", "walkthrough/egress_map.txt"]);
  run(["egress", "walkthrough/projects", "--check", "walkthrough/egress_map.txt"]);
  run(["report", "walkthrough/projects", "--out", "walkthrough/report.html"]);
  say("sluice narrow, egress --out / --check, report");

  // 3. serve over HTTP; the token comes from the token server and is refreshed after a revocation.
  const env = { PROJECTS_OAUTH_CLIENT_ID: "walkthrough-client", PROJECTS_OAUTH_CLIENT_SECRET: "walkthrough-secret-0123", SLUICE_MCP_TOKEN: "walkthrough-mcp-token-0123456789" };
  served = spawn(sluice, ["serve", "walkthrough/projects", "--http", "0", "--base-url", api.url], { cwd, env: { ...process.env, NODE_OPTIONS: "", ...env } });
  let stderr = "";
  served.stderr.on("data", (chunk) => (stderr += chunk));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sluice serve did not listen:\n${stderr}`)), 60_000);
    served.stderr.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    served.once("exit", (code) => reject(new Error(`sluice serve exited ${code}:\n${stderr}`)));
  });
  const client = new Client({ name: "walkthrough", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${env.SLUICE_MCP_TOKEN}` } } }));
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((tool) => tool.name), ["get_project"]);
  const first = await client.callTool({ name: "get_project", arguments: { id: "proj_1" } });
  assert.notEqual(first.isError, true, JSON.stringify(first));
  revoked.add(issued[0]);
  const second = await client.callTool({ name: "get_project", arguments: { id: "proj_1" } });
  assert.notEqual(second.isError, true, JSON.stringify(second));
  assert.equal(issued.length, 2, "one token, then one refresh after the 401");
  const refused = await client.callTool({ name: "get_project", arguments: { id: "proj_1", expand: "notes" } });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^EGRESS_DENIED/);
  assert.ok(!JSON.stringify([first, second]).includes("at_walkthrough"), "no access token in what the model sees");
  await client.close();
  say("sluice serve --http: OAuth 2 token fetched, refreshed after a 401, never shown; a narrowed field refused");

  // 4. A provider round trip through the dispatch helper (Anthropic's tool_use shape).
  const stripeCalls = [];
  const stripe = await listen((req, _body, res) => {
    stripeCalls.push({ url: req.url, authorization: req.headers.authorization });
    json(res, 200, { object: "list", data: [], has_more: false, url: "/v1/customers" });
  });
  try {
    const sent = toAnthropic(stripeTools).map((tool) => tool.name);
    assert.ok(sent.includes("get_customers"));
    const router = toolCallRouter(stripeTools, { ctx: { baseUrl: stripe.url, credentials: { bearerAuth: { token: "sk_test_walkthrough_0123" } } } });
    const answer = await router.anthropic({ type: "tool_use", id: "toolu_walk", name: "get_customers", input: { limit: 3 } });
    assert.equal(answer.tool_use_id, "toolu_walk");
    assert.equal(answer.is_error, undefined, answer.content);
    assert.deepEqual(stripeCalls.map((call) => call.url), ["/v1/customers?limit=3"]);
    assert.equal(stripeCalls[0].authorization, "Bearer sk_test_walkthrough_0123");
    const typo = await router.anthropic({ type: "tool_use", id: "toolu_2", name: "get_customer", input: "{" });
    assert.equal(typo.is_error, true);
    say("toolCallRouter: an Anthropic tool_use round trip to the Stripe pack, a model-correctable error for a bad call");
  } finally {
    await new Promise((resolve) => stripe.server.close(resolve));
  }
} finally {
  served?.kill();
  await Promise.all([tokens, api].map(({ server }) => new Promise((resolve) => server.close(resolve))));
}
process.stderr.write("   walkthrough: ok\n");
