/**
 * The config's tool-level choices (include/exclude by tool name, `readOnly`, a new name and
 * description per tool) on OpenAPI and GraphQL packs, the egress map's selection header,
 * the checks that catch a selection that widens, and the messages of issue 25 about
 * selection and config: each names what to do, with the nearest candidates.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { buildPack, type PackJob } from "@sluice/pipeline";
import { runInProcess, runSluice } from "./support/run-in-process.ts";
import { connectHttp, startHttpInProcess } from "../../mcp/test/support.ts";
import { LONG } from "../../../test/support/tier.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPECS = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));
const PETSTORE = join(SPECS, "petstore/swagger-petstore-3.0.yaml");

vi.setConfig({ testTimeout: 300_000 });

const project = mkdtempSync(join(tmpdir(), "sluice-tool-choices-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
cpSync(PETSTORE, join(project, "store.yaml"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const sluice = (args: string[]) => runSluice(args, { cwd: project, env: { GITHUB_ACTIONS: "" }, timeout: 120_000 });
/** For commands that load no pack (usage and config errors, a fresh pack mapped in memory): the worker's main, never a child. */
const inProcess = (args: string[], cwd = project) => runInProcess(args, { cwd, env: { GITHUB_ACTIONS: "" } });
const config = (packs: unknown[], file = "sluice.config.json") => writeFileSync(join(project, file), JSON.stringify({ packs }));
const read = (path: string) => readFileSync(join(project, path), "utf8");

async function build(extra: Partial<PackJob>, spec = PETSTORE) {
  return buildPack({ name: "store", spec, out: "/nonexistent", regenerate: "", ...extra }, "0.0.0");
}

async function failure(extra: Partial<PackJob>, spec = PETSTORE): Promise<{ code: string; message: string; candidates?: readonly string[] }> {
  try {
    await build(extra, spec);
  } catch (error) {
    return error as { code: string; message: string; candidates?: readonly string[] };
  }
  throw new Error("expected the pack to be refused");
}

const GRAPHQL = join(project, "shop.graphql");
writeFileSync(
  GRAPHQL,
  `type Query { product(id: ID!): Product, products(first: Int): [Product!]! }
type Mutation { productCreate(title: String!): Product, productDelete(id: ID!): Boolean }
type Product { id: ID!, title: String! }
`,
);

describe("readOnly", () => {
  it("keeps only the tools annotated read-only: GET/HEAD for HTTP, queries for GraphQL", async () => {
    const http = await build({ readOnly: true });
    expect(http.ir.tools.map((tool) => tool.name).sort()).toEqual(["find_pets_by_status", "find_pets_by_tags", "get_inventory", "get_order_by_id", "get_pet_by_id", "get_user_by_name", "login_user", "logout_user"]);
    expect(http.ir.tools.every((tool) => tool.binding.kind === "http" && tool.binding.method === "GET")).toBe(true);
    expect(http.report.excluded).toBe(11);
    expect(http.facts.selection?.leftOut).toContainEqual({ tool: "add_pet", reason: "not read-only (POST /pet)" });
    const graphql = await build({ readOnly: true }, GRAPHQL);
    expect(graphql.ir.tools.map((tool) => tool.name).sort()).toEqual(["product", "products"]);
    expect(graphql.facts.selection?.leftOut).toEqual([
      { tool: "product_create", reason: "not read-only (mutation productCreate)" },
      { tool: "product_delete", reason: "not read-only (mutation productDelete)" },
    ]);
  });

  it("is a guard: switched off, tools that change things reach the pack", async () => {
    const off = await withoutGuard("toolSelection", () => build({ readOnly: true }));
    expect(off.ir.tools.map((tool) => tool.name)).toContain("delete_pet");
  });

  it("keys off annotations, not methods or operation kinds: a source of tools gets it unchanged", async () => {
    const { keepReadOnly } = await import("../../../generators/pipeline/src/tool-choices.ts");
    const { OperationFilter } = await import("../../../generators/pipeline/src/select-operations.ts");
    const base = (await build({})).ir;
    // As an MCP pack's tools would come: a binding of another kind, readOnlyHint as the annotation.
    const tools = base.tools.slice(0, 2).map((tool, i) => ({ ...tool, name: `tool_${i}`, binding: { kind: "mcp" as const, tool: `upstream.${i}`, arguments: [] }, annotations: { readOnly: i === 0 } }));
    const filter = new OperationFilter(undefined, undefined);
    const kept = keepReadOnly({ ...base, tools }, { name: "x", readOnly: true }, filter);
    expect(kept.tools.map((tool) => tool.name)).toEqual(["tool_0"]);
    expect([...filter.leftOut]).toEqual([["tool_1", "not read-only (tools/call upstream.1)"]]);
    // include/exclude by name apply to tools no generator asked about.
    const named = new OperationFilter({ tools: ["tool_*"] }, { operations: ["tool_1"] });
    expect(keepReadOnly({ ...base, tools }, { name: "x" }, named).tools.map((tool) => tool.name)).toEqual(["tool_0"]);
    expect([...named.leftOut]).toEqual([["tool_1", 'exclude operations "tool_1"']]);
  });
});

describe("include / exclude by tool name", () => {
  it("globs over generated names, beside tags and paths; every left-out tool is counted once with why", async () => {
    const pack = await build({ include: { tags: ["pet"], tools: ["get_user_*"] }, exclude: { tools: ["*_with_form", "upload_*"] } });
    expect(pack.ir.tools.map((tool) => tool.name).sort()).toEqual(["add_pet", "delete_pet", "find_pets_by_status", "find_pets_by_tags", "get_pet_by_id", "get_user_by_name", "update_pet"]);
    const leftOut = new Map(pack.facts.selection!.leftOut.map(({ tool, reason }) => [tool, reason]));
    expect(leftOut.get("upload_file")).toBe('exclude tools "upload_*"');
    expect(leftOut.get("create_user")).toBe("not in include");
    expect(pack.report.excluded + pack.report.tools).toBe(19);
    expect(pack.report.operations).toBe(19);
  });

  it('Petstore 3.0 with include: { tags: ["pet"] } leaves out 11 of 19, not more than there are', async () => {
    config([{ spec: "store.yaml", name: "pets", out: "packs/pets", include: { tags: ["pet"] } }]);
    const run = await sluice(["generate"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("pets: 8 tools (openapi)");
    expect(run.stdout).toContain("left out by the selection: 11 of 19 tools (egress_map.txt names each, with why)");
  });
});

describe("a new name and description", () => {
  it("renames and describes a tool after toolPrefix; the old name is gone", async () => {
    const pack = await build({ toolPrefix: "ps_", tools: { get_pet_by_id: { name: "pet", description: "One pet, by its id." }, find_pets_by_tags: { description: "Pets with any of the tags." } } });
    const byName = new Map(pack.ir.tools.map((tool) => [tool.name, tool]));
    expect(byName.get("pet")?.description).toBe("One pet, by its id.");
    expect(byName.has("ps_get_pet_by_id")).toBe(false);
    expect(byName.get("ps_find_pets_by_tags")?.description).toBe("Pets with any of the tags.");
    expect(pack.facts.selection?.renamed).toEqual([{ from: "ps_get_pet_by_id", to: "pet" }]);
    expect(pack.generated.find((file) => file.path === "src/pack-data.gen.ts")!.text).toContain('{"name":"pet",');
  });

  it.each([
    ["an unknown tool, with the nearest", { tools: { get_pet_by_idd: { name: "x" } } }, /tools\.get_pet_by_idd: no generated tool has this name/, ["get_pet_by_id"]],
    ["a prefixed name, with the generated one", { toolPrefix: "ps_", tools: { ps_add_pet: { name: "x" } } }, /name the tool as generated, before toolPrefix: "add_pet"/, ["add_pet"]],
    ["a left-out tool, with why", { readOnly: true, tools: { add_pet: { description: "x" } } }, /tools\.add_pet: the tool is left out of the pack \(not read-only \(POST \/pet\)\)/, undefined],
    ["a name that is no wire name", { tools: { add_pet: { name: "add pet!" } } }, /"add pet!" is not a tool name/, ["add_pet_"]],
    ["a name another tool keeps", { tools: { add_pet: { name: "get_pet_by_id" } } }, /tools\.add_pet\.name: "get_pet_by_id" is the name of another tool \(get_pet_by_id\)/, undefined],
    ["two tools renamed to one name", { tools: { add_pet: { name: "pet" }, update_pet: { name: "pet" } } }, /"pet" is the name of another tool/, undefined],
  ] as const)("refuses %s (CONFIG_INVALID)", async (_name, extra, message, candidates) => {
    const error = await failure(extra as Partial<PackJob>);
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toMatch(message);
    if (candidates !== undefined) expect(error.candidates).toEqual(candidates);
  });

  it("swapping two names is no clash", async () => {
    const pack = await build({ tools: { add_pet: { name: "update_pet" }, update_pet: { name: "add_pet" } } });
    const add = pack.ir.tools.find((tool) => tool.name === "add_pet")!;
    expect(add.binding.kind === "http" && add.binding.method).toBe("PUT");
  });
});

describe("the selection in the egress map and the checks", () => {
  it("the map lists the rules, each left-out tool with why, renames and descriptions; a config that adds tools fails generate --check and egress --check", async () => {
    const store = { spec: "store.yaml", name: "store", out: "packs/store", readOnly: true, exclude: { tools: ["logout_*"] }, tools: { get_pet_by_id: { name: "pet", description: "One pet.\nBy id." } } };
    config([store]);
    expect((await sluice(["generate"])).code).toBe(0);
    const map = read("packs/store/egress_map.txt");
    const header = map.slice(0, map.indexOf("\ntool "));
    expect(header).toContain("# Tool selection by the config: 7 tools, 12 left out.\n#   rule exclude tools \"logout_*\"\n#   rule readOnly\n#   left out add_pet: not read-only (POST /pet)\n");
    expect(header).toContain("#   left out logout_user: exclude tools \"logout_*\"\n");
    expect(header).toContain('#   renamed get_pet_by_id -> pet\n#   description of pet: "One pet.\\nBy id."\n');
    expect(map).toMatch(/^tool pet$/m);
    expect(map).not.toMatch(/^tool (add_pet|get_pet_by_id|logout_user)$/m);
    // The map sluice egress writes from the pack is the one generate wrote: the pack carries its selection.
    expect((await sluice(["egress", "packs/store", "--check", "packs/store/egress_map.txt"])).code).toBe(0);
    expect((await sluice(["generate", "--check"])).code).toBe(0);

    // The config widens: readOnly goes. generate --check names every new tool.
    const { readOnly: _gone, ...wider } = store;
    config([wider]);
    const check = await sluice(["generate", "--check"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("WIDENING: tool add_pet (POST /pet) is newly visible to the model");
    expect(check.stdout).toContain("WIDENING: tool delete_pet (DELETE /pet/{petId}) is newly visible to the model");
    // Regenerated with the old map put back (a pull request that forgot the map): egress --check names them too.
    const committed = map;
    expect((await sluice(["generate"])).code).toBe(0);
    writeFileSync(join(project, "packs/store/egress_map.txt"), committed);
    const egress = await sluice(["egress", "packs/store", "--check", "packs/store/egress_map.txt"]);
    expect(egress.code).toBe(1);
    expect(egress.stdout).toContain("WIDENING: tool add_pet (POST /pet) is newly visible to the model");
    expect(egress.stdout).toContain("-#   rule readOnly");
  });

  it("a tool left out is absent from serve's tools/list and cannot be called", async () => {
    config([{ spec: "store.yaml", name: "ro", out: "packs/ro", readOnly: true, exclude: { tools: ["get_inventory"] } }]);
    expect((await sluice(["generate"])).code).toBe(0);
    // A stdio child in the long tier; in the quick tier the same serve by main in the worker
    // over HTTP (packages/mcp/test/support.ts startHttpInProcess), without a child's start.
    const args = ["packs/ro", "--base-url", "http://127.0.0.1:9/api/v3"];
    const served = LONG ? undefined : await startHttpInProcess(args, { SLUICE_MCP_TOKEN: undefined }, project);
    const client = served === undefined ? new Client({ name: "tool-choices-test", version: "0" }) : await connectHttp(served);
    try {
      if (served === undefined) await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", ...args], cwd: project, env: { PATH: process.env["PATH"] ?? "" }, stderr: "pipe" }));
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("get_pet_by_id");
      expect(names).not.toContain("delete_pet");
      expect(names).not.toContain("add_pet");
      expect(names).not.toContain("get_inventory");
      for (const name of ["delete_pet", "get_inventory"]) {
        const called = await client.callTool({ name, arguments: { petId: 1 } }).catch((error: unknown) => ({ isError: true, content: [{ type: "text", text: String(error) }] }));
        expect(called.isError).toBe(true);
        expect(JSON.stringify(called.content)).toMatch(/unknown tool|not found|no tool/i);
      }
    } finally {
      await client.close();
      if (served !== undefined) expect(await served.stop()).toBe(0);
    }
  });
});

describe("messages about selection and config", () => {
  it("an exclude entry that matches nothing is CONFIG_INVALID naming the entry and the nearest candidates", async () => {
    const error = await failure({ exclude: { operations: ["deletPet"] } });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toMatch(/^pack store: exclude operations "deletPet" matched no operation; the nearest of its \d+ operation names: deletePet, /);
    expect(error.candidates?.[0]).toBe("deletePet");
    config([{ spec: "store.yaml", name: "store", out: "packs/store", exclude: { paths: ["DELTE /**"] } }]);
    const run = await inProcess(["generate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/packs\[0\]\.exclude\.paths\[0\]: "DELTE" is not an HTTP method \(candidates: DELETE\)\n$/);
  });

  it('include: { tags: ["nosuchtag"] } lists the spec\'s tags, nearest first, as a warning and in NO_TOOLS', async () => {
    const pack = await build({ include: { tags: ["stor"], operations: ["addPet"] } });
    expect(pack.report.warnings).toContain('include tags "stor" matched no operation; its 3 tags, nearest first: store, user, pet');
    const error = await failure({ include: { tags: ["nosuchtag"] } });
    expect(error.code).toBe("NO_TOOLS");
    expect(error.message).toContain('include tags "nosuchtag" matched no operation; its 3 tags, nearest first:');
    expect([...(error.candidates ?? [])].sort()).toEqual(["pet", "store", "user"]);
  });

  it("a CommonJS .js config in an ES module folder is loaded as CommonJS", async () => {
    const dir = join(project, "cjs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(dir, "sluice.config.js"), 'const { join } = require("node:path");\nmodule.exports = { packs: [{ spec: join("..", "store.yaml"), name: "cjs", out: "out", readOnly: true, allowOutside: true }] };\n');
    const run = await inProcess(["generate", "--json"], dir);
    expect(run.stderr).toBe("");
    expect((JSON.parse(run.stdout) as { packs: Array<{ tools: number }> }).packs[0]!.tools).toBe(8);
    // Another file: the worker's module cache holds the first one.
    writeFileSync(join(dir, "broken.config.js"), 'module.exports = require("./packs.cjs");\n');
    const broken = await inProcess(["generate", "--config", "broken.config.js"], dir);
    // Coded and naming what failed to load (how it is worded depends on which loader ran it: vitest's here, Node's in the bin).
    expect(broken.stderr).toMatch(/^sluice: IMPORT_FAILED: broken\.config\.js: .*\.\/packs\.cjs/);
  });

  it("generate <spec> without --name/--out gives the command to run, never 'give sluice generate a spec'", async () => {
    rmSync(join(project, "sluice.config.json"), { force: true });
    for (const args of [["generate", "store.yaml"], ["generate", "store.yaml", "--name", "shop"]]) {
      const run = await inProcess(args);
      expect(run.code).toBe(2);
      expect(run.stderr).not.toContain("give sluice generate a spec");
      expect(run.stderr).toContain(args.length === 2 ? "generate store.yaml needs --name (the pack's name) and --out (the folder it is written to): sluice generate store.yaml --name store --out packs/store" : "needs --out (the folder it is written to): sluice generate store.yaml --name shop --out packs/shop");
    }
    // With a config present, a spec is still not taken for a pack name.
    config([{ spec: "store.yaml", name: "store", out: "packs/store" }]);
    expect((await inProcess(["generate", "store.yaml"])).stderr).toContain("needs --name (the pack's name) and --out");
  });
});
