/**
 * The JSON schema of `sluice.config.json` is generated from config.ts's types
 * (support/config-schema.ts): the committed file is what the types give (so a field added
 * to config.ts and not to the schema fails here), it is shipped in @sluice/cli's package,
 * it agrees with validateConfig on which keys exist, and `$schema` is accepted.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import { validateConfig } from "@sluice/pipeline/config-check";
import { buildConfigSchema, SCHEMA_FILE } from "./support/config-schema.ts";

const CONFIG_TS = fileURLToPath(new URL("../../../generators/pipeline/src/config.ts", import.meta.url));
const PACKAGE = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8")) as { files: string[]; exports: Record<string, unknown> };
const committed = readFileSync(SCHEMA_FILE, "utf8");
const schema = JSON.parse(committed) as { properties: Record<string, unknown>; definitions: Record<string, { properties: Record<string, unknown> }> };
const scratch = mkdtempSync(join(tmpdir(), "sluice-config-schema-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

describe("config.schema.json", () => {
  it("is what config.ts's types give (regenerate with pnpm config-schema)", () => {
    expect(buildConfigSchema()).toBe(committed);
  });

  it("a field config.ts gains changes the schema, so the committed one no longer matches", () => {
    const edited = join(scratch, "config.ts");
    copyFileSync(CONFIG_TS, edited);
    const added = "  /** A new option. */\n  newOption?: boolean;\n  server?: { command: string; args?: string[] } | { url: string };";
    writeFileSync(edited, readFileSync(edited, "utf8").replace("export interface PackConfig {", `export interface PackConfig {\n${added}`));
    const grown = JSON.parse(buildConfigSchema(edited)) as typeof schema;
    expect(grown.definitions["PackConfig"]!.properties["newOption"]).toEqual({ description: "A new option.", type: "boolean" });
    // Inline object types and unions of them, as a source option would be declared.
    expect(grown.definitions["PackConfig"]!.properties["server"]).toEqual({
      anyOf: [
        { type: "object", properties: { command: { type: "string", minLength: 1 }, args: { type: "array", items: { type: "string", minLength: 1 } } }, required: ["command"], additionalProperties: false },
        { type: "object", properties: { url: { type: "string", minLength: 1 } }, required: ["url"], additionalProperties: false },
      ],
    });
    expect(buildConfigSchema(edited)).not.toBe(committed);
  });

  it("is shipped: in the package's files and exports as @sluice/cli/config.schema.json", () => {
    expect(PACKAGE.files).toContain("config.schema.json");
    expect(PACKAGE.exports["./config.schema.json"]).toBe("./config.schema.json");
  });

  it("and validateConfig know the same keys: every schema key passes validateConfig, and an unknown one fails both, with did-you-mean", () => {
    const base = { spec: "a.yaml", name: "a", out: "packs/a" };
    const samples: Record<string, unknown> = {
      kind: "openapi", include: { tags: ["t"], paths: ["GET /x/**"], operations: ["op"], tools: ["t_*"] }, exclude: { tools: ["x"] }, readOnly: true,
      tools: { t: { name: "u", description: "d", reformatters: { toon: true } } }, reformatters: { "path-fold": false }, withhold: { a: "internal" }, credentialArguments: { a: "s" }, detectCredentialArguments: false,
      baseUrl: "https://x", endpoint: "https://y", authHeader: "X-Key", env: { s: "S" }, toolPrefix: "p_", responses: "off", externalRefs: { "a.json": "b.json" },
    };
    const keys = Object.keys(schema.definitions["PackConfig"]!.properties);
    // mcp replaces spec (validateConfig takes exactly one of them), so its sample has no spec.
    const sources: Record<string, unknown> = { mcp: { command: "node", args: ["server.mjs"], env: { TOKEN: { fromEnv: "SERVER_TOKEN" } } } };
    expect(keys.filter((key) => !Object.hasOwn(samples, key) && !Object.hasOwn(base, key) && !Object.hasOwn(sources, key))).toEqual([]);
    for (const [key, value] of Object.entries(sources)) {
      const config = { packs: [{ name: "a", out: "packs/a", [key]: value }] };
      expect(() => validateConfig(config, "sluice.config.json")).not.toThrow();
      expect(validate(config), `${key}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    for (const key of Object.keys(samples)) {
      const config = { $schema: "./node_modules/@sluice/cli/config.schema.json", packs: [{ ...base, [key]: samples[key] }] };
      // kind-specific options are refused on the other kind by validateConfig, not by the schema; each alone is fine.
      expect(() => validateConfig(config, "sluice.config.json")).not.toThrow();
      expect(validate(config), `${key}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const misspelt = { packs: [{ ...base, readonly: true }] };
    expect(validate(misspelt)).toBe(false);
    expect(() => validateConfig(misspelt, "sluice.config.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", candidates: ["readOnly"] }));
    expect(() => validateConfig({ $shema: "x", packs: [base] }, "sluice.config.json")).toThrow(expect.objectContaining({ candidates: ["$schema"] }));
    expect(() => validateConfig({ packs: [{ ...base, tools: { t: { nmae: "u" } } }] }, "sluice.config.json")).toThrow(expect.objectContaining({ candidates: ["name"] }));
    expect(() => validateConfig({ packs: [{ ...base, include: { tool: ["x"] } }] }, "sluice.config.json")).toThrow(expect.objectContaining({ candidates: ["tools"] }));
  });

  describe("says that a pack has exactly one of spec and mcp, as validateConfig does", async () => {
    const { default: repository } = (await import("../../../sluice.config.ts")) as unknown as { default: { packs: Array<Record<string, unknown>> } };
    // This repository's own spec packs, and MCP packs as docs/mcp.md and docs/getting-started.md write them.
    const specPack = repository.packs[0]!;
    const stdioPack = { name: "fs", out: "packs/fs", mcp: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/notes"] } };
    const httpPack = { name: "remote", out: "packs/remote", mcp: { url: "https://mcp.example.com/mcp", headers: { Authorization: { fromEnv: "REMOTE_AUTH" } } }, readOnly: true };
    const { spec: _spec, ...specless } = specPack;
    const cases: Array<[string, { given: unknown; want: "valid" | "invalid" }]> = [
      ["this repository's config (spec packs only)", { given: repository, want: "valid" }],
      ["an MCP pack over stdio", { given: { packs: [stdioPack] }, want: "valid" }],
      ["an MCP pack over Streamable HTTP", { given: { packs: [httpPack] }, want: "valid" }],
      ["spec packs and MCP packs side by side", { given: { packs: [...repository.packs, stdioPack, httpPack] }, want: "valid" }],
      ["a pack with both spec and mcp", { given: { packs: [{ ...specPack, mcp: stdioPack.mcp }] }, want: "invalid" }],
      ["an MCP pack that also names a spec", { given: { packs: [{ ...httpPack, spec: "openapi.yaml" }] }, want: "invalid" }],
      ["a pack with neither", { given: { packs: [specless] }, want: "invalid" }],
      ["a good pack beside one with neither", { given: { packs: [stdioPack, { name: "b", out: "packs/b" }] }, want: "invalid" }],
    ];
    it.each(cases)("%s", (_, { given, want }) => {
      expect(validate(given), JSON.stringify(validate.errors)).toBe(want === "valid");
      if (want === "valid") expect(() => validateConfig(given, "sluice.config.json")).not.toThrow();
      else {
        // Refused by the rule itself, not by some other keyword of the same pack.
        expect(validate.errors?.filter((error) => error.keyword === "oneOf").map((error) => error.instancePath)).toEqual([expect.stringMatching(/^\/packs\/\d+$/)]);
        expect(() => validateConfig(given, "sluice.config.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(/give either spec or mcp, not both|needs spec \(a spec file\) or mcp/) }));
      }
    });
  });

  it("accepts this repository's config, and refuses what validateConfig refuses for its shape", async () => {
    const { default: config } = (await import("../../../sluice.config.ts")) as { default: unknown };
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [{ packs: [] }, { packs: [{ spec: "a", name: "a" }] }, { packs: [{ spec: "a", name: "a", out: "o", toolPrefix: "a b" }] }, { packs: [{ spec: "a", name: "a", out: "o", tools: { t: { name: "a b" } } }] }]) {
      expect(validate(bad)).toBe(false);
      expect(() => validateConfig(bad, "sluice.config.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});
