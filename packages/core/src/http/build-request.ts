import { SluiceError } from "@sluice/schema";
import type { HttpBinding, HttpParameter } from "../tool-ir.ts";
import { encodePathValue, encodeUnreserved } from "./encode.ts";
import { bodyValue, buildBody, isJsonMediaType } from "./body.ts";
import { ownValue, scalarText } from "./scalar.ts";
import { checkHeaderText, serializeCookiePieces, serializeHeaderValue, serializePathValue, serializeQueryPieces } from "./style.ts";

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
        if (parameter.contentType !== undefined) query.push(`${encodeUnreserved(parameter.name)}=${encodeUnreserved(contentText(parameter, value))}`);
        else for (const piece of serializeQueryPieces(parameter.name, value, parameter.style, parameter.explode, parameter.allowReserved ?? false)) query.push(piece);
        break;
      case "header":
        headers[parameter.name.toLowerCase()] =
          parameter.contentType !== undefined ? checkHeaderText(parameter.name, contentText(parameter, value)) : serializeHeaderValue(parameter.name, value, parameter.explode);
        break;
      case "cookie":
        if (parameter.contentType !== undefined) cookies.push(`${encodeUnreserved(parameter.name)}=${encodeUnreserved(contentText(parameter, value))}`);
        else for (const piece of serializeCookiePieces(parameter.name, value, parameter.explode)) cookies.push(piece);
        break;
    }
  }

  const path = binding.path.replace(/\{([^{}]+)\}/g, (_, name: string) => {
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
  if (query.length > 0) url += "?" + query.join("&");

  const request: HttpRequest = { method: binding.method.toUpperCase(), url, headers };
  if (binding.body !== undefined) {
    const value = bodyValue(binding.body, args);
    if (value !== undefined) {
      const built = buildBody(binding.body, value);
      headers["content-type"] = built.contentType;
      request.body = built.body;
    }
  }
  return request;
}
