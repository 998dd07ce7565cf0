import type { JsonSchemaObject } from "@sluice/schema";

/**
 * The tool IR: what every generator produces and what packs are built from.
 * Generators emit it; pack source is a pure function of it; the runtime turns it
 * into immutable Tool values. It is plain data, so it serializes as JSON.
 */

/** A pack as generators produce it. */
export interface PackIR {
  /** Pack name, e.g. `linear`. */
  name: string;
  source: PackSource;
  /**
   * Pack-level definitions table: every named type stored once. Tool parameters
   * reference entries as `{ "$ref": "#/$defs/<Name>" }`; entries reference each other
   * the same way. A tool's `inputSchema.$defs` is the subset it reaches.
   */
  defs: Record<string, JsonSchemaObject>;
  tools: ToolIR[];
  /**
   * Members of definitions the generator withheld (type name -> `Type.member` paths),
   * e.g. inputs documented as internal. Every tool that reaches the type lists them.
   */
  withheldMembers?: Record<string, WithheldPath[]>;
  /** Operations present in the source but not generated, each with the reason. */
  skipped: SkippedOperation[];
  /** Spec patterns the generator removed (not ECMA-262, or not runnable in linear time), in spec order. */
  refusedPatterns?: PatternRefusal[];
  /** What the generator decided that a person should hear once, at generate (one line each). */
  notices?: string[];
}

/**
 * Which tools a pack holds and why the others are not in it: a config's tool-level
 * choices (include / exclude, read-only, renames, descriptions), recorded by generate so
 * that the egress map can show them and a widened selection shows in review.
 */
export interface PackSelection {
  /** The config's rules in its own words, in config order: `include tags "pet"`, `readOnly`. */
  rules: string[];
  /** How many tools the pack holds after the selection. */
  tools: number;
  /** Every tool the selection left out, by generated name, with the entry or rule that did (`not in include`, `exclude paths "DELETE /**"`, `not read-only (POST /pet)`). */
  leftOut: { tool: string; reason: string }[];
  /** Tools the config gave a new wire name: `from` is the name they had (after any prefix). */
  renamed: { from: string; to: string }[];
  /** Tools (by wire name) whose description the config wrote, with the text. */
  described: { tool: string; description: string }[];
}

/**
 * A spec's `pattern` (or `patternProperties` key) left out of the generated schema: the tool
 * does not check it, and sluice never runs it on a backtracking engine.
 */
export interface PatternRefusal {
  code: "PATTERN_INVALID" | "PATTERN_UNSUPPORTED";
  /** The operation whose conversion met it (`GET /users`); a shared type names the first that reached it. */
  operation: string;
  /** JSON pointer of the keyword in the spec document. */
  pointer: string;
  pattern: string;
  reason: string;
}

export interface PackSource {
  kind: "graphql" | "openapi" | "mcp";
  /** File name of the vendored spec, relative to the pack's `spec/` folder. */
  file: string;
  sha256: string;
}

export interface SkippedOperation {
  /** `METHOD /path` (OpenAPI; `* /path` for a whole path item), `Subscription.field` (GraphQL). */
  operation: string;
  /** `CODE: what is wrong`, for a person to act on. */
  reason: string;
  /** Why, for code to branch on: a SluiceError code (`UNRESOLVED_REF`, `SPEC_INVALID`, ...) or the generator's own (`PARAMETER_UNSUPPORTED`, `SUBSCRIPTION`). */
  code?: string;
  /** JSON pointer into the spec where the problem is, when there is one. */
  pointer?: string;
}

export interface ToolIR {
  /** Wire name, `^[a-zA-Z0-9_-]{1,64}$`, unique within the pack. */
  name: string;
  description: string;
  /** Flat arguments: each property is one top-level argument. */
  parameters: ToolParameters;
  binding: Binding;
  annotations: ToolAnnotations;
  /** Inputs the generator withheld from the model (deprecated, read-only), for the egress map. */
  withheld?: WithheldPath[];
}

export interface ToolParameters {
  properties: Record<string, JsonSchemaObject>;
  required: string[];
  /**
   * Arguments that, when given, require others (JSON Schema `dependentRequired`): the members
   * of an optional request body, which once sent must carry the body's required members.
   */
  dependentRequired?: Record<string, string[]>;
}

export interface ToolAnnotations {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
}

/**
 * Why a path is withheld: a projection dropped it; it is pinned; it is an OpenAPI
 * readOnly request field; the generator withheld it as deprecated, or as internal (the
 * API documents it as not public, e.g. Linear's `[INTERNAL]` inputs); it carries a credential,
 * which the call runtime fills (Slack's `token`); it is a header parameter that would set a
 * credential or session header (`Authorization`, `Cookie`, a security scheme's own name),
 * which only authentication may write (`credential_header`); it is a header parameter whose
 * name equals another's but for case, which HTTP reads as the same header (`duplicate_header`).
 */
export type WithheldReason = "projection" | "pinned" | "read_only" | "deprecated" | "internal" | "credential" | "credential_header" | "duplicate_header";

export interface WithheldPath {
  /** Dotted argument path (`filter.and`) or type path (`IssueFilter.and`). */
  path: string;
  reason: WithheldReason;
  /** The pinned value, for reason `pinned`. */
  value?: unknown;
}

export type Binding = GraphQLBinding | HttpBinding | McpBinding;

/**
 * A tool of a running MCP server: a call is one `tools/call` of `tool` on the upstream given
 * in the call context (`CallContext.mcp`), with the screened arguments. The arguments are the
 * upstream tool's own (its `inputSchema` properties), so nothing needs mapping.
 */
export interface McpBinding {
  kind: "mcp";
  /** The upstream tool's name as the server lists it (the wire name of `tools/call`). */
  tool: string;
  /**
   * The top-level argument names the call may send, in schema order: the upstream's input
   * properties less what a projection removed (pins stay: they are sent). Only these keys
   * are forwarded.
   */
  arguments: string[];
  /** The upstream's own annotations as listed (hints, not guarantees: MCP says a client must not trust them from an untrusted server). */
  annotations?: McpToolAnnotations;
  /** The upstream tool's `title` as listed: served as it is, never made up. */
  title?: string;
  /** The upstream tool's `outputSchema` as listed: what its `structuredContent` is, served with it. */
  outputSchema?: JsonSchemaObject;
}

/** MCP `ToolAnnotations` (2025-06-18 schema): hints the server gives about a tool. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface GraphQLBinding {
  kind: "graphql";
  operationType: "query" | "mutation";
  /** The root field this tool calls, e.g. `issues`. */
  field: string;
  /** Printed operation document with one operation, variables named after the arguments. */
  document: string;
  /** Argument name -> GraphQL variable type as written in the document (`[String!]!`). */
  variables: Record<string, string>;
  /** Selectors a projection's `returns` narrowed the selection set with, in order (absent: as generated). */
  returns?: string[];
  /**
   * Secret-looking scalars (`nodes.apiKey`) the generated selection leaves out, as dotted paths
   * below the root field: never fetched unless a `returns` selector names one.
   */
  secretOutputs?: string[];
  /**
   * Variables filled from a security scheme's credential by the call runtime (variable ->
   * scheme), e.g. Shopify Storefront's `customerAccessToken`: declared in the document,
   * never arguments of the tool (withheld, reason `credential`).
   */
  credentialVariables?: Record<string, string>;
  /**
   * Input-object members filled from a credential wherever a value of that type occurs in
   * the variables (`Type.member` -> scheme and whether the type requires the member); the
   * member is withheld from the type (reason `credential`).
   */
  credentialMembers?: Record<string, GraphQLCredentialMember>;
}

export interface GraphQLCredentialMember {
  scheme: string;
  /** Non-null in its input type: a value of the type cannot be sent without the credential. */
  required: boolean;
}

export type HttpParameterLocation = "path" | "query" | "header" | "cookie";

/** Serialization styles of OpenAPI 3.1 §4.8.12.4 (Swagger 2.0 collectionFormat maps onto them). */
export type HttpParameterStyle = "form" | "simple" | "label" | "matrix" | "spaceDelimited" | "pipeDelimited" | "deepObject";

export interface HttpParameter {
  /** Argument name (after collision handling). */
  arg: string;
  /** Name on the wire. */
  name: string;
  in: HttpParameterLocation;
  style: HttpParameterStyle;
  explode: boolean;
  required?: boolean;
  /** OpenAPI `allowReserved` (query only): reserved characters are sent unencoded. */
  allowReserved?: boolean;
  /** A parameter sent as serialized content (`content: {media type}`) rather than by style. */
  contentType?: string;
  /** Filled from this security scheme's credential by the call runtime; not an argument of the tool. */
  credential?: string;
}

/** How one property of a form or multipart body is written (OpenAPI Encoding Object). */
export interface HttpBodyPropertyEncoding {
  style?: HttpParameterStyle;
  explode?: boolean;
  contentType?: string;
  allowReserved?: boolean;
}

export interface HttpBody {
  /** The media type sent as Content-Type, e.g. `application/json`. */
  mediaType: string;
  encoding: "json" | "form" | "multipart" | "text" | "binary";
  required?: boolean;
  /**
   * Body properties flattened into arguments: argument name -> body property name.
   * Used when the body is an object; collisions with parameters are renamed in `arg`.
   */
  fields?: Record<string, string>;
  /** The whole body in one argument (bodies that are not objects). */
  wholeBodyArg?: string;
  /** Per-property encoding for form and multipart bodies, by body property name. */
  propertyEncoding?: Record<string, HttpBodyPropertyEncoding>;
  /** Field arguments filled from a security scheme's credential (argument -> scheme); not arguments of the tool. */
  credentialFields?: Record<string, string>;
}

/** One way to authenticate; OAuth2 and OpenID Connect are sent as bearer tokens. */
export type HttpAuthScheme =
  | { scheme: string; type: "bearer" }
  | { scheme: string; type: "basic" }
  | { scheme: string; type: "apiKey"; in: "header" | "query" | "cookie"; name: string };

export interface HttpBinding {
  kind: "http";
  /** Upper case: `GET`, `POST`, ... */
  method: string;
  /** Path template, e.g. `/v1/customers/{customer}`. */
  path: string;
  /** The first server URL of the document (may contain `{variables}` with their defaults applied). */
  server?: string;
  parameters: HttpParameter[];
  body?: HttpBody;
  /**
   * Security requirements: any one inner list suffices, and every scheme of that list is
   * needed. An empty list means no authentication; absent means unspecified.
   */
  auth?: HttpAuthScheme[][];
  /**
   * Parameters of the operation that are not sent: withheld by the generator (a credential
   * header, a case duplicate) or removed by a projection. Their wire names stay reserved, so
   * an exploded object's key (`filter[admin]` written as `admin=`) cannot re-create them.
   */
  withheldParameters?: WithheldParameter[];
}

/** A parameter's wire name kept after the parameter left `parameters` (see `HttpBinding.withheldParameters`). */
export interface WithheldParameter {
  arg: string;
  name: string;
  in: HttpParameterLocation;
}
