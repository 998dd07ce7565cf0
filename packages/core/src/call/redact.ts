import { SluiceError, type SluiceErrorDetails } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { HttpCredential } from "../http/auth.ts";
import type { HttpRequest } from "../http/build-request.ts";
import { encodeAllowReserved, encodeUnreserved } from "../http/encode.ts";
import type { CallContext, CredentialSource } from "./types.ts";

/** What a credential value is replaced by. */
export const REDACTED = "[redacted]";

/**
 * Shorter values are not redacted: a one-letter password would turn every "a" in an
 * error message into `[redacted]`, and such a value is no secret worth the damage.
 */
const MIN_SECRET_LENGTH = 4;

/** Links of an error's `cause` chain that are rebuilt; deeper ones are dropped. */
const MAX_CAUSE_LINKS = 8;

/** Header names whose values in `ctx.headers` are credentials (MCP passes `Authorization` this way). */
const CREDENTIAL_HEADER = /^(?:proxy-)?authorization$|^cookie$|api[-_]?key|token|secret|password|session/i;

/**
 * The credential values one call used, in every spelling they can take on the wire or
 * in an echo of it: as given, percent-encoded (several ways, either hex case), form
 * encoded, escaped inside a JSON string, and for Basic auth the `user:pass` pair and its
 * base64. Errors and `request()` output pass through `redact*` before anyone sees them.
 */
export class CallSecrets {
  readonly #forms = new Set<string>();
  #pattern: RegExp | undefined;

  get size(): number {
    return this.#forms.size;
  }

  /** Length of the longest recorded form (0 when none): how far past a cut a credential can reach. */
  get longest(): number {
    let longest = 0;
    for (const form of this.#forms) longest = Math.max(longest, form.length);
    return longest;
  }

  /** Records a credential handed to the call runtime. */
  addCredential(credential: HttpCredential | undefined): void {
    if (credential === undefined || typeof credential !== "object") return;
    if ("token" in credential && typeof credential.token === "string") this.#add(credential.token);
    if ("username" in credential && typeof credential.username === "string" && typeof credential.password === "string") {
      this.#addBasic(credential.username, credential.password);
    }
  }

  /** Records the value of a `ctx.headers` entry when its name says it carries a credential. */
  addHeader(name: string, value: string): void {
    if (typeof value !== "string" || !CREDENTIAL_HEADER.test(name)) return;
    this.#add(value);
    const scheme = /^\s*(\S+)\s+(\S.*?)\s*$/.exec(value);
    if (scheme !== null) {
      this.#add(scheme[2]!);
      if (scheme[1]!.toLowerCase() === "basic") {
        const pair = Buffer.from(scheme[2]!, "base64").toString("utf8");
        const colon = pair.indexOf(":");
        if (colon >= 0) this.#addBasic(pair.slice(0, colon), pair.slice(colon + 1));
      }
    }
    if (name.toLowerCase() === "cookie") {
      for (const piece of value.split(";")) {
        const equals = piece.indexOf("=");
        if (equals >= 0) this.#add(piece.slice(equals + 1).trim());
      }
    }
  }

  /**
   * The context to build a request with: its credential source reports every credential
   * it hands out to this set, and credential headers of `ctx.headers` are recorded.
   * A record source becomes a function with the same lookup (own properties by scheme name).
   */
  watching(ctx: CallContext): CallContext {
    for (const [name, value] of Object.entries(ctx.headers ?? {})) this.addHeader(name, value);
    const source = ctx.credentials;
    if (source === undefined) return ctx;
    const watched: CredentialSource = async (scheme, tool) => {
      const credential =
        typeof source === "function" ? await source(scheme, tool) : Object.prototype.hasOwnProperty.call(source, scheme.scheme) ? source[scheme.scheme] : undefined;
      this.addCredential(credential);
      return credential;
    };
    return { ...ctx, credentials: watched };
  }

  /** `text` with every recorded credential form replaced by `[redacted]`, longest first. */
  redact(text: string): string {
    const pattern = this.#regex();
    return pattern === undefined ? text : text.replace(pattern, REDACTED);
  }

  /** Whether `text` holds any recorded credential form. */
  mentions(text: string): boolean {
    const pattern = this.#regex();
    if (pattern === undefined) return false;
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  }

  /**
   * A copy of parsed JSON with credentials redacted in every string (keys too), walked
   * without recursion. Texts for errors are derived from this copy, so cutting them
   * short can never leave half a credential behind.
   */
  redactJson(value: unknown): unknown {
    if (this.#forms.size === 0) return value;
    const copy = (node: unknown): unknown => (typeof node === "string" ? this.redact(node) : typeof node === "object" && node !== null ? (Array.isArray(node) ? [] : {}) : node);
    const root = copy(value);
    const stack: Array<[object, object]> = [];
    if (typeof value === "object" && value !== null) stack.push([value, root as object]);
    while (stack.length > 0) {
      const [source, target] = stack.pop()!;
      for (const key of Object.keys(source)) {
        const child = (source as Record<string, unknown>)[key];
        const copied = copy(child);
        if (Array.isArray(target)) target.push(copied);
        else Object.defineProperty(target, this.redact(key), { value: copied, enumerable: true, writable: true, configurable: true });
        if (typeof child === "object" && child !== null) stack.push([child, copied as object]);
      }
    }
    return root;
  }

  /**
   * The error as the caller may see it: message, issue texts, stack and every link of
   * the `cause` chain redacted. Links are rebuilt as plain errors (name, message, a
   * string `code`, stack), since a thrown object may carry the credential in any property
   * (an HTTP client's copy of the request headers). Unchanged when nothing mentions one.
   */
  redactError(error: SluiceError): SluiceError {
    if (this.#forms.size === 0) return error;
    const chain: unknown[] = [];
    for (let link: unknown = error; link !== undefined && chain.length < MAX_CAUSE_LINKS; link = link instanceof Error ? link.cause : undefined) chain.push(link);
    if (!chain.some((link) => this.#linkMentions(link))) return error;
    let rebuilt: unknown = undefined;
    for (let i = chain.length - 1; i >= 0; i--) rebuilt = this.#rebuildLink(chain[i], rebuilt);
    return rebuilt as SluiceError;
  }

  /** The request with credential values redacted in the URL, headers and body. */
  redactRequest(request: HttpRequest): HttpRequest {
    if (this.#forms.size === 0) return request;
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
    const pair = `${username}:${password}`;
    const base64 = Buffer.from(pair, "utf8").toString("base64");
    for (const value of [username, password, pair, base64, base64.replace(/=+$/, "")]) this.#add(value);
  }

  /** Records a value in every spelling. The guard acts here: switched off, nothing is ever recorded. */
  #add(value: string): void {
    if (!guards.redaction || value.length < MIN_SECRET_LENGTH) return;
    const percent = [encodeURIComponent(value), encodeUnreserved(value), encodeAllowReserved(value)];
    const forms = [value, ...percent, ...percent.map(lowerHex), encodeURIComponent(value).replace(/%20/g, "+"), JSON.stringify(value).slice(1, -1)];
    for (const form of forms) {
      if (form.length >= MIN_SECRET_LENGTH && !this.#forms.has(form)) {
        this.#forms.add(form);
        this.#pattern = undefined;
      }
    }
  }

  #regex(): RegExp | undefined {
    if (this.#forms.size === 0) return undefined;
    // Alternatives are tried in order at each position, so longest first wins over a prefix.
    this.#pattern ??= new RegExp([...this.#forms].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map(escapeRegExp).join("|"), "g");
    return this.#pattern;
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

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
