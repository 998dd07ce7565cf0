import { createHash } from "node:crypto";
import { canonicalJson, cloneJson, collectGarbage, hasOwn, isSchemaObject, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import { recursionCuts, Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { check, DEFAULT_SERVER_NAME, qualifiedName, type CheckOptions, type Finding } from "./check.ts";
import { inlineRefs } from "./inline-refs.ts";
import type { Profile } from "./profile.ts";
import { isObjectNode, reachableCycles, walkBodies } from "./schema-bodies.ts";
import { unrollCycles } from "./unroll-cycles.ts";

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
}

export type FitAction =
  | "rename"
  | "remove-annotation"
  | "fold-into-description"
  | "convert-keyword"
  | "remove-keyword"
  | "add-items"
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
  /** Where in the original tool's input schema ("" for the tool itself); sorted. */
  pointers: string[];
  /** Schema tokens (o200k_base) before and after, for changes whose cost is measured. */
  tokens?: { before: number; after: number };
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
      own.push({ tool: tool.name, kind: "lossless", action: "rename", message: `Renamed to ${name} (reverse map in nameMap).`, pointers: [""] });
    }
    const schema = fitSchema(tool, profile, { ...options, inlineBudget: budget }, own);
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
      });
    }
    changes.push(...own);
    fitted.push(buildTool(tool, name, schema, description));
    nameMap[name] = tool.name;
  });
  const lossy = changes.filter((c) => c.kind === "lossy" && c.action !== "unroll-cycle");
  if (lossy.length > 0 && !options.allowLossy) {
    const lines = lossy.slice(0, 20).map((c) => `  ${c.tool}: ${c.action} (${c.pointers.length} place${c.pointers.length === 1 ? "" : "s"}): ${c.message}`);
    throw new SluiceError(
      "LOSSY_FIT_REFUSED",
      `Fitting to ${profile.label} needs ${lossy.length} lossy change${lossy.length === 1 ? "" : "s"}; pass allowLossy (--allow-lossy) to accept them, or project the tools first:\n${lines.join("\n")}${lossy.length > 20 ? `\n  ... and ${lossy.length - 20} more` : ""}`,
    );
  }
  return { tools: fitted, changes, nameMap, remaining: check(fitted, profile, options) };
}

function buildTool(tool: Tool<object>, name: string, schema: JsonSchemaObject | undefined, description: string = tool.description): Tool<object> {
  if (schema === undefined) return name === tool.name && description === tool.description ? tool : tool.derived({ name, description });
  return Tool.create({
    name,
    description,
    inputSchema: schema,
    binding: tool.binding,
    annotations: tool.annotations,
    withheld: tool.withheld,
    ...(tool.responseHandler ? { responseHandler: tool.responseHandler } : {}),
  });
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
  const cycles = reachableCycles(original);
  const mustBeAcyclic = cycles.length > 0 && (!limits.recursion || !limits.refs || limits.maxResolvedDepth !== undefined);
  if (mustBeAcyclic && options.unroll === undefined) throw refuseCycle(tool, profile, cycles);

  let depth = options.unroll ?? 0;
  for (;;) {
    const attempt: FitChange[] = [];
    let schema = cloneJson(original);
    if (mustBeAcyclic) {
      schema = collectGarbage(unrollCycles(schema, cycles, depth));
      attempt.push({
        tool: tool.name,
        kind: "lossy",
        action: "unroll-cycle",
        message: `Unrolled ${cycles.length} cycle${cycles.length === 1 ? "" : "s"} (${cycles.map((c) => describeCycle(c)).join("; ")}) to depth ${depth}; deeper recursive properties removed.`,
        pointers: cycles.map((c) => "/$defs/" + c[0]!),
      });
    }
    transformKeywords(tool.name, schema, profile, attempt);
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
      schema = inlined.schema;
      attempt.push({
        tool: tool.name,
        kind: "lossless",
        action: "inline-refs",
        message: `Inlined every $ref (${originalBytes} -> ${inlined.bytes} bytes, budget ${options.inlineBudget}x).`,
        pointers: ["/$defs"],
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

function describeCycle(cycle: readonly string[]): string {
  return cycle.length <= 4 ? cycle.join(" -> ") : `${cycle.length} types: ${cycle.slice(0, 4).join(", ")}, ...`;
}

/**
 * The refusal for a cycle: names every cycle's types and the cheapest projection that
 * removes them all, priced by really deriving each candidate and counting its tokens:
 * the recursion cuts (`recursionCuts`: the properties that lead back into a cycle), or
 * dropping one whole argument that holds every cycle.
 */
function refuseCycle(tool: Tool<object>, profile: Profile, cycles: readonly string[][]): SluiceError {
  const before = schemaTokens(tool);
  const candidates: Array<{ drop: string[]; tokens: number }> = [];
  const consider = (drop: string[]) => {
    if (drop.length === 0) return;
    try {
      const projected = tool.derived({ drop });
      if (reachableCycles(projected.inputSchema).length === 0) candidates.push({ drop, tokens: schemaTokens(projected) });
    } catch {
      // A required argument cannot be dropped; not a candidate.
    }
  };
  consider(recursionCuts(tool));
  const properties = isSchemaObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties).sort() : [];
  for (const argument of properties) consider([argument]);
  // Cheapest = keeps the most of the tool (most tokens left); fewer selectors on a tie.
  candidates.sort((a, b) => b.tokens - a.tokens || a.drop.length - b.drop.length);
  const best = candidates[0];
  const named = cycles.map((c) => `[${c.join(", ")}]`).join("; ");
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
function transformKeywords(tool: string, schema: JsonSchemaObject, profile: Profile, changes: FitChange[]): void {
  const limits = profile.limits;
  const supported = limits.supportedKeywords ? new Set(limits.supportedKeywords) : undefined;
  const unsupported = new Set([...(limits.unsupportedKeywords ?? []), ...(limits.strict?.unsupportedKeywords ?? [])]);
  const accepts = (key: string) => (supported ? supported.has(key) : !unsupported.has(key));
  const grouped = new Map<string, FitChange>();
  const record = (kind: FitChange["kind"], action: FitAction, message: string, pointer: string) => {
    const key = `${action}\u0000${message}`;
    let change = grouped.get(key);
    if (change === undefined) {
      change = { tool, kind, action, message, pointers: [] };
      grouped.set(key, change);
    }
    change.pointers.push(pointer);
  };
  const fold = (node: JsonSchemaObject, text: string) => {
    if (text === "" || !accepts("description")) return;
    node.description = typeof node.description === "string" && node.description !== "" ? `${node.description} ${text}` : text;
  };

  walkBodies(schema, ({ node, pointer }) => {
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
        record("lossy", "convert-keyword", "oneOf written as anyOf (exclusivity is no longer enforced).", at);
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

function nullableOf(schema: JsonSchemaObject): JsonSchemaObject {
  if (typeof schema.type === "string" && !hasOwn(schema, "$ref")) return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.type)) return schema.type.includes("null") ? schema : { ...schema, type: [...(schema.type as string[]), "null"] };
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}
