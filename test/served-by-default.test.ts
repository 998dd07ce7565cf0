/**
 * The obvious path is the served set (issue 21, item 6). What code hands an adapter, a
 * ToolSession or a server without thinking (a pack's `tools`, the pack module itself,
 * `sluice serve <pack>`) carries no `*_full` twin, the unprojected original a curated
 * projection was written to replace; the twins come only when named (`allTools`,
 * `includeFull`, `--include-full`). On a pack a user generates and narrows with the CLI
 * (`sluice narrow <pack> update_pet --name update_pet --drop tags`), and on the nine packs.
 * The served-set guard (`twinsLeftOut`) is switched off once to show these tests notice.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, runSluice } from "../packages/cli/test/support/run-in-process.ts";
import { LONG } from "./support/tier.ts";
import { connectHttp, startHttpInProcess } from "../packages/mcp/test/support.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { defaultServedSet, egressMap, formatEgressMap, fullNameOf, packToolSets, type PackToolSets, type Tool } from "@sluice/core";
import { guards, withoutGuard } from "@sluice/core/guards";
import { ToolSession, toAnthropic, toBedrock, toGemini, toMCP, toOpenAIChat, toOpenAIResponses } from "@sluice/catalog";
import { ServedCatalog } from "@sluice/mcp";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import * as stripe from "@sluice/pack-stripe";
import * as githubRest from "@sluice/pack-github-rest";
import * as slack from "@sluice/pack-slack";
import * as gmail from "@sluice/pack-gmail";
import * as gdocs from "@sluice/pack-gdocs";
import * as gsheets from "@sluice/pack-gsheets";
import * as notion from "@sluice/pack-notion";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "packages/cli/bin/sluice.mjs");
const SPEC = join(ROOT, "../shared/specs/petstore/swagger-petstore-3.0.yaml");
const SLOW = 300_000;

interface PackModule extends PackToolSets {
  readonly tools: Tool<object>[];
  readonly allTools: Tool<object>[];
}

/** The tool names each adapter puts on the wire. */
const ADAPTERS: Array<[string, (tools: readonly Tool<object>[]) => string[]]> = [
  ["toOpenAIChat", (tools) => toOpenAIChat(tools).map((t) => t.function.name)],
  ["toOpenAIResponses", (tools) => toOpenAIResponses(tools).map((t) => t.name)],
  ["toAnthropic", (tools) => toAnthropic(tools).map((t) => t.name)],
  ["toGemini", (tools) => toGemini(tools, { form: "parametersJsonSchema" }).map((t) => t.name)],
  ["toBedrock", (tools) => toBedrock(tools).map((t) => t.toolSpec.name)],
  ["toMCP", (tools) => toMCP(tools).map((t) => t.name)],
];

const project = mkdtempSync(join(tmpdir(), "sluice-served-"));
const dir = join(project, "packs/petstore");
let pack: PackModule;

/** The CLI's main in this worker; narrow, serve, and anything after a loaded module changed, the bin as a child (packages/cli/test/support/run-in-process.ts). */
function sluice(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runSluice(args, { cwd: project, timeout: SLOW });
}

beforeAll(async () => {
  // As a user's project: the pack imports @sluice/core from its own node_modules.
  mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
  const generated = await sluice(["generate", SPEC, "--name", "petstore", "--out", "packs/petstore"]);
  expect(generated.code, generated.stderr).toBe(0);
  const narrowed = await sluice(["narrow", "./packs/petstore", "update_pet", "--name", "update_pet", "--drop", "tags"]);
  expect(narrowed.code, narrowed.stderr).toBe(0);
  pack = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as PackModule;
}, SLOW);
afterAll(() => rmSync(project, { recursive: true, force: true }));

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

describe("a generated pack with a tool narrowed by sluice narrow", () => {
  it("exports the narrowed tool as tools and its original only in allTools, as update_pet_full", async () => {
    expect(names(pack.allTools)).toContain("update_pet_full");
    expect(names(pack.tools)).not.toContain("update_pet_full");
    expect(pack.tools).toHaveLength(pack.allTools.length - 1);
    const served = pack.tools.find((t) => t.name === "update_pet")!;
    expect(served.withheld).toContainEqual(expect.objectContaining({ path: "tags", reason: "projection" }));
    expect(Object.keys(pack.allTools.find((t) => t.name === "update_pet_full")!.inputSchema.properties!)).toContain("tags");
  });

  it.each(ADAPTERS)("%s(pack.tools) sends the projection and no twin; %s(pack.allTools) sends the twin because it was named", (_adapter, wire) => {
    const sent = wire(pack.tools);
    expect(sent).toContain("update_pet");
    expect(sent.filter((name) => name.endsWith("_full"))).toEqual([]);
    expect(sent).toHaveLength(19);
    expect(wire(pack.allTools)).toContain("update_pet_full");
  });

  it("the projection reaches the provider narrowed: no tags in what toOpenAIChat sends for update_pet", async () => {
    const [entry] = toOpenAIChat(pack.tools.filter((t) => t.name === "update_pet"));
    expect(Object.keys(entry!.function.parameters.properties as object)).not.toContain("tags");
  });

  it("ToolSession.fromPacks, given the tools or the pack, cannot load the twin; includeFull on the pack can", async () => {
    for (const given of [pack.tools, pack, pack.allTools]) {
      const session = ToolSession.fromPacks({ petstore: given });
      expect(names(session.catalog)).not.toContain("update_pet_full");
      expect(names(session.catalog)).toHaveLength(19);
      expect(session.search("select:update_pet_full")).toMatchObject({ loaded: [], unknown: ["update_pet_full"] });
    }
    const full = ToolSession.fromPacks({ petstore: pack }, { includeFull: true });
    expect(full.search("select:update_pet_full").loaded).toEqual(["update_pet_full"]);
  });

  it("ServedCatalog of the pack serves its tools; includeFull adds the twin", async () => {
    expect(names(new ServedCatalog(pack).tools)).toEqual(names(pack.tools).sort());
    expect(names(new ServedCatalog(pack, { includeFull: true }).tools)).toEqual(names(pack.allTools).sort());
  });

  // The long tier lists over stdio from children; the quick tier runs the same serve by main
  // in the worker over HTTP (packages/mcp/test/support.ts startHttpInProcess), no child.
  it(
    `sluice serve of the pack lists no twin over ${LONG ? "stdio" : "HTTP"}; --include-full lists it`,
    async () => {
      const listed = async (...flags: string[]): Promise<string[]> => {
        if (!LONG) {
          const served = await startHttpInProcess([dir, ...flags], { SLUICE_MCP_TOKEN: undefined }, project);
          try {
            const client = await connectHttp(served);
            const tools = (await client.listTools()).tools.map((t) => t.name);
            await client.close();
            return tools;
          } finally {
            expect(await served.stop()).toBe(0);
          }
        }
        const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", dir, ...flags], cwd: project, env: { ...process.env } as Record<string, string>, stderr: "pipe" });
        const client = new Client({ name: "test", version: "0" });
        try {
          await client.connect(transport);
          return (await client.listTools()).tools.map((t) => t.name);
        } finally {
          await client.close();
        }
      };
      const served = await listed();
      expect(served).toEqual(names(pack.tools).sort());
      expect(served).not.toContain("update_pet_full");
      expect(await listed("--include-full")).toContain("update_pet_full");
    },
    SLOW,
  );

  it("the committed egress map covers everything --include-full serves; egress --served is the map of pack.tools", async () => {
    const committed = readFileSync(join(dir, "egress_map.txt"), "utf8");
    expect(committed).toBe(formatEgressMap(egressMap(pack.allTools)));
    expect(committed).toContain("\ntool update_pet_full\n");
    const served = await sluice(["egress", dir, "--served"]);
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(formatEgressMap(egressMap(pack.tools)));
    expect(served.stdout).not.toContain("update_pet_full");
    expect((await sluice(["egress", dir, "--served", "--include-full"])).stdout).toBe(committed);
  });

  it("sluice check and fit look at the served set, the twin only with --include-full", async () => {
    const out = join(project, "fitted.json");
    const fitted = await sluice(["fit", dir, "--provider", "openai-chat", "--out", out]);
    expect(fitted.code, fitted.stderr).toBe(0);
    const file = JSON.parse(readFileSync(out, "utf8")) as { tools: Array<{ name: string }> };
    expect(names(file.tools)).toEqual(names(pack.tools).sort());
    expect((await sluice(["fit", dir, "--provider", "openai-chat", "--include-full", "--out", out])).code).toBe(0);
    expect(names((JSON.parse(readFileSync(out, "utf8")) as typeof file).tools)).toContain("update_pet_full");
    expect((await sluice(["check", dir, "--provider", "openai-chat"])).stderr).toContain(`for ${pack.tools.length} tools under`);
    expect((await sluice(["check", dir, "--provider", "openai-chat", "--include-full"])).stderr).toContain(`for ${pack.allTools.length} tools under`);
  });

  it("survey, report and suggest price the served set, as check counts it; --include-full brings the twin back in all three", async () => {
    const checked = (await sluice(["check", dir, "--provider", "openai-chat"])).stderr;
    const checkedFull = (await sluice(["check", dir, "--provider", "openai-chat", "--include-full"])).stderr;
    const survey = async (...flags: string[]) => JSON.parse((await sluice(["survey", dir, "--json", ...flags])).stdout) as Array<{ tool: string; tokens: number }>;
    const served = await survey();
    expect(served.map((row) => row.tool).sort()).toEqual(names(pack.tools).sort());
    expect(checked).toContain(`for ${served.length} tools under`);
    expect(await survey("--served")).toEqual(served);
    const full = await survey("--include-full");
    expect(full.map((row) => row.tool).sort()).toEqual(names(pack.allTools).sort());
    expect(checkedFull).toContain(`for ${full.length} tools under`);
    // The twin is the fattest of the two and was listed above its curated tool; served, it is gone.
    const twinRow = full.find((row) => row.tool === "update_pet_full")!;
    expect(twinRow.tokens).toBeGreaterThan(full.find((row) => row.tool === "update_pet")!.tokens);

    const report = async (...flags: string[]) => JSON.parse((await sluice(["report", dir, "--json", ...flags])).stdout) as { totals: { tools: number; tokens: number }; tools: Array<{ name: string }>; curated: Array<{ name: string; full: string }> };
    const priced = await report();
    expect(priced.totals).toEqual({ tools: served.length, tokens: served.reduce((sum, row) => sum + row.tokens, 0) });
    expect(names(priced.tools)).not.toContain("update_pet_full");
    expect(priced.curated).toEqual([expect.objectContaining({ name: "update_pet", full: "update_pet_full" })]);
    const pricedFull = await report("--include-full");
    expect(pricedFull.totals).toEqual({ tools: full.length, tokens: full.reduce((sum, row) => sum + row.tokens, 0) });

    const refused = await sluice(["suggest", dir, "update_pet_full", "--budget", "50"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^sluice: TOOL_NOT_FOUND: update_pet_full is the \*_full twin of update_pet, .*add --include-full/);
    const suggested = await sluice(["suggest", dir, "update_pet_full", "--budget", String(twinRow.tokens + 1), "--include-full", "--json"]);
    expect(suggested.code, suggested.stderr).toBe(0);
    expect(JSON.parse(suggested.stdout)).toMatchObject({ tool: "update_pet_full", tokens: twinRow.tokens, drop: [] });
  });
});

describe("a module of your own projections that exports a mix", () => {
  const toolsIn = (map: string) => map.split("\n").filter((line) => line.startsWith("tool ")).map((line) => line.slice(5)).sort();

  it("by name: the curated tool, its twin, a derived tool and a lone *_full name; served without the twin only", async () => {
    const file = join(project, "mix-by-name.ts");
    writeFileSync(
      file,
      [
        `import { allTools, tools } from "./packs/petstore/src/index.ts";`,
        `const named = (list: typeof tools, name: string) => list.find((t) => t.name === name)!;`,
        `export const updatePet = named(tools, "update_pet");`,
        `export const updatePetFull = named(allTools, "update_pet_full");`,
        `export const myPet = named(tools, "get_pet_by_id").derived({ name: "my_pet" });`,
        `export const exportFull = named(tools, "find_pets_by_status").derived({ name: "export_full" });`,
        ``,
      ].join("\n"),
    );
    const served = await sluice(["egress", file, "--served"]);
    expect(served.code, served.stderr).toBe(0);
    expect(toolsIn(served.stdout)).toEqual(["export_full", "my_pet", "update_pet"]);
    expect(toolsIn((await sluice(["egress", file])).stdout)).toEqual(["export_full", "my_pet", "update_pet", "update_pet_full"]);
  });

  it("tools and allTools of its own: served is its tools, the map and --include-full its allTools; a tools not within allTools is refused", async () => {
    const file = join(project, "mix-lists.ts");
    writeFileSync(
      file,
      [
        `import { allTools as petstore, tools as served } from "./packs/petstore/src/index.ts";`,
        `const named = (list: typeof served, name: string) => list.find((t) => t.name === name)!;`,
        `export const tools = [named(served, "update_pet"), named(served, "get_pet_by_id").derived({ name: "my_pet" })];`,
        `export const allTools = [...tools, named(petstore, "update_pet_full")];`,
        ``,
      ].join("\n"),
    );
    expect(toolsIn((await sluice(["egress", file, "--served"])).stdout)).toEqual(["my_pet", "update_pet"]);
    expect(toolsIn((await sluice(["egress", file])).stdout)).toEqual(["my_pet", "update_pet", "update_pet_full"]);
    expect(toolsIn((await sluice(["egress", file, "--served", "--include-full"])).stdout)).toEqual(["my_pet", "update_pet", "update_pet_full"]);

    const bad = join(project, "mix-wider.ts");
    writeFileSync(bad, readFileSync(file, "utf8").replace("export const allTools = [...tools, ", "export const allTools = [tools[0]!, "));
    const refused = await sluice(["egress", bad, "--served"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^sluice: INVALID_OPTION: .*mix-wider\.ts.*holds my_pet, which its `allTools` lacks/);
    expect(refused.stdout).toBe("");

    // An allTools wider than tools plus the twins would be served beyond what code gets.
    const narrower = join(project, "mix-narrower.ts");
    writeFileSync(narrower, readFileSync(file, "utf8").replace("export const allTools = [...tools, ", "export const allTools = [...tools, tools[1]!.derived({ name: \"extra\" }), "));
    // Refused while the catalog is built, before serve touches the process (signals, stdio):
    // main in the worker in the quick tier, the bin (as runSluice runs serve) in the long tier.
    const wider = LONG ? await sluice(["serve", narrower]) : await runInProcess(["serve", narrower], { cwd: project });
    expect(wider.code).toBe(2);
    expect(wider.stderr).toMatch(/^sluice: INVALID_OPTION: .*mix-narrower\.ts.*holds extra, which is neither in its `tools` nor a \*_full twin/);
  });
});

const PACKS = { linear, github, stripe, "github-rest": githubRest, slack, gmail, gdocs, gsheets, notion };

describe.each(Object.entries(PACKS))("pack %s: the obvious path", (_name, module) => {
  const twins = new Set(module.generatedTools.pack.tools.filter((tool) => module.allTools.find((t) => t.name === tool.name) !== tool).map((tool) => fullNameOf(tool.name)));

  it("toOpenAIChat(pack.tools) and ToolSession.fromPacks carry no twin; allTools and includeFull carry every one", async () => {
    const sent = toOpenAIChat(module.tools).map((t) => t.function.name);
    expect(sent.filter((name) => twins.has(name))).toEqual([]);
    expect(sent).toHaveLength(module.generatedTools.pack.tools.length);
    const session = ToolSession.fromPacks({ pack: module });
    expect(session.catalog.filter((t) => twins.has(t.name))).toEqual([]);
    const full = ToolSession.fromPacks({ pack: module }, { includeFull: true });
    expect(full.catalog.filter((t) => twins.has(t.name))).toHaveLength(twins.size);
    expect(module.allTools.filter((t) => twins.has(t.name))).toHaveLength(twins.size);
  });
});

describe("the twinsLeftOut guard", () => {
  it("switched off, the obvious path carries the twin, and the tests above would see it", async () => {
    const generated = pack.allTools.filter((t) => t.name !== "update_pet" && t.name !== "update_pet_full");
    const original = pack.allTools.find((t) => t.name === "update_pet_full")!.derived({ name: "update_pet" });
    const curated = pack.tools.find((t) => t.name === "update_pet")!;
    const rebuilt = () => packToolSets([...generated, original], [curated]).tools;
    expect(names(rebuilt())).not.toContain("update_pet_full");
    await withoutGuard("twinsLeftOut", () => {
      expect(names(rebuilt())).toContain("update_pet_full");
      expect(names(defaultServedSet(pack.allTools))).toContain("update_pet_full");
      expect(names(new ServedCatalog(pack).tools)).toContain("update_pet_full");
      expect(names(ToolSession.fromPacks({ petstore: pack }).catalog)).toContain("update_pet_full");
    });
    expect(guards.twinsLeftOut).toBe(true);
  });
});
