/**
 * The code API and the command are one pipeline: generatePack(config) and `sluice generate`
 * on the same config write the same files, byte for byte, for an OpenAPI, a GraphQL and an
 * MCP pack (the real filesystem server, listed over stdio by each) with config choices.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { generatePack, type SluiceConfig } from "@sluice/pipeline";
import { runInProcess } from "../packages/cli/test/support/run-in-process.ts";
import { serverBin } from "./support/mcp-pack.ts";

const SPECS = fileURLToPath(new URL("../../shared/specs/", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "sluice-generate-api-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "files"), { recursive: true });
  cpSync(join(SPECS, "petstore/swagger-petstore-3.0.yaml"), join(dir, "store.yaml"));
  writeFileSync(join(dir, "shop.graphql"), "type Query { product(id: ID!, note: String): String, products(first: Int): [String!]! }\ntype Mutation { productDelete(id: ID!): Boolean }\n");
  return dir;
}

/** Every file under `dir` but the CLI's stamp (a cache, not output), by path. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === ".sluice-stamp.json" || entry.name === "sluice.config.json") continue;
    const path = join(entry.parentPath, entry.name);
    out.set(relative(dir, path), readFileSync(path, "latin1"));
  }
  return out;
}

it("generatePack(config) writes what sluice generate writes", async () => {
  const config: SluiceConfig = {
    packs: [
      { name: "store", spec: "store.yaml", out: "packs/store", readOnly: true, exclude: { tools: ["logout_user"] }, tools: { get_pet_by_id: { name: "pet", description: "One pet." } }, toolPrefix: "ps_" },
      { name: "shop", spec: "shop.graphql", out: "packs/shop", readOnly: true, withhold: { note: "internal" }, tools: { products: { description: "Products." } } },
      { name: "files", out: "packs/files", mcp: { command: process.execPath, args: [serverBin("server-filesystem"), "files"] }, readOnly: true, exclude: { tools: ["list_directory_with_sizes"] }, withhold: { tail: "internal" }, tools: { read_text_file: { name: "read_text" } } },
    ],
  };
  const byApi = project("api");
  const results = await generatePack(config, { cwd: byApi, configFile: "sluice.config.json" });
  expect(results.map((result) => [result.report.name, result.report.kind])).toEqual([
    ["store", "openapi"],
    ["shop", "graphql"],
    ["files", "mcp"],
  ]);

  const byCli = project("cli");
  writeFileSync(join(byCli, "sluice.config.json"), JSON.stringify(config));
  const run = await runInProcess(["generate"], { cwd: byCli, env: { GITHUB_ACTIONS: "" } });
  expect(run.code, run.stderr).toBe(0);

  const api = files(byApi);
  const cli = files(byCli);
  expect([...api.keys()].sort()).toEqual([...cli.keys()].sort());
  for (const [path, text] of api) expect(text, path).toBe(cli.get(path));
  // The choices reached every kind: the map names the rename and what readOnly left out.
  expect(api.get("packs/files/egress_map.txt")).toContain("#   renamed read_text_file -> read_text\n");
  expect(api.get("packs/files/egress_map.txt")).not.toContain("tool write_file\n");
  expect(api.get("packs/store/egress_map.txt")).toContain("#   renamed ps_get_pet_by_id -> pet\n");
}, 300_000);

it("generatePack checks the config as the command does: a misspelt choice is refused, never ignored", async () => {
  const dir = project("typo");
  const config = { packs: [{ name: "store", spec: "store.yaml", out: "packs/store", readonly: true }] } as unknown as SluiceConfig;
  await expect(generatePack(config, { cwd: dir })).rejects.toMatchObject({ code: "CONFIG_INVALID", candidates: ["readOnly"] });
  expect(readdirSync(dir)).not.toContain("packs");
});
