// The first list's own work in one process, finer than serve-stages.mjs: after loading what
// serve loads, CPU ms (process.cpuUsage) of the pack, ServedCatalog, the curated tools' schemas
// (their projections), the other input schemas, the MCP entries and the page's JSON. One line
// of JSON per run; run it for two built trees in turn to compare them.
//   node bench/startup/first-list-laps.mjs DIR      (DIR: a checkout or a built-copy.mjs copy)
import { createRequire } from "node:module";

const root = process.argv[2];
if (root === undefined) throw new Error("usage: node bench/startup/first-list-laps.mjs DIR");
const at = (path) => new URL(path, `file://${root}/`).href;
const sdk = createRequire(`${root}/packages/mcp/package.json`).resolve("@modelcontextprotocol/sdk/server/index.js").replace("/dist/cjs/", "/dist/esm/");
await import(sdk);
await import(sdk.replace("server/index.js", "types.js"));
// The SDK's load leaves an incremental major GC to finish at the next yield: outside the laps.
await new Promise((done) => setTimeout(done, 100));
await import(at("packages/cli/dist/main.js"));
await import(at("packages/cli/dist/serve.js"));
const served = await import(at("packages/mcp/dist/serve-entry.js"));
const cpu = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const laps = {};
let last = cpu();
const lap = (label) => {
  const now = cpu();
  laps[label] = Number((now - last).toFixed(1));
  last = now;
};
const { tools } = await import(at("bench/startup/github-rest-500.mjs"));
lap("pack");
const catalog = new served.ServedCatalog(tools, { serverName: "sluice" });
lap("ServedCatalog");
const curated = new Set(["apps_scope_token", "apps_create_installation_access_token"]);
for (const tool of catalog.tools) if (curated.has(tool.name)) catalog.definition(tool);
lap("the curated tools' definitions");
for (const tool of catalog.tools) if (!curated.has(tool.name)) void tool.inputSchema;
lap("the other input schemas");
const definitions = catalog.tools.map((tool) => catalog.definition(tool));
lap("the MCP entries");
JSON.stringify({ tools: definitions });
lap("the page's JSON");
process.stdout.write(JSON.stringify(laps) + "\n");
