import type { Binding, HttpAuthScheme, PackSelection } from "../tool-ir.ts";
import type { HttpCredential } from "../http/auth.ts";
import type { CallCollector } from "./collector.ts";
import type { OAuth2Credential } from "./oauth2.ts";
import type { ReformatChoice } from "../responses/reformat/reformatter.ts";

/** What a response handler and a failure check are told about the answer besides its body. */
export interface ResponseInfo {
  /** Wire name of the tool that was called. */
  tool: string;
  status: number;
  /** Response headers, lower-case names. */
  headers: Readonly<Record<string, string>>;
  /** The arguments the request was built from (after screening, pins included). */
  args: Readonly<Record<string, unknown>>;
}

/**
 * Turns an API response body into what the model sees. Runs after a successful call;
 * whatever it returns is sent to the model as compact JSON. It must keep what the next
 * call needs: ids, cursors, more-pages flags (also when false).
 */
export type ResponseHandler = (body: unknown, info: ResponseInfo) => unknown;

/** A failure the API reported inside a successful HTTP answer (GraphQL `errors`, Slack `ok: false`). */
export interface ApiFailure {
  message: string;
  /** The API's own error code, when it gives one (`channel_not_found`, `RATELIMITED`). */
  apiCode?: string;
  /** When the API says this failure is a rate limit. */
  rateLimited?: boolean;
}

/** Reads a successful answer and says whether it is a failure in disguise. */
export type FailureCheck = (body: unknown, info: ResponseInfo) => ApiFailure | undefined;

/**
 * Where the next page comes from and which argument carries it back. Paths are dotted
 * property paths into the response body (`data.issues.pageInfo.endCursor`); an `items`
 * path of `$` (`BODY_ITEMS`) means the answer itself is the list (a bare JSON array).
 *  - `cursor`: an opaque cursor in the body (`endCursor`, `next_cursor`, `nextPageToken`);
 *  - `lastItemId`: the id (`idField`, default `id`) of the last item of a list (Stripe's
 *    `starting_after`, Discord's `after`), while `hasMore` says so; without a `hasMore`
 *    flag, until a page comes back empty or shorter than the size asked for
 *    (`pageSizeArg`, else `defaultPageSize`);
 *  - `link`: the `rel="next"` URL of a `Link` header; its query parameter `param`
 *    (default: the argument's name) is carried back;
 *  - `nextUrl`: a next-page URL in the body (Twilio's `next_page_uri`, SendGrid's
 *    `_metadata.next`); its query parameter `param` (default: the argument's name) is
 *    carried back. The URL is read, never fetched: the next call goes to the tool's own
 *    server with that one argument replaced;
 *  - `offset`: an item offset (Jira's `startAt`, `offset`, `skip`), advanced by the number
 *    of items received (servers cap page sizes). It stops when `isLast` is true or
 *    `hasMore` false, when `total` is reached, or, without those, on an empty page or one
 *    shorter than the size asked for;
 *  - `page`: a page number argument, incremented while `hasMore` is true (or while a
 *    full page of `items` came back, given the page size argument).
 */
export type Pagination =
  | { style: "cursor"; arg: string; cursor: string; hasMore?: string; items?: string }
  | { style: "lastItemId"; arg: string; items: string; hasMore?: string; idField?: string; pageSizeArg?: string; defaultPageSize?: number }
  | { style: "link"; arg: string; param?: string; items?: string }
  | { style: "nextUrl"; arg: string; next: string; param?: string; items?: string }
  | { style: "offset"; arg: string; items: string; total?: string; isLast?: string; hasMore?: string; pageSizeArg?: string; defaultPageSize?: number }
  | { style: "page"; arg: string; items: string; hasMore?: string; pageSizeArg?: string; defaultPageSize?: number; firstPage?: number };

/**
 * The fields each pagination style takes, required and optional, with their types: what
 * `derived({ pagination })` checks a declaration against (the union above says the same
 * to TypeScript; this says it at run time, where options are not always literals).
 */
export const PAGINATION_FIELDS: Readonly<Record<Pagination["style"], { required: Readonly<Record<string, "string" | "number">>; optional: Readonly<Record<string, "string" | "number">> }>> = {
  cursor: { required: { arg: "string", cursor: "string" }, optional: { hasMore: "string", items: "string" } },
  lastItemId: { required: { arg: "string", items: "string" }, optional: { hasMore: "string", idField: "string", pageSizeArg: "string", defaultPageSize: "number" } },
  link: { required: { arg: "string" }, optional: { param: "string", items: "string" } },
  nextUrl: { required: { arg: "string", next: "string" }, optional: { param: "string", items: "string" } },
  offset: { required: { arg: "string", items: "string" }, optional: { total: "string", isLast: "string", hasMore: "string", pageSizeArg: "string", defaultPageSize: "number" } },
  page: { required: { arg: "string", items: "string" }, optional: { hasMore: "string", pageSizeArg: "string", defaultPageSize: "number", firstPage: "number" } },
};

/** Call-time behaviour of one tool beyond its binding. */
export interface ToolRuntime {
  responseHandler?: ResponseHandler;
  pagination?: Pagination;
  /** Which lossless reformatters run on this tool's answers, over the pack's choice (docs/reformatters.md). */
  reformatters?: ReformatChoice;
}

/**
 * What a pack declares about calling its tools, hand-written beside the generated code
 * (`packs/<name>/src/runtime.ts`): the GraphQL endpoint and its authentication (an
 * HTTP binding carries its own server and security), the failure envelope of the API,
 * and response handlers and pagination per tool.
 */
export interface PackRuntime {
  /** GraphQL endpoint URL. */
  endpoint?: string;
  /**
   * Authentication for tools whose binding declares none: GraphQL tools, and HTTP tools
   * of specs without security requirements (GitHub REST). Any one inner list suffices.
   */
  auth?: HttpAuthScheme[][];
  failure?: FailureCheck;
  /**
   * Where a server (`sluice serve`, ToolSession) reads each security scheme's credential:
   * scheme name -> environment variable. Generated packs declare one per scheme
   * (`<PACK>_<SCHEME>`); a call made in code still takes `ctx.credentials`.
   */
  credentialEnv?: Readonly<Record<string, string>>;
  /** OAuth 2 schemes with a token endpoint: scheme name -> where tokens come from and the client's variables. */
  credentialOAuth2?: Readonly<Record<string, OAuth2Settings>>;
  /** The API's name in messages about it (the pack name of a generated pack). */
  api?: string;
  /** MCP packs: the upstream server, as the generated facts give it (secrets as variable names). */
  mcp?: McpServerFact;
  /** GraphQL: the environment variable the endpoint was read from, for start-up messages. */
  endpointEnv?: string;
  /** The config's tool-level choices, which the egress map shows (generated packs: from the facts). */
  selection?: PackSelection;
  /** Which lossless reformatters run on every tool's answers, over the defaults (docs/reformatters.md). */
  reformatters?: ReformatChoice;
  /** Per tool, by generated name. Every name must exist in the pack. */
  tools?: Readonly<Record<string, ToolRuntime>>;
  /** Per tool, computed from its name and binding (e.g. every GraphQL connection); `tools` entries win. */
  forTool?: (name: string, binding: Binding) => ToolRuntime | undefined;
}

/**
 * Where an OAuth 2 scheme of a generated pack gets tokens: the token endpoint of its spec,
 * and the environment variables of the client (`<PACK>_<SCHEME>_CLIENT_ID`, `..._CLIENT_SECRET`,
 * `..._REFRESH_TOKEN`).
 */
export interface OAuth2Settings {
  tokenUrl: string;
  clientIdEnv: string;
  clientSecretEnv: string;
  refreshTokenEnv: string;
}

/**
 * What a scheme's credential can be: a fixed token or user and password, or an OAuth 2
 * client (`oauth2Credential(...)`) asked for a fresh access token on each call.
 */
export type SchemeCredential = HttpCredential | OAuth2Credential;

/** Credentials by security scheme name, or a function asked per scheme (may be async). */
export type CredentialSource =
  | Readonly<Record<string, SchemeCredential>>
  | ((scheme: HttpAuthScheme, tool: string) => SchemeCredential | undefined | Promise<SchemeCredential | undefined>);

/**
 * One block of an MCP tool result's `content` (text, image, audio, resource link, embedded
 * resource), kept as the server sent it. Only text blocks are read by sluice.
 */
export type McpContentBlock = { type: "text"; text: string; [key: string]: unknown } | { type: string; [key: string]: unknown };

/** What an upstream MCP server answered to `tools/call` (MCP `CallToolResult`). */
export interface McpToolResult {
  content: McpContentBlock[];
  /** A JSON object matching the tool's `outputSchema`, when it declares one. */
  structuredContent?: Record<string, unknown>;
  /** The tool failed; `content` says why (a result the model should read, not a protocol error). */
  isError?: boolean;
  [key: string]: unknown;
}

/** A progress notification of a call in flight (MCP `notifications/progress`). */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Where the call of an MCP-bound tool goes: a connected MCP client (or anything that speaks
 * for one). sluice screens the arguments first; the upstream only ever sees what passed.
 * It must honour `signal` (cancellation) and may report progress.
 */
export interface McpUpstream {
  callTool(
    request: { name: string; arguments: Record<string, unknown> },
    options: { signal?: AbortSignal; onProgress?: (progress: McpProgress) => void },
  ): Promise<McpToolResult>;
  /**
   * The secrets this upstream was given (its API keys: `fromEnv` values, credential headers
   * of a URL server, `Authorization: Bearer ...` values whole). A call redacts each from
   * everything the upstream returns (content, structured content, errors, progress), in
   * every spelling `credential-pattern.ts` finds, before a model or a log can see it.
   */
  secrets?(): readonly string[];
}

export interface CallContext {
  /** MCP-bound tools: the server `tools/call` is forwarded to. Without it such a call is MCP_UPSTREAM_MISSING. */
  mcp?: McpUpstream;
  /** MCP-bound tools: progress notifications of the upstream call, passed on as they come. */
  onProgress?: (progress: McpProgress) => void;
  /** Replaces the binding's server URL (HTTP) or the pack's endpoint (GraphQL). */
  baseUrl?: string;
  /**
   * Where credentials come from. They go into the request only; errors, `request()`
   * output and everything a call returns (`output`, `nextPageArgs`, `body`, `headers`)
   * show them as `[redacted]`, in every spelling docs/credentials.md lists.
   */
  credentials?: CredentialSource;
  /**
   * Extra request headers (user agent, tracing). A header the request sets itself (a
   * header parameter of the binding, pinned or not, authentication, the body's content
   * type) cannot be replaced: that is a HEADER_OVERRIDE error, before anything is sent.
   */
  headers?: Readonly<Record<string, string>>;
  /** Defaults to the platform `fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds for the whole exchange, body included. Default 30 000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Arguments larger than this are refused before anything is sent. Default 1 MiB. */
  maxArgumentBytes?: number;
  /** Responses larger than this are cut off with RESPONSE_TOO_LARGE. Default 32 MiB. */
  maxResponseBytes?: number;
  /** Records the call (in addition to any collector made current by `collecting`). */
  collector?: CallCollector;
  /**
   * Count the tokens of each reformatter stage (`CallResult.reformat`) even without a
   * collector, for a log (`sluice serve --verbose` sets it). Counting loads the tokenizer and
   * costs time per call; what the model reads is the same either way.
   */
  reformatTokens?: boolean;
  /**
   * `request()`: return the request with credential values as they would be sent. By
   * default every credential the request carries (headers, query, cookies, body fields
   * such as Slack's `token`) reads `[redacted]`, so the result can be logged or shown to
   * a model. `invoke()`: return the raw `body` and `headers` as the API sent them; the
   * `output` (what the model sees) and `nextPageArgs` are redacted regardless.
   */
  revealCredentials?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_ARGUMENT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** A configured value read from the environment when the upstream starts: the variable's name, never its value. */
export interface FromEnv {
  fromEnv: string;
}

/**
 * MCP packs: how the upstream server is started (stdio) or reached (Streamable HTTP), as the
 * config says. `env` and `headers` values are literal strings or `{ fromEnv }`: a secret is
 * written as the name of its variable, never as its value.
 */
export type McpServerFact =
  | { command: string; args: string[]; env?: Record<string, string | FromEnv>; cwd?: string }
  | { url: string; headers?: Record<string, string | FromEnv> };
