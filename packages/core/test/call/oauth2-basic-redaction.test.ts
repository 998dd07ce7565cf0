/**
 * OAuth 2 client authentication by HTTP Basic: sluice itself builds
 * `base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1), so it must also redact that
 * encoding when a token endpoint quotes the header back in its error. A token server on
 * 127.0.0.1 refuses every request with the Authorization header it got in its
 * `error_description`; for secrets with `+ / = :`, a space and non-ASCII characters, no
 * base64 run of the AUTH_FAILED text decodes to the secret or its encoding.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauth2Credential, SluiceError, Tool, type HttpBinding } from "../../src/index.ts";
import { withoutGuard } from "../../src/guards.ts";

const CLIENT_ID = "client-7";
let tokenUrl = "";
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_client", error_description: `refused Authorization: ${req.headers.authorization ?? "-"}` }));
  });
});
beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const binding: HttpBinding = { kind: "http", method: "GET", path: "/me", server: "https://api.example.invalid", parameters: [], auth: [[{ scheme: "oauth", type: "bearer" }]] };
const tool = Tool.create({ name: "me", description: "Who am I.", inputSchema: { type: "object", properties: {} }, binding });

/** Every base64 reading of every run of base64 characters in `text` (at each start offset), decoded as UTF-8. */
function base64Readings(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/=_-]{6,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) out.push(Buffer.from(run.slice(shift), "base64").toString("utf8"));
  }
  return out;
}

/** The secret or its form-encoding, readable in the text as is or through base64. */
function recoverable(text: string, secret: string): boolean {
  const forms = [secret, encodeURIComponent(secret)];
  return [text, ...base64Readings(text)].some((reading) => forms.some((form) => reading.includes(form)));
}

const SECRETS: Array<[string, string]> = [
  ["letters and digits", "cs_plain_0123456789"],
  ["plus signs", "cs+with+plus+9876"],
  ["slashes", "cs/with/slash/9876"],
  ["equals signs", "cs=with=equals==9"],
  ["colons", "cs:with:colon:9876"],
  ["spaces", "cs with some spaces"],
  ["non-ASCII", "cs-sécrét-ünïcødé-✓"],
];

async function authFailure(secret: string): Promise<unknown> {
  const credential = oauth2Credential({ tokenUrl, clientId: CLIENT_ID, clientSecret: secret, clientAuth: "basic" });
  return tool.invoke({}, { credentials: { oauth: credential }, timeoutMs: 5_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("a token endpoint quoting the Basic header sluice built", () => {
  it("with the oauthRedaction guard off, the secret is recoverable (the test can fail)", async () => {
    const error = await withoutGuard("oauthRedaction", () => authFailure("cs+with+plus+9876"));
    expect(recoverable((error as SluiceError).message, "cs+with+plus+9876")).toBe(true);
  });

  it.each(SECRETS)("a secret with %s is not recoverable from AUTH_FAILED", async (_shape, secret) => {
    const error = await authFailure(secret);
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).code).toBe("AUTH_FAILED");
    const text = `${(error as SluiceError).message}\n${(error as SluiceError).stack ?? ""}`;
    // The endpoint did quote it: the message names the refusal, with the header redacted.
    expect(text).toMatch(/refused Authorization: Basic \S*\[redacted\]/);
    expect(recoverable(text, secret)).toBe(false);
  });
});
