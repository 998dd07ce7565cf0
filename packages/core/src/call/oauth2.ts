import { SluiceError } from "@sluice/schema";
import { guards } from "../guards.ts";

/**
 * An OAuth 2 client for one security scheme: it obtains access tokens at the token
 * endpoint with the client-credentials grant (RFC 6749 4.4) or, given a refresh token, the
 * refresh-token grant (RFC 6749 6), caches each token until shortly before it expires,
 * and lets concurrent calls share one request to the endpoint.
 */
export interface OAuth2Options {
  /**
   * The token endpoint. It comes from the committed spec (`flows.*.tokenUrl`, Swagger 2.0
   * `tokenUrl`), the pack runtime or the user's config, never from a model or an API
   * answer. Must be `https:`, or `http:` on a loopback address (local tests, proxies).
   */
  tokenUrl: string;
  clientId: string;
  clientSecret?: string | undefined;
  /** With a refresh token the client uses the refresh-token grant; without one, client credentials. */
  refreshToken?: string | undefined;
  /** Scopes to ask for (space-separated on the wire); none by default. */
  scopes?: readonly string[] | undefined;
  /**
   * How the client authenticates at the token endpoint: HTTP Basic (`basic`, the default,
   * which RFC 6749 2.3.1 says every server supports) or `client_id` / `client_secret` in
   * the form body (`body`).
   */
  clientAuth?: "basic" | "body" | undefined;
  /** Seconds before `expires_in` runs out that a token counts as expired. Default 60 (at most half the lifetime). */
  skewSeconds?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  /** Milliseconds for one token request. Default 30 000. */
  timeoutMs?: number | undefined;
  /** The API's name in messages (the pack name). */
  api?: string | undefined;
  /** Milliseconds since the epoch; a test's clock. */
  now?: (() => number) | undefined;
}

/** A credential that is an OAuth 2 client: the call runtime asks it for an access token per call. */
export interface OAuth2Credential {
  oauth2: OAuth2Client;
}

const DEFAULT_SKEW_SECONDS = 60;
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

interface CachedToken {
  token: string;
  /** Milliseconds since the epoch after which it is refreshed; Infinity when the endpoint gave no lifetime. */
  refreshAt: number;
}

export class OAuth2Client {
  readonly #options: OAuth2Options;
  readonly #url: URL;
  #refreshToken: string | undefined;
  #cached: CachedToken | undefined;
  #pending: Promise<string> | undefined;
  /** Every value this client has held that must never reach a model: secret, refresh tokens, access tokens. */
  readonly #secrets = new Set<string>();
  #requests = 0;

  constructor(options: OAuth2Options) {
    if (typeof options?.clientId !== "string" || options.clientId === "") throw new SluiceError("INVALID_OPTION", "An OAuth 2 client needs a clientId.");
    this.#url = tokenEndpoint(options.tokenUrl);
    this.#options = options;
    this.#refreshToken = options.refreshToken === "" ? undefined : options.refreshToken;
    if (options.clientSecret !== undefined && options.clientSecret !== "") {
      this.#secrets.add(options.clientSecret);
      if ((options.clientAuth ?? "basic") === "basic") {
        // sluice encodes the secret itself for the Basic header (see #fetchToken), so it knows
        // those spellings too: the form-encoded secret (whose base64 inside the pair is found at
        // any alignment) and the header's base64 whole (for a pair too short for that).
        const encoded = encodeURIComponent(options.clientSecret);
        if (encoded !== options.clientSecret) this.#secrets.add(encoded);
        this.#secrets.add(basicPair(options.clientId, options.clientSecret));
      }
    }
    if (this.#refreshToken !== undefined) this.#secrets.add(this.#refreshToken);
  }

  /** The grant the client uses. */
  get grant(): "client_credentials" | "refresh_token" {
    return this.#refreshToken === undefined ? "client_credentials" : "refresh_token";
  }

  /** How many requests reached the token endpoint (for tests and logs; never their content). */
  get tokenRequests(): number {
    return this.#requests;
  }

  /** The values a call that used this client must redact (a copy). */
  secrets(): string[] {
    return [...this.#secrets];
  }

  /** A valid access token: the cached one, else one fetched now (shared with every caller waiting for it). */
  accessToken(): Promise<string> {
    const cached = this.#cached;
    if (cached !== undefined && this.#now() < cached.refreshAt) return Promise.resolve(cached.token);
    if (guards.oauthSingleFlight && this.#pending !== undefined) return this.#pending;
    const pending = this.#fetchToken().finally(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  /** Forgets `token` (the API refused it with 401), so the next `accessToken()` fetches another. A newer token is kept. */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  async #fetchToken(): Promise<string> {
    const options = this.#options;
    const api = options.api === undefined ? "" : `${options.api}: `;
    const form = new URLSearchParams();
    const refreshToken = this.#refreshToken;
    if (refreshToken === undefined) form.set("grant_type", "client_credentials");
    else {
      form.set("grant_type", "refresh_token");
      form.set("refresh_token", refreshToken);
    }
    if (options.scopes !== undefined && options.scopes.length > 0) form.set("scope", options.scopes.join(" "));
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    if ((options.clientAuth ?? "basic") === "basic") {
      headers["authorization"] = "Basic " + basicPair(options.clientId, options.clientSecret ?? "");
    } else {
      form.set("client_id", options.clientId);
      if (options.clientSecret !== undefined) form.set("client_secret", options.clientSecret);
    }
    const started = this.#now();
    const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let response: Response;
    this.#requests++;
    try {
      // The URL is the configured one: redirects are not followed, so no answer can send the secret elsewhere.
      response = await (options.fetch ?? globalThis.fetch)(this.#url, { method: "POST", headers, body: form.toString(), redirect: "manual", signal });
    } catch (cause) {
      throw new SluiceError("AUTH_FAILED", `${api}the OAuth 2 token endpoint ${this.#url.origin}${this.#url.pathname} could not be reached (${(cause as Error)?.message ?? String(cause)}).`);
    }
    const text = await readLimited(response);
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (!response.ok || body === undefined) {
      const error = typeof body?.["error"] === "string" ? ` ${body["error"]}` : "";
      const description = typeof body?.["error_description"] === "string" ? `: ${body["error_description"].slice(0, 300)}` : "";
      const hint = refreshToken === undefined ? "check the client id and secret" : "the refresh token may have expired or been revoked: get a new one";
      throw new SluiceError("AUTH_FAILED", `${api}the OAuth 2 token endpoint answered ${response.status}${error}${description} (${this.grant} grant); ${hint}.`, { status: response.status });
    }
    const token = body["access_token"];
    if (typeof token !== "string" || token === "") {
      throw new SluiceError("AUTH_FAILED", `${api}the OAuth 2 token endpoint's answer has no access_token.`, { status: response.status });
    }
    const type = body["token_type"];
    if (typeof type === "string" && type.toLowerCase() !== "bearer") {
      throw new SluiceError("AUTH_FAILED", `${api}the OAuth 2 token endpoint issued a ${JSON.stringify(type.slice(0, 20))} token; sluice sends bearer tokens only.`, { status: response.status });
    }
    this.#secrets.add(token);
    const rotated = body["refresh_token"];
    if (typeof rotated === "string" && rotated !== "" && refreshToken !== undefined) {
      // A rotating server invalidates the old refresh token: the next refresh must use the new one.
      this.#refreshToken = rotated;
      this.#secrets.add(rotated);
    }
    const lifetime = Number(body["expires_in"]);
    let refreshAt = Number.POSITIVE_INFINITY;
    if (Number.isFinite(lifetime) && lifetime > 0) {
      const skew = Math.min(options.skewSeconds ?? DEFAULT_SKEW_SECONDS, lifetime / 2);
      refreshAt = started + (lifetime - skew) * 1000;
    }
    this.#cached = { token, refreshAt };
    return token;
  }
}

/** An OAuth 2 credential for `CallContext.credentials`; see {@link OAuth2Options}. */
export function oauth2Credential(options: OAuth2Options): OAuth2Credential {
  return { oauth2: new OAuth2Client(options) };
}

/** Whether a credential is an OAuth 2 client. */
export function isOAuth2Credential(credential: unknown): credential is OAuth2Credential {
  return typeof credential === "object" && credential !== null && "oauth2" in credential && (credential as OAuth2Credential).oauth2 instanceof OAuth2Client;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The token URL, checked: https, or http to a loopback host. Anything else would send the client secret in clear or to a place nobody reviewed. */
function tokenEndpoint(text: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(text));
  } catch {
    throw new SluiceError("INVALID_OPTION", `The OAuth 2 token URL ${JSON.stringify(String(text).slice(0, 200))} is not a URL; take it from the spec's flows (tokenUrl).`);
  }
  if (url.username !== "" || url.password !== "") throw new SluiceError("INVALID_OPTION", "The OAuth 2 token URL must not carry a user or password; give the client id and secret instead.");
  const allowed = url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname));
  if (!allowed && guards.oauthTokenUrl) {
    throw new SluiceError("INVALID_OPTION", `The OAuth 2 token URL must be https (or http on 127.0.0.1 / localhost), not ${url.protocol}//${url.host}: the client secret would travel in clear.`);
  }
  return url;
}

async function readLimited(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_TOKEN_RESPONSE_BYTES) {
      await reader.cancel();
      throw new SluiceError("AUTH_FAILED", `the OAuth 2 token endpoint's answer is larger than ${MAX_TOKEN_RESPONSE_BYTES} bytes; it is not a token response.`, { status: response.status });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The credentials of an HTTP Basic client authentication: RFC 6749 2.3.1 form-encodes both parts before they are joined. */
function basicPair(clientId: string, clientSecret: string): string {
  return Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`, "utf8").toString("base64");
}
