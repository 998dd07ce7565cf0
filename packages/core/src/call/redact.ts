import { SluiceError, type SluiceErrorDetails } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { HttpCredential } from "../http/auth.ts";
import type { HttpRequest } from "../http/build-request.ts";
import { CredentialPattern } from "./credential-pattern.ts";
import { isOAuth2Credential, type OAuth2Client } from "./oauth2.ts";
import type { CallContext, CredentialSource } from "./types.ts";

/** What a credential value is replaced by. */
export const REDACTED = "[redacted]";

/** Links of an error's `cause` chain that are rebuilt; deeper ones are dropped. */
const MAX_CAUSE_LINKS = 8;

/** Header names whose values in `ctx.headers` are credentials (MCP passes `Authorization` this way). */
const CREDENTIAL_HEADER = /^(?:proxy-)?authorization$|^cookie$|api[-_]?key|token|secret|password|session/i;

/**
 * The credential values one call used. Each is found in every spelling an echo of it can
 * take (see `credential-pattern.ts` and docs/credentials.md): as given, percent-encoded,
 * form encoded, JSON- and HTML-escaped, folded by whitespace, in other case, as base64,
 * and cut short (any leading run of 8 characters or more). Errors, `request()` output
 * and everything a call returns pass through `redact*` before anyone sees them.
 */
export class CallSecrets {
  readonly #pattern = new CredentialPattern();

  /** How many credential values are recorded. */
  get size(): number {
    return this.#pattern.size;
  }

  /** How many characters a spelling of a recorded credential can span (0 when none): how far past a cut one can reach. */
  get longest(): number {
    return this.#pattern.reach;
  }

  /** Records a credential handed to the call runtime. */
  addCredential(credential: HttpCredential | undefined): void {
    if (credential === undefined || typeof credential !== "object") return;
    if ("token" in credential && typeof credential.token === "string") this.#add(credential.token);
    if ("username" in credential && typeof credential.username === "string" && typeof credential.password === "string") {
      this.#addBasic(credential.username, credential.password);
    }
  }

  /**
   * Records a secret given to an MCP upstream. A value written as `<scheme> <rest>` (an
   * `Authorization` header's) is recorded by its rest, the scheme word being no secret, and
   * a Basic pair by its parts too.
   */
  addUpstreamSecret(value: string): void {
    if (typeof value !== "string") return;
    const scheme = /^\s*(Bearer|Basic|Token|Bot|Digest|ApiKey)\s+(\S.*?)\s*$/i.exec(value);
    if (scheme === null) return this.#add(value);
    this.addHeader("authorization", value);
  }

  /** Records the value of a `ctx.headers` entry when its name says it carries a credential. */
  addHeader(name: string, value: string): void {
    if (typeof value !== "string" || !CREDENTIAL_HEADER.test(name)) return;
    const scheme = /^\s*(\S+)\s+(\S.*?)\s*$/.exec(value);
    if (name.toLowerCase() === "cookie") {
      for (const piece of value.split(";")) {
        const equals = piece.indexOf("=");
        if (equals >= 0) this.#add(piece.slice(equals + 1).trim());
      }
    } else if (scheme !== null && /authorization$/i.test(name)) {
      // The scheme word is no secret: recording "Bearer abc…" whole would make its first
      // 8 characters ("Bearer a") a credential prefix that blanks out ordinary prose.
      this.#add(scheme[2]!);
      if (scheme[1]!.toLowerCase() === "basic") {
        const pair = Buffer.from(scheme[2]!, "base64").toString("utf8");
        const colon = pair.indexOf(":");
        if (colon >= 0) this.#addBasic(pair.slice(0, colon), pair.slice(colon + 1));
      }
    } else this.#add(value);
  }

  /**
   * The context to build a request with: its credential source reports every credential
   * it hands out to this set, and credential headers of `ctx.headers` are recorded.
   * A record source becomes a function with the same lookup (own properties by scheme name).
   */
  watching(ctx: CallContext, options: { placeholders?: "oauth2" | "all" } = {}): CallContext {
    for (const [name, value] of Object.entries(ctx.headers ?? {})) this.addHeader(name, value);
    const source = ctx.credentials;
    if (source === undefined && options.placeholders !== "all") return ctx;
    const watched: CredentialSource = async (scheme, tool) => {
      const credential =
        source === undefined ? undefined : typeof source === "function" ? await source(scheme, tool) : Object.prototype.hasOwnProperty.call(source, scheme.scheme) ? source[scheme.scheme] : undefined;
      if ((options.placeholders === "all" && credential === undefined) || (options.placeholders !== undefined && isOAuth2Credential(credential))) {
        // A preview: the scheme's name stands where its value would go, and no token endpoint is asked.
        const placeholder = `[${scheme.scheme}]`;
        return scheme.type === "basic" ? { username: placeholder, password: placeholder } : { token: placeholder };
      }
      if (isOAuth2Credential(credential)) return { token: await this.#accessToken(credential.oauth2) };
      this.addCredential(credential);
      return credential;
    };
    return { ...ctx, credentials: watched };
  }

  /** OAuth 2 clients this call took an access token from, with the token it got: a 401 invalidates those. */
  readonly oauthTokens = new Map<OAuth2Client, string>();

  async #accessToken(client: OAuth2Client): Promise<string> {
    try {
      const token = await client.accessToken();
      this.#add(token);
      this.oauthTokens.set(client, token);
      return token;
    } finally {
      // Recorded even when the token request failed: its error may quote the secret or the refresh token.
      if (guards.oauthRedaction) for (const secret of client.secrets()) this.#add(secret);
    }
  }

  /** `text` with every spelling of a recorded credential (the longest run present at each place) replaced by `[redacted]`. */
  redact(text: string): string {
    const spans = this.#pattern.spans(text);
    if (spans.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of spans) {
      out += text.slice(at, start) + REDACTED;
      at = end;
    }
    return out + text.slice(at);
  }

  /** Whether `text` holds any spelling of a recorded credential. */
  mentions(text: string): boolean {
    return this.#pattern.spans(text, true).length > 0;
  }

  /**
   * Parsed JSON with credentials redacted in every string (keys too), walked without
   * recursion: the value itself when nothing was redacted, else a copy. Texts for errors
   * are derived from this, so cutting them short can never leave half a credential behind.
   */
  redactJson(value: unknown): unknown {
    if (this.size === 0) return value;
    if (typeof value === "string") return this.redact(value);
    if (typeof value !== "object" || value === null) return value;
    let changed = false;
    const redact = (text: string): string => {
      const out = this.redact(text);
      if (out !== text) changed = true;
      return out;
    };
    const copy = (node: unknown): unknown => (typeof node === "string" ? redact(node) : typeof node === "object" && node !== null ? (Array.isArray(node) ? [] : {}) : node);
    const root = copy(value) as object;
    const stack: Array<[object, object]> = [[value, root]];
    while (stack.length > 0) {
      const [source, target] = stack.pop()!;
      for (const key of Object.keys(source)) {
        const child = (source as Record<string, unknown>)[key];
        const copied = copy(child);
        if (Array.isArray(target)) target.push(copied);
        else Object.defineProperty(target, redact(key), { value: copied, enumerable: true, writable: true, configurable: true });
        if (typeof child === "object" && child !== null) stack.push([child, copied as object]);
      }
    }
    return changed ? root : value;
  }

  /**
   * What a call returns to the model, redacted: read as the model gets it (compact JSON,
   * so `toJSON` and dropped `undefined` count), and returned as that JSON's redacted
   * parse when it held a credential, else unchanged (the handler's own value). A
   * handler runs on the raw body (it may need ids), so this is what keeps one from
   * handing a credential back, echoed or on purpose.
   */
  redactOutput(output: unknown): { output: unknown; json: string | undefined } {
    const json = typeof output === "string" ? undefined : JSON.stringify(output);
    if (this.size === 0) return { output, json };
    if (typeof output === "string") return { output: this.redact(output), json: undefined };
    if (json === undefined) return { output, json };
    const parsed: unknown = JSON.parse(json);
    const redacted = this.redactJson(parsed);
    return redacted === parsed ? { output, json } : { output: redacted, json: JSON.stringify(redacted) };
  }

  /** Response headers with credentials redacted in their values (an echoed key, a `location` carrying it). */
  redactHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    if (this.size === 0) return headers;
    const out: Record<string, string> = {};
    let changed = false;
    for (const [name, value] of Object.entries(headers)) {
      const redacted = this.redact(value);
      if (redacted !== value) changed = true;
      Object.defineProperty(out, name, { value: redacted, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : headers;
  }

  /**
   * The error as the caller may see it: message, issue texts, stack and every link of
   * the `cause` chain redacted. Links are rebuilt as plain errors (name, message, a
   * string `code`, stack), since a thrown object may carry the credential in any property
   * (an HTTP client's copy of the request headers). Unchanged when nothing mentions one.
   */
  redactError(error: SluiceError): SluiceError {
    if (this.size === 0) return error;
    const chain: unknown[] = [];
    for (let link: unknown = error; link !== undefined && chain.length < MAX_CAUSE_LINKS; link = link instanceof Error ? link.cause : undefined) chain.push(link);
    if (!chain.some((link) => this.#linkMentions(link))) return error;
    let rebuilt: unknown = undefined;
    for (let i = chain.length - 1; i >= 0; i--) rebuilt = this.#rebuildLink(chain[i], rebuilt);
    return rebuilt as SluiceError;
  }

  /** The request with credential values redacted in the URL, headers and body. */
  redactRequest(request: HttpRequest): HttpRequest {
    if (this.size === 0) return request;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = this.redact(value);
    const out: HttpRequest = { method: request.method, url: this.redact(request.url), headers };
    if (typeof request.body === "string") out.body = this.redact(request.body);
    else if (request.body !== undefined) {
      // Bytes (multipart): decoded only to look; re-encoded only when a credential is in them.
      const text = new TextDecoder("utf-8").decode(request.body);
      out.body = this.mentions(text) ? new TextEncoder().encode(this.redact(text)) : request.body;
    }
    return out;
  }

  #addBasic(username: string, password: string): void {
    this.#add(username);
    this.#add(password);
    // The pair is also found as its base64 (what the Authorization header carries), whole when it is short.
    const pair = `${username}:${password}`;
    this.#add(pair, true);
    // And that base64 is itself a credential string: folded, cut short, encoded again.
    this.#add(Buffer.from(pair, "utf8").toString("base64"));
  }

  /** Records a value. The guard acts here: switched off, nothing is ever recorded. */
  #add(value: string, withShortBase64 = false): void {
    if (!guards.redaction) return;
    this.#pattern.add(value, withShortBase64);
  }

  #linkMentions(link: unknown): boolean {
    if (typeof link === "string") return this.mentions(link);
    if (link instanceof Error) {
      const issues = link instanceof SluiceError ? (link.issues ?? []).map((issue) => issue.message).join("\n") : "";
      return this.mentions(`${link.message}\n${link.stack ?? ""}\n${issues}\n${safeJson(link)}`);
    }
    return this.mentions(safeJson(link));
  }

  #rebuildLink(link: unknown, cause: unknown): unknown {
    if (typeof link === "string") return this.redact(link);
    if (link instanceof SluiceError) {
      const details: SluiceErrorDetails = {};
      if (link.pointer !== undefined) details.pointer = link.pointer;
      if (link.candidates !== undefined) details.candidates = link.candidates.map((c) => this.redact(c));
      if (link.line !== undefined) details.line = link.line;
      if (link.column !== undefined) details.column = link.column;
      if (link.issues !== undefined) details.issues = link.issues.map((issue) => ({ ...issue, path: this.redact(issue.path), message: this.redact(issue.message) }));
      if (link.tool !== undefined) details.tool = link.tool;
      if (link.status !== undefined) details.status = link.status;
      if (link.retryAfterSeconds !== undefined) details.retryAfterSeconds = link.retryAfterSeconds;
      if (link.schemes !== undefined) details.schemes = link.schemes;
      if (cause !== undefined) details.cause = cause;
      const out = new SluiceError(link.code, this.redact(link.message), details);
      if (link.stack !== undefined) out.stack = this.redact(link.stack);
      return out;
    }
    if (link instanceof Error) {
      const out = new Error(this.redact(link.message), cause === undefined ? undefined : { cause });
      out.name = link.name;
      const code = (link as { code?: unknown }).code;
      if (typeof code === "string") Object.defineProperty(out, "code", { value: this.redact(code), enumerable: true, writable: true, configurable: true });
      if (link.stack !== undefined) out.stack = this.redact(link.stack);
      return out;
    }
    return this.redact(safeJson(link));
  }
}

/** Own enumerable properties as JSON, or the value's string form when JSON cannot hold it. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return "";
    }
  }
}
