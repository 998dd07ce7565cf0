// Runs in the consumer project on plain `node` (no loader): the installed tarballs only.
// Derives a Linear tool, calls it directly and through an MCP server, against a local
// GraphQL server on 127.0.0.1 that records what it receives.
import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { CallCollector, egressMap, formatEgressMap, isSluiceError } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { toAnthropic, toOpenAIChat } from "@sluice/catalog";
import { ServedCatalog, createServer } from "@sluice/mcp";
import { allTools, tools } from "@sluice/pack-linear";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

const received = [];
const api = createHttpServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    received.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      data: { issues: { nodes: [{ id: "i1", identifier: "ENG-1", title: "First", state: { id: "s1" } }], pageInfo: { hasNextPage: false, endCursor: null } } },
    }));
  });
});
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${api.address().port}/graphql`;

try {
  // The obvious path is the served set: the installed pack's tools carry no *_full twin,
  // and its allTools carry every one (34 curated tools, each with its original).
  const sent = toOpenAIChat(tools).map((tool) => tool.function.name);
  assert.ok(sent.includes("issues_list") && !sent.includes("issues_list_full"), "toOpenAIChat(tools) sends issues_list, never issues_list_full");
  assert.equal(allTools.length - tools.length, 34);
  assert.ok(allTools.some((tool) => tool.name === "issues_list_full"));
  assert.deepEqual(new ServedCatalog(tools).tools.map((tool) => tool.name), [...sent].sort());

  const parent = tools.find((tool) => tool.name === "issues_list");
  assert.ok(parent, "the Linear pack has issues_list");
  const mine = parent.derived({ name: "my_issues", returns: ["nodes.id", "nodes.identifier", "nodes.title", "nodes.state.id"] });
  assert.ok(schemaTokens(mine) > 0);
  assert.match(formatEgressMap(egressMap([mine])), /my_issues/);

  // Direct call.
  const collector = new CallCollector();
  const output = await mine.call({ first: 5 }, { baseUrl: endpoint, credentials: () => ({ token: "lin_test" }), collector });
  assert.match(JSON.stringify(output), /ENG-1/);
  assert.equal(received.length, 1);
  assert.equal(received[0].body.variables.first, 5);
  assert.equal(collector.summary().calls, 1);

  // A withheld argument is refused before anything is sent.
  const narrow = parent.derived({ name: "narrow_issues", keep: ["first"] });
  await assert.rejects(narrow.call({ first: 1, includeArchived: true }, { baseUrl: endpoint, credentials: () => ({ token: "lin_test" }) }), (error) => isSluiceError(error));
  assert.equal(received.length, 1);

  // Provider adapters.
  assert.equal(toOpenAIChat([mine])[0].function.name, "my_issues");
  assert.equal(toAnthropic([mine]).at(-1).name, "my_issues");

  // The same tool served over MCP.
  const server = createServer(new ServedCatalog([mine]), { call: { baseUrl: endpoint, env: { LINEAR_API_KEY: "lin_test" } } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "consumer-test", version: "0" });
  await client.connect(clientSide);
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((tool) => tool.name), ["my_issues"]);
  const result = await client.callTool({ name: "my_issues", arguments: { first: 2 } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /ENG-1/);
  assert.equal(received.length, 2);
  await client.close();
  await server.close();
  console.log("consumer run: ok (direct call, refused argument, adapters, MCP call)");
} finally {
  api.close();
}
