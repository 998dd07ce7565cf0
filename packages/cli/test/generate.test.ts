/**
 * `sluice generate` as a user runs it in their project: a complete pack from a spec,
 * scaffolds written once and never again, generated files always rewritten, a config
 * listing packs with operation selection, `--check` for CI (spec edits and hand edits are
 * drift, exit 1), skipped operations reported, no tool at all exit 1, bad configs one
 * coded line. In a project folder outside the repository: the CLI's main in this worker
 * while what it loads is unchanged, else child processes of the bin. The generated pack is
 * served by a `sluice serve` stdio child in the long tier, and in the quick tier by main in
 * the worker over HTTP (packages/mcp/test/support.ts startHttpInProcess): the same serve code
 * reading the same variables from the environment, without a child loading tsx and the CLI.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runSluice } from "./support/run-in-process.ts";
import { startHttpInProcess } from "../../mcp/test/support.ts";
import { LONG } from "../../../test/support/tier.ts";
import { credentialsFromEnv, definePack, egressMap, formatEgressMap, generatedRuntime } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildPack, detectKind } from "@sluice/pipeline";
import { validateConfig } from "@sluice/pipeline/config-check";
import { globPattern, OperationFilter } from "../../../generators/pipeline/src/select-operations.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPECS = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));

const project = mkdtempSync(join(tmpdir(), "sluice-generate-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The CLI's main in this worker, or a child when the worker holds a module of the project that changed since (support/run-in-process.ts). */
function sluice(args: string[], env: Record<string, string> = {}) {
  return runSluice(args, { cwd: project, env: { GITHUB_ACTIONS: "", ...env }, timeout: 120_000 });
}

// The tests await the CLI now (in the worker or a child) instead of blocking in spawnSync,
// so vitest's deadline applies to them: a loaded 2-core machine needs more than the default.
vi.setConfig({ testTimeout: 300_000 });

const read = (path: string) => readFileSync(join(project, path), "utf8");

describe("one pack from a spec", () => {
  it("writes generated files, the spec copy, the egress map and the scaffolds; regenerating rewrites the first and never the last", async () => {
    const first = await sluice(["generate", join(SPECS, "petstore/petstore-expanded-3.0.json"), "--name", "pets", "--out", "packs/pets", "--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as { packs: Array<{ written: string[]; scaffolded: string[]; tools: number; baseUrl: string }> };
    expect(report.packs[0]!.tools).toBe(4);
    expect(report.packs[0]!.baseUrl).toBe("https://petstore.swagger.io/v2");
    expect(report.packs[0]!.written).toEqual(["src/pack-data.gen.ts", "src/defs.gen.ts", "src/tools.gen.ts", "src/types.gen.ts", "src/runtime.gen.ts", ".gitattributes", "spec/petstore-expanded-3.0.json", "egress_map.txt", "src/served-tools.gen.json"]);
    expect(report.packs[0]!.scaffolded).toEqual(["package.json", "src/index.ts", "src/curated.ts", "src/runtime.ts"]);
    expect(read("packs/pets/spec/petstore-expanded-3.0.json")).toBe(readFileSync(join(SPECS, "petstore/petstore-expanded-3.0.json"), "utf8"));
    expect(read("packs/pets/.gitattributes")).toMatch(/^src\/tools\.gen\.ts linguist-generated=true$/m);
    expect(read("packs/pets/egress_map.txt")).toMatch(/add_pet/);

    // The user edits a scaffold and (wrongly) a generated file; generate keeps the first and restores the second.
    const curated = read("packs/pets/src/curated.ts") + "// mine\n";
    writeFileSync(join(project, "packs/pets/src/curated.ts"), curated);
    const generatedBefore = read("packs/pets/src/tools.gen.ts");
    writeFileSync(join(project, "packs/pets/src/tools.gen.ts"), generatedBefore.replace("add_pet", "add_pot"));
    const again = await sluice(["generate", join(SPECS, "petstore/petstore-expanded-3.0.json"), "--name", "pets", "--out", "packs/pets", "--json"]);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { packs: Array<{ scaffolded: string[] }> }).packs[0]!.scaffolded).toEqual([]);
    expect(read("packs/pets/src/curated.ts")).toBe(curated);
    expect(read("packs/pets/src/tools.gen.ts")).toBe(generatedBefore);
    // The pack it wrote loads and is surveyed by its directory.
    const survey = await sluice(["survey", "packs/pets", "--json"]);
    expect(survey.code).toBe(0);
    expect((JSON.parse(survey.stdout) as Array<{ tool: string }>).map((row) => row.tool).sort()).toEqual(["add_pet", "delete_pet", "find_pet_by_id", "find_pets"]);
  });

  it("--check is 0 on a fresh pack and 1 naming the file after a hand edit, with a GitHub annotation when asked", async () => {
    // A pack of its own, which the worker never loads: the first test surveyed packs/pets here,
    // and a hand edit of a module the worker holds sends every later runSluice of the worker
    // (the next files' too) to a child process (support/run-in-process.ts).
    const out = ["--name", "pets", "--out", "packs/pets-check"];
    expect((await sluice(["generate", join(SPECS, "petstore/petstore-expanded-3.0.json"), ...out])).code).toBe(0);
    const args = ["generate", join(SPECS, "petstore/petstore-expanded-3.0.json"), ...out, "--check"];
    expect((await sluice(args)).code).toBe(0);
    writeFileSync(join(project, "packs/pets-check/src/defs.gen.ts"), read("packs/pets-check/src/defs.gen.ts") + "\n");
    const dirty = await sluice([...args, "--format", "github"]);
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toContain("OUT OF DATE: src/defs.gen.ts");
    expect(dirty.stdout).toContain("::error file=packs/pets-check/src/defs.gen.ts::src/defs.gen.ts is out of date");
    // Under GitHub Actions the annotations come by default.
    expect((await sluice(args, { GITHUB_ACTIONS: "true" })).stdout).toContain("::error file=");
  });
});

describe("a generated pack, served", () => {
  it("reads its credential from <PACK>_<SCHEME>, says so at start-up, and the call carries it to the API", async () => {
    const generated = await sluice(["generate", join(SPECS, "petstore/swagger-petstore-3.0.yaml"), "--name", "petstore", "--out", "packs/petstore"]);
    expect(generated.code).toBe(0);
    // One warning per secret-looking argument, naming the tools that take it.
    expect(generated.stdout.match(/looks like a secret/g)).toHaveLength(1);
    expect(generated.stdout).toContain('warning: argument "password" (create_user, login_user, update_user) looks like a secret');
    const facts = read("packs/petstore/src/runtime.gen.ts");
    expect(facts).toContain('"env": "PETSTORE_API_KEY"');
    const seen: Array<{ url: string; apiKey: string | undefined }> = [];
    const api = createServer((req, res) => {
      seen.push({ url: req.url ?? "", apiKey: req.headers["api_key"] as string | undefined });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: 7, name: "Rex", status: "available", photoUrls: [], tags: [], category: null }));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`;
    const served = await servePetstore(base);
    const client = new Client({ name: "generate-test", version: "0" });
    try {
      await client.connect(served.transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("get_pet_by_id");
      const result = await client.callTool({ name: "get_pet_by_id", arguments: { petId: 7 } });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toContain("Rex");
      // The default response handler dropped the empty and null members.
      expect(JSON.stringify(result.content)).not.toContain("photoUrls");
      expect(seen).toEqual([{ url: "/api/v3/pet/7", apiKey: "pk_test_42" }]);
      expect(served.stderr()).toContain("petstore credentials from PETSTORE_API_KEY; not set: PETSTORE_AUTH");
      // Only petstore_auth will do here: the answer names the variable to set, not ctx.credentials (no one over MCP can pass that).
      const unauthorized = await client.callTool({ name: "find_pets_by_status", arguments: { status: "sold" } });
      expect(unauthorized.isError).toBe(true);
      const text = (unauthorized.content as Array<{ text: string }>)[0]!.text;
      expect(text).toMatch(/^AUTH_MISSING: find_pets_by_status needs a credential \(security scheme petstore_auth\).* sluice serve reads petstore_auth from PETSTORE_AUTH: /);
      expect(text).not.toContain("ctx.credentials");
      expect(seen).toHaveLength(1);
      expect(served.stderr()).not.toContain("pk_test_42");
    } finally {
      await client.close();
      await served.stop();
      api.close();
    }
  });
});

/**
 * packs/petstore served with PETSTORE_API_KEY set and PETSTORE_AUTH not: a stdio child with
 * only those variables (the long tier), or main in the worker over HTTP with them set in this
 * process until it stops (serve reads the credential at start-up and again at each call).
 */
async function servePetstore(base: string): Promise<{ transport: StdioClientTransport | StreamableHTTPClientTransport; stderr: () => string; stop: () => Promise<void> }> {
  const args = ["packs/petstore", "--base-url", base];
  if (LONG) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "serve", ...args], cwd: project, env: { PATH: process.env["PATH"] ?? "", PETSTORE_API_KEY: "pk_test_42" }, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    return { transport, stderr: () => stderr, stop: async () => {} };
  }
  const names = ["PETSTORE_API_KEY", "PETSTORE_AUTH", "SLUICE_MCP_TOKEN"] as const;
  const saved = names.map((name) => [name, process.env[name]] as const);
  const restore = () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  process.env["PETSTORE_API_KEY"] = "pk_test_42";
  delete process.env["PETSTORE_AUTH"];
  delete process.env["SLUICE_MCP_TOKEN"];
  try {
    const served = await startHttpInProcess(args, {}, project);
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${served.generatedToken!}` } } });
    return {
      transport,
      stderr: served.stderr,
      stop: async () => {
        try {
          expect(await served.stop()).toBe(0);
        } finally {
          restore();
        }
      },
    };
  } catch (error) {
    restore();
    throw error;
  }
}

describe("a config of packs", () => {
  const config = (packs: unknown[]) => writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs }));

  it("regenerates every pack, selects operations, lists skipped operations, and --check catches a spec edit", async () => {
    mkdirSync(join(project, "specs"), { recursive: true });
    cpSync(join(SPECS, "petstore/petstore-expanded-3.0.json"), join(project, "specs/pets.json"));
    cpSync(join(SPECS, "linear/schema.graphql"), join(project, "specs/linear.graphql"));
    config([
      { spec: "specs/pets.json", name: "shop", out: "packs/shop", include: { paths: ["GET /pets/**", "/pets"] }, exclude: { operations: ["addPet"] } },
      { spec: "specs/linear.graphql", name: "lin", out: "packs/lin", include: { operations: ["issue", "issues", "Query.team*"] }, toolPrefix: "lin_" },
    ]);
    const run = await sluice(["generate", "--json"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const { packs } = JSON.parse(run.stdout) as { packs: Array<{ name: string; tools: number; excluded: number; skipped: Array<{ operation: string; reason: string }>; endpointEnv?: string }> };
    expect(packs.map((pack) => pack.name)).toEqual(["shop", "lin"]);
    // find_pets and find_pet_by_id; add_pet (excluded by operationId) and delete_pet (no path matches DELETE) left out.
    expect(packs[0]!.tools).toBe(2);
    expect(packs[0]!.excluded).toBe(2);
    expect(packs[1]!.endpointEnv).toBe("LIN_ENDPOINT");
    // Linear's subscriptions are never tools; the include names none of them, so none is reported as skipped.
    expect(packs[1]!.skipped).toEqual([]);
    const linTools = (JSON.parse((await sluice(["survey", "packs/lin", "--json"])).stdout) as Array<{ tool: string }>).map((row) => row.tool).sort();
    expect(linTools).toEqual(["lin_issue", "lin_issues_list", "lin_team", "lin_team_membership", "lin_team_memberships_list", "lin_teams_list"]);
    expect(read("packs/lin/src/tools.gen.ts")).toContain('// Regenerate: sluice generate lin (pack "lin" of sluice.config.json)');

    expect((await sluice(["generate", "--check"])).code).toBe(0);
    // The spec changes (a new optional query parameter): the pack is out of date, and so is its map.
    const spec = JSON.parse(read("specs/pets.json")) as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
    spec.paths["/pets"]!["get"]!.parameters!.push({ name: "color", in: "query", required: false, schema: { type: "string" } });
    writeFileSync(join(project, "specs/pets.json"), JSON.stringify(spec));
    const drift = await sluice(["generate", "--check", "--json"]);
    expect(drift.code).toBe(1);
    const checked = JSON.parse(drift.stdout) as { ok: boolean; packs: Array<{ name: string; changed: string[] }> };
    expect(checked.ok).toBe(false);
    expect(checked.packs.find((pack) => pack.name === "shop")!.changed).toEqual(expect.arrayContaining(["src/tools.gen.ts", "spec/pets.json"]));
    expect(checked.packs.find((pack) => pack.name === "lin")!.changed).toEqual([]);
    // Regenerated, the new argument shows in the egress map.
    expect((await sluice(["generate", "shop"])).code).toBe(0);
    expect(read("packs/shop/egress_map.txt")).toMatch(/\+ color\b/);
    expect((await sluice(["generate", "--check"])).code).toBe(0);
  });

  it("variable names, base URL and GraphQL endpoint from the config; a scheme the spec lacks is CONFIG_INVALID", async () => {
    cpSync(join(SPECS, "petstore/swagger-petstore-3.0.yaml"), join(project, "specs/store.yaml"));
    config([
      { spec: "specs/store.yaml", name: "store", out: "packs/store", env: { api_key: "MY_STORE_KEY" }, baseUrl: "http://127.0.0.1:9/v9", include: { tags: ["store"] } },
      { spec: "specs/linear.graphql", name: "lin2", out: "packs/lin2", endpoint: "https://linear.example/graphql", env: { endpoint: "LIN_URL", token: "LIN_KEY" }, include: { operations: ["viewer"] } },
    ]);
    const run = await sluice(["generate"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("credential api_key (apiKey): MY_STORE_KEY");
    expect(read("packs/store/src/runtime.gen.ts")).toContain('"env": "MY_STORE_KEY"');
    expect(read("packs/store/src/pack-data.gen.ts")).toContain('"server":"http://127.0.0.1:9/v9"');
    expect(read("packs/store/src/pack-data.gen.ts")).not.toContain("petstore3.swagger.io");
    expect(read("packs/lin2/src/runtime.gen.ts")).toMatch(/"endpoint": \{\n\s+"env": "LIN_URL",\n\s+"url": "https:\/\/linear\.example\/graphql"\n/);
    expect(read("packs/lin2/src/runtime.gen.ts")).toContain('"env": "LIN_KEY"');
    config([{ spec: "specs/store.yaml", name: "store", out: "packs/store", env: { apiKey: "X" } }]);
    const wrong = await sluice(["generate"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^sluice: CONFIG_INVALID: pack store: env\.apiKey: the spec declares no such security scheme\. \(candidates: api_key, petstore_auth\)\n$/);
  });

  it("a selection that leaves no tool is exit 1 (NO_TOOLS); an include entry matching nothing is a warning", async () => {
    config([{ spec: "specs/pets.json", name: "none", out: "packs/none", exclude: { paths: ["/**"] } }]);
    const none = await sluice(["generate"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^sluice: NO_TOOLS: pack none: no tools generated from pets\.json: the selection left out all 4 tools \(exclude paths "\/\*\*": 4\)\.\n$/);
    config([{ spec: "specs/pets.json", name: "typo", out: "packs/typo", include: { tags: ["nonexistent"], operations: ["findPets"] } }]);
    const typo = await sluice(["generate"]);
    expect(typo.code).toBe(0);
    expect(typo.stdout).toContain('warning: include tags "nonexistent" matched no operation (the spec has no tags)');
  });

  it("an unknown key, a wrong type or a duplicate pack is CONFIG_INVALID in one line, naming the place", async () => {
    config([{ spec: "specs/pets.json", name: "a", out: "packs/a", inclde: { tags: ["x"] } }]);
    expect((await sluice(["generate"])).stderr).toMatch(/^sluice: CONFIG_INVALID: .*sluice\.config\.json: packs\[0\]\.inclde: unknown key \(candidates: include\)\n$/);
    config([{ spec: "specs/pets.json", name: "a", out: "packs/a", include: { tags: "x" } }]);
    expect((await sluice(["generate"])).stderr).toMatch(/packs\[0\]\.include\.tags: must be an array of non-empty strings/);
    config([
      { spec: "specs/pets.json", name: "a", out: "packs/a" },
      { spec: "specs/pets.json", name: "a", out: "packs/b" },
    ]);
    const duplicate = await sluice(["generate"]);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/packs\[1\]\.name: a second pack is named "a"/);
    rmSync(join(project, "sluice.config.json"));
    expect((await sluice(["generate"])).stderr).toMatch(/^sluice: CONFIG_INVALID: no sluice\.config\.ts, .* in /);
  });

  it("a TypeScript config with defineConfig from @sluice/cli/config", async () => {
    symlinkSync(join(ROOT, "packages/cli"), join(project, "node_modules/@sluice/cli"), "dir");
    writeFileSync(
      join(project, "sluice.config.ts"),
      `import { defineConfig } from "@sluice/cli/config";\nexport default defineConfig({ packs: [{ spec: "specs/pets.json", name: "typed", out: "packs/typed", include: { operations: ["find*"] } }] });\n`,
    );
    const run = await sluice(["generate", "--json"]);
    expect(run.stderr).toBe("");
    expect((JSON.parse(run.stdout) as { packs: Array<{ tools: number }> }).packs[0]!.tools).toBe(2);
    rmSync(join(project, "sluice.config.ts"));
  });
});

describe("withheld by the config", () => {
  it("an argument withheld everywhere is out of the schema, in the egress map, and refused before anything is sent", async () => {
    const { ir, facts } = await buildPack(
      { name: "pets", spec: join(SPECS, "petstore/petstore-expanded-3.0.json"), out: "/nonexistent", regenerate: "", withhold: { limit: "internal" } },
      "0.0.0",
    );
    const tools = definePack({ name: "pets", defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts) }).tools;
    const findPets = tools.find((tool) => tool.name === "find_pets")!;
    expect(Object.keys(findPets.inputSchema.properties as object)).toEqual(["tags"]);
    expect(formatEgressMap(egressMap([findPets]))).toMatch(/- limit: internal/);
    let requests = 0;
    const api = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      await expect(findPets.call({ limit: 5 }, { baseUrl })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
      expect(requests).toBe(0);
      await findPets.call({ tags: ["a"] }, { baseUrl });
      expect(requests).toBe(1);
    } finally {
      api.close();
    }
  });

  it('generated tools get the default response handler unless the config says responses: "off"', async () => {
    const job = { name: "pets", spec: join(SPECS, "petstore/petstore-expanded-3.0.json"), out: "/nonexistent", regenerate: "" };
    const toolsOf = async (responses?: "off") => {
      const { ir, facts, generated } = await buildPack(responses === undefined ? job : { ...job, responses }, "0.0.0");
      const text = generated.find((file) => file.path === "src/runtime.gen.ts")!.text;
      return { text, tools: definePack({ name: "pets", defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts) }).tools };
    };
    const on = await toolsOf();
    expect(on.tools.every((tool) => tool.responseHandler !== undefined)).toBe(true);
    const off = await toolsOf("off");
    expect(off.text).toContain('"responses": "off"');
    expect(off.tools.every((tool) => tool.responseHandler === undefined)).toBe(true);
  });

  it("a required argument cannot be withheld, and a reason outside the list is refused", async () => {
    const job = { name: "pets", spec: join(SPECS, "petstore/petstore-expanded-3.0.json"), out: "/nonexistent", regenerate: "" };
    await expect(buildPack({ ...job, withhold: { id: "internal" } }, "0.0.0")).rejects.toThrow(/: \w+ requires "id", so it cannot be withheld/);
    await expect(buildPack({ ...job, withhold: { limit: "secret" } }, "0.0.0")).rejects.toThrow(/withhold reasons are internal, deprecated, projection/);
  });

  it("reports as skipped only the subscriptions an include names (the others were never asked for)", async () => {
    const spec = join(project, "subscriptions.graphql");
    writeFileSync(spec, "type Query { issue(id: ID!): String }\ntype Subscription { issueUpdated: String\n teamUpdated: String }\n");
    const job = { name: "subs", spec, out: "/nonexistent", regenerate: "" };
    const skippedOf = async (include?: { operations: string[] }) =>
      (await buildPack({ ...job, ...(include === undefined ? {} : { include }) }, "0.0.0")).report.skipped.map((skip) => skip.operation);
    expect(await skippedOf()).toEqual(["Subscription.issueUpdated", "Subscription.teamUpdated"]);
    expect(await skippedOf({ operations: ["issue"] })).toEqual([]);
    expect(await skippedOf({ operations: ["issue", "Subscription.issue*"] })).toEqual(["Subscription.issueUpdated"]);
  });

  it("a withhold entry that names no argument is UNKNOWN_SELECTOR with the nearest names, never skipped (guard withholdMatches)", async () => {
    const job = { name: "pets", spec: join(SPECS, "petstore/petstore-expanded-3.0.json"), out: "/nonexistent", regenerate: "" };
    const typo = buildPack({ ...job, withhold: { limt: "internal" } }, "0.0.0");
    await expect(typo).rejects.toMatchObject({ code: "UNKNOWN_SELECTOR", candidates: ["limit"] });
    await expect(typo).rejects.toThrow(/^pack pets: withhold "limt": no tool has an argument "limt", so nothing would be withheld; did you mean "limit"\?$/);
    // Switched off, the typo is skipped and the argument stays visible to the model: the failure this guard exists for.
    const { ir } = await withoutGuard("withholdMatches", () => buildPack({ ...job, withhold: { limt: "internal" } }, "0.0.0"));
    expect(ir.tools.find((tool) => tool.name === "find_pets")!.parameters.properties).toHaveProperty("limit");
  });

  it("a member an optional body requires once sent cannot be withheld alone; one nothing needs can, and its rule goes", async () => {
    // Notion's create_a_data_source: an optional body whose schema requires parent and properties.
    const job = { name: "notion", spec: join(SPECS, "notion/notion-openapi.json"), out: "/nonexistent", regenerate: "" };
    await expect(buildPack({ ...job, withhold: { parent: "internal" } }, "0.0.0")).rejects.toThrow(/create_a_\w+ needs "parent" whenever "\w+" is sent/);
    const { ir } = await buildPack({ ...job, withhold: { title: "internal" } }, "0.0.0");
    const tool = ir.tools.find((entry) => entry.name === "create_a_data_source")!;
    expect(Object.keys(tool.parameters.properties)).not.toContain("title");
    expect(tool.parameters.dependentRequired).toEqual({ parent: ["properties"], properties: ["parent"] });
  });
});

describe("GraphQL credentials", () => {
  const job = { name: "lin", spec: join(SPECS, "linear/schema.graphql"), out: "/nonexistent", regenerate: "", include: { operations: ["viewer"] } };

  /** The headers one call of `viewer` sends, with the pack's token variable set to `secret`. */
  async function headersSent(authHeader?: string): Promise<Record<string, string | string[] | undefined>> {
    const { ir, facts } = await buildPack(authHeader === undefined ? job : { ...job, authHeader }, "0.0.0");
    let seen: Record<string, string | string[] | undefined> = {};
    const api = createServer((req, res) => {
      seen = req.headers;
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"data":{"viewer":{"id":"u1"}}}'));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const endpoint = `http://127.0.0.1:${(api.address() as AddressInfo).port}/graphql`;
      const viewer = definePack({ name: "lin", defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts, { endpoint }) }).tools.find((tool) => tool.name === "viewer")!;
      await viewer.call({}, { credentials: credentialsFromEnv(facts, { LIN_TOKEN: "secret" }) });
    } finally {
      api.close();
    }
    return seen;
  }

  it("a bearer token by default; authHeader sends the token as it is in the header it names", async () => {
    expect((await headersSent()).authorization).toBe("Bearer secret");
    expect((await headersSent("Authorization")).authorization).toBe("secret");
    const shopify = await headersSent("X-Shopify-Access-Token");
    expect(shopify["x-shopify-access-token"]).toBe("secret");
    expect(shopify.authorization).toBeUndefined();
  });

  it("authHeader is refused on an OpenAPI pack and when it is no header name", async () => {
    await expect(buildPack({ name: "pets", spec: join(SPECS, "petstore/petstore-expanded-3.0.json"), out: "/nonexistent", regenerate: "", authHeader: "X-Key" }, "0.0.0")).rejects.toMatchObject({ code: "CONFIG_UNSUPPORTED" });
    const pack = { spec: "s.graphql", name: "lin3", out: "packs/lin3" };
    expect(() => validateConfig({ packs: [{ ...pack, authHeader: "X Key" }] }, "sluice.config.json")).toThrow(/^sluice\.config\.json: packs\[0\]\.authHeader: "X Key" is not an HTTP header name$/);
    expect(() => validateConfig({ packs: [{ ...pack, kind: "openapi", authHeader: "X-Key" }] }, "sluice.config.json")).toThrow(/authHeader: applies to GraphQL packs only/);
    expect(validateConfig({ packs: [{ ...pack, authHeader: "X-Shopify-Access-Token" }] }, "sluice.config.json").packs[0]!.authHeader).toBe("X-Shopify-Access-Token");
  });
});

describe("selection and kind detection", () => {
  it("globs: * stays within a path segment, ** crosses them, braces are literal", async () => {
    expect(globPattern("/repos/*/issues").test("/repos/{owner}/issues")).toBe(true);
    expect(globPattern("/repos/*").test("/repos/{owner}/{repo}")).toBe(false);
    expect(globPattern("/repos/**").test("/repos/{owner}/{repo}")).toBe(true);
    expect(globPattern("/a.b").test("/aXb")).toBe(false);
    expect(globPattern("issues_*").test("issues_list")).toBe(true);
  });

  it("include by tag (any case), by method and path, by operationId; exclude wins", async () => {
    const op = (tool: string, method: string, path: string, tags: string[], operationId?: string) => ({ tool, method, path, tags, ...(operationId === undefined ? {} : { names: [operationId], suggest: [operationId] }) });
    const filter = new OperationFilter({ tags: ["Issues"], paths: ["GET /users/**"], operations: ["repos/get"] }, { operations: ["issues_delete*"] });
    expect(filter.accepts(op("issues_list", "GET", "/issues", ["issues"]))).toBe(true);
    expect(filter.accepts(op("issues_delete_comment", "DELETE", "/x", ["issues"]))).toBe(false);
    expect(filter.accepts(op("users_get", "GET", "/users/{u}", []))).toBe(true);
    expect(filter.accepts(op("users_set", "PUT", "/users/{u}", []))).toBe(false);
    expect(filter.accepts(op("repos_get", "GET", "/repos/{o}/{r}", [], "repos/get"))).toBe(true);
    expect(filter.excluded).toEqual(["issues_delete_comment", "users_set"]);
    expect(filter.unmatchedIncludes()).toEqual([]);
  });

  it("the kind is read from the file", async () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(detectKind(bytes('{"openapi":"3.1.0"}'), "api.json")).toBe("openapi");
    expect(detectKind(bytes('{ "swagger": "2.0" }'), "api.json")).toBe("openapi");
    expect(detectKind(bytes('{"data":{"__schema":{}}}'), "introspection.json")).toBe("graphql");
    expect(detectKind(bytes("openapi: 3.0.3\ninfo: {}\n"), "api.yaml")).toBe("openapi");
    expect(detectKind(bytes('"""Docs"""\ntype Query { a: Int }'), "schema.txt")).toBe("graphql");
    expect(detectKind(bytes(""), "schema.graphql")).toBe("graphql");
    expect(() => detectKind(bytes("hello"), "notes.txt")).toThrow(/neither an OpenAPI\/Swagger document nor a GraphQL schema/);
  });

  it("a JSON file that is neither kind is a coded SPEC_INVALID from the loader, not a crash", async () => {
    writeFileSync(join(project, "specs-other.json"), JSON.stringify({ hello: "world", nested: { openapi: "3.1.0" } }));
    await expect(buildPack({ name: "other", spec: join(project, "specs-other.json"), out: "/nonexistent", regenerate: "" }, "0.0.0")).rejects.toMatchObject({
      code: "SPEC_INVALID",
      message: expect.stringMatching(/not an OpenAPI 3\.0\/3\.1 or Swagger 2\.0 document/),
    });
  });

  it("the kind of every corpus spec is read right, wherever the document names itself", async () => {
    // Stripe's and Kubernetes' JSON put "openapi"/"swagger" after megabytes of other keys; Google's YAML starts with basePath.
    const corpus = readdirSync(SPECS, { recursive: true, encoding: "utf8" }).filter((file) => /\.(json|ya?ml|graphql)$/.test(file));
    expect(corpus.length).toBeGreaterThan(20);
    for (const file of corpus) {
      const expected = file.endsWith(".graphql") || file.includes("storefront") ? "graphql" : "openapi";
      expect([file, detectKind(readFileSync(join(SPECS, file)), file.split("/").pop()!)]).toEqual([file, expected]);
    }
  });
});

describe("patterns the linear-time engine cannot run", () => {
  it("are removed from the pack with one coded warning per pattern naming it and where it is first; an anchored look-ahead is kept", async () => {
    const spec = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      servers: [{ url: "https://api.example.test" }],
      paths: {
        "/users": {
          post: {
            operationId: "createUser",
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { secret: { type: "string", pattern: "\\w+(?=\\d)" }, code: { type: "string", pattern: "\\w+(?=\\d)" }, slug: { type: "string", pattern: "^(?![0-9]+$)[a-z0-9]+$" }, name: { type: "string", pattern: "^[a-z]+$" } } } } } },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    };
    writeFileSync(join(project, "lookahead.json"), JSON.stringify(spec));
    const result = await sluice(["generate", join(project, "lookahead.json"), "--name", "look", "--out", "packs/look"]);
    expect(result.code).toBe(0);
    const warned = result.stdout.split("\n").filter((line) => line.includes("PATTERN_")).map((line) => line.trim());
    expect(warned).toEqual([
      'warning: PATTERN_UNSUPPORTED: pattern "\\\\w+(?=\\\\d)" needs a backtracking engine (lookahead "(?=" at 3); removed, not checked: POST /users /paths/~1users/post/requestBody/content/application~1json/schema/properties/secret/pattern and 1 more',
    ]);
    const tools = read("packs/look/src/pack-data.gen.ts");
    expect(tools).not.toContain("(?=");
    expect(tools).toContain("^[a-z]+$");
    expect(tools).toContain("(?![0-9]+$)");
  });
});

describe("sluice generate --watch", () => {
  it("regenerates when the spec changes, names the widening, survives a broken spec, and stops on SIGINT", async () => {
    const dir = join(project, "watched");
    mkdirSync(join(dir, "specs"), { recursive: true });
    cpSync(join(SPECS, "petstore/petstore-expanded-3.0.json"), join(dir, "specs/pets.json"));
    writeFileSync(join(dir, "sluice.config.json"), JSON.stringify({ packs: [{ spec: "specs/pets.json", name: "watched", out: "packs/watched" }] }));
    // The watched project resolves @sluice/core from the project folder above it.
    const child = spawn(process.execPath, [BIN, "generate", "-w"], { cwd: dir, env: { PATH: process.env["PATH"] ?? "" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const exited = new Promise<number | null>((resolveExit) => child.once("close", resolveExit));
    // Stops by itself whatever happens below.
    const deadline = setTimeout(() => child.kill("SIGKILL"), 240_000);
    const seen = async (pattern: RegExp) => {
      for (let waited = 0; !pattern.test(out); waited += 100) {
        if (waited > 200_000 || child.exitCode !== null) throw new Error(`not seen: ${pattern}\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await seen(/watching sluice\.config\.json, specs\/pets\.json/);
      expect(out).toMatch(/\] generated\n {2}watched: 4 tools -> packs\/watched/);
      const spec = JSON.parse(read("watched/specs/pets.json")) as { paths: Record<string, Record<string, { parameters?: unknown[] }>> };
      spec.paths["/pets"]!["get"]!.parameters!.push({ name: "color", in: "query", required: false, schema: { type: "string" } });
      writeFileSync(join(dir, "specs/pets.json"), JSON.stringify(spec));
      await seen(/specs\/pets\.json changed\n {2}watched: 4 tools -> packs\/watched; egress_map\.txt: 1 widening, 0 narrowings, 0 other changes\n {4}WIDENING: tool find_pets: color: string is newly visible to the model\n/);
      expect(read("watched/packs/watched/egress_map.txt")).toMatch(/\+ color\b/);
      writeFileSync(join(dir, "specs/pets.json"), "{ not json");
      await seen(/specs\/pets\.json changed: sluice: SPEC_INVALID: .*\n {2}still watching\n/);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(out).toMatch(/stopped \(SIGINT\)\n$/);
    } finally {
      clearTimeout(deadline);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
