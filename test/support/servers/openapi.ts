/**
 * A mock of a REST API described by an OpenAPI (or Swagger 2.0) document. Every request
 * is matched to an operation and validated against the spec by openapi-backend; a valid
 * one gets the operation's first 2xx response (its example, or a body generated from its
 * schema), an invalid one a 400 and an entry in `violations`.
 *
 * URLs: spec paths are served at the server root (`${url}/v1/customers`), which is what a
 * caller gets with `baseUrl: server.url`. When the spec's server URL has a path (Slack's
 * `https://slack.com/api`), the same operations also answer under that prefix
 * (`${url}/api/conversations.history`), for callers that keep it in their base URL.
 */
import { sendJson, startHttpServer, type LocalServer, type RecordedRequest } from "./http.ts";
import { generateResponse } from "./openapi-body.ts";
import { loadSpec, matchRoute, parseBracketed, validateAgainstSpec } from "./openapi-spec.ts";

/** Request fields that ask for a page size, across the vendored APIs. */
const PAGE_SIZE_FIELDS = ["limit", "per_page", "page_size", "pageSize", "maxResults", "max_results", "count"];

/** The page size a request asks for, if any: a smaller one than `listLength` wins. */
function requestedPageSize(query: string, request: RecordedRequest): number | undefined {
  const sources: unknown[] = [parseBracketed(query)];
  if (request.json !== undefined) sources.push(request.json);
  else if (/x-www-form-urlencoded/.test(request.headers["content-type"] ?? "")) sources.push(parseBracketed(request.body));
  for (const source of sources) {
    if (source === null || typeof source !== "object" || Array.isArray(source)) continue;
    for (const field of PAGE_SIZE_FIELDS) {
      const value = Number((source as Record<string, unknown>)[field]);
      if (Number.isInteger(value) && value >= 0) return value;
    }
  }
  return undefined;
}

export interface MockResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body: unknown;
}

export interface OpenApiMockOptions {
  /** Path to the spec (JSON or YAML; OpenAPI 3.x or Swagger 2.0). */
  specFile: string;
  /** Items in the top-level list of generated bodies (default 10). */
  listLength?: number;
  /** Answers by operationId, used instead of the generated body for valid requests. */
  overrides?: Record<string, (request: RecordedRequest) => MockResponse>;
}

export interface Violation {
  /** The matched operationId; absent when no operation matched. */
  operation?: string;
  request: RecordedRequest;
  errors: unknown;
}

export interface OpenApiMockServer extends LocalServer {
  /** Requests that did not match the spec: unknown route, wrong method, or invalid parameters/body. */
  violations: Violation[];
}

/** Pages a `Link`-paginated list has. */
const LINK_PAGES = 3;

/** A one-line summary of validation errors for the 400 message. */
function summarize(errors: unknown[]): string {
  return errors
    .slice(0, 5)
    .map((e) => {
      const err = e as { instancePath?: string; message?: string; params?: Record<string, unknown> };
      const extra = err.params && typeof err.params["additionalProperty"] === "string" ? ` (${String(err.params["additionalProperty"])})` : "";
      return `${err.instancePath || "/"} ${err.message ?? "is invalid"}${extra}`;
    })
    .join("; ");
}

/** Starts a mock for `specFile`. The spec is loaded once per process and shared. */
export async function startOpenApiMockServer(options: OpenApiMockOptions): Promise<OpenApiMockServer> {
  const spec = await loadSpec(options.specFile);
  const listLength = options.listLength ?? 10;
  const overrides = options.overrides ?? {};
  const violations: Violation[] = [];

  const server = await startHttpServer(async (request, res) => {
    const url = new URL(request.path, "http://127.0.0.1");
    const match = matchRoute(spec, request.method, url.pathname);
    if (match.kind === "not-found") {
      const errors = [{ keyword: "route", message: `no operation in ${spec.file} matches ${request.method} ${url.pathname}` }];
      violations.push({ request, errors });
      sendJson(res, 404, { error: { message: errors[0]!.message, errors } });
      return;
    }
    if (match.kind === "method-not-allowed") {
      const errors = [{ keyword: "method", message: `${request.method} is not allowed on ${url.pathname}; the spec allows ${match.allowed.join(", ")}` }];
      violations.push({ request, errors });
      sendJson(res, 405, { error: { message: errors[0]!.message, errors } }, { allow: match.allowed.join(", ") });
      return;
    }

    const { operation } = match;
    let outcome;
    try {
      outcome = await validateAgainstSpec(spec, operation, {
        method: request.method,
        path: match.path,
        query: url.search.slice(1),
        headers: request.headers,
        body: request.body,
      });
    } catch (error) {
      // A schema the validator cannot compile is this server's problem, but a test must still notice.
      const errors = [{ keyword: "validator", message: `validator failed on ${operation.operationId}: ${error instanceof Error ? error.message : String(error)}` }];
      violations.push({ operation: operation.operationId, request, errors });
      sendJson(res, 500, { error: { message: errors[0]!.message, errors } });
      return;
    }
    if (!outcome.valid) {
      violations.push({ operation: operation.operationId, request, errors: outcome.errors });
      sendJson(res, 400, { error: { message: `Invalid request for ${operation.operationId}: ${summarize(outcome.errors)}`, errors: outcome.errors } });
      return;
    }

    const override = overrides[operation.operationId];
    if (override) {
      const answer = override(request);
      const status = answer.status ?? 200;
      const text = typeof answer.body === "string" ? answer.body : answer.body === undefined ? "" : JSON.stringify(answer.body);
      const headers: Record<string, string> = { "x-mock-operation": operation.operationId };
      if (text !== "") headers["content-type"] = typeof answer.body === "string" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8";
      for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name.toLowerCase()] = value;
      res.writeHead(status, headers);
      res.end(text);
      return;
    }

    const pageSize = requestedPageSize(url.search.slice(1), request);
    const generated = generateResponse(spec.doc, operation, {
      listLength,
      ...(pageSize !== undefined ? { pageSize } : {}),
      requestKey: `${request.method} ${request.path}\n${request.body}`,
    });
    const headers: Record<string, string> = { "x-mock-operation": operation.operationId };
    if (generated.declaresLink) {
      // RFC 8288 paging as GitHub does it: three pages, `page` in the next URL.
      const next = new URL(request.path, "http://mock.invalid");
      const page = Number(next.searchParams.get("page") ?? "1");
      if (Number.isInteger(page) && page >= 1 && page < LINK_PAGES) {
        next.searchParams.set("page", String(page + 1));
        headers["link"] = `<${server.url}${next.pathname}${next.search}>; rel="next", <${server.url}${next.pathname}?page=${LINK_PAGES}>; rel="last"`;
      }
    }
    if (generated.body !== undefined) {
      headers["content-type"] = generated.contentType ?? "application/json; charset=utf-8";
      headers["content-length"] = String(Buffer.byteLength(generated.body));
    }
    res.writeHead(generated.status, headers);
    res.end(generated.body ?? "");
  });

  return Object.assign(server, { violations });
}
