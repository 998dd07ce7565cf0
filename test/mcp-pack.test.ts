/**
 * A pack generated from real MCP servers' snapshots (server-filesystem, server-memory and
 * server-everything as `tools/list` gave them, vendored in test/fixtures/mcp/, no server
 * started) works with everything that reads packs: generation is byte-deterministic, the
 * egress map names the upstream tool and `--check` reads it, paths by cost, projections
 * (withheld never sent, pins), suggest, check / fit for a provider, compaction, the MCP
 * adapter and ToolSession.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkEgressMap, definePack, egressMap, formatEgressMap, isSluiceError, suggestProjection, type McpUpstream, type Tool } from "@sluice/core";
import { check, fit, profile, stripAnnotations, toMCP, ToolSession } from "@sluice/catalog";
import { emitPackSources } from "@sluice/generator-mcp";
import { buildMcpPackIR } from "@sluice/generator-mcp";
import { parseSnapshot } from "@sluice/mcp-client";
import { buildPack } from "@sluice/pipeline";
import { parseEgressMap } from "../packages/core/src/egress-map/parse-egress-map.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/mcp/server-${name}.snapshot.json`, import.meta.url), "utf8");

function pack(name: string) {
  const ir = buildMcpPackIR(parseSnapshot(fixture(name)), { name, file: "tools.snapshot.json", sha256: "0" });
  return { ir, tools: definePack({ name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools }).tools as Tool<object>[] };
}

const fs = pack("filesystem");
const byName = (name: string) => fs.tools.find((tool) => tool.name === name)!;

describe("a pack from an MCP snapshot", () => {
  it.each(["filesystem", "memory", "everything"])("server-%s: every tool generated, nothing skipped, the same bytes twice", (name) => {
    const first = pack(name);
    expect(first.ir.skipped).toEqual([]);
    expect(first.tools.length).toBe(parseSnapshot(fixture(name)).tools.length);
    const emit = () => emitPackSources(pack(name).ir, { runtimeModule: "./runtime.ts", regenerate: "test" }).map((file) => file.text).join("\n");
    expect(emit()).toBe(emit());
  });

  it("maps annotations conservatively and keeps the upstream's hints in the binding", () => {
    expect(byName("read_text_file").annotations).toEqual({ readOnly: true });
    expect(byName("write_file").annotations).toEqual({ readOnly: false, destructive: true, idempotent: true });
    expect(byName("create_directory").binding).toMatchObject({ kind: "mcp", tool: "create_directory", annotations: { readOnlyHint: false, destructiveHint: false } });
  });

  it("egress map: the upstream tool as endpoint, withheld and pinned paths, and --check names a widening", () => {
    const narrowed = byName("edit_file").derived({ name: "edit_dry", pin: { dryRun: true } });
    const entries = egressMap([byName("edit_file"), narrowed]);
    const parsed = parseEgressMap(formatEgressMap(entries));
    // Read back by the map's own parser, not by substrings: both tools, each with the upstream
    // tool as its endpoint, the pin as a pin line, and no visible line for the pinned member.
    expect([...parsed.tools.keys()].sort()).toEqual(["edit_dry", "edit_file"]);
    const full = parsed.tools.get("edit_file")!;
    const dry = parsed.tools.get("edit_dry")!;
    expect([full.endpoint, dry.endpoint]).toEqual(["MCP tools/call edit_file", "MCP tools/call edit_file"]);
    expect(dry.pins.map(({ path, type }) => [path, type])).toEqual([["dryRun", "true"]]);
    expect(full.pins).toEqual([]);
    expect(dry.visible.map((line) => line.path).sort()).toEqual(full.visible.map((line) => line.path).filter((path) => path !== "dryRun").sort());
    expect(full.visible.map((line) => line.path)).toContain("dryRun");
    expect(entries.find((entry) => entry.name === "edit_dry")!.pins).toEqual({ dryRun: true });
    const before = formatEgressMap(egressMap([narrowed]));
    expect(checkEgressMap(before, before).same).toBe(true);
    const wider = checkEgressMap(before, formatEgressMap(egressMap([byName("edit_file").derived({ name: "edit_dry" })])));
    expect(wider.widened.map((w) => w.path)).toContain("dryRun");
  });

  it("paths by cost, and a projection that withholds is refused before the upstream is called", async () => {
    const costs = await byName("edit_file").paths({ byCost: true });
    expect(costs.map((cost) => cost.path)).toEqual(expect.arrayContaining(["edits", "dryRun", "path"]));
    const calls: unknown[] = [];
    const upstream: McpUpstream = { callTool: async (request) => (calls.push(request), { content: [{ type: "text", text: "ok" }] }) };
    const shallow = byName("directory_tree").derived({ name: "tree_plain", drop: ["excludePatterns"] });
    const error = await shallow.call({ path: "/tmp", excludePatterns: ["*"] }, { mcp: upstream }).catch((e: unknown) => e);
    expect(isSluiceError(error, "EGRESS_DENIED")).toBe(true);
    expect(await shallow.call({ path: "/tmp" }, { mcp: upstream })).toBe("ok");
    expect(calls).toEqual([{ name: "directory_tree", arguments: { path: "/tmp" } }]);
  });

  it("suggest fits a budget; check and fit run for a provider; compaction and the MCP adapter read the tools", async () => {
    const suggestion = await suggestProjection(byName("edit_file"), { budget: 200 });
    expect(suggestion.tokens).toBeLessThanOrEqual(200);
    expect(Array.isArray(check(fs.tools, profile("openai-strict")))).toBe(true);
    expect(fit(fs.tools, profile("anthropic")).tools.length).toBe(fs.tools.length);
    const catalog = JSON.stringify(toMCP(fs.tools));
    expect(stripAnnotations(catalog).report.tokensAfter).toBeLessThanOrEqual(stripAnnotations(catalog).report.tokensBefore);
  });

  it("the config's withhold and include apply to an MCP pack: the argument leaves the schema and the forwarded list", async () => {
    const spec = new URL("./fixtures/mcp/server-filesystem.snapshot.json", import.meta.url).pathname;
    const built = await buildPack({ name: "fs", spec, out: "/nonexistent", kind: "mcp", regenerate: "test", withhold: { excludePatterns: "internal" }, include: { operations: ["directory_tree", "read_*"] } }, "0.0.0");
    expect(built.ir.tools.map((tool) => tool.name).sort()).toEqual(["directory_tree", "read_file", "read_media_file", "read_multiple_files", "read_text_file"]);
    const tree = built.ir.tools.find((tool) => tool.name === "directory_tree")!;
    expect(Object.keys(tree.parameters.properties)).toEqual(["path"]);
    expect(tree.binding).toMatchObject({ kind: "mcp", arguments: ["path"] });
    expect(tree.withheld).toEqual([{ path: "excludePatterns", reason: "internal" }]);
    expect(built.generated.find((file) => file.path === ".gitattributes")!.text).not.toContain("spec/");
  });

  it("ToolSession finds, loads and resolves MCP tools", () => {
    const session = new ToolSession(fs.tools);
    const found = session.search("select:read_text_file,list_directory");
    expect(found.loaded).toEqual(["read_text_file", "list_directory"]);
    const outcome = session.call("read_text_file", { path: "/tmp/a" });
    expect(outcome.kind).toBe("tool");
  });
});
