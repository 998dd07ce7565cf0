/**
 * `sluice.config.ts` (or `.mts`, `.mjs`, `.js`, `.cjs`, `.json`; a `.js` one may be CommonJS): the packs a project generates, so that
 * `sluice generate` with no arguments regenerates every one and `sluice generate --check`
 * fails CI on drift. This module imports nothing: a config file imports `defineConfig`
 * from `@sluice/cli/config` without loading the CLI.
 */
/** Operations by tag, path glob or name glob. Globs: `*` any run of characters but `/`, `**` any run at all. */
export interface OperationSelection {
  /** OpenAPI tags (exact, case-insensitive). */
  tags?: string[];
  /** OpenAPI path templates, optionally with a method: `/repos/{owner}/{repo}/issues*`, `GET /users/**`. */
  paths?: string[];
  /** operationId (OpenAPI), root field (GraphQL, also `Query.issues` / `Mutation.*`), or generated tool name. */
  operations?: string[];
  /** Generated tool names (before `toolPrefix`): the one list that means the same for every kind of pack. */
  tools?: string[];
}

/** A configured value that may come from the environment: a literal, or `{ fromEnv: "NAME" }` (read when sluice connects, never written). */
export type McpSecretValue = string | { fromEnv: string };

/**
 * A running MCP server as the source of a pack: a command sluice starts (stdio), or a
 * Streamable HTTP URL. Secrets go in `env` / `headers` as `{ fromEnv: "NAME" }`: they reach
 * the server only, never the snapshot, the pack, the map or the model.
 */
export type McpSourceConfig =
  | { command: string; args?: string[]; env?: Record<string, McpSecretValue>; cwd?: string }
  | { url: string; headers?: Record<string, McpSecretValue> };

/** A new wire name or description for one generated tool. */
export interface ToolChoice {
  /** The tool's wire name from now on (1 to 64 letters, digits, `_` and `-`), used as given: `toolPrefix` is not added to it. */
  name?: string;
  /** What the model reads instead of the generated description. */
  description?: string;
  /** Lossless reformatters on this tool's answers, over the pack's choice (docs/reformatters.md). */
  reformatters?: ReformatterChoice;
}

/**
 * Lossless reformatters turned on (`true`) or off (`false`) over the defaults (`text-clean`,
 * `compact-json` and `path-fold` on, `toon` off). An unknown name is CONFIG_INVALID. See
 * docs/reformatters.md.
 */
export interface ReformatterChoice {
  "text-clean"?: boolean;
  "compact-json"?: boolean;
  "path-fold"?: boolean;
  toon?: boolean;
}

/**
 * One pack: where its spec is, where it is written, and what of the spec it holds.
 * @exactlyOne spec mcp
 */
export interface PackConfig {
  /**
   * The spec file, relative to the config file: an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML), or a GraphQL schema (SDL or introspection JSON).
   * Either this or `mcp`.
   */
  spec?: string;
  /**
   * Instead of `spec`: an MCP server whose `tools/list` is snapshotted into
   * `<out>/spec/tools.snapshot.json` and generated like a spec; `generate --check` lists it
   * again and names every new tool, widened schema and changed description.
   * `{ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: { fromEnv: "GITHUB_TOKEN" } } }`.
   */
  mcp?: McpSourceConfig;
  /** The pack's name: tool names, headers and environment variable names use it. */
  name: string;
  /** The pack directory, relative to the config file. */
  out: string;
  /** Detected from the file when absent (`mcp` for a pack with an `mcp` source). */
  kind?: "openapi" | "graphql" | "mcp";
  /** Only these operations (default: every one). */
  include?: OperationSelection;
  /** Never these operations (applied after `include`). */
  exclude?: OperationSelection;
  /**
   * Only tools that cannot change anything: those the generator annotates read-only (the
   * safe methods GET, HEAD, OPTIONS and TRACE for HTTP, queries for GraphQL, `readOnlyHint` for MCP tools). Applied
   * after include/exclude.
   */
  readOnly?: boolean;
  /**
   * Per generated tool (its name before `toolPrefix`, as `include.tools` matches it): a new
   * wire name and/or description. An unknown or left-out tool, an invalid name and a name
   * that clashes are CONFIG_INVALID; the egress map lists every change.
   */
  tools?: Record<string, ToolChoice>;
  /**
   * Arguments withheld from every tool, each with the reason the egress map shows
   * (`internal`, `deprecated` or `projection`). A required one must be a credential argument.
   * OpenAPI and MCP: top-level argument names (an MCP tool then never forwards it). GraphQL: an argument name, `Query.<field>.<argument>` /
   * `Mutation.<field>.<argument>` for one operation, or `InputType.member` wherever that
   * input type is used; the variable of a withheld argument leaves the operation document.
   */
  withhold?: Record<string, string>;
  /**
   * Arguments that carry a credential -> the security scheme whose credential fills them at
   * call time; the model never sees them (reason `credential`). OpenAPI: argument names and
   * schemes the spec declares. GraphQL: the selectors of `withhold`, and any scheme name:
   * `token` is the pack's bearer token, another name is a credential of its own, read from
   * `<PACK>_<SCHEME>` (`{ customerAccessToken: "customer" }` -> `SHOP_CUSTOMER`).
   */
  credentialArguments?: Record<string, string>;
  /** OpenAPI: detect arguments that duplicate a declared apiKey (`client_id` beside `PLAID-CLIENT-ID`) as credential arguments (default true). */
  detectCredentialArguments?: boolean;
  /** OpenAPI: the base URL, instead of the spec's `servers` / `host` + `basePath`. */
  baseUrl?: string;
  /** GraphQL: the endpoint (otherwise read at run time from `<PACK>_ENDPOINT`). */
  endpoint?: string;
  /**
   * GraphQL: the header that carries the token as it is, instead of the default
   * `Authorization: Bearer <token>`. Linear personal API keys: `"Authorization"` (no
   * `Bearer`); Shopify Admin: `"X-Shopify-Access-Token"`.
   */
  authHeader?: string;
  /**
   * Environment variable names instead of the derived `<PACK>_<SCHEME>`: security scheme
   * name -> variable (`{ bearerAuth: "STRIPE_SECRET_KEY" }`), and `endpoint` for a GraphQL
   * pack's endpoint variable.
   */
  env?: Record<string, string>;
  /** Prepended to every tool name (`gh_` -> `gh_issues_list`): up to 20 letters, digits, `_` and `-`. */
  toolPrefix?: string;
  /** The default response handler of generated tools: on (default) or off (every byte reaches the model). */
  responses?: "default" | "off";
  /** Lossless reformatters on every tool's answers, over the defaults (docs/reformatters.md); a tool's own choice goes in `tools`. */
  reformatters?: ReformatterChoice;
  /** External `$ref` targets -> local files, relative to the config file. Nothing is ever fetched. */
  externalRefs?: Record<string, string>;
  /**
   * Pagination the spec does not show (sluice finds it only where a success response declares
   * the cursor or the `Link` header): generated tool name (before `toolPrefix`, as `tools`
   * takes it) or a glob of names (`list_*`) -> which argument carries the next page's marker
   * and where the marker is read. Body paths are dotted paths into the answer as the API sends
   * it (a GraphQL answer starts at `data`). A declaration replaces what was found in the spec;
   * a key that matches no tool, a tool without the argument, and two keys matching one tool
   * are CONFIG_INVALID. OpenAPI and GraphQL packs; an MCP pack refuses it.
   * `{ "list_*": { style: "link", arg: "cursor" } }`,
   * `{ "items_page": { style: "cursor", arg: "cursor", cursor: "data.items_page.cursor" } }`.
   */
  pagination?: Record<string, PaginationChoice>;
  /**
   * Lets this pack's `out`, `spec` and `externalRefs` files lie outside the config file's
   * folder (an absolute path, or one that climbs out with `..`). Without it such a path is
   * CONFIG_INVALID: a config copied from elsewhere cannot write or read files outside the
   * project it sits in.
   */
  allowOutside?: boolean;
}

/**
 * A pagination declaration: the same styles and fields as `derived({ pagination })` takes
 * (`Pagination` in @sluice/core, which a test keeps equal to this), written out here because
 * this module imports nothing.
 */
export type PaginationChoice =
  | { style: "cursor"; arg: string; cursor: string; hasMore?: string; items?: string }
  | { style: "lastItemId"; arg: string; items: string; hasMore?: string; idField?: string; pageSizeArg?: string; defaultPageSize?: number }
  | { style: "link"; arg: string; param?: string; items?: string }
  | { style: "nextUrl"; arg: string; next: string; param?: string; items?: string }
  | { style: "offset"; arg: string; items: string; total?: string; isLast?: string; hasMore?: string; pageSizeArg?: string; defaultPageSize?: number }
  | { style: "page"; arg: string; items: string; hasMore?: string; pageSizeArg?: string; defaultPageSize?: number; firstPage?: number };

/** `sluice.config.*`: the packs `sluice generate` writes. */
export interface SluiceConfig {
  /** The JSON schema of this file (`sluice.config.json`): `./node_modules/@sluice/cli/config.schema.json`. Ignored by sluice. */
  $schema?: string;
  /** @minItems 1 */
  packs: PackConfig[];
}

/** Types a config file; returns it unchanged. */
export function defineConfig(config: SluiceConfig): SluiceConfig {
  return config;
}

/** The file names looked for, in this order, in the current directory. */
export const CONFIG_FILES = ["sluice.config.ts", "sluice.config.mts", "sluice.config.mjs", "sluice.config.js", "sluice.config.cjs", "sluice.config.json"] as const;
