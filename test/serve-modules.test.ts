/**
 * What `sluice serve` loads before its first tools/list (issue 24): the modules its
 * command imports statically, read from the sources. The MCP proxy (with the SDK's
 * client and @sluice/generator-mcp, which brings the OpenAPI generator, the emitter
 * and a second copy of the SDK) and the catalog's other adapters, compaction and
 * dispatch load only when used; each serve entry exports the very bindings of its
 * package's root entry.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { reExports, staticClosure } from "./support/static-imports.ts";

const serve = staticClosure("packages/cli/src/serve.ts");

describe("sluice serve's static imports", () => {
  it("reach no generator, no MCP proxy module and no SDK client", () => {
    expect(serve.filter((module) => module.startsWith("generators/"))).toEqual([]);
    // Of the MCP client, only its check of the common JSON-RPC shapes, a leaf that imports nothing.
    expect(serve.filter((module) => module.startsWith("packages/mcp-client/"))).toEqual(["packages/mcp-client/src/jsonrpc-shape.ts"]);
    expect(staticClosure("packages/mcp-client/src/jsonrpc-shape.ts")).toEqual(["packages/mcp-client/src/jsonrpc-shape.ts"]);
    expect(serve.filter((module) => /^packages\/mcp\/src\/(mcp-proxy|upstream|snapshot-lock)\.ts$/.test(module))).toEqual([]);
    expect(serve.filter((module) => module.startsWith("@modelcontextprotocol/sdk/client"))).toEqual([]);
  });

  it("reach of the catalog only the profiles, the session, the MCP adapter and the served list's reader", () => {
    const areas = new Set(serve.filter((module) => module.startsWith("packages/catalog/src/")).map((module) => module.split("/").slice(3, -1).join("/") || module.split("/").at(-1)!));
    expect([...areas].sort()).toEqual(["adapters", "profiles", "serve-entry.ts", "served-list", "served-list-entry.ts", "session"]);
    // The reader alone (the list's builder imports core and the adapter): serve reads the list before anything else loads.
    expect(serve.filter((module) => module.startsWith("packages/catalog/src/served-list/"))).toEqual(["packages/catalog/src/served-list/served-list-file.ts"]);
    expect(staticClosure("packages/catalog/src/served-list-entry.ts").filter((module) => !module.startsWith("node:"))).toEqual(["packages/catalog/src/served-list-entry.ts", "packages/catalog/src/served-list/served-list-file.ts"]);
    expect(serve.filter((module) => module.startsWith("packages/catalog/src/adapters/"))).toEqual(["packages/catalog/src/adapters/adapter-tool.ts", "packages/catalog/src/adapters/to-mcp.ts"]);
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

  it("serve's static imports reach the argument checks, not the call runtime or the root entry", () => {
    expect(serve.filter((module) => notBeforeTheFirstList.includes(module))).toEqual([]);
    expect(serve).toContain("packages/core/src/call/arguments.ts");
    expect(serve).toContain("packages/core/src/tool.ts");
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
