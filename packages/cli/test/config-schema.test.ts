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
      pagination: { "list_*": { style: "link", arg: "cursor" }, items_page: { style: "cursor", arg: "cursor", cursor: "data.items_page.cursor" } },
      allowOutside: true,
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

  /**
   * The same configs fed to both. Each hostile one is a valid pack with one thing wrong, so
   * the rule refused is that thing. Those the schema cannot express are listed apart and
   * asserted as accepted by it: a rule the schema learns moves from that list to the other.
   */
  describe("agrees with validateConfig on hostile configs", () => {
    const spec = { name: "a", spec: "a.yaml", out: "packs/a" };
    const stdio = { name: "m", out: "packs/m", mcp: { command: "node", args: ["server.mjs"] } };
    const http = { name: "h", out: "packs/h", mcp: { url: "https://mcp.example.com/mcp" } };
    const one = (pack: Record<string, unknown>) => ({ packs: [pack] });
    const refused: Array<[string, unknown]> = [
      ["a config that is not an object", [spec]],
      ["no packs", {}],
      ["an empty packs array", { packs: [] }],
      ["an unknown top-level key", { packs: [spec], pack: [] }],
      ["an empty $schema", { $schema: "", packs: [spec] }],
      ["a pack that is a string", { packs: ["a"] }],
      ["a misspelt pack key", one({ ...spec, readonly: true })],
      ["a pack without name", one({ spec: "a.yaml", out: "packs/a" })],
      ["a pack without out", one({ spec: "a.yaml", name: "a" })],
      ["a name in capitals", one({ ...spec, name: "Shop" })],
      ["a name starting with a digit", one({ ...spec, name: "9lives" })],
      ["a name with two dashes in a row", one({ ...spec, name: "a--b" })],
      ["a name ending in a dash", one({ ...spec, name: "a-" })],
      ["a name with a dot", one({ ...spec, name: "a.b" })],
      ["a name of 65 characters", one({ ...spec, name: `a${"b".repeat(64)}` })],
      ["an empty spec", one({ ...spec, spec: "" })],
      ["a spec holding a NUL", one({ ...spec, spec: "a\u0000.yaml" })],
      ["an out holding a NUL", one({ ...spec, out: "packs/a\u0000b" })],
      ["an unknown kind", one({ ...spec, kind: "rest" })],
      ["readOnly as a string", one({ ...spec, readOnly: "yes" })],
      ["detectCredentialArguments as a string", one({ ...spec, detectCredentialArguments: "no" })],
      ["allowOutside as a string", one({ ...spec, allowOutside: "yes" })],
      ["an unknown responses value", one({ ...spec, responses: "none" })],
      ["include as an array", one({ ...spec, include: ["x"] })],
      ["a misspelt include key", one({ ...spec, include: { tag: ["x"] } })],
      ["include.tags as a string", one({ ...spec, include: { tags: "x" } })],
      ["an empty include.operations entry", one({ ...spec, include: { operations: [""] } })],
      ["include.paths with a misspelt method", one({ ...spec, include: { paths: ["DELTE /pets"] } })],
      ["include.paths neither a path nor a method and a path", one({ ...spec, include: { paths: ["pets/**"] } })],
      ["include.paths with a method and no path", one({ ...spec, include: { paths: ["GET"] } })],
      ["exclude.paths with a word that is no method", one({ ...spec, exclude: { paths: ["FETCH /pets"] } })],
      ["tools as an array", one({ ...spec, tools: ["t"] })],
      ["a tool choice that is a string", one({ ...spec, tools: { t: "u" } })],
      ["an empty tool choice", one({ ...spec, tools: { t: {} } })],
      ["a tool name with a space", one({ ...spec, tools: { t: { name: "a b" } } })],
      ["a tool name of 65 characters", one({ ...spec, tools: { t: { name: "t".repeat(65) } } })],
      ["a blank tool description", one({ ...spec, tools: { t: { description: " \n\t" } } })],
      ["a misspelt tool choice key", one({ ...spec, tools: { t: { nmae: "u" } } })],
      ["an empty withhold reason", one({ ...spec, withhold: { a: "" } })],
      ["a withhold reason that is a number", one({ ...spec, withhold: { a: 1 } })],
      ["an empty env variable name", one({ ...spec, env: { bearerAuth: "" } })],
      ["an empty externalRefs file", one({ ...spec, externalRefs: { "https://x/a.json": "" } })],
      ["an externalRefs file holding a NUL", one({ ...spec, externalRefs: { "https://x/a.json": "a\u0000.json" } })],
      ["an empty toolPrefix", one({ ...spec, toolPrefix: "" })],
      ["a toolPrefix with a space", one({ ...spec, toolPrefix: "a b" })],
      ["a toolPrefix of 21 characters", one({ ...spec, toolPrefix: "p".repeat(21) })],
      ["an authHeader with a space", one({ ...spec, authHeader: "X Key" })],
      ["an authHeader with a colon", one({ ...spec, authHeader: "X-Key:" })],
      ["both spec and mcp", one({ ...spec, mcp: stdio.mcp })],
      ["neither spec nor mcp", one({ name: "a", out: "packs/a" })],
      ["an mcp source with neither command nor url", one({ ...stdio, mcp: {} })],
      ["an mcp source with both command and url", one({ ...stdio, mcp: { command: "node", url: "https://x" } })],
      ["an mcp url that is not http(s)", one({ ...http, mcp: { url: "ftp://mcp.example.com" } })],
      ["an mcp url without a scheme", one({ ...http, mcp: { url: "mcp.example.com/mcp" } })],
      ["headers on a stdio server", one({ ...stdio, mcp: { command: "node", headers: { A: "b" } } })],
      ["env on an HTTP server", one({ ...http, mcp: { url: "https://x", env: { A: "b" } } })],
      ["mcp args as a string", one({ ...stdio, mcp: { command: "node", args: "server.mjs" } })],
      ["mcp args holding a number", one({ ...stdio, mcp: { command: "node", args: [1] } })],
      ["an empty mcp command", one({ ...stdio, mcp: { command: "" } })],
      ["an empty mcp cwd", one({ ...stdio, mcp: { command: "node", cwd: "" } })],
      ["an mcp cwd holding a NUL", one({ ...stdio, mcp: { command: "node", cwd: "a\u0000" } })],
      ["fromEnv naming no variable", one({ ...stdio, mcp: { command: "node", env: { A: { fromEnv: "1BAD" } } } })],
      ["fromEnv with a dash", one({ ...http, mcp: { url: "https://x", headers: { A: { fromEnv: "MY-TOKEN" } } } })],
      ["fromEnv beside another key", one({ ...stdio, mcp: { command: "node", env: { A: { fromEnv: "A", default: "x" } } } })],
      ["an env value that is a number", one({ ...stdio, mcp: { command: "node", env: { A: 1 } } })],
      ["a header name with a space", one({ ...http, mcp: { url: "https://x", headers: { "Bad Header": "v" } } })],
      ["a header name with a colon", one({ ...http, mcp: { url: "https://x", headers: { "X-A:": "v" } } })],
      ["an MCP pack of kind openapi", one({ ...stdio, kind: "openapi" })],
      ["an MCP pack with baseUrl", one({ ...stdio, baseUrl: "https://x" })],
      ["an MCP pack with env", one({ ...http, env: { token: "T" } })],
      ["an MCP pack with credentialArguments", one({ ...http, credentialArguments: { a: "s" } })],
      ["kind mcp without an mcp source", one({ ...spec, kind: "mcp" })],
      ["a GraphQL pack with baseUrl", one({ ...spec, kind: "graphql", baseUrl: "https://x" })],
      ["a GraphQL pack with externalRefs", one({ ...spec, kind: "graphql", externalRefs: { a: "b.json" } })],
      ["an OpenAPI pack with endpoint", one({ ...spec, kind: "openapi", endpoint: "https://x/graphql" })],
      ["an OpenAPI pack with authHeader", one({ ...spec, kind: "openapi", authHeader: "X-Key" })],
    ];
    // What validateConfig refuses and a JSON schema cannot say: a rule between packs, or one that needs the config's folder.
    const beyondSchema: Array<[string, unknown]> = [
      ["two packs of one name", { packs: [spec, { ...spec, out: "packs/b" }] }],
      ["two packs writing to o and ./o", { packs: [{ ...spec, out: "o" }, { ...spec, name: "b", out: "./o" }] }],
      ["two packs writing to o and x/../o/", { packs: [{ ...spec, out: "o" }, { ...spec, name: "b", out: "x/../o/" }] }],
      ["an absolute out", one({ ...spec, out: "/tmp/sluice-elsewhere" })],
      ["an out that climbs out of the config's folder", one({ ...spec, out: "packs/../../elsewhere" })],
      ["a spec outside the config's folder", one({ ...spec, spec: "../specs/a.yaml" })],
      ["an externalRefs file outside the config's folder", one({ ...spec, externalRefs: { "https://x/a.json": "../a.json" } })],
    ];
    const accepted: Array<[string, unknown]> = [
      ["a spec pack", one(spec)],
      ["a stdio MCP pack", one(stdio)],
      ["an HTTP MCP pack", one(http)],
      ["methods in any case, a bare glob", one({ ...spec, include: { paths: ["get /pets", "Post /pets/**", "*", "/users/*"] } })],
      ["an empty server argument and empty literal values", one({ ...stdio, mcp: { command: "node", args: [""], env: { EMPTY: "" } } })],
      ["an upper-case URL scheme and a header from the environment", one({ ...http, mcp: { url: "HTTPS://mcp.example.com", headers: { "X-Api-Key": { fromEnv: "API_KEY" } } } })],
      ["a name of 64 characters", one({ ...spec, name: `a${"b".repeat(63)}` })],
      ["paths outside the folder with allowOutside", one({ ...spec, spec: "../specs/a.yaml", out: "/tmp/sluice-elsewhere", allowOutside: true })],
      ["an out written ./packs/a/", one({ ...spec, out: "./packs/a/" })],
      ["a GraphQL pack with endpoint and authHeader", one({ ...spec, kind: "graphql", endpoint: "https://x/graphql", authHeader: "X-Shopify-Access-Token" })],
      ["an MCP pack of kind mcp", one({ ...http, kind: "mcp" })],
    ];
    const byValidateConfig = (config: unknown) => {
      try {
        validateConfig(config, join(scratch, "sluice.config.json"));
        return "accepted";
      } catch (error) {
        return (error as { code?: string }).code === "CONFIG_INVALID" ? "refused" : `threw ${String(error)}`;
      }
    };

    it("holds at least the 39 kinds of hostile config the issue found", () => expect(refused.length + beyondSchema.length).toBeGreaterThanOrEqual(39));
    it.each(refused)("both refuse %s", (_, config) => {
      expect(byValidateConfig(config)).toBe("refused");
      expect(validate(config)).toBe(false);
    });
    it.each(beyondSchema)("validateConfig refuses %s, which the schema cannot express", (_, config) => {
      expect(byValidateConfig(config)).toBe("refused");
      expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    });
    it.each(accepted)("both accept %s", (_, config) => {
      expect(byValidateConfig(config)).toBe("accepted");
      expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    });
  });
});
