import { createHash } from "node:crypto";
import { canonicalJson, cloneJson, collectGarbage, hasOwn, isSchemaObject, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { recursionCuts, Tool } from "@sluice/core/pack";
import { schemaTokens } from "@sluice/core/tokens";
import { check, DEFAULT_SERVER_NAME, qualifiedName, type CheckOptions, type Finding } from "./check.ts";
import { inlineRefs } from "./inline-refs.ts";
import { allOfCensus, mergeAllOf } from "./merge-all-of.ts";
import type { Profile } from "./profile.ts";
import { AUDIT_DEPTH, PATH_KEYWORDS, PropertyPathSets } from "./property-paths.ts";
import { isObjectNode, reachableCycles, walkBodies } from "./schema-bodies.ts";
import { unrollCycles } from "./unroll-cycles.ts";
import { requireProfile } from "./provider-profiles.ts";

export interface FitOptions extends CheckOptions {
  /** Allow changes that lose meaning (each is still listed). Default false: refuse instead. */
  allowLossy?: boolean;
  /** Inline refs only while the expanded schema stays under this many times its original size. Default 4. */
  inlineBudget?: number;
  /**
   * Unroll each cycle to this many levels instead of refusing it (beyond it the recursive
   * properties are removed). Passing it is consent to that one lossy change; with
   * `allowLossy`, a depth whose inlined size exceeds the budget is lowered until it fits.
   */
  unroll?: number;
  /**
   * Verification mode (slower; for tests): measure the set of property paths (dotted, from
   * the root through properties, arrays, unions and refs, up to 6 segments) before and after
   * every change and attach the comparison to the change as `audit`. A change labelled
   * lossless must keep that set exactly.
   */
  auditPaths?: boolean;
}

export type FitAction =
  | "rename"
  | "remove-annotation"
  | "fold-into-description"
  | "convert-keyword"
  | "remove-keyword"
  | "add-items"
  | "merge-all-of"
  | "inline-refs"
  | "unroll-cycle"
  | "close-object"
  | "require-as-nullable"
  | "truncate-description";

export interface FitChange {
  tool: string;
  kind: "lossless" | "lossy";
  action: FitAction;
  message: string;
  /**
   * Where in the original tool's input schema ("" for the tool itself); sorted. At most 50:
   * past that, the first 50 reached and `places` counts them all.
   */
  pointers: string[];
  /** How many places the change applied at, when that is more than `pointers` lists. */
  places?: number;
  /** Schema tokens (o200k_base) before and after, for changes whose cost is measured. */
  tokens?: { before: number; after: number };
  /** With `auditPaths`: what the change did to the property paths where it applied. */
  audit?: PathAudit;
}

/** Property paths compared around one change (see `FitOptions.auditPaths`). */
export interface PathAudit {
  /**
   * Places compared: 1 for a whole-schema step (merging allOf, unrolling, inlining), one per
   * node for a keyword change, 0 for a change that does not touch the schema (rename, description).
   */
  places: number;
  /**
   * Paths (up to 10 shown) present before and missing after; prefixed with the node's
   * pointer when not the root. A lossy keyword change is measured one level deep.
   */
  lost: string[];
  /** Paths present after and missing before. */
  gained: string[];
  /** Paths before and after, for whole-schema steps. */
  before?: number;
  after?: number;
}

export interface FitResult {
  /** The tools as this provider should receive them, in input order. */
  tools: Tool<object>[];
  changes: FitChange[];
  /** Fitted name -> original name, for every tool: route a model's call back through it. */
  nameMap: Record<string, string>;
  /** What fit cannot change (too many tools, strict-mode counts): the same findings `check` gives. */
  remaining: Finding[];
}

const DEFAULT_INLINE_BUDGET = 4;
/**
 * Pointers listed per change. A schema nested thousands of levels deep changes at every
 * level, and its pointers grow with the depth: 20,000 of them, sorted, were 2.6 GB of text.
 */
const MAX_POINTERS = 50;
/** `pointers` and `places` for a change met at `all` (each once, in the order reached): the first ones, sorted. */
function listed(all: readonly string[]): Pick<FitChange, "pointers" | "places"> {
  // Only the listed ones are sorted: comparing deep pointers costs their length each time.
  const pointers = all.slice(0, MAX_POINTERS).sort();
  return all.length > MAX_POINTERS ? { pointers, places: all.length } : { pointers };
}

/** One change on one line: `tool: action (N places): message`. */
export function describeFitChange(change: FitChange): string {
  const places = change.places ?? change.pointers.length;
  return `${change.tool}: ${change.action} (${places} place${places === 1 ? "" : "s"}): ${change.message}`;
}

/** Paths shown per audit, lost and gained each. */
const AUDIT_EXAMPLES = 10;
/** The audit of a change that leaves the input schema as it is. */
const untouched = (): PathAudit => ({ places: 0, lost: [], gained: [] });
const META_KEYWORDS: ReadonlySet<string> = new Set(["$schema", "$comment", "$id", "$anchor", "$dynamicAnchor", "$vocabulary"]);
const REF_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$defs"]);
/** Annotations whose content moves into the description text without changing what is accepted. */
const FOLDABLE: Readonly<Record<string, (value: unknown) => string>> = {
  title: (v) => `${String(v)}.`,
  default: (v) => `Default: ${canonicalJson(v)}.`,
  examples: (v) => `Examples: ${Array.isArray(v) ? v.map((x) => canonicalJson(x)).join(", ") : canonicalJson(v)}.`,
  example: (v) => `Example: ${canonicalJson(v)}.`,
  deprecated: (v) => (v === true ? "Deprecated." : ""),
  readOnly: (v) => (v === true ? "Read-only." : ""),
  writeOnly: (v) => (v === true ? "Write-only." : ""),
};

/**
 * Fits tools to a provider profile. Every change is in the log, labelled lossless or
 * lossy; without `allowLossy` a lossy change is refused (one error listing all of them).
 * A cycle is never expanded without a bound: it is refused, naming the cycle and the
 * cheapest projection that removes it, or unrolled to `options.unroll` levels.
 *
 * The fitted tools are wire definitions: call the original tool (through `nameMap`),
 * which keeps its pins, handler and validation.
 */
export function fit(tools: readonly Tool<object>[], profile: Profile, options: FitOptions = {}): FitResult {
  requireProfile(profile, "fit");
  const budget = options.inlineBudget ?? DEFAULT_INLINE_BUDGET;
  if (!(budget >= 1)) throw new SluiceError("INVALID_OPTION", `inlineBudget must be at least 1, got ${String(options.inlineBudget)}.`);
  if (options.unroll !== undefined && (!Number.isInteger(options.unroll) || options.unroll < 0)) {
    throw new SluiceError("INVALID_OPTION", `unroll must be a non-negative integer, got ${String(options.unroll)}.`);
  }
  const names = fitNames(tools, profile, options.server ?? DEFAULT_SERVER_NAME);
  const changes: FitChange[] = [];
  const fitted: Tool<object>[] = [];
  const nameMap: Record<string, string> = {};
  tools.forEach((tool, index) => {
    const name = names[index]!;
    const own: FitChange[] = [];
    if (name !== tool.name) {
      own.push({
        tool: tool.name,
        kind: "lossless",
        action: "rename",
        message: `Renamed to ${name} (reverse map in nameMap).`,
        pointers: [""],
        ...(options.auditPaths ? { audit: untouched() } : {}),
      });
    }
    const schema = withinLimits(`fit() of ${tool.name}`, () => fitSchema(tool, profile, { ...options, inlineBudget: budget }, own));
    const maxDescription = profile.limits.descriptionMaxLength;
    let description = tool.description;
    if (maxDescription !== undefined && description.length > maxDescription) {
      description = description.slice(0, maxDescription - 1) + "\u2026";
      own.push({
        tool: tool.name,
        kind: "lossy",
        action: "truncate-description",
        message: `Description cut from ${tool.description.length} to ${maxDescription} characters.`,
        pointers: [""],
        ...(options.auditPaths ? { audit: untouched() } : {}),
      });
    }
    changes.push(...own);
    const nullsForOmitted = own.some((change) => change.action === "require-as-nullable");
    fitted.push(buildTool(tool, name, schema, description, nullsForOmitted));
    nameMap[name] = tool.name;
  });
  const lossy = changes.filter((c) => c.kind === "lossy" && c.action !== "unroll-cycle");
  if (lossy.length > 0 && !options.allowLossy) throw new LossyFitRefusedError(profile, lossy);
  return { tools: fitted, changes, nameMap, remaining: check(fitted, profile, options) };
}

/** Lossy changes named in a refusal's message (one per kind); the error's `changes` holds them all. */
const REFUSAL_EXAMPLES = 3;

/**
 * LOSSY_FIT_REFUSED: the message summarises (counts by action, the first few changes), so a
 * refusal of a thousand changes stays one readable line; `changes` lists every one.
 */
export class LossyFitRefusedError extends SluiceError {
  readonly changes: readonly FitChange[];

  constructor(profile: Profile, lossy: readonly FitChange[]) {
    const byAction = new Map<string, number>();
    for (const change of lossy) byAction.set(change.action, (byAction.get(change.action) ?? 0) + 1);
    const counts = [...byAction].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([action, n]) => `${n} ${action}`);
    const tools = new Set(lossy.map((change) => change.tool)).size;
    // One example per action, the most frequent first: three close-object lines say less than one of each kind.
    const examples = [...byAction.keys()].sort((a, b) => byAction.get(b)! - byAction.get(a)! || (a < b ? -1 : 1)).slice(0, REFUSAL_EXAMPLES).map((action) => lossy.find((c) => c.action === action)!);
    const first = examples.map(describeFitChange);
    const more = lossy.length > REFUSAL_EXAMPLES ? ` (the error's \`changes\` lists all ${lossy.length}; sluice fit --verbose prints them)` : "";
    super(
      "LOSSY_FIT_REFUSED",
      `Fitting to ${profile.label} needs ${lossy.length} lossy change${lossy.length === 1 ? "" : "s"} in ${tools} tool${tools === 1 ? "" : "s"} (${counts.join(", ")}); ` +
        `pass allowLossy (--allow-lossy) to accept them, or project the tools first. For example${more}:\n${first.map((line) => `  ${line}`).join("\n")}`,
    );
    this.changes = lossy;
  }
}

/**
 * The fitted tool: with the original schema, a renamed derive; with a rewritten one, a wire
 * form that calls through to the original (its pins, withheld paths, handler and validation),
 * turning strict mode's nulls for omitted members back into omissions first.
 */
function buildTool(tool: Tool<object>, name: string, schema: JsonSchemaObject | undefined, description: string = tool.description, nullsForOmitted = false): Tool<object> {
  if (schema === undefined) return name === tool.name && description === tool.description ? tool : tool.derived({ name, description });
  return Tool.create({
    name,
    description,
    inputSchema: schema,
    binding: tool.binding,
    annotations: tool.annotations,
    withheld: tool.withheld,
    ...(tool.responseHandler ? { responseHandler: tool.responseHandler } : {}),
    callsThrough: { tool, ...(nullsForOmitted ? { prepareArguments: (args: unknown) => omittedForNull(tool, args) } : {}) },
  });
}

/**
 * Strict mode makes every member required and the optional ones nullable, so the model
 * sends null for what it means to leave out. Arguments the tool takes as sent stay as they
 * are (a null the tool accepts is meant); otherwise every null member is dropped, at any
 * depth, and the tool's own validation judges what is left.
 */
function omittedForNull(tool: Tool<object>, args: unknown): unknown {
  if (!isSchemaObject(args) || tool.check(args).length === 0) return args;
  return withoutNullMembers(args, 0);
}

function withoutNullMembers(value: unknown, depth: number): unknown {
  // Screening refuses arguments deeper than this anyway; stopping keeps a hostile value from recursing without end.
  if (depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => withoutNullMembers(item, depth + 1));
  if (!isSchemaObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    // defineProperty: a member named __proto__ stays a member (and screening refuses it), never the prototype.
    Object.defineProperty(out, key, { value: withoutNullMembers(member, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ---------------------------------------------------------------------------- names

/**
 * Names that fit the profile: invalid characters become `_`; a name too long (counting
 * the client's server prefix) is cut and suffixed with a hash of the original, so the
 * result is deterministic and two long names sharing a prefix stay distinct. Names that
 * already fit are reserved first, so a shortened name never takes one of them.
 */
function fitNames(tools: readonly Tool<object>[], profile: Profile, server: string): string[] {
  const limits = profile.limits;
  const budget = limits.nameMaxLength - qualifiedName("", profile, server).length;
  const fits = (name: string) => limits.nameCharacters.test(name) && name.length <= budget && /^[a-zA-Z0-9_-]{1,64}$/.test(name);
  const taken = new Set(tools.filter((t) => fits(t.name)).map((t) => t.name));
  return tools.map((tool) => {
    if (fits(tool.name)) return tool.name;
    if (budget < 8) throw new SluiceError("INVALID_OPTION", `Server name "${server}" leaves ${budget} characters for tool names under ${profile.label}; use a shorter server name.`);
    let base = tool.name.replace(/[^a-zA-Z0-9_-]/g, "_");
    if (!limits.nameCharacters.test(base)) base = "_" + base;
    const max = Math.min(budget, 64);
    for (let attempt = 0; ; attempt++) {
      const candidate =
        base.length <= max && attempt === 0 ? base : base.slice(0, max - 7) + "_" + hash6(attempt === 0 ? tool.name : `${tool.name}#${attempt}`);
      if (!taken.has(candidate) && limits.nameCharacters.test(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
  });
}

function hash6(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 6);
}

// ---------------------------------------------------------------------------- schema

interface ResolvedFitOptions extends FitOptions {
  inlineBudget: number;
}

/** The fitted input schema, or undefined when the original already fits. */
function fitSchema(tool: Tool<object>, profile: Profile, options: ResolvedFitOptions, changes: FitChange[]): JsonSchemaObject | undefined {
  const limits = profile.limits;
  const original = tool.inputSchema;
  const originalBytes = canonicalJson(original).length;
  const sets = options.auditPaths ? new PropertyPathSets() : undefined;
  // A step applied to the whole schema is audited as one place: paths before, paths after.
  const auditStep = (before: JsonSchemaObject, after: JsonSchemaObject): PathAudit | undefined => {
    if (sets === undefined) return undefined;
    const a = sets.of(before, before);
    const b = sets.of(after, after);
    return { places: 1, lost: sets.missing(a, b, AUDIT_EXAMPLES), gained: sets.missing(b, a, AUDIT_EXAMPLES), before: sets.count(a), after: sets.count(b) };
  };

  const merging = mergeStep(tool, profile, original, options, auditStep);
  const base = merging?.schema ?? original;
  const cycles = reachableCycles(base);
  const mustBeAcyclic = cycles.length > 0 && (!limits.recursion || !limits.refs || limits.maxResolvedDepth !== undefined);
  if (mustBeAcyclic && options.unroll === undefined) {
    // A candidate projection is judged as fit would see it: with its allOf merged (a loop of
    // allOf alone is no cycle once merged).
    const cyclesOf = (candidate: Tool<object>) => reachableCycles(mergeStep(candidate, profile, candidate.inputSchema, options, () => undefined)?.schema ?? candidate.inputSchema);
    const merged = merging ? Tool.create({ name: tool.name, description: tool.description, inputSchema: merging.schema, binding: tool.binding }) : undefined;
    throw refuseCycle(tool, profile, cycles, cyclesOf, merged, merging?.aliases);
  }

  let depth = options.unroll ?? 0;
  for (;;) {
    const attempt: FitChange[] = [...(merging?.changes.map((c) => ({ ...c })) ?? [])];
    let schema = cloneJson(base);
    if (mustBeAcyclic) {
      const before = sets ? cloneJson(schema) : undefined;
      schema = collectGarbage(unrollCycles(schema, cycles, depth));
      const audit = before ? auditStep(before, schema) : undefined;
      attempt.push({
        tool: tool.name,
        kind: "lossy",
        action: "unroll-cycle",
        message: `Unrolled ${cycles.length} cycle${cycles.length === 1 ? "" : "s"} (${cycles.map((c) => describeCycle(c)).join("; ")}) to depth ${depth}; deeper recursive properties removed.`,
        pointers: cycles.map((c) => "/$defs/" + c[0]!),
        ...(audit ? { audit } : {}),
      });
    }
    transformKeywords(tool.name, schema, profile, attempt, sets);
    if (!limits.refs && hasOwn(schema, "$defs")) {
      const maxBytes = Math.floor(originalBytes * options.inlineBudget);
      const inlined = inlineRefs(schema, maxBytes);
      if (!inlined.ok) {
        if (mustBeAcyclic && options.allowLossy && depth > 0) {
          depth--;
          continue;
        }
        throw new SluiceError(
          "INLINE_BUDGET_EXCEEDED",
          `${tool.name}: ${profile.label} has no $ref, and inlining every ref would make the schema about ${inlined.estimatedBytes} bytes, over the budget of ${options.inlineBudget}x its ${originalBytes} bytes.` +
            (mustBeAcyclic ? ` Unroll less deeply (unroll ${depth} was tried${options.allowLossy ? " down to 0" : "; allowLossy lowers it until it fits"}).` : " Project the tool first (sluice paths --by-cost shows what each path costs)."),
        );
      }
      // Measured just before inlining, so the figures describe this step alone.
      const beforeBytes = canonicalJson(schema).length;
      const audit = auditStep(schema, inlined.schema);
      schema = inlined.schema;
      attempt.push({
        tool: tool.name,
        kind: "lossless",
        action: "inline-refs",
        message: `Inlined every $ref (${beforeBytes} -> ${inlined.bytes} bytes, budget ${options.inlineBudget}x the original ${originalBytes}).`,
        pointers: ["/$defs"],
        ...(audit ? { audit } : {}),
      });
    }
    if (attempt.length === 0) return undefined;
    const unroll = attempt.find((c) => c.action === "unroll-cycle");
    if (unroll) {
      unroll.tokens = { before: schemaTokens(tool), after: schemaTokens(buildTool(tool, tool.name, schema)) };
      unroll.message += ` Tokens ${unroll.tokens.before} -> ${unroll.tokens.after}.`;
      if (depth !== (options.unroll ?? 0)) unroll.message += ` (unroll ${options.unroll} lowered to ${depth} to stay within the inline budget)`;
    }
    changes.push(...attempt);
    return schema;
  }
}

/**
 * allOf, for a profile that does not accept the keyword (Gemini's OpenAPI subset, OpenAI
 * strict mode): merged into the node that holds it before anything else, so that cycle
 * detection, keyword conversion and inlining all see one schema per node, and nothing
 * later has to remove an allOf (which would remove every property its parts declare).
 * Profiles that accept allOf get it unchanged: a merge there would only add risk. Where
 * the profile also has no $ref, a ref with validation keywords beside it is merged with its
 * target too (inlining would write it as an allOf). Conflicting parts are lossy changes,
 * refused unless allowed; what was kept instead is in each message.
 */
function mergeStep(
  tool: Tool<object>,
  profile: Profile,
  original: JsonSchemaObject,
  options: ResolvedFitOptions,
  auditStep: (before: JsonSchemaObject, after: JsonSchemaObject) => PathAudit | undefined,
): { schema: JsonSchemaObject; changes: FitChange[]; aliases: Map<string, string[]> } | undefined {
  if (acceptsKeyword(profile, "allOf")) return undefined;
  const { pending, nodes } = allOfCensus(original, !profile.limits.refs);
  if (pending === 0) return undefined;
  const working = cloneJson(original);
  const merged = mergeAllOf(working, {
    refSiblings: !profile.limits.refs,
    maxCopiedNodes: Math.max(10_000, Math.ceil(nodes * options.inlineBudget)),
    tool: tool.name,
  });
  if (merged.merged.length === 0 && merged.refSiblings.length === 0) return undefined;
  const schema = collectGarbage(working);
  const audit = auditStep(original, schema);
  const withAudit = audit ? { audit } : {};
  const changes: FitChange[] = [];
  const add = (kind: FitChange["kind"], message: string, pointers: string[]) => {
    // A hostile schema can hold thousands of allOf nodes: the log names the first ones.
    const unique = [...new Set(pointers)];
    const more = unique.length > MAX_POINTERS ? ` (${unique.length} places; ${MAX_POINTERS} listed)` : "";
    changes.push({ tool: tool.name, kind, action: "merge-all-of", message: message + more, ...listed(unique), ...withAudit });
  };
  if (merged.merged.length > 0) {
    add("lossless", `allOf merged into one schema (properties and required unioned, types and enums intersected, bounds combined): ${profile.label} does not accept allOf.`, merged.merged);
  }
  if (merged.refSiblings.length > 0) {
    add("lossless", "$ref with validation keywords beside it merged with its target (inlining would otherwise write it as allOf).", merged.refSiblings);
  }
  for (const loop of merged.loops) {
    add("lossless", `allOf loop through ${loop.defs.join(", ")}: each part merged once (a part repeated adds nothing).`, [loop.pointer]);
  }
  for (const { name, parts } of merged.hoisted) {
    add("lossless", `The merged allOf of ${parts.join(" and ") || "inline parts"} refers to itself (a recursive type): kept once, as $defs/${name}, and referred to.`, ["/$defs/" + name]);
  }
  const conflicts = new Map<string, string[]>();
  for (const c of merged.conflicts) conflicts.set(c.message, [...(conflicts.get(c.message) ?? []), c.pointer]);
  for (const [message, pointers] of [...conflicts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) add("lossy", message, pointers);
  return { schema, changes, aliases: new Map(merged.hoisted.map((h) => [h.name, h.parts])) };
}

/** Whether the profile takes `keyword` as it is (outside strict mode's own list too). */
function acceptsKeyword(profile: Profile, keyword: string): boolean {
  const limits = profile.limits;
  if (limits.supportedKeywords) return limits.supportedKeywords.includes(keyword);
  return !(limits.unsupportedKeywords ?? []).includes(keyword) && !(limits.strict?.unsupportedKeywords ?? []).includes(keyword);
}

function describeCycle(cycle: readonly string[]): string {
  return cycle.length <= 4 ? cycle.join(" -> ") : `${cycle.length} types: ${cycle.slice(0, 4).join(", ")}, ...`;
}

/**
 * The refusal for a cycle: names every cycle's types and the cheapest projection that
 * removes them all, priced by really deriving each candidate and counting its tokens:
 * the recursion cuts (`recursionCuts`: the properties that lead back into a cycle), or
 * dropping one whole argument that holds every cycle.
 */
function refuseCycle(
  tool: Tool<object>,
  profile: Profile,
  cycles: readonly string[][],
  cyclesOf: (candidate: Tool<object>) => string[][],
  merged?: Tool<object>,
  aliases?: ReadonlyMap<string, readonly string[]>,
): SluiceError {
  const before = schemaTokens(tool);
  const candidates: Array<{ drop: string[]; tokens: number }> = [];
  const consider = (drop: string[]) => {
    if (drop.length === 0) return;
    try {
      const projected = tool.derived({ drop });
      if (cyclesOf(projected).length === 0) candidates.push({ drop, tokens: schemaTokens(projected) });
    } catch {
      // A required argument cannot be dropped; not a candidate.
    }
  };
  consider(recursionCuts(tool));
  // The cycles left once allOf is merged can have other cuts (A allOf [B, {child: A}], B allOf [A]:
  // the loop through allOf goes away, the one through A.child stays); their type selectors
  // name types of the original tool too.
  if (merged) consider(recursionCuts(merged));
  const properties = isSchemaObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties).sort() : [];
  for (const argument of properties) consider([argument]);
  // Cheapest = keeps the most of the tool (most tokens left); fewer selectors on a tie.
  candidates.sort((a, b) => b.tokens - a.tokens || a.drop.length - b.drop.length);
  const best = candidates[0];
  // A cycle through a merged allOf names a definition the tool does not have: say what it merges.
  const named = cycles.map((c) => `[${c.map((n) => (aliases?.has(n) ? `${n} (the merged allOf of ${aliases.get(n)!.join(" and ") || "inline parts"})` : n)).join(", ")}]`).join("; ");
  const projection = best
    ? ` Cheapest projection that removes ${cycles.length === 1 ? "it" : "them"}: derived({ drop: [${best.drop.slice(0, 12).map((s) => JSON.stringify(s)).join(", ")}${best.drop.length > 12 ? `, ... ${best.drop.length - 12} more` : ""}] }) keeps ${best.tokens} of ${before} tokens` +
      (candidates.length > 1 ? ` (next: drop [${candidates[1]!.drop.slice(0, 3).join(", ")}${candidates[1]!.drop.length > 3 ? ", ..." : ""}] keeps ${candidates[1]!.tokens}).` : ".")
    : " No projection removes it (every edge of the cycle is required).";
  return new SluiceError(
    "RECURSIVE_SCHEMA",
    `${tool.name} is recursive and ${profile.label} needs a bounded schema: ${cycles.length} cycle${cycles.length === 1 ? "" : "s"}: ${named}.${projection} Or pass unroll: N (--unroll N) to unroll the cycle N levels deep.`,
    { pointer: "/$defs/" + cycles[0]![0]!, candidates: best?.drop ?? [] },
  );
}

/** Keyword-level changes: unsupported keywords converted, folded or removed; strict-mode shape. */
function transformKeywords(tool: string, schema: JsonSchemaObject, profile: Profile, changes: FitChange[], sets?: PropertyPathSets): void {
  const limits = profile.limits;
  const supported = limits.supportedKeywords ? new Set(limits.supportedKeywords) : undefined;
  const unsupported = new Set([...(limits.unsupportedKeywords ?? []), ...(limits.strict?.unsupportedKeywords ?? [])]);
  const accepts = (key: string) => (supported ? supported.has(key) : !unsupported.has(key));
  const grouped = new Map<string, FitChange>();
  const group = (kind: FitChange["kind"], action: FitAction, message: string, pointer: string): FitChange => {
    const key = `${action}\u0000${message}`;
    let change = grouped.get(key);
    if (change === undefined) {
      change = { tool, kind, action, message, pointers: [], ...(sets ? { audit: { places: 0, lost: [], gained: [] } } : {}) };
      grouped.set(key, change);
    }
    if (change.pointers.length < MAX_POINTERS) change.pointers.push(pointer);
    else change.places = (change.places ?? MAX_POINTERS) + 1;
    return change;
  };
  // Set per node below: each recorded change is audited against the node's state before it.
  let audit: NodeAudit | undefined;
  const record = (kind: FitChange["kind"], action: FitAction, message: string, pointer: string) => {
    const change = group(kind, action, message, pointer);
    if (audit) audit.after(change, pointer);
  };
  const fold = (node: JsonSchemaObject, text: string) => {
    if (text === "" || !accepts("description")) return;
    node.description = typeof node.description === "string" && node.description !== "" ? `${node.description} ${text}` : text;
  };

  walkBodies(schema, ({ node, pointer }) => {
    audit = sets ? new NodeAudit(sets, schema, node) : undefined;
    for (const key of Object.keys(node)) {
      if (REF_KEYWORDS.has(key) || key === "description" || accepts(key)) continue;
      const value = node[key];
      const at = `${pointer}/${key}`;
      delete node[key];
      if (META_KEYWORDS.has(key)) record("lossless", "remove-annotation", `Removed ${key} (not read by the model or the provider).`, at);
      else if (key === "const" && accepts("enum")) {
        node.enum = [value as never];
        record("lossless", "convert-keyword", "const written as a one-value enum.", at);
      } else if (hasOwn(FOLDABLE, key) && accepts("description")) {
        fold(node, FOLDABLE[key]!(value));
        record("lossless", "fold-into-description", `${key} moved into the description text.`, at);
      } else if (key === "oneOf" && accepts("anyOf") && !hasOwn(node, "anyOf")) {
        node.anyOf = value as never;
        if (Array.isArray(value) && disjointBranches(value, schema)) record("lossless", "convert-keyword", "oneOf written as anyOf (no value can match two of its branches, so exclusivity holds as it is).", at);
        else record("lossy", "convert-keyword", "oneOf written as anyOf (exclusivity is no longer enforced).", at);
      } else {
        if (value === null || typeof value !== "object") fold(node, `(${key}: ${canonicalJson(value)})`);
        record("lossy", "remove-keyword", `Removed ${key}: ${profile.label} does not accept it, so the provider no longer enforces it.`, at);
      }
    }
    if (!limits.typeArrays && Array.isArray(node.type)) {
      const types = node.type as string[];
      const others = types.filter((t) => t !== "null");
      const nullable = others.length < types.length;
      if (others.length === 1 && (!nullable || limits.nullableKeyword)) {
        node.type = others[0]!;
        if (nullable) node.nullable = true;
        record("lossless", "convert-keyword", nullable ? "Type array with null written as one type plus nullable: true." : "One-element type array written as a type.", `${pointer}/type`);
      } else if (accepts("anyOf") && !hasOwn(node, "anyOf")) {
        delete node.type;
        node.anyOf = others.map((t) => ({ type: t }));
        if (nullable) {
          if (limits.nullableKeyword) node.nullable = true;
          else (node.anyOf as JsonSchemaObject[]).push({ type: "null" });
        }
        record("lossless", "convert-keyword", "Type array written as anyOf of single types.", `${pointer}/type`);
      } else {
        node.type = others[0] ?? "string";
        record("lossy", "convert-keyword", `Type array narrowed to its first type.`, `${pointer}/type`);
      }
    }
    if (limits.arrayNeedsItems && node.type === "array" && !isSchemaObject(node.items)) {
      node.items = { type: "string" };
      record("lossy", "add-items", 'Array without items given items of type "string" (the provider needs an item type).', pointer);
    }
    const strict = limits.strict;
    if (strict && isObjectNode(node)) {
      if (strict.additionalPropertiesFalse && node.additionalProperties !== false) {
        node.additionalProperties = false;
        record("lossy", "close-object", "additionalProperties set to false (strict mode); keys not listed in properties can no longer be sent.", pointer);
      }
      if (node.additionalProperties === false && isSchemaObject(node.properties)) {
        // `"key": false` (a projection forbidding a key in an open branch) says nothing a
        // closed object does not; in strict mode it would become a required property no
        // value can satisfy.
        const properties = node.properties;
        const forbidden = Object.keys(properties).filter((name) => properties[name] === false);
        for (const name of forbidden) delete properties[name];
        if (Array.isArray(node.required)) node.required = (node.required as string[]).filter((name) => !forbidden.includes(name));
        if (forbidden.length > 0) record("lossless", "remove-keyword", "Properties that must be absent dropped from a closed object (strict mode).", `${pointer}/properties`);
      }
      if (strict.allPropertiesRequired && isSchemaObject(node.properties)) {
        const properties = node.properties;
        const required = Array.isArray(node.required) ? [...(node.required as string[])] : [];
        const optional = Object.keys(properties).filter((name) => !required.includes(name));
        for (const name of optional) {
          const child = properties[name];
          if (isSchemaObject(child)) properties[name] = nullableOf(child);
          required.push(name);
        }
        if (optional.length > 0) {
          node.required = required;
          record("lossy", "require-as-nullable", "Optional properties made required and nullable (strict mode): the model sends null for what it would omit; strip nulls before calling.", pointer);
        }
      }
    }
  });
  for (const change of [...grouped.values()].sort((a, b) => (a.action + a.message < b.action + b.message ? -1 : 1))) {
    change.pointers.sort();
    changes.push(change);
  }
}

/**
 * The audit of keyword changes at one node: each change is compared with the node as it
 * was just before it. Only the node's path keywords (properties, arrays, unions, $ref)
 * feed its path set, so a change that leaves them as they were keeps the set; otherwise
 * both sets are measured (the node's children are not touched while the node is
 * processed, so the earlier state is a shallow copy), to the audit depth for a change
 * labelled lossless.
 */
class NodeAudit {
  #previous: JsonSchemaObject;
  constructor(
    private readonly sets: PropertyPathSets,
    private readonly root: JsonSchemaObject,
    private readonly node: JsonSchemaObject,
  ) {
    this.#previous = pathState(node);
  }

  after(change: FitChange, pointer: string): FitChange {
    const now = pathState(this.node);
    const audit = change.audit!;
    audit.places++;
    if (!samePathState(this.#previous, now)) {
      // A lossy change may lose paths; it is measured one level deep, enough to say where
      // (the full depth, per node of a large recursive schema, costs seconds).
      const depth = change.kind === "lossless" ? AUDIT_DEPTH : 1;
      const before = this.sets.of(this.root, this.#previous, depth);
      const after = this.sets.of(this.root, this.node, depth);
      const at = (path: string) => `${pointer || "/"}: ${path}`;
      // A grouped change spans many nodes: its audit keeps the first examples.
      audit.lost.push(...this.sets.missing(before, after, AUDIT_EXAMPLES - audit.lost.length).map(at));
      audit.gained.push(...this.sets.missing(after, before, AUDIT_EXAMPLES - audit.gained.length).map(at));
    }
    this.#previous = now;
    return change;
  }
}

/** A shallow copy of the keywords a node's property paths are read from. */
function pathState(node: JsonSchemaObject): JsonSchemaObject {
  const state: JsonSchemaObject = {};
  for (const keyword of PATH_KEYWORDS) {
    if (!hasOwn(node, keyword)) continue;
    const value = node[keyword];
    state[keyword] = Array.isArray(value) ? [...value] : isSchemaObject(value) && keyword === "properties" ? { ...value } : value;
  }
  return state;
}

function samePathState(a: JsonSchemaObject, b: JsonSchemaObject): boolean {
  for (const keyword of PATH_KEYWORDS) {
    if (hasOwn(a, keyword) !== hasOwn(b, keyword)) return false;
    const x = a[keyword];
    const y = b[keyword];
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length || x.some((item, i) => item !== y[i])) return false;
    } else if (keyword === "properties" && isSchemaObject(x) && isSchemaObject(y)) {
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i] || x[k] !== y[k])) return false;
    } else if (x !== y) return false;
  }
  return true;
}

/**
 * Whether no value can match two of these branches, proved from what each branch pins down:
 * its JSON types (integer counted inside number), or, for object branches, a member every
 * branch requires whose const/enum values differ between branches (a discriminator). Local
 * refs are followed; anything not provable this way counts as overlapping.
 */
function disjointBranches(branches: readonly unknown[], root: JsonSchemaObject): boolean {
  const resolved = branches.map((branch) => followRef(branch, root));
  if (resolved.some((branch) => branch === undefined)) return false;
  const schemas = resolved as JsonSchemaObject[];
  const types = schemas.map(typesOf);
  const pairs = (test: (a: number, b: number) => boolean) => schemas.every((_, a) => schemas.every((__, b) => a >= b || test(a, b)));
  if (types.every((t) => t !== undefined) && pairs((a, b) => !overlaps(types[a]!, types[b]!))) return true;
  // Objects told apart by a discriminating member.
  if (!schemas.every((s, i) => types[i] !== undefined && types[i]!.size === 1 && types[i]!.has("object") && isSchemaObject(s.properties))) return false;
  const candidates = Object.keys(schemas[0]!.properties as object).filter((name) => schemas.every((s) => Array.isArray(s.required) && (s.required as unknown[]).includes(name)));
  return candidates.some((name) => {
    const values = schemas.map((s) => constantsOf(followRef((s.properties as JsonSchemaObject)[name], root)));
    if (values.some((v) => v === undefined)) return false;
    return pairs((a, b) => values[a]!.every((x) => !values[b]!.includes(x)));
  });
}

/** The schema a branch stands for, through local `#/$defs/` refs (a sibling keyword beside a ref makes it unknown). */
function followRef(branch: unknown, root: JsonSchemaObject): JsonSchemaObject | undefined {
  let node = branch;
  for (let hops = 0; hops < 32; hops++) {
    if (!isSchemaObject(node)) return undefined;
    if (!hasOwn(node, "$ref")) return node;
    const ref = node.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/$defs/") || Object.keys(node).some((k) => k !== "$ref" && k !== "description")) return undefined;
    const defs = root.$defs;
    const name = ref.slice("#/$defs/".length);
    node = isSchemaObject(defs) && hasOwn(defs, name) ? defs[name] : undefined;
  }
  return undefined;
}

/** The JSON types a schema admits, when it says (type, or const/enum values); undefined when it does not. */
function typesOf(schema: JsonSchemaObject): Set<string> | undefined {
  if (typeof schema.type === "string") return new Set([schema.type]);
  if (Array.isArray(schema.type) && schema.type.every((t) => typeof t === "string")) return new Set(schema.type as string[]);
  const values = constantsOf(schema);
  if (values === undefined) return undefined;
  return new Set(values.map((v) => JSON.parse(v) as unknown).map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v)));
}

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const type of a) {
    if (b.has(type)) return true;
    if ((type === "integer" && b.has("number")) || (type === "number" && b.has("integer"))) return true;
  }
  return false;
}

/** A schema's allowed values as canonical JSON texts, when it lists them (const or enum). */
function constantsOf(schema: JsonSchemaObject | undefined): string[] | undefined {
  if (schema === undefined) return undefined;
  if (hasOwn(schema, "const")) return [canonicalJson(schema.const)];
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => canonicalJson(v));
  return undefined;
}

function nullableOf(schema: JsonSchemaObject): JsonSchemaObject {
  if (typeof schema.type === "string" && !hasOwn(schema, "$ref")) return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.type)) return schema.type.includes("null") ? schema : { ...schema, type: [...(schema.type as string[]), "null"] };
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}
