/**
 * Issue 40, first item: an API that repeats its two apiKey credentials (a client id and a
 * secret, also declared as header security schemes) in its request bodies. Flattened bodies
 * already had them lifted out and filled from the credential; a body that stays one `body`
 * argument (open object keywords, `allOf`, unions), a nested member or a union branch showed
 * them to the model (`+ body.client_id`). The spec below is written fresh for the shape: every
 * place a body member can sit, once each.
 */
import { describe, expect, it } from "vitest";
import { definePack, egressMap, formatEgressMap, isSluiceError, type PackIR, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "../src/index.ts";

const CANARY = "CANARY_cred_member_51d";
const ok = { "200": { description: "ok" } };
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

const spec = {
  openapi: "3.0.3",
  info: { title: "ledger", version: "1" },
  servers: [{ url: "https://api.ledger.test" }],
  components: {
    securitySchemes: {
      clientId: { type: "apiKey", in: "header", name: "LEDGER-CLIENT-ID" },
      secret: { type: "apiKey", in: "header", name: "LEDGER-SECRET" },
    },
    schemas: {
      Credentials: { type: "object", properties: { client_id: { type: "string" }, secret: { type: "string" } }, required: ["client_id", "secret"] },
      Page: { type: "object", properties: { cursor: { type: "string" }, secret: { type: "string" } } },
    },
  },
  security: [{ clientId: [], secret: [] }],
  paths: {
    // Flattened: lifted out and filled from the credential (as before).
    "/flat": { post: { operationId: "flat", requestBody: json({ type: "object", properties: { client_id: { type: "string" }, secret: { type: "string" }, amount: { type: "integer" } }, required: ["client_id", "secret", "amount"] }), responses: ok } },
    // Open object keywords keep the body whole.
    "/open": {
      post: {
        operationId: "open",
        requestBody: json({ type: "object", properties: { client_id: { type: "string" }, secret: { type: "string" }, note: { type: "string" } }, required: ["client_id", "secret"], additionalProperties: true }),
        responses: ok,
      },
    },
    // allOf of a shared definition: the members sit in the definition.
    "/composed": {
      post: { operationId: "composed", requestBody: json({ allOf: [{ $ref: "#/components/schemas/Credentials" }, { type: "object", properties: { account: { type: "string" } } }] }), responses: ok },
    },
    // A nested member, and one inside array items.
    "/nested": {
      post: {
        operationId: "nested",
        requestBody: json({
          type: "object",
          properties: { options: { type: "object", properties: { secret: { type: "string" }, verbose: { type: "boolean" } }, additionalProperties: true }, pages: { type: "array", items: { $ref: "#/components/schemas/Page" } } },
          additionalProperties: { type: "string" },
        }),
        responses: ok,
      },
    },
    // Every union branch, a bare `required` branch included.
    "/union": {
      post: {
        operationId: "union",
        requestBody: json({
          oneOf: [
            { type: "object", properties: { kind: { enum: ["a"] }, secret: { type: "string" } }, required: ["kind", "secret"] },
            { type: "object", properties: { kind: { enum: ["b"] }, client_id: { type: "string" }, amount: { type: "integer" } }, required: ["kind"] },
          ],
          anyOf: [{ required: ["secret"] }, { required: ["kind"] }],
        }),
        responses: ok,
      },
    },
  },
};

function packOf(ir: PackIR): Tool<object>[] {
  return [...definePack(ir).tools];
}

const build = () => buildOpenAPIPackIR(spec, { name: "ledger", file: "ledger.json", sha256: "0".repeat(64) }, { detectCredentialParameters: true });
const credentials = { clientId: { token: "real-client" }, secret: { token: "real-secret" } };

function tool(name: string): Tool<object> {
  return packOf(build()).find((t) => t.name === name)!;
}

/** Every `properties` key of a schema, at any depth, $defs included. */
function memberKeys(schema: unknown, out = new Set<string>()): Set<string> {
  if (typeof schema !== "object" || schema === null) return out;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && typeof value === "object" && value !== null) for (const member of Object.keys(value)) out.add(member);
    memberKeys(value, out);
  }
  return out;
}

describe("credential members of bodies", () => {
  it("no tool's schema offers client_id or secret anywhere; each is withheld with reason credential", () => {
    const tools = packOf(build());
    for (const t of tools) {
      const keys = memberKeys(t.inputSchema);
      expect(keys.has("client_id") || keys.has("secret"), t.name).toBe(false);
    }
    const withheld = (name: string) => tools.find((t) => t.name === name)!.withheld.filter((w) => w.reason === "credential").map((w) => w.path).sort();
    expect(withheld("flat")).toEqual(["client_id", "secret"]);
    expect(withheld("open")).toEqual(["body.client_id", "body.secret"]);
    expect(withheld("nested")).toEqual(["Page.secret", "body.options.secret"]);
    expect(withheld("composed")).toEqual(["Credentials.client_id", "Credentials.secret"]);
    expect(withheld("union")).toEqual(["body.client_id", "body.secret"]);
    const ir = build();
    // Members of shared definitions are withheld by type path, wherever the type is reached (`body.pages[].secret` here).
    expect(ir.withheldMembers?.["Credentials"]).toEqual([
      { path: "Credentials.client_id", reason: "credential" },
      { path: "Credentials.secret", reason: "credential" },
    ]);
    expect(ir.withheldMembers?.["Page"]).toEqual([{ path: "Page.secret", reason: "credential" }]);
    // A withheld member is required nowhere: the union's bare branch and the definition's list lose it too.
    expect(JSON.stringify(ir)).not.toMatch(/"required":\[[^\]]*"(?:secret|client_id)"/);
  });

  it("the egress map lists them withheld, with the reason, and never visible", () => {
    const text = formatEgressMap(egressMap(packOf(build())));
    expect(text).not.toMatch(/\+ [^\n]*\b(?:client_id|secret)\b/);
    for (const line of ["- body.client_id: credential", "- body.secret: credential", "- body.options.secret: credential"]) expect(text).toContain(line);
    expect(text).toMatch(/- (?:Credentials\.)?client_id: credential/);
  });

  it.each([
    ["open", { body: { client_id: CANARY, note: "n" } }],
    ["open", { body: { secret: CANARY } }],
    ["composed", { body: { client_id: CANARY, account: "a" } }],
    ["nested", { body: { options: { secret: CANARY } } }],
    ["nested", { body: { pages: [{ cursor: "c", secret: CANARY }] } }],
    ["union", { body: { kind: "a", secret: CANARY } }],
    ["union", { body: { kind: "b", client_id: CANARY } }],
  ])("%s: screening refuses %j (EGRESS_DENIED) and the request never carries it", async (name, given) => {
    const t = tool(name);
    expect(t.check(given).map((issue) => issue.code)).toContain("withheld");
    await expect(t.request(given, { credentials })).rejects.toSatisfy((error: unknown) => isSluiceError(error) && error.code === "EGRESS_DENIED");
    // Screening off, the request side refuses it on its own.
    await expect(withoutGuard("withheldScreening", () => t.request(given, { credentials }))).rejects.toSatisfy((error: unknown) => isSluiceError(error) && error.code === "EGRESS_DENIED");
  });

  it("a call without them is valid and authenticated by the headers; the flattened tool's body is filled from the credential", async () => {
    const open = await tool("open").request({ body: { note: "n" } }, { credentials, revealCredentials: true });
    expect(open.headers).toMatchObject({ "ledger-client-id": "real-client", "ledger-secret": "real-secret" });
    expect(JSON.parse(String(open.body))).toEqual({ note: "n" });
    expect(tool("composed").check({ body: { account: "a" } })).toEqual([]);
    expect(tool("union").check({ body: { kind: "a" } })).toEqual([]);
    const flat = await tool("flat").request({ amount: 1 }, { credentials, revealCredentials: true });
    expect(JSON.parse(String(flat.body))).toEqual({ client_id: "real-client", secret: "real-secret", amount: 1 });
  });

  it("guard credentialMembers: off, the whole bodies offer them to the model and the map shows them visible", async () => {
    const ir = await withoutGuard("credentialMembers", () => build());
    const text = formatEgressMap(egressMap(packOf(ir)));
    expect(text).toContain("+ body.client_id");
    expect(text).toContain("+ body.secret");
    const open = packOf(ir).find((t) => t.name === "open")!;
    expect(open.check({ body: { client_id: CANARY, secret: CANARY } })).toEqual([]);
    expect(String((await open.request({ body: { client_id: CANARY, secret: CANARY } }, { credentials })).body)).toContain(CANARY);
  });

  it("explicit credentialArguments reach nested members too, without detection", () => {
    const ir = buildOpenAPIPackIR(spec, { name: "ledger", file: "ledger.json", sha256: "0".repeat(64) }, { credentialParameters: { secret: "secret" } });
    const nested = ir.tools.find((t) => t.name === "nested")!;
    expect(nested.withheld?.filter((w) => w.reason === "credential").map((w) => w.path).sort()).toEqual(["body.options.secret"]);
    expect(ir.withheldMembers?.["Page"]).toEqual([{ path: "Page.secret", reason: "credential" }]);
    expect(memberKeys(nested.parameters.properties).has("client_id")).toBe(false);
    expect(memberKeys(ir.tools.find((t) => t.name === "open")!.parameters.properties).has("client_id")).toBe(true);
  });
});
