/**
 * One pack from one spec, in memory, the same way for every kind of source: the source
 * reads its input (PackSource, @sluice/emit), then every config pass runs in one order
 * (include/exclude as the source asks, readOnly, prefix and withholdings, per-tool names and
 * descriptions), then the source's facts and hints of the final tools, the environment
 * names, the selection record, the report and the emitted sources. Nothing here writes:
 * write-pack-files.ts does (and `--check` compares instead).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { nearestNames, SluiceError, withSuggestion, type McpServerFact, type PackIR, type RuntimeFacts, type SkippedOperation } from "@sluice/core";
import { getOwn, hasOwn } from "@sluice/schema";
import { guards } from "@sluice/core/guards";
import { emitRuntimeFactsSource, generatedHeader, type EmittedFile, type PackSource, type SourceChoices, type SourceKind } from "@sluice/emit";
import type { PackConfig } from "./config.ts";
import { gitattributes, scaffoldFiles } from "./pack-scaffold.ts";
import { globPattern, OperationFilter, type UnmatchedEntry } from "./select-operations.ts";
import { packSource } from "./sources.ts";
import { applyPaginationChoices } from "./pagination-choices.ts";
import { applyToolChoices, keepReadOnly, noChoicesApplied, reformatterFacts, selectionRecord } from "./tool-choices.ts";

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
  kind: SourceKind;
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
export function detectKind(bytes: Uint8Array, file: string): SourceKind {
  return detectKindOfText(() => new TextDecoder().decode(bytes), file);
}

/** detectKind of the decoded spec, decoded only when the file name does not tell. */
function detectKindOfText(decode: () => string, file: string): SourceKind {
  if (GRAPHQL_FILE.test(file)) return "graphql";
  const text = decode().replace(/^\uFEFF/, "");
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

/**
 * The spec's kind (given, or detected) and its text for the source: the text kind detection
 * decoded is handed to the source's parse rather than decoded again, and held only until
 * then, or until `release` once the source has read (a source that reads bytes never takes it).
 */
function specKindAndText(bytes: Uint8Array, file: string, given: SourceKind | undefined): { kind: SourceKind; text: () => string; release: () => void } {
  let decoded: string | undefined;
  const decode = () => new TextDecoder().decode(bytes);
  const kind =
    given ??
    detectKindOfText(() => {
      decoded = decode();
      return decoded;
    }, file);
  const text = () => {
    const once = decoded ?? decode();
    decoded = undefined;
    return once;
  };
  return { kind, text, release: () => (decoded = undefined) };
}

/** Why the spec could not be read, as what it is: missing, a directory (a pack's folder, perhaps), or unreadable. */
function unreadableSpec(error: unknown, job: PackJob): SluiceError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return new SluiceError("FILE_NOT_FOUND", `the spec of pack ${job.name} does not exist (${job.spec}).`, { cause: error });
  if (code === "EISDIR") return new SluiceError("SPEC_INVALID", `the spec of pack ${job.name} is a directory, not a spec file (${job.spec}); name the OpenAPI or GraphQL file inside it.`, { cause: error });
  return new SluiceError("SPEC_INVALID", `the spec of pack ${job.name} cannot be read (${job.spec}): ${code ?? (error as Error)?.message ?? String(error)}.`, { cause: error });
}

/** Builds everything of one pack in memory. */
export async function buildPack(job: PackJob, coreVersion: string, step: (label: string) => void = () => {}): Promise<GeneratedPack> {
  step(`reading ${basename(job.spec)}`);
  let bytes: Uint8Array;
  if (job.liveSnapshot !== undefined) bytes = Buffer.from(job.liveSnapshot, "utf8");
  else {
    try {
      bytes = await readFile(job.spec);
    } catch (error) {
      throw unreadableSpec(error, job);
    }
  }
  const file = basename(job.spec);
  // The name is copied to spec/<file> and written into headers and .gitattributes: a line
  // break (or another control character) there would split those lines.
  if (/[\p{Cc}\u2028\u2029]/u.test(file)) {
    const suggestion = file.replace(/[\p{Cc}\u2028\u2029]+/gu, "-");
    throw new SluiceError("INVALID_NAME", `the spec file name ${JSON.stringify(file)} of pack ${job.name} holds a line break or control character; rename it (for example to ${JSON.stringify(suggestion)}).`, { candidates: [suggestion] });
  }
  const { kind, text, release } = specKindAndText(bytes, file, job.kind);
  const source = await packSource(kind);
  refuseUnsupported(source, job, file);
  const withhold = Object.fromEntries(Object.entries(job.withhold ?? {}).map(([selector, reason]) => [selector, withheldReason(reason, job.name)]));
  const filter = new OperationFilter(job.include, job.exclude);

  // Its own scope: what the source parsed (the largest thing in memory until then) is
  // garbage once the IR, the facts and the hints exist, before the map and the sources are made.
  const built = await (async () => {
    const read = await source.read({ name: job.name, file, bytes, text, sha256: createHash("sha256").update(bytes).digest("hex"), select: (operation) => filter.accepts(operation), choices: sourceChoices(job, source, withhold), step });
    release();
    // The passes, in one order for every source: readOnly (include/exclude ran as the source
    // asked), then prefix and withholdings, then per-tool names and descriptions; before the
    // facts, which are keyed by final names. What each did is recorded for the map.
    const applied = noChoicesApplied();
    const selected = keepReadOnly(read.ir, job, filter, applied);
    const transformed = transform(selected, job.toolPrefix ?? "", source.withholdsItself ? {} : withhold, job.name);
    const prefixed = new Map(selected.tools.map((tool, i) => [tool.name, transformed.tools[i]!.name]));
    const ir = applyToolChoices(transformed, job, filter, prefixed, applied);
    let facts = read.facts(ir);
    if (job.responses !== "off" && read.responseHints !== undefined) facts = { ...facts, responses: read.responseHints(ir, facts) };
    return { ir, facts, applied, prefixed, generator: read.generator, emit: read.emit, warnings: read.warnings?.(ir, facts) ?? [] };
  })();
  const { ir, generator, emit, applied } = built;
  let { facts } = built;
  if (job.endpoint !== undefined && facts.endpoint !== undefined) facts = { ...facts, endpoint: { ...facts.endpoint, url: job.endpoint } };
  facts = withEnvNames(facts, job);
  const declaredPagination = applyPaginationChoices(facts, ir, job, built.prefixed);
  facts = declaredPagination.facts;
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
  if (declaredPagination.replaced.length > 0) {
    const [first, ...more] = declaredPagination.replaced;
    warnings.push(`pagination: the config's declaration replaces the one found in the spec for ${first}${more.length > 0 ? ` and ${more.length} more` : ""}`);
  }
  warnings.push(...built.warnings);
  warnings.push(...(ir.notices ?? []));
  // Coded, one line per distinct pattern (a spec repeats one in many operations): the pattern, why, and where first.
  const byPattern = new Map<string, NonNullable<PackIR["refusedPatterns"]>>();
  for (const refused of ir.refusedPatterns ?? []) byPattern.set(refused.pattern, [...(byPattern.get(refused.pattern) ?? []), refused]);
  for (const [pattern, [first, ...more]] of byPattern) {
    const fate = first!.code === "PATTERN_UNSUPPORTED" ? "needs a backtracking engine" : "is not an ECMA-262 regular expression";
    warnings.push(`${first!.code}: pattern ${JSON.stringify(pattern)} ${fate} (${first!.reason}); removed, not checked: ${first!.operation || "(shared type)"} ${first!.pointer}${more.length > 0 ? ` and ${more.length} more` : ""}`);
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
  const reformatters = reformatterFacts(job, built.prefixed);
  if (reformatters !== undefined) facts = { ...facts, reformatters };
  step("emitting sources");
  const header = generatedHeader(ir, generator, job.regenerate);
  const generated: EmittedFile[] = [...emit(ir, { regenerate: job.regenerate }), { path: "src/runtime.gen.ts", text: emitRuntimeFactsSource(facts, header) }, gitattributes(source.collapseSpec ? file : undefined)];
  return { report, ir, facts, generated, spec: { path: `spec/${file}`, bytes }, scaffolds: scaffoldFiles(job.name, file, coreVersion, facts.credentials) };
}

/** The config choices the source reads itself, resolved: paths absolute, the MCP server as its facts keep it. */
function sourceChoices(job: PackJob, source: PackSource, withhold: NonNullable<SourceChoices["withhold"]>): SourceChoices {
  const externalRefs = job.externalRefs === undefined ? undefined : Object.fromEntries(Object.entries(job.externalRefs).map(([ref, path]) => [ref, resolve(job.spec, "..", path)]));
  return {
    ...(job.credentialArguments === undefined ? {} : { credentialArguments: job.credentialArguments }),
    ...(job.detectCredentialArguments === undefined ? {} : { detectCredentialArguments: job.detectCredentialArguments }),
    ...(externalRefs === undefined ? {} : { externalRefs }),
    ...(source.withholdsItself && job.withhold !== undefined ? { withhold } : {}),
    ...(job.authHeader === undefined ? {} : { authHeader: job.authHeader }),
    ...(job.baseUrl === undefined ? {} : { baseUrl: job.baseUrl }),
    ...(job.mcp === undefined ? {} : { mcpServer: serverFact(job.mcp, job) }),
  };
}

/**
 * The config choices the source cannot carry out, refused before anything is built: a
 * choice that silently did nothing would leave the pack wider, or wired otherwise, than its
 * config says. Each source lists its own, with what to do instead.
 */
function refuseUnsupported(source: PackSource, job: PackJob, file: string): void {
  const asked: string[] = [];
  for (const key of ["authHeader", "baseUrl", "endpoint", "credentialArguments", "detectCredentialArguments", "externalRefs", "pagination"] as const) if (job[key] !== undefined) asked.push(key);
  for (const which of ["include", "exclude"] as const) for (const key of ["tags", "paths"] as const) if ((job[which]?.[key]?.length ?? 0) > 0) asked.push(`${which}.${key}`);
  const refused = asked.filter((key) => hasOwn(source.unsupported, key));
  if (refused.length === 0) return;
  throw new SluiceError("CONFIG_UNSUPPORTED", `pack ${job.name}: ${file} is ${source.kind === "mcp" ? "an MCP snapshot" : `a${source.kind === "openapi" ? "n OpenAPI document" : " GraphQL schema"}`}, which cannot honour ${refused.map((key) => `${key} (${source.unsupported[key]})`).join("; ")}; remove ${refused.length === 1 ? "it" : "them"} from the config.`, { candidates: refused });
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

/** The config's tool prefix and withheld arguments, applied to the IR of any source before anything is emitted. */
function transform(ir: PackIR, prefix: string, withholding: Readonly<Record<string, (typeof REASONS)[number]>>, pack: string): PackIR {
  const withhold = Object.entries(withholding);
  if (prefix === "" && withhold.length === 0) return ir;
  const tools = ir.tools.map((tool) => {
    const name = prefix + tool.name;
    if (name.length > 64) throw new SluiceError("CONFIG_INVALID", `pack ${pack}: toolPrefix "${prefix}" makes ${tool.name} longer than 64 characters.`);
    const properties = { ...tool.parameters.properties };
    const dependentRequired = tool.parameters.dependentRequired === undefined ? undefined : { ...tool.parameters.dependentRequired };
    const withheld = [...(tool.withheld ?? [])];
    for (const [argument, reason] of withhold) {
      if (!Object.hasOwn(properties, argument)) continue;
      if (tool.parameters.required.includes(argument)) {
        throw new SluiceError("CONFIG_INVALID", `pack ${pack}: ${tool.name} requires "${argument}", so it cannot be withheld; pin it in curated.ts, or declare it in credentialArguments if it carries a credential.`);
      }
      const needs = Object.entries(dependentRequired ?? {}).find(([key, names]) => key !== argument && names.includes(argument));
      if (needs !== undefined) {
        throw new SluiceError("CONFIG_INVALID", `pack ${pack}: ${tool.name} needs "${argument}" whenever "${needs[0]}" is sent (a required member of its request body), so it cannot be withheld alone; pin it in curated.ts.`);
      }
      delete properties[argument];
      if (dependentRequired !== undefined) delete dependentRequired[argument];
      withheld.push({ path: argument, reason });
    }
    // A binding that lists the arguments it forwards (an MCP tool's) never forwards a withheld one.
    const binding = tool.binding.kind === "mcp" ? { ...tool.binding, arguments: tool.binding.arguments.filter((arg) => Object.hasOwn(properties, arg)) } : tool.binding;
    const { dependentRequired: _before, ...parameters } = tool.parameters;
    const kept = dependentRequired !== undefined && Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {};
    return { ...tool, name, binding, parameters: { ...parameters, properties, ...kept }, ...(withheld.length > 0 ? { withheld } : {}) };
  });
  if (guards.withholdMatches) {
    for (const [argument] of withhold) {
      if (ir.tools.some((tool) => Object.hasOwn(tool.parameters.properties, argument))) continue;
      const names = [...new Set(ir.tools.flatMap((tool) => Object.keys(tool.parameters.properties)))].sort();
      const near = nearestNames(argument, names);
      throw new SluiceError("UNKNOWN_SELECTOR", withSuggestion(`pack ${pack}: withhold "${argument}": no tool has an argument "${argument}", so nothing would be withheld.`, near), { candidates: near.length > 0 ? near : names.slice(0, 20) });
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
