/**
 * What `sluice serve` loads before its first tools/list (issues 24 and 37): the modules its
 * command imports statically, read from the sources. A pack with a stored list is answered
 * with the MCP SDK's server and the list's reader alone: the served catalog, createServer's
 * call path, @sluice/core and the catalog load with import(), at the first call (or, for a
 * pack without a stored list, before listing). The MCP proxy (with the SDK's client and
 * @sluice/generator-mcp, which brings the OpenAPI generator, the emitter and a second copy
 * of the SDK) loads only for an MCP pack; each serve entry exports the very bindings of its
 * package's root entry.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { reExports, staticClosure } from "./support/static-imports.ts";

const serve = staticClosure("packages/cli/src/serve.ts");
/** The list's server and the transports: serve imports them (import()) once the stored list is checked, before its first answer. */
const serveList = staticClosure("packages/mcp/src/serve-list-entry.ts");
/** What the CLI has loaded before any command runs: serve's own cost is what it adds to this. */
const main = new Set(staticClosure("packages/cli/src/main.ts"));
const workspace = (modules: readonly string[]) => modules.filter((module) => /^(packages|generators|packs)\//.test(module));

describe("sluice serve's static imports", () => {
  it.each([
    ["serve's command", serve],
    ["the list's server it imports before its first answer", serveList],
  ])("%s reach no generator, no MCP proxy module and no SDK client", (_name, modules) => {
    expect(modules.filter((module) => module.startsWith("generators/"))).toEqual([]);
    // Of the MCP client, at most its check of the common JSON-RPC shapes, a leaf that imports nothing.
    expect(modules.filter((module) => module.startsWith("packages/mcp-client/") && module !== "packages/mcp-client/src/jsonrpc-shape.ts")).toEqual([]);
    expect(modules.filter((module) => /^packages\/mcp\/src\/(mcp-proxy|upstream|snapshot-lock)\.ts$/.test(module))).toEqual([]);
    expect(modules.filter((module) => module.startsWith("@modelcontextprotocol/sdk/client"))).toEqual([]);
  });

  it("add to what the CLI's main loads only the stored list's reader and key check; then the list's server and the transports", () => {
    expect(staticClosure("packages/mcp-client/src/jsonrpc-shape.ts")).toEqual(["packages/mcp-client/src/jsonrpc-shape.ts"]);
    // Each module here is one serve loads before it checks the stored list; a static import of the
    // list's server, the catalog, createServer, ServedCatalog or @sluice/core/pack (all loaded with
    // import() now) adds to this list and fails it.
    expect(workspace(serve).filter((module) => !main.has(module))).toEqual([
      "packages/catalog/src/served-list-entry.ts",
      "packages/catalog/src/served-list/served-list-file.ts",
      "packages/catalog/src/served-list/verified-served-list.ts",
      "packages/cli/src/resolve-pack.ts",
      "packages/cli/src/serve.ts",
      "packages/cli/src/stored-list.ts",
      "packages/core/src/guards.ts",
    ]);
    expect(serve.filter((module) => module.startsWith("@modelcontextprotocol/"))).toEqual([]);
    // Then, before the first answer: the list's server and the transports, and of the SDK the server half only.
    expect(workspace(serveList).filter((module) => !main.has(module))).toEqual([
      "packages/mcp-client/src/jsonrpc-shape.ts",
      "packages/mcp/src/call-slots.ts",
      "packages/mcp/src/http-defaults.ts",
      "packages/mcp/src/result-bounds.ts",
      "packages/mcp/src/serve-http.ts",
      "packages/mcp/src/serve-list-entry.ts",
      "packages/mcp/src/serve-stdio.ts",
      "packages/mcp/src/served-list-page.ts",
      "packages/mcp/src/served-list-server.ts",
      "packages/mcp/src/server-protocol.ts",
      "packages/mcp/src/stdio.ts",
    ]);
    expect(serveList.filter((module) => module.startsWith("@modelcontextprotocol/")).sort()).toEqual(["@modelcontextprotocol/sdk/server/index.js", "@modelcontextprotocol/sdk/shared/protocol.js", "@modelcontextprotocol/sdk/types.js"]);
    // The reader and its key check alone, past what main has loaded (the list's builder imports core
    // and the adapter; of core, only the guards): serve reads the list before anything else loads.
    expect(staticClosure("packages/catalog/src/served-list-entry.ts").filter((module) => !module.startsWith("node:") && !main.has(module))).toEqual([
      "packages/catalog/src/served-list-entry.ts",
      "packages/catalog/src/served-list/served-list-file.ts",
      "packages/catalog/src/served-list/verified-served-list.ts",
      "packages/core/src/guards.ts",
    ]);
  });

  it("the stored list's server loads createServer's call path, the catalog and @sluice/core only with import()", () => {
    const listed = workspace(staticClosure("packages/mcp/src/served-list-server.ts"));
    expect(listed.filter((module) => /^packages\/(core|catalog)\//.test(module) || /\/(server|served-catalog|credentials)\.ts$/.test(module))).toEqual([]);
    // What it defers is what the loaded path imports: the call runtime's argument checks, the tool model, the session.
    const loaded = staticClosure("packages/mcp/src/server.ts");
    for (const module of ["packages/core/src/call/arguments.ts", "packages/core/src/tool.ts", "packages/catalog/src/session/tool-session.ts", "packages/mcp/src/credentials.ts"]) expect(loaded).toContain(module);
  });

  it("are followed through @sluice packages (the root entries do reach what serve leaves out)", () => {
    const root = staticClosure("packages/mcp/src/upstream.ts");
    expect(root).toContain("packages/mcp-client/src/connect.ts");
    expect(root).toContain("@modelcontextprotocol/sdk/client/index.js");
    expect(staticClosure("packages/catalog/src/index.ts")).toContain("packages/catalog/src/dispatch/tool-call-router.ts");
    expect(staticClosure("packages/mcp/src/index.ts")).toContain("packages/mcp/src/mcp-proxy.ts");
  });
});

describe("the serve entries", () => {
  // Read from the sources rather than imported: importing @sluice/mcp loads the generators (seconds).
  it.each([
    ["packages/mcp/src/serve-entry.ts", "packages/mcp/src/index.ts"],
    ["packages/mcp/src/serve-list-entry.ts", "packages/mcp/src/index.ts"],
    ["packages/catalog/src/serve-entry.ts", "packages/catalog/src/index.ts"],
  ])("%s re-exports the root entry's own bindings", (entry, root) => {
    const rootModules = reExports(root);
    const names = [...reExports(entry)];
    expect(names.length).toBeGreaterThan(5);
    for (const [name, module] of names) expect(rootModules.get(name), name).toBe(module);
  });

  it("@sluice/mcp/serve leaves out only the proxy", () => {
    const entry = reExports("packages/mcp/src/serve-entry.ts");
    const left = [...reExports("packages/mcp/src/index.ts").keys()].filter((name) => !entry.has(name));
    expect(left.sort()).toEqual(["DEFAULT_UPSTREAM_CALL_TIMEOUT_MS", "LockOptions", "LockState", "McpProxy", "McpSnapshot", "ProxyOptions", "SNAPSHOT_FILE", "SecretValue", "ServedGate", "SnapshotLock", "UpstreamListing", "UpstreamManager", "UpstreamOptions", "UpstreamSource", "describeUpstream", "readSnapshot"]);
  });
});

describe("@sluice/core as serve and a pack load it", () => {
  // Loaded only when used: the request and transport half of the call runtime (on a tool's
  // first call), and the root entry's egress map, its check and suggest.
  // The parts split out of call.ts, check-egress-map.ts and suggest.ts are named too, so that a
  // static import of one of them alone is caught.
  const notBeforeTheFirstList = [
    "packages/core/src/index.ts",
    ...["call.ts", "build-request.ts", "read-answer.ts"].map((file) => `packages/core/src/call/${file}`),
    ...["egress-map.ts", "check-egress-map.ts", "compare-tool.ts", "tool-view.ts", "label-cache.ts"].map((file) => `packages/core/src/egress-map/${file}`),
    ...["suggest.ts", "search.ts", "drop-candidates.ts"].map((file) => `packages/core/src/projection/${file}`),
  ];

  it("serve's loaded path (@sluice/mcp/serve) reaches the argument checks, not the call runtime or the root entry", () => {
    const loaded = staticClosure("packages/mcp/src/serve-entry.ts");
    expect(loaded.filter((module) => notBeforeTheFirstList.includes(module))).toEqual([]);
    expect(loaded).toContain("packages/core/src/call/arguments.ts");
    expect(loaded).toContain("packages/core/src/tool.ts");
  });

  const packs = readdirSync(new URL("../packs/", import.meta.url)).filter((name) => readdirSync(new URL(`../packs/${name}/`, import.meta.url)).includes("src"));
  it.each(packs)("the %s pack (its generated and hand-written modules) imports @sluice/core/pack only", (name) => {
    const closure = staticClosure(`packs/${name}/src/index.ts`);
    expect(closure.filter((module) => notBeforeTheFirstList.includes(module))).toEqual([]);
    expect(closure).toContain("packages/core/src/pack/pack.ts");
  });

  it("a tool loads the call runtime with a dynamic import (tool.ts reaches call.ts only so)", () => {
    const tool = staticClosure("packages/core/src/tool.ts");
    for (const file of ["call.ts", "build-request.ts", "read-answer.ts"]) expect(tool).not.toContain(`packages/core/src/call/${file}`);
    expect(staticClosure("packages/core/src/call/call.ts")).toContain("packages/core/src/call/arguments.ts");
  });

  it("@sluice/core/pack re-exports the root entry's own bindings", () => {
    const rootModules = reExports("packages/core/src/index.ts");
    const names = [...reExports("packages/core/src/pack/pack.ts")];
    expect(names.length).toBeGreaterThan(40);
    for (const [name, module] of names) expect(rootModules.get(name), name).toBe(module);
  });
});
