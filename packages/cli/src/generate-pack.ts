/**
 * One pack from one spec, in memory: the IR with the config's selection, withholdings and
 * prefix applied, the generated sources, the runtime facts, the spec copy, and the
 * scaffolds a new pack starts with. Nothing here writes: generate.ts decides what goes to
 * disk (and `--check` compares instead).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { nearestNames, SluiceError, withSuggestion, type McpServerFact, type PackIR, type ResponseHints, type RuntimeFacts, type SkippedOperation } from "@sluice/core";
import { getOwn, hasOwn } from "@sluice/schema";
import { guards } from "@sluice/core/guards";
import { generatedHeader, type EmittedFile, type GeneratorInfo } from "@sluice/emit";
import type { PackConfig } from "./config.ts";
import { gitattributes, scaffoldFiles } from "./pack-scaffold.ts";
import { globPattern, OperationFilter, type UnmatchedEntry } from "./select-operations.ts";
import { applyToolChoices, keepReadOnly, noChoicesApplied, selectionRecord } from "./tool-choices.ts";

/** A pack to generate: a config entry with its paths resolved. */
export interface PackJob extends Omit<PackConfig, "spec" | "out"> {
  /** Absolute path of the spec (an MCP pack: its snapshot, `<out>/spec/tools.snapshot.json`). */
  spec: string;
  /** MCP packs: the snapshot text as the live server gave it (the spec file is the committed one). */
  liveSnapshot?: string;
  /** MCP packs: the folder a relative `mcp.cwd` is read from (the config's, or the current one). */
  configDir?: string;
  /** Absolute path of the pack directory. */
  out: string;
  /** The command that regenerates this pack, for the generated files' headers. */
  regenerate: string;
}

/** The packs a generate run covers, and the files they are made from (the config, when there is one, first). */
export interface Jobs extends Array<PackJob> {
  configFile?: string;
}

export interface PackReport {
  name: string;
  kind: "openapi" | "graphql" | "mcp";
  out: string;
  tools: number;
  /** Operations the generator could not turn into tools, each with the reason. */
  skipped: SkippedOperation[];
  /** Tools left out by include/exclude and readOnly (the egress map names each, with why). */
  excluded: number;
  /** Operations (or tools, for a source without operations) the selection was asked about. */
  operations: number;
  baseUrl?: string;
  endpointEnv?: string;
  /** `argumentOnly`: a GraphQL credential argument's own scheme, filled into variables and never sent as a header. */
  credentials: { scheme: string; type: string; env: string; argumentOnly?: true }[];
  /** Tools with a pagination declaration found in the spec. */
  paginated: number;
  /** Arguments withheld because they duplicate a credential (argument -> scheme). */
  credentialArguments: Record<string, string>;
  warnings: string[];
}

export interface GeneratedPack {
  report: PackReport;
  /** The IR the sources were emitted from (prefix and withholdings applied). */
  ir: PackIR;
  /** What runtime.gen.ts holds. */
  facts: RuntimeFacts;
  /** Rewritten on every run: sources, runtime facts, .gitattributes. Paths relative to the pack. */
  generated: EmittedFile[];
  /** The spec copy, `spec/<file>`. */
  spec: { path: string; bytes: Uint8Array };
  /** Written only when absent. */
  scaffolds: EmittedFile[];
}

const GRAPHQL_FILE = /\.(graphql|graphqls|gql|sdl)$/i;

/**
 * OpenAPI or GraphQL, from the file name, else from the document: JSON is an introspection
 * result when its top level has `__schema` (or `data.__schema`), or is the `__schema` object
 * itself (`queryType` and `types`, no wrapper), else OpenAPI (Stripe's
 * `openapi` key comes after megabytes of `components`, so no prefix tells); YAML with a
 * top-level `openapi:`/`swagger:` line (Google's start with `basePath:`); else SDL.
 */
export function detectKind(bytes: Uint8Array, file: string): "openapi" | "graphql" | "mcp" {
  if (GRAPHQL_FILE.test(file)) return "graphql";
  const text = new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
  const start = text.trimStart();
  // An MCP snapshot as sluice writes it: the format marker is its first key.
  if (/^\{\s*"format"\s*:\s*"sluice\.mcp-snapshot\//.test(start)) return "mcp";
  if (start.startsWith("{")) {
    // Only an introspection result says "__schema"; anything else goes to the OpenAPI loader,
    // which parses it once and names what is wrong (broken JSON with its position, or a JSON
    // document that is not OpenAPI). Parsing here too would read a 4 MB spec twice.
    if (!text.includes('"__schema"') && !(text.includes('"queryType"') && text.includes('"types"'))) return "openapi";
    let top: unknown;
    try {
      top = JSON.parse(text);
    } catch {
      return "openapi";
    }
    const has = (value: unknown, key: string) => typeof value === "object" && value !== null && hasOwn(value, key);
    // The same test as the GraphQL loader's (load-schema.ts), which this module does not import: it loads graphql-js.
    const isBareIntrospection = (value: unknown) => typeof getOwn(value, "queryType") === "object" && getOwn(value, "queryType") !== null && Array.isArray(getOwn(value, "types"));
    if (has(top, "__schema") || has(getOwn(top, "data"), "__schema") || isBareIntrospection(top)) return "graphql";
    return "openapi";
  } else if (/^(openapi|swagger)[ \t]*:/m.test(text) || /\.ya?ml$/i.test(file)) {
    return "openapi";
  } else if (/^[ \t]*(type|schema|input|enum|interface|union|scalar|directive|extend)\s/m.test(text) || start.startsWith('"""') || start.startsWith("#")) {
    return "graphql";
  }
  throw new SluiceError("SPEC_INVALID", `${file}: neither an OpenAPI/Swagger document nor a GraphQL schema; give the kind (sluice generate openapi|graphql <spec> ...).`);
}

/** Builds everything of one pack in memory. */
export async function buildPack(job: PackJob, coreVersion: string, step: (label: string) => void = () => {}): Promise<GeneratedPack> {
  step(`reading ${basename(job.spec)}`);
  let bytes: Uint8Array;
  if (job.liveSnapshot !== undefined) bytes = Buffer.from(job.liveSnapshot, "utf8");
  else {
    try {
      bytes = await readFile(job.spec);
    } catch {
      throw new SluiceError("FILE_NOT_FOUND", `the spec of pack ${job.name} does not exist (${job.spec}).`);
    }
  }
  const file = basename(job.spec);
  // The name is copied to spec/<file> and written into headers and .gitattributes: a line
  // break (or another control character) there would split those lines.
  if (/[\p{Cc}\u2028\u2029]/u.test(file)) {
    const suggestion = file.replace(/[\p{Cc}\u2028\u2029]+/gu, "-");
    throw new SluiceError("INVALID_NAME", `the spec file name ${JSON.stringify(file)} of pack ${job.name} holds a line break or control character; rename it (for example to ${JSON.stringify(suggestion)}).`, { candidates: [suggestion] });
  }
  const kind = job.kind ?? detectKind(bytes, file);
  const source = { name: job.name, file, sha256: createHash("sha256").update(bytes).digest("hex") };
  const filter = new OperationFilter(job.include, job.exclude);
  refuseUnsupported(kind, job, file);
  // What the passes did, for the selection record (never read back from the config).
  const applied = noChoicesApplied();
  /** readOnly, then prefix and withholdings, then the per-tool choices: before the facts, which are keyed by final names. */
  const choose = (built: PackIR, transformJob: PackJob): PackIR => {
    const selected = keepReadOnly(built, job, filter, applied);
    const transformed = transform(selected, transformJob);
    const prefixed = new Map(selected.tools.map((tool, i) => [tool.name, transformed.tools[i]!.name]));
    return applyToolChoices(transformed, job, filter, prefixed, applied);
  };

  // Its own scope: the parsed spec (the largest thing in memory until then) is garbage once
  // the IR, the facts and the hints exist, before the map and the sources are made.
  const built = await (async (): Promise<{ ir: PackIR; facts: RuntimeFacts; generator: GeneratorInfo; emit: (ir: PackIR) => EmittedFile[] }> => {
    let ir: PackIR;
    let facts: RuntimeFacts;
    let generator: GeneratorInfo;
    let emit: (ir: PackIR) => EmittedFile[];
    if (kind === "mcp") {
      const mcp = await import("@sluice/generator-mcp");
      const snapshot = mcp.parseSnapshot(new TextDecoder().decode(bytes), file);
      ir = mcp.buildMcpPackIR(snapshot, source, { select: (info) => filter.accepts({ kind: "mcp", info }) });
      ir = choose(ir, job);
      facts = mcp.mcpRuntimeFacts(ir, job.mcp === undefined ? undefined : serverFact(job.mcp, job));
      // As for OpenAPI: the default handler's hints, here from each tool's outputSchema (what its structuredContent is).
      if (job.responses !== "off") facts = { ...facts, responses: { shared: {}, tools: mcp.mcpResponseHints(snapshot, ir.tools) } };
      generator = mcp.MCP_GENERATOR;
      emit = (pack) => mcp.emitPackSources(pack, { runtimeModule: "./runtime.ts", regenerate: job.regenerate });
    } else if (kind === "openapi") {
      step(`parsing ${file}`);
      const openapi = await import("@sluice/generator-openapi");
      const document = openapi.loadDocument(bytes, file);
      step("building tools");
      const externalRefs = job.externalRefs === undefined ? undefined : Object.fromEntries(Object.entries(job.externalRefs).map(([ref, path]) => [ref, resolve(job.spec, "..", path)]));
      ir = openapi.buildOpenAPIPackIR(document, source, {
        ...(job.credentialArguments === undefined ? {} : { credentialParameters: job.credentialArguments }),
        detectCredentialParameters: job.detectCredentialArguments ?? true,
        ...(externalRefs === undefined ? {} : { externalRefs }),
        select: (info) => filter.accepts({ kind: "openapi", info }),
      });
      ir = choose(ir, job);
      step("runtime facts and pagination");
      facts = openapi.openapiRuntimeFacts(document, ir, externalRefs === undefined ? {} : { externalRefs });
      if (job.baseUrl !== undefined) facts = { ...facts, server: { url: job.baseUrl, from: "config", variables: [] } };
      if (job.responses !== "off") {
        step("response hints");
        // Only tools whose answers say more than the defaults carry hints: the file stays small.
        const tools: Record<string, ResponseHints> = {};
        for (const tool of ir.tools) {
          const pagination = hasOwn(facts.pagination, tool.name) ? facts.pagination[tool.name] : undefined;
          const hints = openapi.openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination });
          if (Object.keys(hints).length > 0) Object.defineProperty(tools, tool.name, { value: hints, enumerable: true, writable: true, configurable: true });
        }
        facts = { ...facts, responses: { shared: openapi.openapiPackResponseHints(document), tools } };
      }
      generator = openapi.OPENAPI_GENERATOR;
      emit = (pack) => openapi.emitPackSources(pack, { runtimeModule: "./runtime.ts", regenerate: job.regenerate });
    } else {
      step(`parsing ${file}`);
      const graphql = await import("@sluice/generator-graphql");
      const schema = graphql.loadGraphQLSchema(bytes, { fileName: file });
      step("building tools");
      // The generator applies withhold and credentialArguments: its selectors reach input members, and a withheld variable leaves the document.
      ir = graphql.buildGraphQLPackIR(schema, source, {
        select: (info) => filter.accepts({ kind: "graphql", info }),
        ...(job.credentialArguments === undefined ? {} : { credentialArguments: job.credentialArguments }),
        ...(job.withhold === undefined ? {} : { withhold: Object.fromEntries(Object.entries(job.withhold).map(([selector, reason]) => [selector, withheldReason(reason, job.name)])) }),
      });
      ir = choose(ir, { ...job, withhold: {} });
      facts = graphql.graphqlRuntimeFacts(ir);
      // Only the bearer token moves into the header; a credential argument's own scheme stays in the variables.
      if (job.authHeader !== undefined) facts = { ...facts, credentials: facts.credentials.map((credential) => (credential.argumentOnly === true ? credential : { ...credential, type: "apiKey", in: "header", name: job.authHeader! })) };
      generator = graphql.GRAPHQL_GENERATOR;
      emit = (pack) => graphql.emitPackSources(pack, { runtimeModule: "./runtime.ts", regenerate: job.regenerate });
    }

    return { ir, facts, generator, emit };
  })();
  const { ir, generator, emit } = built;
  let { facts } = built;
  if (job.endpoint !== undefined && facts.endpoint !== undefined) facts = { ...facts, endpoint: { ...facts.endpoint, url: job.endpoint } };
  facts = withEnvNames(facts, job);
  // A typo in exclude generates more than the author meant: fail closed, naming what it could have meant.
  const strayExcludes = filter.unmatchedExcludes();
  if (strayExcludes.length > 0) {
    const first = strayExcludes[0]!;
    const more = strayExcludes.length > 1 ? ` (and ${strayExcludes.slice(1).map((entry) => entry.label).join(", ")})` : "";
    throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: ${unmatchedText(first)}${more}; an exclude entry that matches nothing excludes nothing, so fix or remove it.`, first.candidates.length > 0 ? { candidates: first.candidates } : undefined);
  }
  const selection = selectionRecord(job, filter, applied, ir);
  if (selection !== undefined) facts = { ...facts, selection };
  const warnings: string[] = [];
  for (const entry of filter.unmatchedIncludes()) warnings.push(unmatchedText(entry));
  // One warning per argument name (Plaid's access_token is in 180 tools), naming its tools.
  const secretTools = new Map<string, string[]>();
  for (const { tool, argument } of facts.secretLooking) secretTools.set(argument, [...(secretTools.get(argument) ?? []), tool]);
  for (const [argument, tools] of secretTools) {
    const where = tools.length <= 3 ? tools.join(", ") : `${tools.slice(0, 3).join(", ")} and ${tools.length - 3} more tools`;
    warnings.push(`argument "${argument}" (${where}) looks like a secret and is shown to the model; withhold it with credentialArguments: { "${argument}": "<security scheme>" } or withhold: { "${argument}": "internal" }`);
  }
  if (kind === "graphql") warnings.push(...visibleCredentialMembers(ir));
  else if (kind === "openapi") warnings.push(...specSilences(ir, facts));
  // Coded, one per pattern: the operation, where the spec has it, and the pattern itself.
  for (const refused of ir.refusedPatterns ?? []) {
    const fate = refused.code === "PATTERN_UNSUPPORTED" ? "needs a backtracking engine" : "is not an ECMA-262 regular expression";
    warnings.push(`${refused.code}: ${refused.operation || "(shared type)"} ${refused.pointer}: pattern ${JSON.stringify(refused.pattern)} ${fate} (${refused.reason}); removed from the tool, not checked by sluice`);
  }
  const report: PackReport = {
    name: job.name,
    kind,
    out: job.out,
    tools: ir.tools.length,
    skipped: askedFor(ir.skipped, job.include),
    excluded: filter.leftOut.size,
    operations: filter.operations,
    ...(facts.server !== undefined && facts.server.url !== "" ? { baseUrl: facts.server.url } : {}),
    ...(facts.endpoint !== undefined ? { endpointEnv: facts.endpoint.env } : {}),
    credentials: facts.credentials.map((c) => ({ scheme: c.scheme, type: c.type, env: c.env, ...(c.argumentOnly === true ? { argumentOnly: true as const } : {}) })),
    paginated: Object.keys(facts.pagination).length,
    credentialArguments: facts.credentialArguments,
    warnings,
  };
  if (ir.tools.length === 0) {
    const unmatched = filter.unmatchedIncludes();
    const why =
      filter.leftOut.size > 0
        ? `the selection left out all ${filter.leftOut.size} tools (${reasonCounts(filter.leftOut)})${unmatched.length > 0 ? `; ${unmatched.map(unmatchedText).join("; ")}` : ""}`
        : ir.skipped.length > 0
          ? `every operation was skipped (${ir.skipped.slice(0, 3).map((s) => `${s.operation}: ${s.reason}`).join("; ")}${ir.skipped.length > 3 ? "; ..." : ""})`
          : "the spec declares no operation";
    const candidates = unmatched.flatMap((entry) => entry.candidates);
    throw new SluiceError("NO_TOOLS", `pack ${job.name}: no tools generated from ${file}: ${why}.`, candidates.length > 0 ? { candidates } : undefined);
  }

  if (job.responses === "off") facts = { ...facts, responses: "off" };
  step("emitting sources");
  const header = generatedHeader(ir, generator, job.regenerate);
  // An MCP snapshot is what a reviewer must read when the server changes: it is not collapsed.
  const generated: EmittedFile[] = [...emit(ir), { path: "src/runtime.gen.ts", text: (await import("@sluice/emit")).emitRuntimeFactsSource(facts, header) }, gitattributes(kind === "mcp" ? undefined : file)];
  return { report, ir, facts, generated, spec: { path: `spec/${file}`, bytes }, scaffolds: scaffoldFiles(job.name, file, coreVersion, facts.credentials) };
}

/** `include tags "nosuchtag" matched no operation; the spec's 3 tags, nearest first: pet, store, user`. */
function unmatchedText(entry: UnmatchedEntry): string {
  const kind = /^\w+ (\w+)/.exec(entry.label)?.[1] ?? "";
  const what = kind === "tags" ? "tags" : kind === "paths" ? "paths" : kind === "tools" ? "tool names" : "operation names";
  if (entry.candidates.length === 0) return `${entry.label} matched no operation (the spec has no ${what})`;
  const nearest = entry.of > entry.candidates.length ? `the nearest of its ${entry.of} ${what}` : `its ${entry.of} ${what}, nearest first`;
  return `${entry.label} matched no operation; ${nearest}: ${entry.candidates.join(", ")}`;
}

/** `not in include 11, not read-only 3`: the reasons without their details, counted. */
function reasonCounts(leftOut: ReadonlyMap<string, string>): string {
  const counts = new Map<string, number>();
  for (const reason of leftOut.values()) {
    const short = reason.replace(/ \(.*\)$/, "");
    counts.set(short, (counts.get(short) ?? 0) + 1);
  }
  return [...counts].map(([reason, n]) => `${reason}: ${n}`).join(", ");
}

/**
 * The config's MCP source as the pack's facts keep it (secrets stay `{ fromEnv }`). A stdio
 * server's folder is written relative to the pack (an absolute `cwd` stays as given), so that
 * `sluice serve <pack>` starts it where generate did, from whatever folder a client runs serve in.
 */
function serverFact(source: NonNullable<PackJob["mcp"]>, job: Pick<PackJob, "configDir" | "out">): McpServerFact {
  if ("command" in source) return { command: source.command, args: [...(source.args ?? [])], ...(source.env === undefined ? {} : { env: source.env }), cwd: packRelativeCwd(source.cwd, job) };
  return { url: source.url, ...(source.headers === undefined ? {} : { headers: source.headers }) };
}

/** Where generate ran a stdio server, as a path from the pack's folder ("/"-separated, so the facts are the same on every OS). */
function packRelativeCwd(given: string | undefined, job: Pick<PackJob, "configDir" | "out">): string {
  if (given !== undefined && isAbsolute(given)) return given;
  const folder = resolve(job.configDir ?? job.out, given ?? ".");
  return relative(job.out, folder).split(sep).join("/") || ".";
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const SET_BASE_URL =
  'set baseUrl: "https://..." in this pack\'s sluice.config entry and regenerate (or pass ctx.baseUrl on a call, or sluice serve --base-url URL / SLUICE_BASE_URL)';

/**
 * What an OpenAPI spec leaves unsaid and the user has to supply, each once, coded: no server
 * URL (Kubernetes), a relative one (`/api/v3`, relative to wherever the spec was served), no
 * security at all. Without these warnings generate is silent and calls fail far from the cause.
 */
function specSilences(ir: PackIR, facts: RuntimeFacts): string[] {
  const warnings: string[] = [];
  const http = ir.tools.flatMap((tool) => (tool.binding.kind === "http" ? [tool.binding] : []));
  const unset = http.filter((binding) => binding.server === undefined || binding.server === "");
  const relative = http.filter((binding) => binding.server !== undefined && binding.server !== "" && !ABSOLUTE_URL.test(binding.server));
  const of = (n: number) => (n === http.length ? `all ${n} tools` : `${n} of ${http.length} tools`);
  if (unset.length > 0) warnings.push(`NO_SERVER_URL: the spec names no server URL (${facts.server?.from === "host+basePath" ? "no host" : "no servers"}) for ${of(unset.length)}; their calls answer NO_BASE_URL until one is set: ${SET_BASE_URL}`);
  if (relative.length > 0) {
    const urls = [...new Set(relative.map((binding) => binding.server!))].sort();
    warnings.push(`RELATIVE_SERVER_URL: the spec's server URL ${urls.slice(0, 3).map((url) => JSON.stringify(url)).join(", ")} is relative (to wherever the spec was served, which sluice does not know) for ${of(relative.length)}; their calls answer NO_BASE_URL until one is set: ${SET_BASE_URL}`);
  }
  const secured = facts.credentials.length > 0 || http.some((binding) => (binding.auth ?? []).some((alternative) => alternative.length > 0));
  if (!secured) {
    warnings.push("NO_SECURITY: the spec declares no security scheme and no operation requires one, so calls go out without a credential; if the API needs one, declare it in the spec copy (securitySchemes and security) and regenerate, or give it in the pack's runtime (src/runtime.ts: auth) with its variable in credentialEnv");
  }
  return warnings;
}

/**
 * A GraphQL credential argument given by name covers root field arguments only; an input
 * member of the same name (Storefront's `CartBuyerIdentityInput.customerAccessToken` beside
 * the `customerAccessToken` argument) is still shown to the model, so say so and how to cover it.
 */
function visibleCredentialMembers(ir: PackIR): string[] {
  const names = new Map<string, string>();
  for (const tool of ir.tools) {
    if (tool.binding.kind === "graphql") for (const [name, scheme] of Object.entries(tool.binding.credentialVariables ?? {})) names.set(name, scheme);
  }
  const warnings: string[] = [];
  for (const [name, scheme] of names) {
    const members = Object.keys(ir.defs).filter((type) => hasOwn(getOwn(ir.defs[type], "properties") ?? {}, name)).map((type) => `${type}.${name}`);
    if (members.length === 0) continue;
    const entries = members.map((member) => `"${member}": "${scheme}"`).join(", ");
    warnings.push(`credential argument "${name}" is also an input member the model still sees (${members.join(", ")}); withhold ${members.length === 1 ? "it" : "them"} too with credentialArguments: { ${entries} }`);
  }
  return warnings;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The config's variable names in place of the derived ones; a scheme the spec does not declare is an error, not a silent no-op. */
function withEnvNames(facts: RuntimeFacts, job: PackJob): RuntimeFacts {
  const names = job.env ?? {};
  if (Object.keys(names).length === 0) return facts;
  const schemes = facts.credentials.map((credential) => credential.scheme);
  for (const [key, variable] of Object.entries(names)) {
    if (!ENV_NAME.test(variable)) throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: env.${key}: "${variable}" is not an environment variable name.`);
    if (key === "endpoint" ? facts.endpoint === undefined : !schemes.includes(key)) {
      const known = [...schemes, ...(facts.endpoint === undefined ? [] : ["endpoint"])];
      throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: env.${key}: the spec declares no such security scheme${facts.endpoint === undefined ? "" : " (or endpoint)"}.`, { candidates: known });
    }
  }
  return {
    ...facts,
    credentials: facts.credentials.map((credential) => (hasOwn(names, credential.scheme) ? { ...credential, env: names[credential.scheme]! } : credential)),
    ...(facts.endpoint !== undefined && hasOwn(names, "endpoint") ? { endpoint: { ...facts.endpoint, env: names["endpoint"]! } } : {}),
  };
}

/**
 * The config choices a source kind cannot carry out, each with what to do instead. Checked
 * before anything is built (known only now when the kind was read from the file): a
 * choice that silently did nothing would leave the pack wider, or differently wired, than
 * its config says.
 */
const UNSUPPORTED: Record<"openapi" | "graphql" | "mcp", Partial<Record<keyof PackConfig | "include.tags" | "include.paths" | "exclude.tags" | "exclude.paths", string>>> = {
  openapi: {
    authHeader: "its credentials come from the spec's security schemes (rename the variable with env)",
    endpoint: "an OpenAPI pack's server is baseUrl",
  },
  graphql: {
    baseUrl: "a GraphQL pack's server is endpoint",
    detectCredentialArguments: "name credential arguments in credentialArguments",
    externalRefs: "a GraphQL schema has no $ref",
    "include.tags": "a GraphQL schema has no tags; select by operations or tools",
    "include.paths": "a GraphQL schema has no paths; select by operations or tools",
    "exclude.tags": "a GraphQL schema has no tags; select by operations or tools",
    "exclude.paths": "a GraphQL schema has no paths; select by operations or tools",
  },
  mcp: {
    authHeader: "secrets reach the server through mcp.env or mcp.headers",
    baseUrl: "the server is the mcp source",
    endpoint: "the server is the mcp source",
    credentialArguments: "an MCP snapshot declares no security schemes; give the server its secret through mcp.env or mcp.headers, and withhold the argument with withhold",
    detectCredentialArguments: "an MCP snapshot declares no security schemes",
    externalRefs: "an MCP snapshot's schemas are self-contained",
    "include.tags": "MCP tools have no tags; select by operations or tools",
    "include.paths": "MCP tools have no paths; select by operations or tools",
    "exclude.tags": "MCP tools have no tags; select by operations or tools",
    "exclude.paths": "MCP tools have no paths; select by operations or tools",
  },
};

function refuseUnsupported(kind: "openapi" | "graphql" | "mcp", job: PackJob, file: string): void {
  const asked: string[] = [];
  for (const key of ["authHeader", "baseUrl", "endpoint", "credentialArguments", "detectCredentialArguments", "externalRefs"] as const) if (job[key] !== undefined) asked.push(key);
  for (const which of ["include", "exclude"] as const) for (const key of ["tags", "paths"] as const) if ((job[which]?.[key]?.length ?? 0) > 0) asked.push(`${which}.${key}`);
  const table = UNSUPPORTED[kind] as Record<string, string | undefined>;
  const refused = asked.filter((key) => table[key] !== undefined);
  if (refused.length === 0) return;
  const what = kind === "mcp" ? "an MCP snapshot" : kind === "graphql" ? "a GraphQL schema" : "an OpenAPI document";
  throw new SluiceError("CONFIG_UNSUPPORTED", `pack ${job.name}: ${file} is ${what}, which cannot honour ${refused.map((key) => `${key} (${table[key]})`).join("; ")}; remove ${refused.length === 1 ? "it" : "them"} from the config.`, { candidates: refused });
}

/** The config's tool prefix and withheld arguments, applied to the IR before anything is emitted. */
function transform(ir: PackIR, job: PackJob): PackIR {
  const prefix = job.toolPrefix ?? "";
  const withhold = Object.entries(job.withhold ?? {});
  const server = job.baseUrl;
  if (prefix === "" && withhold.length === 0 && server === undefined) return ir;
  if (server !== undefined && !/^https?:\/\/[^\s/]+/.test(server)) throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: baseUrl must be an http(s) URL, got "${server}".`);
  const tools = ir.tools.map((tool) => {
    const name = prefix + tool.name;
    if (name.length > 64) throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: toolPrefix "${prefix}" makes ${tool.name} longer than 64 characters.`);
    const properties = { ...tool.parameters.properties };
    const dependentRequired = tool.parameters.dependentRequired === undefined ? undefined : { ...tool.parameters.dependentRequired };
    const withheld = [...(tool.withheld ?? [])];
    for (const [argument, reason] of withhold) {
      if (!Object.hasOwn(properties, argument)) continue;
      if (tool.parameters.required.includes(argument)) {
        throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: ${tool.name} requires "${argument}", so it cannot be withheld; pin it in curated.ts, or declare it in credentialArguments if it carries a credential.`);
      }
      const needs = Object.entries(dependentRequired ?? {}).find(([key, names]) => key !== argument && names.includes(argument));
      if (needs !== undefined) {
        throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: ${tool.name} needs "${argument}" whenever "${needs[0]}" is sent (a required member of its request body), so it cannot be withheld alone; pin it in curated.ts.`);
      }
      delete properties[argument];
      if (dependentRequired !== undefined) delete dependentRequired[argument];
      withheld.push({ path: argument, reason: withheldReason(reason, job.name) });
    }
    // An MCP tool forwards only its binding's arguments: a withheld one leaves that list too.
    const binding =
      server !== undefined && tool.binding.kind === "http"
        ? { ...tool.binding, server }
        : tool.binding.kind === "mcp"
          ? { ...tool.binding, arguments: tool.binding.arguments.filter((arg) => Object.hasOwn(properties, arg)) }
          : tool.binding;
    const { dependentRequired: _before, ...parameters } = tool.parameters;
    const kept = dependentRequired !== undefined && Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {};
    return { ...tool, name, binding, parameters: { ...parameters, properties, ...kept }, ...(withheld.length > 0 ? { withheld } : {}) };
  });
  if (guards.withholdMatches) {
    for (const [argument] of withhold) {
      if (ir.tools.some((tool) => Object.hasOwn(tool.parameters.properties, argument))) continue;
      const names = [...new Set(ir.tools.flatMap((tool) => Object.keys(tool.parameters.properties)))].sort();
      const near = nearestNames(argument, names);
      throw new SluiceError("UNKNOWN_SELECTOR", withSuggestion(`pack ${job.name}: withhold "${argument}": no tool has an argument "${argument}", so nothing would be withheld.`, near), { candidates: near.length > 0 ? near : names.slice(0, 20) });
    }
  }
  return { ...ir, tools };
}

/**
 * The skipped operations the config asked for. A GraphQL subscription is never a tool, so
 * the generator lists every one as skipped; with an `include`, one that no include entry
 * names was not asked for, and listing it (Linear has 80) would bury what was.
 */
function askedFor(skipped: readonly SkippedOperation[], include: PackJob["include"]): SkippedOperation[] {
  if (include === undefined) return [...skipped];
  const patterns = (include.operations ?? []).map((glob) => globPattern(glob));
  return skipped.filter((skip) => {
    if (skip.code !== "SUBSCRIPTION") return true;
    const field = skip.operation.replace(/^Subscription\./, "");
    return patterns.some((pattern) => pattern.test(skip.operation) || pattern.test(field));
  });
}

const REASONS = ["internal", "deprecated", "projection"] as const;

function withheldReason(reason: string, pack: string): (typeof REASONS)[number] {
  if ((REASONS as readonly string[]).includes(reason)) return reason as (typeof REASONS)[number];
  throw new SluiceError("CONFIG_INVALID", `pack ${pack}: withhold reasons are ${REASONS.join(", ")} (credential arguments go in credentialArguments), got "${reason}".`);
}
