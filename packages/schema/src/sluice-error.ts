/**
 * Every failure sluice reports is a SluiceError with a string code. Callers branch on
 * `code`, never on the message; the message is written for the person (or, for call
 * errors, the model) who has to act on it.
 */
export type ErrorCode =
  | "UNKNOWN_SELECTOR"
  | "AMBIGUOUS_SELECTOR"
  | "REQUIRED_DROPPED"
  | "PIN_INVALID"
  | "INVALID_NAME"
  | "INVALID_OPTION"
  | "UNRESOLVED_REF"
  | "EXTERNAL_REF"
  | "SPEC_INVALID"
  | "EGRESS_DENIED"
  | "PACK_NOT_FOUND"
  | "FILE_NOT_FOUND"
  | "IMPORT_FAILED"
  | "TOOL_NOT_FOUND"
  | "TOOL_NOT_LOADED"
  | "EGRESS_MAP_CHANGED"
  // A committed egress map that is not text formatEgressMap writes (a line it cannot place).
  | "EGRESS_MAP_INVALID"
  | "INVALID_ARGUMENTS"
  | "RECURSIVE_SCHEMA"
  | "INLINE_BUDGET_EXCEEDED"
  | "LOSSY_FIT_REFUSED"
  // An operation met a schema or input past what it can process (nesting, size); names the operation.
  | "INTERNAL_LIMIT"
  // A projection would leave a union without a branch.
  | "LAST_BRANCH"
  // A header the binding or a pin sets cannot be replaced through ctx.headers.
  | "HEADER_OVERRIDE"
  // A sluice.config file that is not what defineConfig takes (unknown key, wrong type, duplicate pack).
  | "CONFIG_INVALID"
  // A reformatter choice (derived(), a pack runtime) naming a reformatter that does not exist; candidates hold the nearest.
  | "UNKNOWN_REFORMATTER"
  // sluice generate: a config choice the pack's source kind cannot carry out (readOnly needs annotations, tags need an OpenAPI document...).
  | "CONFIG_UNSUPPORTED"
  // sluice generate: the spec yields no tool at all (every operation skipped or excluded).
  | "NO_TOOLS"
  // sluice suggest: no projection that keeps the required (and kept) arguments fits the token budget.
  | "BUDGET_UNREACHABLE"
  // Calls: credentials, transport, the API's answer, the response handler.
  | "AUTH_MISSING"
  // An HTTP call whose URL has no scheme and host: the spec names no absolute server, and none was set.
  | "NO_BASE_URL"
  | "TIMEOUT"
  | "ABORTED"
  | "NETWORK_ERROR"
  | "HTTP_ERROR"
  | "RATE_LIMITED"
  | "API_ERROR"
  | "RESPONSE_INVALID"
  | "RESPONSE_TOO_LARGE"
  | "HANDLER_FAILED"
  // A spec's regular expression that is not ECMA-262 syntax, or that the linear-time engine cannot run (lookaround, backreferences).
  | "PATTERN_INVALID"
  | "PATTERN_UNSUPPORTED"
  // A schema keyword that constrains values but that sluice cannot convert or check exactly ($dynamicRef ...): the schema is refused, never widened.
  | "KEYWORD_UNSUPPORTED"
  // sluice serve: a request over --max-request-bytes, or a call past --max-concurrent-calls and its queue.
  | "REQUEST_TOO_LARGE"
  | "SERVER_BUSY"
  // MCP source: a call of an MCP-bound tool with no upstream in the call context.
  | "MCP_UPSTREAM_MISSING"
  // MCP source: the server could not be started or reached, or broke the protocol.
  | "MCP_CONNECT_FAILED"
  // MCP source: the server did not answer in time (connect, tools/list or tools/call).
  | "MCP_TIMEOUT"
  // MCP source: the upstream failed a tools/call request (a JSON-RPC error, a closed connection).
  | "MCP_UPSTREAM_ERROR"
  // MCP proxy: the upstream process exited or its connection closed (it is started again on the next call).
  | "MCP_UPSTREAM_EXITED"
  // MCP proxy: the upstream did not answer a call in time.
  | "MCP_UPSTREAM_TIMEOUT"
  // MCP proxy: the upstream's answer was larger than one message may be (its connection stays up).
  | "MCP_RESULT_TOO_LARGE"
  // MCP proxy: the upstream changed the tool since the committed snapshot (the lock holds it back).
  | "MCP_TOOL_CHANGED"
  // MCP proxy: the upstream said its tools changed and no listing since has passed the lock; nothing is forwarded meanwhile.
  | "MCP_LOCK_PENDING"
  // MCP proxy: the upstream no longer lists the tool.
  | "MCP_TOOL_REMOVED"
  // MCP source: the server answered a tools/call with isError, or the call failed upstream.
  | "MCP_TOOL_ERROR"
  // MCP source: a committed tools snapshot that is not the format writeSnapshot writes.
  | "MCP_SNAPSHOT_INVALID"
  // MCP source: the live server's tools differ from the committed snapshot (added, widened, description changed).
  | "MCP_SNAPSHOT_CHANGED"
  | "AUTH_FAILED"
  // The CLI: a failure that reached the top without a code of its own (a bug, or a Node error no operation turned into one).
  | "INTERNAL_ERROR"
  // Usage store: its folder is reached through a symbolic link out of the project, or is not a folder sluice can write.
  | "USAGE_DIR_UNSAFE"
  | "USAGE_DIR_NOT_WRITABLE"
  // sluice usage --apply: the config's pack entry is not written in a form the edit can find (a literal object in a packs array).
  | "USAGE_APPLY_UNSUPPORTED"
  // sluice usage --apply: no sluice.config holds the pack the suggestions are for.
  | "USAGE_NO_CONFIG";

/** One problem with a call's arguments, as the model should read it. */
export interface ArgumentIssue {
  /** `withheld`, `pinned`, `unknown`, `too_deep`, `too_large`, `not_json`, or the JSON Schema keyword that failed (`type`, `required`, `enum`, ...). */
  code: string;
  /** JSON pointer into the arguments (`/filter/and`); empty for the arguments as a whole. */
  path: string;
  message: string;
}

export interface SluiceErrorDetails {
  /** JSON pointer of the schema location involved, when there is one. */
  pointer?: string;
  /** Valid alternatives, for unknown or ambiguous selectors. */
  candidates?: readonly string[];
  /** Line and column in a source document, for spec syntax errors. */
  line?: number;
  column?: number;
  cause?: unknown;
  /** Every problem found with a call's arguments (INVALID_ARGUMENTS, EGRESS_DENIED). */
  issues?: readonly ArgumentIssue[];
  /** The tool a call error belongs to. */
  tool?: string;
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** Seconds the API asked to wait before retrying (`retry-after`). */
  retryAfterSeconds?: number;
  /** AUTH_MISSING: the security schemes a credential was missing for, so a server can name its variables. */
  schemes?: readonly string[];
}

export class SluiceError extends Error {
  override readonly name = "SluiceError";
  readonly code: ErrorCode;
  readonly pointer: string | undefined;
  readonly candidates: readonly string[] | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly issues: readonly ArgumentIssue[] | undefined;
  readonly tool: string | undefined;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly schemes: readonly string[] | undefined;

  constructor(code: ErrorCode, message: string, details: SluiceErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.pointer = details.pointer;
    this.candidates = details.candidates;
    this.line = details.line;
    this.column = details.column;
    this.issues = details.issues;
    this.tool = details.tool;
    this.status = details.status;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.schemes = details.schemes;
  }
}

export function isSluiceError(value: unknown, code?: ErrorCode): value is SluiceError {
  return value instanceof SluiceError && (code === undefined || value.code === code);
}
