import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { definePack, generatedRuntime, relayPagination, type PackIR, type PackRuntime, type RuntimeFacts } from "@sluice/core";
import { emitRuntimeFactsSource, envVariableNames, looksSecret, upperSnake } from "@sluice/emit";
import { buildGraphQLPackIR, graphqlRuntimeFacts, loadGraphQLSchema } from "../src/index.ts";

const specs = new URL("../../../../shared/specs/", import.meta.url);
const packsDir = new URL("../../../packs/", import.meta.url);

/**
 * Built once per name and schema text: the vendored linear and github packs' schemas are byte
 * for byte the corpus's, so the test of their hand-written runtimes reuses the corpus build
 * (a second build of Linear's schema is about 1.5 s of CPU).
 */
const built = new Map<string, PackIR>();
function build(file: string, name: string, base = specs): PackIR {
  const bytes = readFileSync(new URL(file, base));
  const key = `${name} ${createHash("sha256").update(bytes).digest("hex")}`;
  let ir = built.get(key);
  if (ir === undefined) built.set(key, (ir = buildGraphQLPackIR(loadGraphQLSchema(bytes, { fileName: file }), { name, file, sha256: "0".repeat(64) })));
  return ir;
}

/** Every GraphQL schema of the shared corpus, with the counts the facts must show. */
const CORPUS: readonly { name: string; file: string; connections: number; secretLooking: number }[] = [
  // secretLooking counts top-level arguments and, since nested members are walked, `Type.member` once per tool reaching it.
  { name: "linear", file: "linear/schema.graphql", connections: 56, secretLooking: 12 },
  { name: "github", file: "github-graphql/schema.graphql", connections: 5, secretLooking: 3 },
  { name: "shopify-admin", file: "shopify-admin/admin_schema_2025-01.json.gz", connections: 89, secretLooking: 5 },
  { name: "shopify-storefront", file: "shopify-storefront/storefront.schema.json", connections: 9, secretLooking: 19 },
  { name: "saleor", file: "saleor/schema.graphql", connections: 37, secretLooking: 41 },
];

describe("GraphQL runtime facts on the corpus", () => {
  it.each(CORPUS.map((entry) => [entry.name, entry] as const))("%s", (_name, entry) => {
    const ir = build(entry.file, entry.name);
    const facts = graphqlRuntimeFacts(ir);
    const prefix = upperSnake(entry.name);
    expect(facts.kind).toBe("graphql");
    expect(facts.endpoint).toEqual({ env: `${prefix}_ENDPOINT` });
    expect(facts.credentials).toEqual([{ scheme: "token", type: "bearer", env: `${prefix}_TOKEN` }]);
    expect(facts.server).toBeUndefined();
    expect(facts.credentialArguments).toEqual({});
    expect(Object.keys(facts.pagination)).toHaveLength(entry.connections);
    expect(facts.secretLooking).toHaveLength(entry.secretLooking);
    for (const [name, pagination] of Object.entries(facts.pagination)) {
      const tool = ir.tools.find((t) => t.name === name)!;
      expect(pagination).toEqual(relayPagination(tool.binding));
      expect(Object.hasOwn(tool.parameters.properties, pagination.arg)).toBe(true);
    }
    // Every tool whose root field is a Relay connection with a visible `after` is declared.
    const connections = ir.tools.filter((t) => relayPagination(t.binding) !== undefined);
    expect(connections).toHaveLength(entry.connections);
    // The runtime built from the facts is accepted, reads the endpoint from the environment and pages the same tools.
    const env = { [`${prefix}_ENDPOINT`]: "http://127.0.0.1:9/graphql" };
    const pack = definePack({ name: ir.name, defs: ir.defs, tools: ir.tools, runtime: generatedRuntime(facts, { env }) });
    expect(pack.tools.filter((t) => t.pagination !== undefined).map((t) => t.name)).toEqual(Object.keys(facts.pagination));
    expect(emitRuntimeFactsSource(graphqlRuntimeFacts(ir), "")).toBe(emitRuntimeFactsSource(facts, ""));
  });

  it("Linear: issues pages with after / pageInfo, tokens in arguments are warned about", () => {
    const facts = graphqlRuntimeFacts(build("linear/schema.graphql", "linear"));
    expect(facts.pagination["issues_list"]).toEqual({
      style: "cursor",
      arg: "after",
      cursor: "data.issues.pageInfo.endCursor",
      hasMore: "data.issues.pageInfo.hasNextPage",
      items: "data.issues.nodes",
    });
    const named = facts.secretLooking.map((s) => s.argument);
    expect(named.filter((argument) => !argument.includes(".")).sort()).toEqual(["accessToken", "accessToken", "apiKey"]);
    // Nested input members, by the `Type.member` selector withhold takes; a boolean (`JiraUpdateInput.noSecret`) is none.
    expect(named).toEqual(expect.arrayContaining(["WebhookCreateInput.secret", "JiraUpdateInput.webhookSecret", "AirbyteConfigurationInput.apiKey"]));
    expect(named).not.toContain("JiraUpdateInput.noSecret");
  });

  it.each([
    ["linear", "schema.graphql"],
    ["github", "schema.graphql"],
  ])("agrees with the vendored %s pack's hand-written runtime on every tool", async (name, spec) => {
    const ir = build(`${name}/spec/${spec}`, name, packsDir);
    const facts = graphqlRuntimeFacts(ir);
    const { runtime } = (await import(fileURLToPath(new URL(`${name}/src/runtime.ts`, packsDir)))) as { runtime: PackRuntime };
    const hand = Object.fromEntries(ir.tools.flatMap((t) => {
      const pagination = runtime.forTool?.(t.name, t.binding)?.pagination;
      return pagination === undefined ? [] : [[t.name, pagination]];
    }));
    console.log(`${name}: hand-written ${Object.keys(hand).length}, detected ${Object.keys(facts.pagination).length}`);
    expect(facts.pagination).toEqual(hand);
  });
});

describe("environment variable names", () => {
  it.each([
    ["scheme in camel case", "plaid", ["clientId"], ["PLAID_CLIENT_ID"]],
    ["no doubled pack name", "plaid", ["PlaidSecret"], ["PLAID_SECRET"]],
    ["pack name with a dash", "github-rest", ["bearer"], ["GITHUB_REST_BEARER"]],
    ["OAuth is one word", "jira", ["OAuth2"], ["JIRA_OAUTH2"]],
    ["acronyms", "acme", ["APIKey"], ["ACME_API_KEY"]],
    ["collisions get a suffix, in scheme-name order", "acme", ["api_key", "apiKey", "api-key"], ["ACME_API_KEY_3", "ACME_API_KEY_2", "ACME_API_KEY"]],
    ["a scheme named like the pack", "acme", ["acme"], ["ACME"]],
    ["leading digit", "9lives", ["key"], ["_9LIVES_KEY"]],
  ])("%s", (_label, pack, schemes, want) => {
    const names = envVariableNames(pack, schemes);
    expect(schemes.map((s) => names.get(s))).toEqual(want);
  });

  it("a reserved name (the GraphQL endpoint's) is never reused", () => {
    expect(envVariableNames("acme", ["endpoint"], ["ACME_ENDPOINT"]).get("endpoint")).toBe("ACME_ENDPOINT_2");
  });

  it("same set of schemes, same names, whatever their order", () => {
    const a = envVariableNames("acme", ["x-key", "X_KEY", "token"]);
    const b = envVariableNames("acme", ["token", "X_KEY", "x-key"]);
    expect([...a].sort()).toEqual([...b].sort());
  });
});

describe("secret-looking names", () => {
  it.each([
    ["api_key", true],
    ["apiKey", true],
    ["access_token", true],
    ["client_secret", true],
    ["webhook_secret", true],
    ["new_password", true],
    ["token", true],
    ["page_token", false],
    ["pageToken", false],
    ["sync_token", false],
    ["secret_name", false],
    ["token_id", false],
    ["authorization", false],
    ["keyword", false],
  ])("%s -> %s", (name, want) => {
    expect(looksSecret(name)).toBe(want);
  });
});

describe("generatedRuntime for a GraphQL pack", () => {
  const facts: RuntimeFacts = {
    kind: "graphql",
    endpoint: { env: "ACME_ENDPOINT" },
    credentials: [{ scheme: "token", type: "bearer", env: "ACME_TOKEN" }],
    pagination: {},
    credentialArguments: {},
    secretLooking: [],
  };
  it("endpoint: the option wins over the variable; unset or empty leaves it out", () => {
    expect(generatedRuntime(facts, { env: { ACME_ENDPOINT: "https://a.example/graphql" } }).endpoint).toBe("https://a.example/graphql");
    expect(generatedRuntime(facts, { env: { ACME_ENDPOINT: "https://a.example/graphql" }, endpoint: "https://b.example/graphql" }).endpoint).toBe("https://b.example/graphql");
    expect(generatedRuntime(facts, { env: { ACME_ENDPOINT: "" } }).endpoint).toBeUndefined();
    expect(generatedRuntime(facts, { env: {} }).auth).toEqual([[{ scheme: "token", type: "bearer" }]]);
  });
});
