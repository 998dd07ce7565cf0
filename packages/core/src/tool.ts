import { canonicalJson, deepFreeze, hasOwn, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { pruneBinding } from "./bindings/prune-binding.ts";
import { fetches, narrowReturns } from "./bindings/graphql-returns.ts";
import { projectSchema, type ProjectOptions, type SchemaProjection } from "./projection/project-schema.ts";
import { toolPaths, type PathCost, type PathsOptions } from "./projection/tool-paths.ts";
import { checkDeriveOptions, checkPaginationArg } from "./projection/derive-options.ts";
import { screenPins } from "./projection/pin-screening.ts";
import type { Binding, HttpAuthScheme, PackSelection, ToolAnnotations, WithheldPath } from "./tool-ir.ts";
import { argumentIssues } from "./call/arguments.ts";
import type { CallResult } from "./call/call.ts";
import type { CallContext, FailureCheck, McpServerFact, OAuth2Settings, Pagination, ResponseHandler } from "./call/types.ts";
import type { ReformatChoice } from "./responses/reformat/reformatter.ts";
import type { HttpRequest } from "./http/build-request.ts";
import { TOOL_NAME_PATTERN, type ArgumentIssue } from "@sluice/schema";

export type { ResponseHandler } from "./call/types.ts";

export { TOOL_NAME_PATTERN };

/**
 * The request and transport half of the call runtime (HTTP building, credentials,
 * redaction, fetch, MCP forwarding), loaded on the first call, request or invoke of any
 * tool: a server lists a pack's tools before anything is called, and need not load it
 * for that (issue 24). The argument checks, which `check()` and `derived()` run
 * synchronously, stay a static import.
 */
let callRuntime: Promise<typeof import("./call/call.ts")> | undefined;
const loadCallRuntime = () => (callRuntime ??= import("./call/call.ts"));

/** Arguments of a tool, as a record. Generated packs give each tool its own type. */
export type ToolArgs = Record<string, unknown>;

/**
 * The arguments a `pin` surely fixes: the keys it holds for certain. A pin written in place
 * (`pin: { org: "acme" }`) names each; options built elsewhere and typed `DeriveOptions<Args>`
 * hold every key as optional, and take nothing out of the type.
 */
export type PinnedKeys<Pinned> = { [K in keyof Pinned]-?: {} extends Pick<Pinned, K> ? never : K }[keyof Pinned];

export interface DeriveOptions<Args extends object = ToolArgs> {
  /** Wire name of the new tool; defaults to the parent's. */
  name?: string;
  description?: string;
  /** Selectors of argument paths to withhold. */
  drop?: readonly string[];
  /** Selectors to keep: within each sibling group named, everything else is withheld. */
  keep?: readonly string[];
  /**
   * Top-level arguments fixed to a value (JSON data): removed from the schema, sent on
   * every call. Copied and frozen here; changing the object afterwards changes nothing.
   */
  pin?: { readonly [K in keyof Args]?: Args[K] };
  /** Replaces the inherited response handler. */
  responseHandler?: ResponseHandler;
  /** Turns lossless reformatters on or off for this tool's answers, over the inherited choice (docs/reformatters.md). */
  reformatters?: ReformatChoice;
  /**
   * Replaces the inherited pagination declaration (an inherited one is dropped when its
   * argument is). Checked: a known style with its fields, and `arg` an argument of the
   * derived tool that is not pinned.
   */
  pagination?: Pagination;
  /**
   * GraphQL tools: response paths below the root field to fetch (`nodes.id`,
   * `pageInfo`), with `keep` semantics; the operation document is narrowed, so the API
   * sends less. Shown in the egress map.
   */
  returns?: readonly string[];
}

/** How calls reach the API beyond the binding: GraphQL endpoint and auth, the API's failure envelope. */
export interface ToolCallSettings {
  /** GraphQL endpoint URL. */
  endpoint?: string;
  /** Authentication when the binding declares none (GraphQL tools; specs without security). */
  auth?: HttpAuthScheme[][];
  /** The pack's check for failures inside successful answers. */
  failure?: FailureCheck;
  /** Security scheme name -> environment variable a server reads its credential from. */
  credentialEnv?: Readonly<Record<string, string>>;
  /** OAuth 2 schemes with a token endpoint: scheme name -> token URL and the client's variables. */
  credentialOAuth2?: Readonly<Record<string, OAuth2Settings>>;
  /** The API's name in messages (a generated pack's name). */
  api?: string;
  /** GraphQL: the environment variable the endpoint comes from. */
  endpointEnv?: string;
  /** Which tools the pack holds and why others are not (a config's choices), for the egress map; kept by every derive. */
  selection?: PackSelection;
  /** MCP packs: the upstream server (secrets as variable names), which `sluice serve` starts or connects to. */
  mcp?: McpServerFact;
}

interface ToolState {
  description: string;
  schema: () => JsonSchemaObject;
  binding: Binding;
  annotations: ToolAnnotations;
  /** Argument-level entries: from the source, projections and pins, in order. */
  withheld: readonly WithheldPath[];
  /** Members the source withheld from a type (by type name), listed while the tool reaches the type. */
  typeWithheld: (typeName: string) => readonly WithheldPath[];
  pins: Readonly<Record<string, unknown>>;
  origins: ReadonlyMap<string, string>;
  responseHandler: ResponseHandler | undefined;
  reformatters: ReformatChoice | undefined;
  pagination: Pagination | undefined;
  settings: ToolCallSettings;
  /** The tool this one narrows (drop, keep or pin); calls are checked against it too. */
  derivedFrom: Tool<object> | undefined;
  /** A wire form of another tool (see `ToolInit.callsThrough`): calls go to that tool. */
  callsThrough: CallsThrough | undefined;
}

/**
 * A tool that is another tool's wire form (`fit()`'s output: renamed, keywords rewritten for
 * a provider): it is called as that tool, so the tool's pins, withheld paths, handler and
 * validation apply, not the rewritten schema's.
 */
export interface CallsThrough {
  tool: Tool<object>;
  /** Turns what the model sent against the wire schema into the tool's arguments (strict mode's nulls for omitted members). */
  prepareArguments?: (args: unknown) => unknown;
}

export interface ToolInit {
  name: string;
  description: string;
  /** The input schema, or a function building it on first use. */
  inputSchema: JsonSchemaObject | (() => JsonSchemaObject);
  binding: Binding;
  annotations?: ToolAnnotations;
  /** What the source withheld from the arguments before any projection. */
  withheld?: readonly WithheldPath[];
  /** What the source withheld from the members of a type, by type name. */
  typeWithheld?: (typeName: string) => readonly WithheldPath[];
  responseHandler?: ResponseHandler;
  reformatters?: ReformatChoice;
  pagination?: Pagination;
  settings?: ToolCallSettings;
  /**
   * This tool is a wire form of another (a different name or schema for one provider):
   * `call`, `invoke`, `request` and `check` go to that tool, and its pins are this tool's.
   */
  callsThrough?: CallsThrough;
}

/**
 * A tool: what the model sees (name, description, input schema) and how a call
 * becomes a request (binding). Immutable; `derived` returns a new, narrower tool.
 * `Args` types the arguments in user code (pins today, calls later).
 */
export class Tool<Args extends object = ToolArgs> {
  #state: ToolState | undefined;
  #schema: JsonSchemaObject | undefined;
  #withheld: readonly WithheldPath[] | undefined;
  #build: (() => Tool<Args>) | undefined;
  /** A deferred tool's parent, while it is not built: answers what a derive never changes. */
  #parent: Tool<object> | undefined;
  readonly #name: string;

  private constructor(state: ToolState | undefined, name: string, build?: () => Tool<Args>, parent?: Tool<object>) {
    this.#state = state;
    this.#name = name;
    this.#build = build;
    this.#parent = parent;
  }

  /**
   * A tool built on first use. Packs use it for curated projections, so that importing
   * a pack computes no projection nobody asked for; a bad selector surfaces on first
   * use (pack tests touch every curated tool, so CI sees it).
   *
   * `parent`, when `build` derives from that tool: a derive keeps its call settings,
   * endpoint and API server, so reading those (a server's start-up report of credentials
   * and endpoints) answers from the parent and builds nothing.
   */
  static deferred<A extends object = ToolArgs>(name: string, build: () => Tool<A>, parent?: Tool<object>): Tool<A> {
    assertToolName(name);
    return new Tool<A>(undefined, name, build, parent);
  }

  /** The parent to read unchanged parts from while this tool is not built (see `deferred`). */
  get #unbuiltParent(): Tool<object> | undefined {
    return this.#state === undefined ? this.#parent : undefined;
  }

  get #s(): ToolState {
    if (this.#state === undefined) {
      const built = this.#build!();
      if (built.name !== this.#name) {
        throw new SluiceError("INVALID_NAME", `Deferred tool ${this.#name} was built with the name ${built.name}.`);
      }
      this.#state = built.#s;
      this.#schema = built.#schema;
      this.#build = undefined;
      this.#parent = undefined;
    }
    return this.#state;
  }

  static create<A extends object = ToolArgs>(init: ToolInit): Tool<A> {
    assertToolName(init.name);
    const source = init.inputSchema;
    return new Tool<A>({
      description: init.description,
      schema: typeof source === "function" ? source : () => source,
      binding: init.binding,
      annotations: { ...init.annotations },
      withheld: [...(init.withheld ?? [])],
      typeWithheld: init.typeWithheld ?? (() => []),
      pins: init.callsThrough?.tool.pins ?? {},
      origins: new Map(),
      responseHandler: init.responseHandler,
      reformatters: init.reformatters === undefined ? undefined : Object.freeze({ ...init.reformatters }),
      pagination: init.pagination,
      settings: { ...init.settings },
      derivedFrom: undefined,
      callsThrough: init.callsThrough === undefined ? undefined : { ...init.callsThrough },
    }, init.name);
  }

  get name(): string {
    return this.#name;
  }
  get description(): string {
    return this.#s.description;
  }
  /**
   * JSON Schema 2020-12, an object at the root, shared types under `$defs`. Built on
   * first use, then cached; frozen, because its parts are shared with other tools.
   */
  get inputSchema(): JsonSchemaObject {
    const state = this.#s;
    this.#schema ??= deepFreeze(state.schema());
    return this.#schema;
  }
  get binding(): Binding {
    return this.#s.binding;
  }
  get annotations(): Readonly<ToolAnnotations> {
    return this.#s.annotations;
  }
  /** Paths withheld from the model, by this tool and its ancestors, with the reason. */
  get withheld(): readonly WithheldPath[] {
    if (this.#withheld === undefined) {
      const state = this.#s;
      const types = new Set(Object.keys((this.inputSchema.$defs as object | undefined) ?? {}).map((name) => state.origins.get(name) ?? name));
      this.#withheld = [...state.withheld, ...[...types].sort().flatMap((type) => state.typeWithheld(type))];
    }
    return this.#withheld;
  }
  /** Arguments fixed by projections; sent on every call. */
  get pins(): Readonly<Record<string, unknown>> {
    return this.#s.pins;
  }
  get responseHandler(): ResponseHandler | undefined {
    return this.#s.responseHandler;
  }
  /** Which lossless reformatters run on this tool's answers, over the defaults (undefined: the defaults). */
  get reformatters(): ReformatChoice | undefined {
    return this.#s.reformatters;
  }
  /** Where the next page's marker is and which argument carries it back. */
  get pagination(): Pagination | undefined {
    return this.#s.pagination;
  }
  /** GraphQL endpoint (from the pack runtime), if any. */
  get endpoint(): string | undefined {
    const parent = this.#unbuiltParent;
    return parent !== undefined ? parent.endpoint : this.#s.settings.endpoint;
  }
  /** The pack runtime's call settings beyond the endpoint: credential variables, the API's name. */
  get callSettings(): Readonly<ToolCallSettings> {
    const parent = this.#unbuiltParent;
    return parent !== undefined ? parent.callSettings : this.#s.settings;
  }
  /**
   * The URL calls go to by default (before any base URL override): the HTTP binding's
   * server, or the GraphQL endpoint.
   */
  get server(): string | undefined {
    const parent = this.#unbuiltParent;
    if (parent !== undefined) return parent.server;
    const binding = this.binding;
    return binding.kind === "http" ? binding.server : this.endpoint;
  }
  /**
   * Authentication a call needs: the HTTP binding's security requirements, or else the
   * pack runtime's (GraphQL endpoints, and specs that declare none, like GitHub REST).
   * Any one inner list suffices; an empty inner list means none is needed.
   */
  get auth(): readonly HttpAuthScheme[][] | undefined {
    const binding = this.binding;
    return (binding.kind === "http" ? binding.auth : undefined) ?? this.#s.settings.auth;
  }
  /** The pack's check for failures reported inside successful answers. */
  get failure(): FailureCheck | undefined {
    return this.#s.settings.failure;
  }
  /**
   * The tool this one was narrowed from by `derived()` (drop, keep or pin), or undefined for
   * a generated tool. A call of this tool must also pass as a call of that one.
   */
  get derivedFrom(): Tool<object> | undefined {
    return this.#s.derivedFrom;
  }
  /** Split definition copies and the type each stands for (type selectors reach both). */
  get definitionOrigins(): ReadonlyMap<string, string> {
    return this.#s.origins;
  }

  /** The definition as sent to a model, in canonical compact JSON (what tokens are counted on). */
  toJSON(): { name: string; description: string; inputSchema: JsonSchemaObject } {
    return { name: this.name, description: this.description, inputSchema: this.inputSchema };
  }

  /**
   * A narrower tool. Every selector must exist; required arguments can only be
   * withheld by pinning them; the result never accepts anything this tool does not.
   * Options are checked at run time too: an unknown key is INVALID_OPTION naming the
   * nearest valid one (a typo must never leave the tool wider than meant).
   */
  derived<const Pinned extends { readonly [K in keyof Args]?: Args[K] } = {}>(options: DeriveOptions<Args> & { pin?: Pinned } = {}): Tool<Omit<Args, PinnedKeys<Pinned>>> {
    // A pinned argument leaves the schema (sending it is refused), so it leaves the type.
    return withinLimits(`derived() of ${this.name}`, () => this.project(options, {})) as unknown as Tool<Omit<Args, PinnedKeys<Pinned>>>;
  }

  /** @internal measurement hook for `paths({ byCost })`. */
  project(options: DeriveOptions<Args>, projectOptions: ProjectOptions): Tool<Args> {
    // Checked at run time (unknown keys, types), own properties only; pins copied and frozen.
    const given = checkDeriveOptions(options);
    if (this.#s.callsThrough !== undefined) {
      // Its schema is a provider's rewrite, not what calls are checked against: a derive of it
      // would narrow the wrong schema.
      throw new SluiceError("INVALID_OPTION", `derived(): ${this.name} is a wire form of ${this.#s.callsThrough.tool.name} (fit()'s output); derive ${this.#s.callsThrough.tool.name} and fit the result.`);
    }
    const name = given.name ?? this.name;
    assertToolName(name);
    const projection: SchemaProjection = {};
    if (given.drop) projection.drop = given.drop;
    if (given.keep) projection.keep = given.keep;
    if (given.pin) projection.pin = given.pin;
    const narrows = (projection.drop?.length ?? 0) + (projection.keep?.length ?? 0) + Object.keys(projection.pin ?? {}).length > 0;

    const state: ToolState = {
      ...this.#s,
      description: given.description ?? this.description,
      responseHandler: given.responseHandler ?? this.#s.responseHandler,
      reformatters: given.reformatters === undefined ? this.#s.reformatters : Object.freeze({ ...this.#s.reformatters, ...given.reformatters }),
      pagination: given.pagination ?? this.#s.pagination,
    };
    if (given.returns !== undefined) {
      if (state.binding.kind !== "graphql") {
        throw new SluiceError("INVALID_OPTION", `derived(): \`returns\` narrows GraphQL selection sets; ${this.name} is an HTTP tool (use a responseHandler).`);
      }
      state.binding = narrowReturns(state.binding, given.returns);
      state.pagination = paginationFetched(state.pagination, state.binding);
    }
    if (!narrows) {
      if (given.pagination !== undefined) checkPaginationArg(name, given.pagination, this.inputSchema, this.#s.pins);
      const derived = new Tool<Args>(state, name);
      derived.#schema = this.#schema;
      return derived;
    }
    const parentSchema = this.inputSchema;
    const projected = projectSchema(parentSchema, this.#s.origins, projection, projectOptions);
    screenPins(this, projected.pins);
    const before = Object.keys((parentSchema.properties as object | undefined) ?? {});
    // A dropped member of an open object stays in `properties` as `false` (so the opening
    // cannot re-admit it): that is removed too, not kept.
    const projectedProperties = (projected.schema.properties ?? {}) as Record<string, unknown>;
    const after = new Set(Object.keys(projectedProperties).filter((arg) => projectedProperties[arg] !== false));
    const removedArgs = new Set(before.filter((arg) => !after.has(arg) && !hasOwn(projected.pins, arg)));
    // Frozen: `tool.pins` is what every call sends; nobody may change it after derive.
    const pins = Object.freeze({ ...this.#s.pins, ...projected.pins });
    if (given.pagination !== undefined) checkPaginationArg(name, given.pagination, projected.schema, pins);
    const derived = new Tool<Args>({
      ...state,
      schema: () => projected.schema,
      binding: pruneBinding(state.binding, removedArgs),
      withheld: [...this.#s.withheld, ...projected.withheld],
      pins,
      origins: projected.origins,
      pagination: paginationAfter(state.pagination, projected.schema, projected.pins),
      derivedFrom: this as unknown as Tool<object>,
    }, name);
    derived.#schema = deepFreeze(projected.schema);
    return derived;
  }

  /**
   * Selectable paths one level (or `depth` levels) below `prefix`. With `byCost`, each
   * path's cost is measured by deriving the tool without it and counting tokens.
   */
  paths(prefix?: string, options?: PathsOptions): Promise<PathCost[]>;
  paths(options?: PathsOptions): Promise<PathCost[]>;
  paths(prefixOrOptions?: string | PathsOptions, options: PathsOptions = {}): Promise<PathCost[]> {
    return typeof prefixOrOptions === "string" || prefixOrOptions === undefined
      ? toolPaths(this as unknown as Tool, prefixOrOptions, options)
      : toolPaths(this as unknown as Tool, undefined, prefixOrOptions);
  }

  /**
   * Calls the API and returns what the model sees (the response handler's result).
   * Arguments are screened against this tool's schema (anything withheld is refused with
   * EGRESS_DENIED), validated (INVALID_ARGUMENTS lists every problem), pins are added,
   * and the request is built only from what the schema lets through. Failures come back
   * as SluiceError with a code, the HTTP status and `retryAfterSeconds` where known.
   */
  async call(args: Args, ctx?: CallContext): Promise<unknown> {
    return (await this.invoke(args, ctx)).output;
  }

  /** Like `call`, with everything about the exchange: raw body, status, headers, byte counts, next page. */
  async invoke(args: Args, ctx?: CallContext): Promise<CallResult> {
    const through = this.#s.callsThrough;
    if (through !== undefined) return through.tool.invoke(throughArguments(through, args), ctx);
    return (await loadCallRuntime()).invoke(this, args, ctx);
  }

  /**
   * The request a call would send, without sending it: the arguments are screened and
   * validated exactly as `call` does (same EGRESS_DENIED / INVALID_ARGUMENTS), pins added,
   * and the request built from what the schema lets through.
   * Credential values read `[redacted]` unless `ctx.revealCredentials` is true.
   */
  async request(args: Args, ctx?: CallContext): Promise<HttpRequest> {
    const through = this.#s.callsThrough;
    if (through !== undefined) return through.tool.request(throughArguments(through, args), ctx);
    return (await loadCallRuntime()).prepareRequest(this, args, ctx);
  }

  /** Every problem `call` would refuse these arguments for (empty when none), without calling. */
  check(args: unknown): readonly ArgumentIssue[] {
    const through = this.#s.callsThrough;
    if (through !== undefined) return through.tool.check(through.prepareArguments === undefined ? args : through.prepareArguments(args));
    return withinLimits(`check() of ${this.name}`, () => argumentIssues(this, args).issues);
  }

  /** Canonical text of the definition, stable across processes. */
  canonical(): string {
    return canonicalJson(this.toJSON());
  }
}

function throughArguments(through: CallsThrough, args: unknown): Record<string, unknown> {
  const prepared = through.prepareArguments === undefined ? args : through.prepareArguments(args);
  // What is not an object goes on as it is: the tool's own screening refuses it with its code.
  return prepared as Record<string, unknown>;
}

/** Pagination of a GraphQL tool survives `returns` only while the cursor and flag are still fetched. */
function paginationFetched(pagination: Pagination | undefined, binding: Binding): Pagination | undefined {
  if (pagination === undefined || binding.kind !== "graphql") return pagination;
  const prefix = `data.${binding.field}.`;
  const paths = [pagination.style === "cursor" ? pagination.cursor : undefined, "hasMore" in pagination ? pagination.hasMore : undefined];
  const lost = paths.some((path) => path !== undefined && path.startsWith(prefix) && !fetches(binding, path.slice(prefix.length)));
  return lost ? undefined : pagination;
}

/** Pagination survives a projection only while its argument is still an argument (or pinned). */
function paginationAfter(pagination: Pagination | undefined, schema: JsonSchemaObject, pins: Readonly<Record<string, unknown>>): Pagination | undefined {
  if (pagination === undefined) return undefined;
  const properties = (schema.properties ?? {}) as object;
  return hasOwn(properties, pagination.arg) && !hasOwn(pins, pagination.arg) ? pagination : undefined;
}

function assertToolName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    throw new SluiceError("INVALID_NAME", `Tool name ${JSON.stringify(name)} is not valid: use 1 to 64 characters from a-z, A-Z, 0-9, _ and -.`);
  }
}
