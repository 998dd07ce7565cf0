import { escapePointerSegment, SluiceError } from "@sluice/schema";
import { guards } from "../guards.ts";
import type { HttpAuthScheme, HttpBinding, HttpParameter } from "../tool-ir.ts";
import { encodePathValue, encodeUnreserved } from "./encode.ts";
import { bodyValue, buildBody, isJsonMediaType } from "./body.ts";
import { isPlainObject, ownEntries, ownValue, scalarText } from "./scalar.ts";
import { checkHeaderText, isUndefinedValue, serializeCookiePieces, serializeHeaderValue, serializePathValue, serializeQueryPieces } from "./style.ts";
import { clashOf, reservedNames, schemesOf, unreadableName, wireNameForms, withheldBodyNames, writesCredentialName, type Reservation, type WireLocation } from "./wire-names.ts";

/**
 * One HTTP request, ready for `fetch`. Header names are lower case. A multipart body is
 * bytes with its boundary in `content-type`, so the request is inspectable and the same
 * arguments always give the same bytes.
 */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** What something outside the binding (authentication) adds to a request. */
export interface HttpRequestAdditions {
  headers?: Readonly<Record<string, string>>;
  /** Encoded as query pieces after the binding's parameters. */
  query?: readonly (readonly [string, string])[];
  cookies?: readonly (readonly [string, string])[];
}

export interface BuildHttpRequestOptions {
  /** Replaces the binding's `server`; joined with the path template. */
  baseUrl?: string;
  /** Added after the binding's own parameters (see `authAdditions`). */
  additions?: HttpRequestAdditions;
  /** Security schemes beside the binding's own `auth` (the pack runtime's): their names are never written by a parameter. */
  schemes?: readonly (readonly HttpAuthScheme[])[];
  /** Members of a body sent whole that the tool withholds: a form body's key read as one of them is refused. */
  withheldBodyMembers?: readonly string[];
  /** Arguments a projection pins: a form body's key read as a pinned query parameter's name is refused. */
  pinnedArguments?: readonly string[];
  /** Top-level arguments the tool withholds: a flattened body field among them is a name no exploded query key may write. */
  withheldArguments?: readonly string[];
}

function contentText(parameter: HttpParameter, value: unknown): string {
  const type = parameter.contentType!;
  return isJsonMediaType(type) ? JSON.stringify(value) : scalarText(value, `${parameter.in} parameter ${parameter.name}`);
}

/** Joins a server URL and a path template's expansion: exactly one `/` between them; an empty path is the server URL itself (a GraphQL endpoint). */
export function joinUrl(base: string, path: string): string {
  if (path === "" && base !== "") return base;
  const p = path.startsWith("/") ? path : "/" + path;
  if (base === "") return p;
  return base.replace(/\/+$/, "") + p;
}

/**
 * Builds the request a binding sends for these arguments. Only the arguments the binding
 * names (parameters' `arg`, body `fields` and `wholeBodyArg`) are read, as own
 * properties, so an argument the binding does not know (withheld by a projection, or
 * never part of the tool) can never be sent, whatever `args` holds. Arguments are not
 * validated here beyond what the wire needs: a missing required parameter, an empty path
 * segment or a header line break is an `INVALID_ARGUMENTS` error.
 */
export function buildHttpRequest(binding: HttpBinding, args: Record<string, unknown>, options: BuildHttpRequestOptions = {}): HttpRequest {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const cookies: string[] = [];
  const pathValues = new Map<string, string>();
  const wire = guards.wireNames ? new WireNameCheck(binding, options) : undefined;

  for (const parameter of binding.parameters) {
    const value = ownValue(args, parameter.arg);
    if (value === undefined) {
      if (parameter.in === "path" || parameter.required === true) {
        throw new SluiceError("INVALID_ARGUMENTS", `missing required argument ${parameter.arg} (${parameter.in} parameter ${parameter.name} of ${binding.method} ${binding.path})`);
      }
      continue;
    }
    switch (parameter.in) {
      case "path": {
        const text = parameter.contentType !== undefined ? encodePathValue(contentText(parameter, value)) : serializePathValue(parameter.name, value, parameter.style, parameter.explode);
        if (text === "" || (parameter.style === "simple" && value === "")) {
          throw new SluiceError("INVALID_ARGUMENTS", `argument ${parameter.arg} (path parameter ${parameter.name}) must not be empty`);
        }
        pathValues.set(parameter.name, text);
        break;
      }
      case "query":
        wire?.parameter(parameter);
        if (parameter.contentType !== undefined) query.push(`${encodeUnreserved(parameter.name)}=${encodeUnreserved(contentText(parameter, value))}`);
        else for (const piece of serializeQueryPieces(parameter.name, value, parameter.style, parameter.explode, parameter.allowReserved ?? false)) query.push(wire?.piece(parameter, piece) ?? piece);
        break;
      case "header":
        wire?.parameter(parameter);
        if (parameter.contentType === undefined && isUndefinedValue(value)) break;
        headers[parameter.name.toLowerCase()] =
          parameter.contentType !== undefined ? checkHeaderText(parameter.name, contentText(parameter, value)) : serializeHeaderValue(parameter.name, value, parameter.explode);
        break;
      case "cookie":
        wire?.parameter(parameter);
        if (parameter.contentType !== undefined) cookies.push(`${encodeUnreserved(parameter.name)}=${encodeUnreserved(contentText(parameter, value))}`);
        else for (const piece of serializeCookiePieces(parameter.name, value, parameter.explode)) cookies.push(wire?.piece(parameter, piece) ?? piece);
        break;
    }
  }

  // A fragment in a path key (Box: `/files/{file_id}#get_shared_link`) only tells operations
  // apart in the document; it is never sent, and left in, it would swallow the query string.
  const path = binding.path.replace(/#.*$/s, "").replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const text = pathValues.get(name);
    if (text === undefined) {
      throw new SluiceError("INVALID_ARGUMENTS", `${binding.method} ${binding.path}: no argument for path parameter ${name}`);
    }
    return text;
  });

  // A segment that is `.` or `..` (even percent-encoded: URL parsers decode `%2E`) would
  // move the request to another resource.
  for (const segment of path.split("/")) {
    if (/^(?:\.|%2e){1,2}$/i.test(segment) && !binding.path.split("/").includes(segment)) {
      throw new SluiceError("INVALID_ARGUMENTS", `${binding.method} ${binding.path}: a path argument of "." or ".." would change the resource addressed`);
    }
  }

  const additions = options.additions ?? {};
  for (const [name, value] of additions.query ?? []) query.push(`${encodeUnreserved(name)}=${encodeUnreserved(value)}`);
  for (const [name, value] of additions.cookies ?? []) cookies.push(`${encodeUnreserved(name)}=${encodeUnreserved(value)}`);
  for (const [name, value] of Object.entries(additions.headers ?? {})) headers[name.toLowerCase()] = checkHeaderText(name, value);
  if (cookies.length > 0) headers["cookie"] = headers["cookie"] === undefined ? cookies.join("; ") : `${headers["cookie"]}; ${cookies.join("; ")}`;

  let url = joinUrl(options.baseUrl ?? binding.server ?? "", path);
  // A path key may carry a fixed query of its own (`/analyze?overload=stream`): parameters follow it.
  if (query.length > 0) url += (path.includes("?") ? "&" : "?") + query.join("&");

  const request: HttpRequest = { method: binding.method.toUpperCase(), url, headers };
  if (binding.body !== undefined) {
    const value = bodyValue(binding.body, args);
    if (value !== undefined) {
      if (wire !== undefined && (binding.body.encoding === "form" || binding.body.encoding === "multipart")) {
        wire.bodyNames(value);
        if (binding.body.wholeBodyArg !== undefined) wire.wholeFormBody(binding.body.wholeBodyArg, value);
      }
      const built = buildBody(binding.body, value);
      headers["content-type"] = built.contentType;
      request.body = built.body;
    }
  }
  return request;
}

/**
 * The builder's own check of wire names, after serialization and independent of
 * screening: a piece a parameter writes under a name that is not its own (an exploded
 * object's key) must not be a name something else owns (another parameter, a withheld
 * one, a credential, in any form a server may read it as); no parameter writes a
 * credential or session header; no two parameters write one header. A clash found here
 * means screening let it through, so the request fails closed instead of being sent.
 */
class WireNameCheck {
  readonly #binding: HttpBinding;
  readonly #schemes: HttpAuthScheme[];
  readonly #reserved = new Map<WireLocation, Map<string, Reservation>>();
  readonly #headers = new Map<string, string>();
  readonly #withheldBodyMembers: readonly string[];
  readonly #pinned: ReadonlySet<string>;
  readonly #bodyNames: string[];

  constructor(binding: HttpBinding, options: BuildHttpRequestOptions) {
    this.#binding = binding;
    this.#withheldBodyMembers = options.withheldBodyMembers ?? [];
    this.#pinned = new Set(options.pinnedArguments ?? []);
    this.#bodyNames = withheldBodyNames(binding, [...(options.withheldBodyMembers ?? []).map((member) => `${binding.body?.wholeBodyArg ?? ""}.${member}`), ...(options.withheldArguments ?? [])]);
    this.#schemes = schemesOf(binding, options.schemes);
    // Query and cookie additions come from authentication only: credentials, whatever the schemes say.
    // (Header additions may also be the caller's own headers, which are checked where they join.)
    const additions = options.additions ?? {};
    for (const [name] of additions.query ?? []) this.#schemes.push({ scheme: "(request)", type: "apiKey", in: "query", name });
    for (const [name] of additions.cookies ?? []) this.#schemes.push({ scheme: "(request)", type: "apiKey", in: "cookie", name });
  }

  parameter(parameter: HttpParameter): void {
    if (writesCredentialName(parameter, this.#schemes)) this.#deny(parameter, `the ${parameter.in} ${parameter.name} carries a credential or session; only authentication sets it`);
    if (parameter.in !== "header") return;
    const lower = parameter.name.toLowerCase();
    const other = this.#headers.get(lower);
    if (other !== undefined) this.#deny(parameter, `the header ${parameter.name} is also written by argument ${other} (header names ignore case)`);
    this.#headers.set(lower, parameter.arg);
  }

  /** Returns the piece when it may be sent; throws when an exploded key would write a name it does not own. */
  piece(parameter: HttpParameter, piece: string): string {
    const raw = piece.slice(0, piece.indexOf("=") < 0 ? piece.length : piece.indexOf("="));
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    if (name === parameter.name) return piece;
    const location = parameter.in as WireLocation;
    const unreadable = unreadableName(name, location);
    if (unreadable !== undefined) this.#deny(parameter, `a key of ${parameter.arg} would be sent as the ${parameter.in} name ${JSON.stringify(name)}, which ${unreadable}`);
    let reserved = this.#reserved.get(location);
    if (reserved === undefined) this.#reserved.set(location, (reserved = reservedNames(this.#binding, this.#schemes, location, location === "query" ? this.#bodyNames : [])));
    const clash = clashOf(reserved, name, parameter.arg, location);
    if (clash !== undefined) this.#deny(parameter, `a key of ${parameter.arg} would be sent as the ${parameter.in} name ${JSON.stringify(name)}, which is ${clash.why === "credential" ? "a credential" : clash.why === "fixed" ? "fixed by the operation's path" : clash.why === "body" ? `the withheld body field ${clash.name}` : `the name of ${clash.why === "withheld" ? "withheld " : ""}argument ${clash.arg}`}`);
    return piece;
  }

  /**
   * A form body sent whole writes its keys as top-level names, read with the query by many
   * servers: a key that is a withheld member of the body in another form, or a withheld,
   * credential, fixed or pinned query name in any form, is refused. (The exact withheld key
   * is the request filter's.)
   */
  wholeFormBody(arg: string, value: unknown): void {
    if (!isPlainObject(value)) return;
    const members = new Map<string, string>();
    for (const member of this.#withheldBodyMembers) for (const form of wireNameForms(member)) members.set(form, member);
    let query = this.#reserved.get("query");
    if (query === undefined) this.#reserved.set("query", (query = reservedNames(this.#binding, this.#schemes, "query", this.#bodyNames)));
    for (const [key] of ownEntries(value)) {
      const forms = wireNameForms(key);
      const member = forms.map((form) => members.get(form)).find((m) => m !== undefined);
      const clash = forms.map((form) => query.get(form)).find((r) => r !== undefined && r.why !== "body" && (r.why !== "parameter" || (r.arg !== undefined && this.#pinned.has(r.arg))));
      if ((member === undefined || member === key) && clash === undefined) continue;
      const message = `the body key ${JSON.stringify(key)} would be read as ${member !== undefined && member !== key ? `the withheld body field ${member}` : `the query name ${clash!.name}, which is ${clash!.why === "credential" ? "a credential" : clash!.why === "fixed" ? "fixed by the operation's path" : `the name of ${clash!.why === "withheld" ? "withheld" : "pinned"} argument ${clash!.arg}`}`}`;
      throw new SluiceError("EGRESS_DENIED", `${this.#binding.method} ${this.#binding.path}: refused to build the request: ${message}. Remove it and call again.`, {
        issues: [{ code: "reserved", path: `/${escapePointerSegment(arg)}/${escapePointerSegment(key)}`, message }],
      });
    }
  }

  /** A form or multipart body writes every key, at any depth, into a name: each must be readable one way. */
  bodyNames(value: unknown, path = "", depth = 0): void {
    if (depth > 64) return;
    if (Array.isArray(value)) value.forEach((item, i) => this.bodyNames(item, `${path}/${i}`, depth + 1));
    if (!isPlainObject(value)) return;
    for (const [key, inner] of ownEntries(value)) {
      const unreadable = unreadableName(key);
      if (unreadable !== undefined) {
        const message = `the body key ${JSON.stringify(key)} ${unreadable}`;
        throw new SluiceError("EGRESS_DENIED", `${this.#binding.method} ${this.#binding.path}: refused to build the request: ${message}. Remove it and call again.`, {
          issues: [{ code: "reserved", path: `${path}/${escapePointerSegment(key)}`, message }],
        });
      }
      this.bodyNames(inner, `${path}/${escapePointerSegment(key)}`, depth + 1);
    }
  }

  #deny(parameter: HttpParameter, message: string): never {
    throw new SluiceError("EGRESS_DENIED", `${this.#binding.method} ${this.#binding.path}: refused to build the request: ${message}. Remove it and call again.`, {
      issues: [{ code: "reserved", path: `/${escapePointerSegment(parameter.arg)}`, message }],
    });
  }
}
