/**
 * OAuth 2 in a generated pack: the token endpoint comes from the spec's flows (OpenAPI 3
 * and Swagger 2.0), the client from `<PACK>_<SCHEME>_CLIENT_ID` / `_CLIENT_SECRET` /
 * `_REFRESH_TOKEN`, and a call fetches, caches and refreshes its token against a token
 * server on 127.0.0.1, in code (`credentialsFromEnv`) and under `sluice serve`'s credential
 * lookup alike.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsFromEnv, definePack, generatedRuntime, type RuntimeFacts, type Tool } from "@sluice/core";
import { toolAuthFromEnv } from "@sluice/mcp";
import { buildOpenAPIPackIR, loadDocument, openapiRuntimeFacts } from "@sluice/generator-openapi";
import { startOAuth2Api, startOAuth2TokenServer, type OAuth2TokenServer } from "./support/servers/oauth2.ts";
import type { LocalServer } from "./support/servers/index.ts";

let tokens: OAuth2TokenServer;
let api: LocalServer;

beforeAll(async () => {
  tokens = await startOAuth2TokenServer({ "client-a": "secret-a-0123456789", "client-b": "secret-b-0123456789" });
  api = await startOAuth2Api(tokens);
});
afterAll(async () => Promise.all([tokens?.close(), api?.close()]));

function pack(document: object): { facts: RuntimeFacts; tools: Tool<object>[] } {
  const ir = buildOpenAPIPackIR(document, { name: "acme", file: "acme.json", sha256: "0".repeat(64) });
  const facts = openapiRuntimeFacts(document, ir);
  return { facts, tools: [...definePack({ ...ir, runtime: generatedRuntime(facts, { env: {} }) }).tools] as Tool<object>[] };
}

const openapi3 = (tokenUrl: string) => ({
  openapi: "3.0.3",
  info: { title: "Acme", version: "1" },
  servers: [{ url: "https://api.acme.example" }],
  components: { securitySchemes: { oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl, scopes: { read: "read" } }, implicit: { authorizationUrl: "https://acme.example/auth", scopes: {} } } } } },
  security: [{ oauth: ["read"] }],
  paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } } },
});

describe("the token endpoint from the spec", () => {
  it("OpenAPI 3: flows.clientCredentials.tokenUrl, with the client's variables named by the rule", () => {
    const { facts } = pack(openapi3("https://auth.acme.example/token"));
    expect(facts.credentials).toEqual([
      { scheme: "oauth", type: "oauth2", env: "ACME_OAUTH", oauth2: { tokenUrl: "https://auth.acme.example/token", clientIdEnv: "ACME_OAUTH_CLIENT_ID", clientSecretEnv: "ACME_OAUTH_CLIENT_SECRET", refreshTokenEnv: "ACME_OAUTH_REFRESH_TOKEN" } },
    ]);
  });

  it("Swagger 2.0: the scheme's tokenUrl (flow application)", () => {
    const doc = {
      swagger: "2.0",
      info: { title: "Acme", version: "1" },
      host: "api.acme.example",
      securityDefinitions: { oauth: { type: "oauth2", flow: "application", tokenUrl: "https://auth.acme.example/token", scopes: {} } },
      security: [{ oauth: [] }],
      paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
    };
    expect(pack(doc).facts.credentials[0]?.oauth2?.tokenUrl).toBe("https://auth.acme.example/token");
  });

  it.each([
    ["spotify.yaml (authorizationCode)", "test/fixtures/outside/spotify.yaml", "https://accounts.spotify.com/api/token"],
  ])("a real spec: %s", (_label, file, tokenUrl) => {
    const document = loadDocument(readFileSync(new URL(`../${file}`, import.meta.url)), file) as object;
    const ir = buildOpenAPIPackIR(document, { name: "real", file, sha256: "0".repeat(64) });
    const oauth = openapiRuntimeFacts(document, ir).credentials.filter((credential) => credential.oauth2 !== undefined);
    expect(oauth.map((credential) => credential.oauth2!.tokenUrl)).toEqual([tokenUrl]);
  });

  it("an implicit-only flow or a relative tokenUrl names no endpoint", () => {
    const implicit = openapi3("x");
    (implicit.components.securitySchemes.oauth as { flows: object }).flows = { implicit: { authorizationUrl: "https://acme.example/auth", scopes: {} } };
    expect(pack(implicit).facts.credentials[0]?.oauth2).toBeUndefined();
    expect(pack(openapi3("/oauth/token")).facts.credentials[0]?.oauth2).toBeUndefined();
  });
});

describe("calls get a fresh token", () => {
  it("credentialsFromEnv: client credentials from the variables, one token for many calls", async () => {
    const { facts, tools } = pack(openapi3(tokens.tokenUrl));
    const env = { ACME_OAUTH_CLIENT_ID: "client-a", ACME_OAUTH_CLIENT_SECRET: "secret-a-0123456789" };
    const before = tokens.issued.length;
    for (let i = 0; i < 3; i++) {
      const result = await tools[0]!.invoke({}, { baseUrl: api.url, credentials: credentialsFromEnv(facts, env) });
      expect(result.output).toEqual({ client: "client-a", path: "/me" });
    }
    expect(tokens.issued.length - before).toBe(1);
  });

  it("a static token in <PACK>_<SCHEME> wins over the client", async () => {
    const { facts } = pack(openapi3(tokens.tokenUrl));
    expect(credentialsFromEnv(facts, { ACME_OAUTH: "static-token", ACME_OAUTH_CLIENT_ID: "client-a" })).toEqual({ oauth: { token: "static-token" } });
  });

  it("a refresh token makes it the refresh-token grant; the revoked token is replaced on the 401", async () => {
    const { facts, tools } = pack(openapi3(tokens.tokenUrl));
    tokens.refreshTokens.set("rt_seed_b_0123456789", "client-b");
    const env = { ACME_OAUTH_CLIENT_ID: "client-b", ACME_OAUTH_CLIENT_SECRET: "secret-b-0123456789", ACME_OAUTH_REFRESH_TOKEN: "rt_seed_b_0123456789" };
    const credentials = credentialsFromEnv(facts, env);
    await tools[0]!.invoke({}, { baseUrl: api.url, credentials });
    tokens.revoked.add(tokens.issued.at(-1)!.token);
    const result = await tools[0]!.invoke({}, { baseUrl: api.url, credentials });
    expect(result.output).toEqual({ client: "client-b", path: "/me" });
    expect([...tokens.refreshTokens.values()].filter((id) => id === "client-b")).toHaveLength(1);
  });

  it("sluice serve's lookup reads the same variables", async () => {
    const { tools } = pack(openapi3(tokens.tokenUrl));
    const auth = toolAuthFromEnv(tools[0]!, { ACME_OAUTH_CLIENT_ID: "client-a", ACME_OAUTH_CLIENT_SECRET: "secret-a-0123456789" });
    const result = await tools[0]!.invoke({}, { baseUrl: api.url, credentials: auth.credentials });
    expect(result.output).toEqual({ client: "client-a", path: "/me" });
  });
});
