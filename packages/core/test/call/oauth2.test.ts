/**
 * OAuth 2 credentials end to end: a token server and an API, both started here on
 * 127.0.0.1. The token server speaks the client-credentials and the (rotating)
 * refresh-token grants of RFC 6749 and counts what it issues; the API accepts only a
 * token the server issued and has not revoked, and echoes what it received, so redaction
 * is checked on what a model would see.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OAuth2Client, oauth2Credential, SluiceError, Tool, type HttpBinding, type OAuth2Options } from "../../src/index.ts";
import { withoutGuard } from "../../src/guards.ts";

const CLIENT_ID = "sluice-client";
const CLIENT_SECRET = "cs_9f8e7d6c5b4a39281706";
const REFRESH_TOKEN = "rt_first_0123456789abcdef";

interface TokenServerState {
  issued: string[];
  revoked: Set<string>;
  refreshTokens: Set<string>;
  requests: { grant: string | null; authorization: string | undefined; body: string }[];
  expiresIn: number | undefined;
  /** Milliseconds the token endpoint waits before answering (to let concurrent calls pile up). */
  delayMs: number;
  /** Answer every token request with this error (echoing the request, as some servers' debug pages do). */
  failWith: number | undefined;
}

const state: TokenServerState = { issued: [], revoked: new Set(), refreshTokens: new Set([REFRESH_TOKEN]), requests: [], expiresIn: 3600, delayMs: 0, failWith: undefined };
let tokenUrl = "";
let apiUrl = "";
const apiReceived: { authorization: string | undefined }[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const tokenServer = createServer(async (req, res) => {
  const body = await readBody(req);
  const form = new URLSearchParams(body);
  const grant = form.get("grant_type");
  state.requests.push({ grant, authorization: req.headers.authorization, body });
  if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
  if (state.failWith !== undefined) {
    return json(res, state.failWith, { error: "invalid_client", error_description: `client ${CLIENT_ID} with secret ${CLIENT_SECRET} and refresh token ${form.get("refresh_token") ?? "-"} refused` });
  }
  const expected = "Basic " + Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64");
  if (req.headers.authorization !== expected) return json(res, 401, { error: "invalid_client" });
  let refresh: string | undefined;
  if (grant === "refresh_token") {
    const given = form.get("refresh_token") ?? "";
    if (!state.refreshTokens.has(given)) return json(res, 400, { error: "invalid_grant" });
    // Rotating refresh tokens: the one used is spent.
    state.refreshTokens.delete(given);
    refresh = `rt_${state.issued.length + 1}_rotated_0123456789`;
    state.refreshTokens.add(refresh);
  } else if (grant !== "client_credentials") return json(res, 400, { error: "unsupported_grant_type" });
  const token = `at_${state.issued.length + 1}_${"x".repeat(24)}`;
  state.issued.push(token);
  json(res, 200, { access_token: token, token_type: "Bearer", ...(state.expiresIn === undefined ? {} : { expires_in: state.expiresIn }), ...(refresh === undefined ? {} : { refresh_token: refresh }) });
});

const apiServer = createServer(async (req, res) => {
  await readBody(req);
  apiReceived.push({ authorization: req.headers.authorization });
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (token === undefined || !state.issued.includes(token) || state.revoked.has(token)) return json(res, 401, { error: "invalid_token" });
  // An API that echoes the request (a debug endpoint): the token must not reach the model.
  json(res, 200, { ok: true, you_sent: req.headers.authorization });
});

function listen(server: ReturnType<typeof createServer>): Promise<string> {
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  tokenUrl = `${await listen(tokenServer)}/oauth/token`;
  apiUrl = await listen(apiServer);
});
afterAll(async () => {
  await Promise.all([tokenServer, apiServer].map((server) => new Promise((done) => server.close(done))));
});
beforeEach(() => {
  Object.assign(state, { issued: [], revoked: new Set(), refreshTokens: new Set([REFRESH_TOKEN]), requests: [], expiresIn: 3600, delayMs: 0, failWith: undefined });
  apiReceived.length = 0;
});

const binding: HttpBinding = { kind: "http", method: "GET", path: "/me", server: "https://api.example.invalid", parameters: [], auth: [[{ scheme: "oauth", type: "bearer" }]] };
const tool = Tool.create({ name: "me", description: "Who am I.", inputSchema: { type: "object", properties: {} }, binding });
const options = (extra: Partial<OAuth2Options> = {}): OAuth2Options => ({ tokenUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...extra });
const callWith = (credential: ReturnType<typeof oauth2Credential>) => tool.invoke({}, { baseUrl: apiUrl, credentials: { oauth: credential }, timeoutMs: 5_000 });

async function failure(promise: Promise<unknown>): Promise<SluiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SluiceError);
  return error as SluiceError;
}

describe("client credentials", () => {
  it("fetches a token once and reuses it until shortly before it expires", async () => {
    let now = 1_000_000;
    const credential = oauth2Credential(options({ now: () => now, skewSeconds: 60 }));
    await callWith(credential);
    await callWith(credential);
    expect(state.requests.map((r) => r.grant)).toEqual(["client_credentials"]);
    now += (3600 - 61) * 1000;
    await callWith(credential);
    expect(state.requests).toHaveLength(1);
    now += 2_000; // inside the skew: refreshed before the API could refuse it
    await callWith(credential);
    expect(state.requests).toHaveLength(2);
    expect(apiReceived.map((r) => r.authorization)).toEqual([`Bearer ${state.issued[0]}`, `Bearer ${state.issued[0]}`, `Bearer ${state.issued[0]}`, `Bearer ${state.issued[1]}`]);
  });

  it("a short lifetime is refreshed at half of it, not after it", async () => {
    let now = 0;
    state.expiresIn = 10;
    const credential = oauth2Credential(options({ now: () => now }));
    await callWith(credential);
    now += 5_500;
    await callWith(credential);
    expect(state.requests).toHaveLength(2);
  });

  it("sends client id and secret in the body when asked (client_secret_post)", async () => {
    const client = new OAuth2Client(options({ clientAuth: "body", fetch: async (url, init) => {
      const form = new URLSearchParams(String(init?.body));
      expect(form.get("client_id")).toBe(CLIENT_ID);
      expect(form.get("client_secret")).toBe(CLIENT_SECRET);
      expect(form.get("scope")).toBe("read write");
      expect(new Headers(init?.headers).get("authorization")).toBeNull();
      return new Response(JSON.stringify({ access_token: "tok_body_auth_0123", expires_in: 60 }), { status: 200 });
    }, scopes: ["read", "write"] }));
    expect(await client.accessToken()).toBe("tok_body_auth_0123");
  });

  it("concurrent calls share one token request (single flight), and the guard's test notices it off", async () => {
    state.delayMs = 50;
    const credential = oauth2Credential(options());
    await Promise.all(Array.from({ length: 8 }, () => callWith(credential)));
    expect(state.requests).toHaveLength(1);
    expect(new Set(apiReceived.map((r) => r.authorization)).size).toBe(1);

    state.requests.length = 0;
    await withoutGuard("oauthSingleFlight", async () => {
      const fresh = oauth2Credential(options());
      await Promise.all(Array.from({ length: 8 }, () => callWith(fresh)));
    });
    expect(state.requests.length).toBeGreaterThan(1);
  });

  it("a 401 from the API triggers one refresh and one retry", async () => {
    const credential = oauth2Credential(options());
    await callWith(credential);
    state.revoked.add(state.issued[0]!);
    const result = await callWith(credential);
    expect(result.status).toBe(200);
    expect(state.requests).toHaveLength(2);
    expect(apiReceived.map((r) => r.authorization)).toEqual([`Bearer ${state.issued[0]}`, `Bearer ${state.issued[0]}`, `Bearer ${state.issued[1]}`]);
  });

  it("retries only once: an API that refuses every token is an HTTP_ERROR 401 after two tries", async () => {
    const credential = oauth2Credential(options());
    const revokeAll = tool.invoke({}, { baseUrl: apiUrl, credentials: { oauth: credential }, fetch: async (url, init) => {
      const response = await fetch(url, init);
      for (const token of state.issued) state.revoked.add(token);
      return response.status === 200 ? new Response(JSON.stringify({ error: "invalid_token" }), { status: 401, headers: { "content-type": "application/json" } }) : response;
    } });
    const error = await failure(revokeAll);
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.status).toBe(401);
    expect(state.requests).toHaveLength(2);
  });
});

describe("refresh token", () => {
  it("uses the refresh-token grant and follows a rotated refresh token", async () => {
    let now = 0;
    state.expiresIn = 100;
    const credential = oauth2Credential(options({ refreshToken: REFRESH_TOKEN, now: () => now }));
    await callWith(credential);
    now += 100_000;
    await callWith(credential);
    now += 100_000;
    await callWith(credential);
    expect(state.requests.map((r) => new URLSearchParams(r.body).get("refresh_token"))).toEqual([REFRESH_TOKEN, "rt_1_rotated_0123456789", "rt_2_rotated_0123456789"]);
    expect(state.requests.every((r) => r.grant === "refresh_token")).toBe(true);
  });

  it("a refused refresh token is AUTH_FAILED saying what to do", async () => {
    const error = await failure(callWith(oauth2Credential(options({ refreshToken: "rt_unknown_0123456789" }))));
    expect(error.code).toBe("AUTH_FAILED");
    expect(error.message).toMatch(/400 invalid_grant .*refresh token may have expired or been revoked/);
    expect(apiReceived).toEqual([]);
  });
});

describe("never leaked", () => {
  const leaks = (text: string, secrets: readonly string[]) => secrets.filter((secret) => text.includes(secret) || text.includes(secret.slice(0, 12)));

  it("the access token echoed by the API is redacted from output, body and headers", async () => {
    const result = await callWith(oauth2Credential(options()));
    const seen = JSON.stringify([result.output, result.body, result.headers]);
    expect(seen).toContain("[redacted]");
    expect(leaks(seen, state.issued)).toEqual([]);
  });

  it("a token endpoint error quoting the client secret and refresh token is redacted, and the guard's test notices it off", async () => {
    state.failWith = 400;
    const secrets = [CLIENT_SECRET, REFRESH_TOKEN];
    const error = await failure(callWith(oauth2Credential(options({ refreshToken: REFRESH_TOKEN }))));
    expect(error.code).toBe("AUTH_FAILED");
    const text = `${error.message}\n${error.stack ?? ""}`;
    expect(text).toContain("[redacted]");
    expect(leaks(text, secrets)).toEqual([]);

    const unguarded = await withoutGuard("oauthRedaction", () => failure(callWith(oauth2Credential(options({ refreshToken: REFRESH_TOKEN })))));
    expect(leaks(unguarded.message, secrets)).not.toEqual([]);
  });

  it("request() previews without asking the token endpoint; the token reads as its scheme", async () => {
    const request = await tool.request({}, { baseUrl: apiUrl, credentials: { oauth: oauth2Credential(options()) } });
    expect(request.headers["authorization"]).toBe("Bearer [oauth]");
    expect(state.requests).toEqual([]);
    const bare = await tool.request({}, { baseUrl: apiUrl });
    expect(bare.headers["authorization"]).toBe("Bearer [oauth]");
  });

  it("property: whatever the endpoint's answer echoes, no secret of the client reaches the error or output", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 400, 401, 500), fc.subarray(["secret", "refresh", "token"], { minLength: 1 }), fc.constantFrom("plain", "percent", "base64"), async (status, echoed, spelling) => {
        const spell = (value: string) => (spelling === "percent" ? encodeURIComponent(value).replace(/_/g, "%5F") : spelling === "base64" ? Buffer.from(value).toString("base64") : value);
        const values: Record<string, string> = { secret: CLIENT_SECRET, refresh: REFRESH_TOKEN, token: "at_echo_0123456789abcdef" };
        const echo = echoed.map((key) => spell(values[key]!)).join(" ");
        const credential = oauth2Credential(options({ refreshToken: REFRESH_TOKEN, fetch: async () =>
          new Response(JSON.stringify(status === 200 ? { access_token: values["token"], expires_in: 60 } : { error: "bad", error_description: echo }), { status }),
        }));
        const outcome = await tool
          .invoke({}, { baseUrl: apiUrl, credentials: { oauth: credential }, fetch: async (url, init) => (String(url).startsWith(apiUrl) ? new Response(JSON.stringify({ echo }), { status: 200, headers: { "content-type": "application/json" } }) : fetch(url, init)) })
          .then((result) => JSON.stringify([result.output, result.body]), (error: Error) => `${error.message}\n${error.stack ?? ""}`);
        // The access token is a secret once it was issued; an error text that merely names that string was never one.
        const secrets = status === 200 ? Object.values(values) : [CLIENT_SECRET, REFRESH_TOKEN];
        expect(leaks(outcome, secrets)).toEqual([]);
      }),
      { seed: 2025, numRuns: 40 },
    );
  });
});

describe("the token URL", () => {
  it.each([
    ["plain http to another host", "http://auth.example.com/token"],
    ["a file URL", "file:///etc/passwd"],
    ["not a URL", "token"],
    ["credentials in the URL", "https://user:pw@auth.example.com/token"],
  ])("refuses %s before anything is sent", (_label, url) => {
    expect(() => oauth2Credential({ tokenUrl: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });

  it("the guard's test notices the https rule switched off", async () => {
    await withoutGuard("oauthTokenUrl", () => {
      expect(() => oauth2Credential({ tokenUrl: "http://auth.example.com/token", clientId: CLIENT_ID })).not.toThrow();
    });
  });

  it("does not follow a redirect from the token endpoint", async () => {
    let redirect: string | undefined;
    const client = new OAuth2Client(options({ fetch: async (_url, init) => {
      redirect = init?.redirect;
      return new Response(null, { status: 302, headers: { location: "https://elsewhere.example/steal" } });
    } }));
    await expect(client.accessToken()).rejects.toMatchObject({ code: "AUTH_FAILED" });
    expect(redirect).toBe("manual");
  });
});
