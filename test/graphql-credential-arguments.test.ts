/**
 * A GraphQL pack that hides a secret argument by config, on Shopify Storefront (issue 21,
 * item 7): `credentialArguments: { customerAccessToken: "customer" }` withholds the
 * argument (reason `credential`), keeps the variable in the document, and fills it at call
 * time from the `customer` credential (`SHOP_CUSTOMER`); `withhold` drops arguments and
 * input members like a projection. Calls go to a local GraphQL server on 127.0.0.1 that
 * parses and validates every document against the Storefront schema.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { printSchema } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFromEnv, credentialStatus, definePack, egressMap, formatEgressMap, generatedRuntime, Tool, type PackIR, type RuntimeFacts } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { loadGraphQLSchema } from "@sluice/generator-graphql";
import { createServer, ServedCatalog } from "@sluice/mcp";
import { buildPack, type PackJob } from "@sluice/pipeline";
import { runSluice } from "../packages/cli/test/support/run-in-process.ts";
import { validateConfig } from "@sluice/pipeline/config-check";
import { startGraphQLServer, type GraphQLServer } from "./support/servers/index.ts";

const SPEC = fileURLToPath(new URL("../../shared/specs/shopify-storefront/storefront.schema.json", import.meta.url));
const CUSTOMER_TOKEN = "cust-secret-0123456789abcdef";
const MODEL_TOKEN = "model-guess-token-987654321";

const JOB: PackJob = {
  name: "shop",
  spec: SPEC,
  out: "/nonexistent",
  regenerate: "",
  credentialArguments: { customerAccessToken: "customer", "CartBuyerIdentityInput.customerAccessToken": "customer" },
  withhold: { "CartInput.note": "internal", "Query.products.query": "projection" },
};

let ir: PackIR;
let facts: RuntimeFacts;
let warnings: string[];
let tools: readonly Tool<object>[];
let server: GraphQLServer;
let dir: string;
let endpoint: string;

beforeAll(async () => {
  const built = await buildPack(JOB, "0.0.0");
  ({ ir, facts } = built);
  warnings = built.report.warnings;
  // The test server takes SDL; the Storefront spec is an introspection result.
  dir = mkdtempSync(join(tmpdir(), "sluice-storefront-"));
  const sdl = join(dir, "storefront.graphql");
  writeFileSync(sdl, printSchema(loadGraphQLSchema(readFileSync(SPEC), { fileName: "storefront.schema.json" })));
  server = await startGraphQLServer({ sdlFile: sdl, listLength: 2 });
  endpoint = `${server.url}/graphql`;
  tools = definePack({ name: "shop", defs: ir.defs, withheldMembers: ir.withheldMembers ?? {}, tools: ir.tools, runtime: generatedRuntime(facts, { endpoint, env: {} }) }).tools;
});

afterAll(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string) => tools.find((t) => t.name === name)!;
const credentials = (env: Record<string, string> = { SHOP_CUSTOMER: CUSTOMER_TOKEN, SHOP_TOKEN: "storefront-public-token" }) => credentialsFromEnv(facts, env);
/** The GraphQL variables of the last request the server received. */
const lastVariables = () => (server.received.at(-1)!.json as { variables: Record<string, unknown> }).variables;
const lastQuery = () => (server.received.at(-1)!.json as { query: string }).query;
const mapOf = (name: string) => formatEgressMap(egressMap([tool(name)])).split("\n");

describe("the pack as generated", () => {
  it("withholds customerAccessToken as a credential in every tool that takes it, and the warning is gone", () => {
    const takers = ir.tools.filter((t) => t.binding.kind === "graphql" && Object.hasOwn(t.binding.variables, "customerAccessToken")).map((t) => t.name);
    expect(takers).toEqual([
      "customer",
      "customer_access_token_delete",
      "customer_access_token_renew",
      "customer_address_create",
      "customer_address_delete",
      "customer_address_update",
      "customer_default_address_update",
      "customer_update",
    ]);
    for (const name of takers) {
      expect(Object.keys(tool(name).inputSchema.properties as object)).not.toContain("customerAccessToken");
      expect((tool(name).inputSchema.required as string[] | undefined) ?? []).not.toContain("customerAccessToken");
      expect(mapOf(name)).toContain("  - customerAccessToken: credential");
      expect(mapOf(name).filter((line) => line.startsWith("  + customerAccessToken"))).toEqual([]);
    }
    // The one notice about response fields left out names a root field of that name; no warning is about the argument.
    expect(warnings.filter((w) => w.includes("customerAccessToken") && !w.startsWith("SECRET_OUTPUT_LEFT_OUT"))).toEqual([]);
    expect(facts.credentialArguments).toEqual({ "CartBuyerIdentityInput.customerAccessToken": "customer", customerAccessToken: "customer" });
    expect(facts.credentials).toEqual([
      { scheme: "token", type: "bearer", env: "SHOP_TOKEN" },
      { scheme: "customer", type: "bearer", env: "SHOP_CUSTOMER", argumentOnly: true },
    ]);
  });

  it("keeps the credential variable in the document, and drops a withheld argument's variable", () => {
    const binding = tool("customer_update").binding;
    if (binding.kind !== "graphql") throw new Error("not graphql");
    expect(binding.document).toMatch(/^mutation CustomerUpdate\(\$customer: CustomerUpdateInput!, \$customerAccessToken: String!\) \{\n {2}customerUpdate\(customer: \$customer, customerAccessToken: \$customerAccessToken\) \{/);
    expect(binding.credentialVariables).toEqual({ customerAccessToken: "customer" });
    const products = tool("products_list").binding;
    if (products.kind !== "graphql") throw new Error("not graphql");
    expect(Object.keys(products.variables)).not.toContain("query");
    expect(products.document).not.toMatch(/\$query/);
    expect(mapOf("products_list")).toContain("  - query: projection");
  });

  it("withholds input members by type wherever the type is reached", () => {
    const cartCreate = mapOf("cart_create");
    expect(cartCreate).toContain("  - CartBuyerIdentityInput.customerAccessToken: credential");
    expect(cartCreate).toContain("  - CartInput.note: internal");
    expect(cartCreate.filter((line) => /^\s+\+ .*\b(customerAccessToken|note):/.test(line))).toEqual([]);
    expect(mapOf("cart_buyer_identity_update")).toContain("  - CartBuyerIdentityInput.customerAccessToken: credential");
    const binding = tool("cart_buyer_identity_update").binding;
    expect(binding.kind === "graphql" ? binding.credentialMembers : undefined).toEqual({ "CartBuyerIdentityInput.customerAccessToken": { scheme: "customer", required: false } });
  });

  it("an argument name alone leaves the input member of that name visible, and generate says which selector covers it", async () => {
    const bare = await buildPack({ ...JOB, credentialArguments: { customerAccessToken: "customer" }, withhold: {} }, "0.0.0");
    expect(bare.report.warnings.filter((w) => w.includes("customerAccessToken") && !w.startsWith("SECRET_OUTPUT_LEFT_OUT"))).toEqual([
      // Nested input members are walked for secrets too: the member is named by its selector.
      'argument "CartBuyerIdentityInput.customerAccessToken" (cart_buyer_identity_update, cart_create) looks like a secret and is shown to the model; withhold it with credentialArguments: { "CartBuyerIdentityInput.customerAccessToken": "<security scheme>" } or withhold: { "CartBuyerIdentityInput.customerAccessToken": "internal" }',
      'credential argument "customerAccessToken" is also an input member the model still sees (CartBuyerIdentityInput.customerAccessToken); withhold it too with credentialArguments: { "CartBuyerIdentityInput.customerAccessToken": "customer" }',
    ]);
    expect(bare.report.credentialArguments).toEqual({ customerAccessToken: "customer" });
  });

  it("is byte-identical when built again", async () => {
    const again = await buildPack(JOB, "0.0.0");
    expect(again.generated.map((file) => file.text)).toEqual((await buildPack(JOB, "0.0.0")).generated.map((file) => file.text));
    expect(JSON.stringify(again.ir)).toBe(JSON.stringify(ir));
  });
});

describe("calls against a local Storefront server", () => {
  it("sends the credential in the variables, never a value of the model's", async () => {
    const before = server.received.length;
    await tool("customer").call({}, { credentials: credentials() });
    expect(server.received.length).toBe(before + 1);
    expect(lastVariables()).toEqual({ customerAccessToken: CUSTOMER_TOKEN });
    expect(lastQuery()).toMatch(/query Customer\(\$customerAccessToken: String!\)/);
    expect(server.errors).toEqual([]);
    // The storefront token is the bearer token; the customer's never goes into a header.
    const headers = server.received.at(-1)!.headers;
    expect(headers["authorization"]).toBe("Bearer storefront-public-token");
    expect(JSON.stringify(headers)).not.toContain(CUSTOMER_TOKEN);
  });

  it("refuses the model's attempt to send it with EGRESS_DENIED, before anything is sent", async () => {
    const before = server.received.length;
    await expect(tool("customer").call({ customerAccessToken: MODEL_TOKEN }, { credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    await expect(tool("customer_update").call({ customer: { firstName: "A" }, customerAccessToken: MODEL_TOKEN }, { credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    await expect(tool("cart_create").call({ input: { buyerIdentity: { customerAccessToken: MODEL_TOKEN } } }, { credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    await expect(tool("cart_create").call({ input: { note: "hi" } }, { credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    await expect(tool("products_list").call({ first: 1, query: "x" }, { credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    expect(server.received.length).toBe(before);
  });

  it("fills a credential member wherever a value of its type is sent, and nowhere else", async () => {
    await tool("cart_create").call({ input: { buyerIdentity: { email: "a@example.com" }, lines: [{ merchandiseId: "gid://shopify/ProductVariant/1", quantity: 1 }] } }, { credentials: credentials() });
    expect(lastVariables()).toEqual({
      input: { buyerIdentity: { email: "a@example.com", customerAccessToken: CUSTOMER_TOKEN }, lines: [{ merchandiseId: "gid://shopify/ProductVariant/1", quantity: 1 }] },
    });
    expect(server.errors).toEqual([]);
    // No buyer identity, nothing to fill; an optional member without a credential is left out.
    await tool("cart_create").call({ input: {} }, { credentials: credentials() });
    expect(lastVariables()).toEqual({ input: {} });
    await tool("cart_buyer_identity_update").call({ cartId: "gid://shopify/Cart/1", buyerIdentity: { email: "b@example.com" } }, { credentials: credentials({ SHOP_TOKEN: "t" }) });
    expect(lastVariables()).toEqual({ cartId: "gid://shopify/Cart/1", buyerIdentity: { email: "b@example.com" } });
  });

  it("a required credential variable without its credential is AUTH_MISSING naming the scheme, and nothing is sent", async () => {
    const before = server.received.length;
    const error = await tool("customer").call({}, { credentials: credentials({ SHOP_TOKEN: "t" }) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "AUTH_MISSING", schemes: ["customer"] });
    expect((error as Error).message).toMatch(/needs a token for customer \(sent as the GraphQL variable \$customerAccessToken\)/);
    expect(server.received.length).toBe(before);
  });

  it("request() shows the credential as [redacted], and nothing the call returns holds it", async () => {
    const request = await tool("customer").request({}, { credentials: credentials() });
    expect(String(request.body)).toContain('"customerAccessToken":"[redacted]"');
    expect(String(request.body)).not.toContain(CUSTOMER_TOKEN);
    const result = await tool("cart_create").invoke({ input: { buyerIdentity: { email: "a@example.com" } } }, { credentials: credentials() });
    expect(JSON.stringify({ output: result.output ?? null, body: result.body ?? null, next: result.nextPageArgs ?? null })).not.toContain(CUSTOMER_TOKEN);
  });

  it("whatever reaches the request builder, the wire carries the credential there and not the model's value (fails with the credentialVariables guard off)", async () => {
    // Screening refuses the model's value first; to see the fill's own guard, the same
    // bindings get schemas that invite any member, and both egress guards go off.
    const open = (name: string, inputSchema: Record<string, unknown>, typeWithheld: (type: string) => { path: string; reason: "credential" }[] = () => []) =>
      Tool.create({ name: `${name}_open`, description: "open copy", inputSchema, binding: tool(name).binding, withheld: tool(name).withheld.filter((w) => !w.path.includes(".")), typeWithheld });
    const customer = open("customer", { type: "object", properties: {}, additionalProperties: true });
    const cart = open(
      "cart_create",
      {
        type: "object",
        properties: { input: { $ref: "#/$defs/CartInput" } },
        $defs: { CartInput: { type: "object", properties: { buyerIdentity: { $ref: "#/$defs/CartBuyerIdentityInput" } } }, CartBuyerIdentityInput: { type: "object", properties: { email: { type: "string" } }, additionalProperties: true } },
      },
      (type) => (type === "CartBuyerIdentityInput" ? [{ path: "CartBuyerIdentityInput.customerAccessToken", reason: "credential" }] : []),
    );
    const attempt = async () => {
      await customer.call({ customerAccessToken: MODEL_TOKEN }, { baseUrl: endpoint, credentials: credentials() });
      const direct = lastVariables();
      await cart.call({ input: { buyerIdentity: { customerAccessToken: MODEL_TOKEN } } }, { baseUrl: endpoint, credentials: credentials({ SHOP_TOKEN: "t" }) });
      return { direct, member: lastVariables() };
    };
    // With the guards on, screening refuses the model's value even in an open object.
    await expect(customer.call({ customerAccessToken: MODEL_TOKEN }, { baseUrl: endpoint, credentials: credentials() })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    const unscreened = () => withoutGuard("withheldScreening", () => withoutGuard("requestFilter", attempt));
    const sent = await unscreened();
    expect(sent.direct).toEqual({ customerAccessToken: CUSTOMER_TOKEN });
    // No credential for the optional member: the model's value is removed, not passed on.
    expect(sent.member).toEqual({ input: { buyerIdentity: {} } });
    const unguarded = await withoutGuard("credentialVariables", unscreened);
    expect(unguarded.direct).toEqual({ customerAccessToken: MODEL_TOKEN });
    expect(unguarded.member).toEqual({ input: { buyerIdentity: { customerAccessToken: MODEL_TOKEN } } });
  });
});

describe("the model's token never reaches the wire (property, seeded)", () => {
  /** Valid arguments per tool; the property puts customerAccessToken (or a look-alike) into any object of them. */
  const BASES: Record<string, Record<string, unknown>> = {
    customer: {},
    customer_update: { customer: { firstName: "A", email: "a@example.com" } },
    cart_create: { input: { buyerIdentity: { email: "a@example.com", countryCode: "CA" }, lines: [{ merchandiseId: "gid://shopify/ProductVariant/1", quantity: 1 }, { merchandiseId: "gid://shopify/ProductVariant/2" }] } },
    cart_buyer_identity_update: { cartId: "gid://shopify/Cart/1", buyerIdentity: { phone: "+100" } },
  };
  const objectsOf = (value: unknown): Record<string, unknown>[] => {
    if (typeof value !== "object" || value === null) return [];
    const children = Array.isArray(value) ? value : Object.values(value);
    return [...(Array.isArray(value) ? [] : [value as Record<string, unknown>]), ...children.flatMap(objectsOf)];
  };
  /** Every value the wire holds under the key customerAccessToken, at any depth. */
  const sentTokens = (value: unknown): unknown[] =>
    typeof value !== "object" || value === null ? [] : Object.entries(value).flatMap(([key, child]) => [...(key === "customerAccessToken" ? [child] : []), ...sentTokens(child)]);

  it("an injected customerAccessToken is refused wherever it goes; what is sent there is always the credential", async () => {
    const injection = fc.record({
      tool: fc.constantFrom(...Object.keys(BASES)),
      at: fc.nat(),
      key: fc.constantFrom("customerAccessToken", "customerAccessToken", "CustomerAccessToken", "customer_access_token"),
      value: fc.oneof(fc.constant(MODEL_TOKEN), fc.string({ maxLength: 12 }), fc.constant(null), fc.array(fc.constant(MODEL_TOKEN), { maxLength: 2 }), fc.record({ token: fc.constant(MODEL_TOKEN) })),
    });
    const codes = { denied: 0, invalid: 0 };
    await fc.assert(
      fc.asyncProperty(injection, async ({ tool: name, at, key, value }) => {
        const base = BASES[name]!;
        const sent = await tool(name).request(base, { credentials: credentials(), revealCredentials: true });
        expect(sentTokens(JSON.parse(String(sent.body))).every((token) => token === CUSTOMER_TOKEN)).toBe(true);
        const args = structuredClone(base);
        const targets = [args, ...objectsOf(args).filter((o) => o !== args)];
        targets[at % targets.length]![key] = value;
        const refused = await tool(name).request(args, { credentials: credentials(), revealCredentials: true }).then(() => undefined, (error: unknown) => error);
        // Where it is withheld, EGRESS_DENIED; anywhere else it is no field at all.
        expect(refused).toMatchObject({ code: expect.stringMatching(/^(EGRESS_DENIED|INVALID_ARGUMENTS)$/) });
        codes[(refused as { code: string }).code === "EGRESS_DENIED" ? "denied" : "invalid"] += 1;
      }),
      { seed: 20261201, numRuns: 300 },
    );
    // The runs reached the withheld places, not only places where any key is unknown.
    expect(codes.denied).toBeGreaterThan(50);
  });
});

describe("serving", () => {
  it("names SHOP_CUSTOMER among the pack's variables, and AUTH_MISSING names it", async () => {
    expect(credentialStatus(facts, { SHOP_TOKEN: "t" })).toEqual({ set: ["SHOP_TOKEN"], missing: ["SHOP_CUSTOMER"], endpoint: { env: "SHOP_ENDPOINT", set: false } });
    expect(tool("customer").callSettings.credentialEnv).toEqual({ token: "SHOP_TOKEN", customer: "SHOP_CUSTOMER" });
    const catalog = new ServedCatalog([tool("customer")]);
    const mcp = createServer(catalog, { call: { env: { SHOP_TOKEN: "t" } } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    try {
      const before = server.received.length;
      const missing = (await client.callTool({ name: "customer", arguments: {} })) as CallToolResult;
      expect(missing.isError).toBe(true);
      expect((missing.content[0] as { text: string }).text).toMatch(/^AUTH_MISSING: customer needs a credential \(security scheme customer\).* sluice serve reads customer from SHOP_CUSTOMER: whoever runs the server sets it in its environment/);
      expect(server.received.length).toBe(before);
    } finally {
      await client.close();
      await mcp.close();
    }
    const served = createServer(catalog, { call: { env: { SHOP_TOKEN: "t", SHOP_CUSTOMER: CUSTOMER_TOKEN } } });
    const [c2, s2] = InMemoryTransport.createLinkedPair();
    await served.connect(s2);
    const second = new Client({ name: "test", version: "0" });
    await second.connect(c2);
    try {
      const ok = (await second.callTool({ name: "customer", arguments: {} })) as CallToolResult;
      expect(ok.isError).toBeFalsy();
      expect(lastVariables()).toEqual({ customerAccessToken: CUSTOMER_TOKEN });
      const denied = (await second.callTool({ name: "customer", arguments: { customerAccessToken: MODEL_TOKEN } })) as CallToolResult;
      expect((denied.content[0] as { text: string }).text).toMatch(/^EGRESS_DENIED: /);
    } finally {
      await second.close();
      await served.close();
    }
  });
});

describe("sluice generate with a config", () => {
  it("prints the credential's variable and what it fills, and the committed egress map shows the withheld lines", async () => {
    const project = mkdtempSync(join(tmpdir(), "sluice-shop-"));
    try {
      mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
      symlinkSync(fileURLToPath(new URL("../packages/core", import.meta.url)), join(project, "node_modules/@sluice/core"), "dir");
      writeFileSync(join(project, "storefront.schema.json"), readFileSync(SPEC));
      const pack = { spec: "storefront.schema.json", name: "shop", out: "packs/shop", authHeader: "X-Shopify-Storefront-Access-Token", credentialArguments: JOB.credentialArguments, withhold: JOB.withhold };
      writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs: [pack] }));
      // A fresh project the worker never loaded: runSluice runs main in the worker, as the bin would.
      const run = await runSluice(["generate"], { cwd: project, env: { GITHUB_ACTIONS: "" }, timeout: 120_000 });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const lines = run.stdout.split("\n");
      expect(lines).toContain("  credential token (apiKey): SHOP_TOKEN");
      expect(lines).toContain("  credential customer (filled into arguments): SHOP_CUSTOMER");
      expect(lines).toContain("  withheld as credentials: CartBuyerIdentityInput.customerAccessToken (customer), customerAccessToken (customer)");
      expect(run.stdout).not.toMatch(/customerAccessToken.*looks like a secret/);
      const map = readFileSync(join(project, "packs/shop/egress_map.txt"), "utf8").split("\n");
      expect(map.filter((line) => /customerAccessToken/.test(line) && line.startsWith("  +"))).toEqual([]);
      expect(map.filter((line) => line === "  - customerAccessToken: credential")).toHaveLength(8);
      const again = await runSluice(["generate", "--check"], { cwd: project, env: { GITHUB_ACTIONS: "" }, timeout: 120_000 });
      expect(again.code).toBe(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe("the config", () => {
  it("takes credentialArguments for a GraphQL pack", () => {
    const config = validateConfig({ packs: [{ spec: "s.json", name: "shop", out: "packs/shop", kind: "graphql", credentialArguments: { customerAccessToken: "customer" } }] }, "sluice.config.json");
    expect(config.packs[0]!.credentialArguments).toEqual({ customerAccessToken: "customer" });
  });

  it.each([
    ["a misspelt argument", { credentialArguments: { customerAccesToken: "customer" } }, "UNKNOWN_SELECTOR", ["customerAccessToken"]],
    ["an argument path", { credentialArguments: { "buyerIdentity.customerAccessToken": "customer" } }, "UNKNOWN_SELECTOR", ["CartBuyerIdentityInput.customerAccessToken"]],
    ["a misspelt root field", { credentialArguments: { "Mutation.customerUpdat.customerAccessToken": "customer" } }, "UNKNOWN_SELECTOR", ["Mutation.customerUpdate.customerAccessToken", "Mutation.customerCreate", "Mutation.customerReset"]],
    ["a misspelt member", { withhold: { "CartInput.note_": "internal" } }, "UNKNOWN_SELECTOR", ["CartInput.note"]],
    ["a member that is no argument", { credentialArguments: { activationToken: "customer" } }, "UNKNOWN_SELECTOR", ["CustomerActivateInput.activationToken"]],
    ["a required argument withheld", { withhold: { customerAccessToken: "internal" } }, "CONFIG_INVALID", undefined],
    ["a required member withheld", { withhold: { "CartLineInput.merchandiseId": "internal" } }, "CONFIG_INVALID", undefined],
    ["one argument named twice", { credentialArguments: { customerAccessToken: "customer" }, withhold: { "Query.customer.customerAccessToken": "internal" } }, "CONFIG_INVALID", undefined],
    ["no scheme name", { credentialArguments: { customerAccessToken: "my scheme" } }, "CONFIG_INVALID", undefined],
  ] as const)("%s is a coded error, never a silent no-op", async (_name, config, code, candidates) => {
    const job: PackJob = { name: "shop", spec: SPEC, out: "/nonexistent", regenerate: "", ...config };
    const error = await buildPack(job, "0.0.0").catch((e: unknown) => e);
    expect(error).toMatchObject({ code });
    if (candidates !== undefined) expect((error as { candidates: string[] }).candidates).toEqual(candidates);
  });
});
