import { hasOwn, isSchemaObject, isSluiceError, resolvedDepth, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import type { Tool } from "@sluice/core";
import type { Profile } from "./profile.ts";
import { isObjectNode, objectNesting, reachableCycles, walkBodies } from "./schema-bodies.ts";
import { requireProfile } from "./provider-profiles.ts";

export type FindingCode =
  | "INVALID_NAME"
  | "NAME_TOO_LONG"
  | "TOO_MANY_TOOLS"
  | "DESCRIPTION_TOO_LONG"
  | "ROOT_NOT_OBJECT"
  | "ROOT_UNION"
  | "UNSUPPORTED_KEYWORD"
  | "MISSING_ITEMS"
  | "REF_UNSUPPORTED"
  | "RECURSIVE_SCHEMA"
  | "DEPTH_EXCEEDED"
  | "STRICT_VIOLATION"
  | "TOO_MANY_PROPERTIES"
  | "TOO_MANY_ENUM_VALUES";

export interface Finding {
  code: FindingCode;
  /** Tool name, or "" for a finding about the whole array. */
  tool: string;
  /** JSON pointer into the tool's inputSchema; "" for the tool itself. */
  pointer: string;
  message: string;
  limit?: number;
  actual?: number;
}

export interface CheckOptions {
  /**
   * The MCP server name a client prefixes (cursor, claude-code). Default "sluice": pass the
   * name your users configure, since every character of it counts.
   */
  server?: string;
}

export const DEFAULT_SERVER_NAME = "sluice";

const UNION_ROOT = ["anyOf", "oneOf", "allOf"];
const REF_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "$defs", "definitions"]);

/**
 * What a provider would reject (or a client would silently filter out) in this tool
 * array, as coded findings. Deterministic: tools in input order, then by pointer and
 * code. A cyclic schema is read once per definition, never unrolled.
 */
export function check(tools: readonly Tool<object>[], profile: Profile, options: CheckOptions = {}): Finding[] {
  requireProfile(profile, "check");
  const limits = profile.limits;
  const server = options.server ?? DEFAULT_SERVER_NAME;
  const findings: Finding[] = [];
  if (limits.maxTools !== undefined && tools.length > limits.maxTools) {
    findings.push({
      code: "TOO_MANY_TOOLS",
      tool: "",
      pointer: "",
      message: `${tools.length} tools; ${profile.label} accepts at most ${limits.maxTools}.`,
      limit: limits.maxTools,
      actual: tools.length,
    });
  }
  for (const tool of tools) {
    const own: Finding[] = [];
    checkName(tool.name, profile, server, own);
    if (limits.descriptionMaxLength !== undefined && tool.description.length > limits.descriptionMaxLength) {
      own.push({
        code: "DESCRIPTION_TOO_LONG",
        tool: tool.name,
        pointer: "",
        message: `Description is ${tool.description.length} characters; ${profile.label} accepts at most ${limits.descriptionMaxLength}.`,
        limit: limits.descriptionMaxLength,
        actual: tool.description.length,
      });
    }
    withinLimits(`check() of ${tool.name}`, () => checkSchema(tool.name, tool.inputSchema, profile, own));
    findings.push(...own.sort(byPointerThenCode));
  }
  return findings;
}

function byPointerThenCode(a: Finding, b: Finding): number {
  return a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

/** The name the model sees under this profile (clients prefix the server name). */
export function qualifiedName(name: string, profile: Profile, server: string = DEFAULT_SERVER_NAME): string {
  return profile.limits.qualifiedName ? profile.limits.qualifiedName(server, name) : name;
}

function checkName(name: string, profile: Profile, server: string, out: Finding[]): void {
  const limits = profile.limits;
  if (!limits.nameCharacters.test(name)) {
    out.push({ code: "INVALID_NAME", tool: name, pointer: "", message: `Name "${name}" does not match ${String(limits.nameCharacters)} (${profile.label}).` });
  }
  const seen = qualifiedName(name, profile, server);
  if (seen.length > limits.nameMaxLength) {
    out.push({
      code: "NAME_TOO_LONG",
      tool: name,
      pointer: "",
      message:
        seen === name
          ? `Name is ${name.length} characters; ${profile.label} accepts at most ${limits.nameMaxLength}.`
          : `The model sees "${seen}" (${seen.length} characters with server "${server}"); ${profile.label} accepts at most ${limits.nameMaxLength}.`,
      limit: limits.nameMaxLength,
      actual: seen.length,
    });
  }
}

/**
 * Findings of one code kept per tool; the rest are counted in one summary finding. A
 * hostile schema nested thousands of levels deep would otherwise produce thousands of
 * findings whose pointers alone grow quadratically.
 */
export const MAX_FINDINGS_PER_CODE = 50;

function checkSchema(tool: string, schema: JsonSchemaObject, profile: Profile, out: Finding[]): void {
  const limits = profile.limits;
  const perCode = new Map<FindingCode, number>();
  const finding = (code: FindingCode, pointer: string, message: string, extra: { limit?: number; actual?: number } = {}) => {
    const count = (perCode.get(code) ?? 0) + 1;
    perCode.set(code, count);
    if (count <= MAX_FINDINGS_PER_CODE) out.push({ code, tool, pointer, message, ...extra });
  };
  try {
    checkSchemaNodes(schema, profile, finding);
  } finally {
    for (const [code, count] of perCode) {
      if (count > MAX_FINDINGS_PER_CODE) {
        out.push({ code, tool, pointer: "", message: `… and ${count - MAX_FINDINGS_PER_CODE} more ${code} findings in this tool (only the first ${MAX_FINDINGS_PER_CODE} are listed).` });
      }
    }
  }
}

type Report = (code: FindingCode, pointer: string, message: string, extra?: { limit?: number; actual?: number }) => void;

function checkSchemaNodes(schema: JsonSchemaObject, profile: Profile, finding: Report): void {
  const limits = profile.limits;

  if (limits.rootMustBeObject && schema.type !== "object") {
    finding("ROOT_NOT_OBJECT", "", `The input schema's root has type ${JSON.stringify(schema.type ?? null)}; ${profile.label} needs type "object".`);
  }
  if (limits.rootUnionForbidden) {
    for (const keyword of UNION_ROOT) if (hasOwn(schema, keyword)) finding("ROOT_UNION", "/" + keyword, `${keyword} at the root of the input schema is not accepted by ${profile.label}.`);
  }

  const supported = limits.supportedKeywords ? new Set(limits.supportedKeywords) : undefined;
  const unsupported = new Set(limits.unsupportedKeywords ?? []);
  const strict = limits.strict;
  const strictUnsupported = new Set(strict?.unsupportedKeywords ?? []);
  let properties = 0;
  let enumValues = 0;
  let stringLength = 0;

  walkBodies(schema, ({ node, pointer }) => {
    for (const key of Object.keys(node)) {
      if (REF_KEYWORDS.has(key)) {
        if (!limits.refs) finding("REF_UNSUPPORTED", `${pointer}/${key}`, `${profile.label} does not resolve ${key}; the referenced schema must be inlined.`);
        continue;
      }
      // Property names are data inside `properties`, not keywords; only the node's own keys count.
      const rejected = supported ? !supported.has(key) : unsupported.has(key);
      if (rejected) finding("UNSUPPORTED_KEYWORD", `${pointer}/${key}`, `${profile.label} does not accept the keyword "${key}".`);
      else if (strictUnsupported.has(key)) finding("STRICT_VIOLATION", `${pointer}/${key}`, `Strict mode of ${profile.label} does not accept "${key}".`);
    }
    if (!limits.typeArrays && Array.isArray(node.type)) {
      finding("UNSUPPORTED_KEYWORD", `${pointer}/type`, `A type array (${JSON.stringify(node.type)}) is not accepted by ${profile.label}; one type per schema.`);
    }
    if (limits.arrayNeedsItems && (node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"))) && !isSchemaObject(node.items)) {
      finding("MISSING_ITEMS", pointer, `An array schema without "items" is not accepted by ${profile.label}.`);
    }
    if (isSchemaObject(node.properties)) {
      const names = Object.keys(node.properties);
      properties += names.length;
      stringLength += names.reduce((sum, name) => sum + name.length, 0);
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      stringLength += node.enum.reduce((sum: number, value) => sum + (typeof value === "string" ? value.length : 0), 0);
    }
    if (typeof node.const === "string") stringLength += node.const.length;
    if (strict && isObjectNode(node)) {
      if (strict.additionalPropertiesFalse && node.additionalProperties !== false) {
        finding("STRICT_VIOLATION", pointer, `Strict mode of ${profile.label} needs "additionalProperties": false on every object.`);
      }
      if (strict.allPropertiesRequired && isSchemaObject(node.properties)) {
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        const optional = Object.keys(node.properties).filter((name) => !required.has(name));
        if (optional.length > 0) {
          finding("STRICT_VIOLATION", pointer + (hasOwn(node, "required") ? "/required" : "/properties"), `Strict mode of ${profile.label} needs every property required (optional ones as nullable); optional here: ${optional.slice(0, 5).join(", ")}${optional.length > 5 ? ", ..." : ""}.`);
        }
      }
    }
  });

  let cycles: string[][] = [];
  try {
    cycles = reachableCycles(schema);
  } catch (error) {
    // A dangling or external ref: not a provider rule, but the tool cannot be sent as is.
    if (isSluiceError(error)) {
      finding("REF_UNSUPPORTED", error.pointer ?? "", error.message);
      return;
    }
    throw error;
  }
  if (!limits.recursion) {
    for (const cycle of cycles) {
      finding(
        "RECURSIVE_SCHEMA",
        "/$defs/" + cycle[0]!,
        `${profile.label} does not accept recursive schemas; ` +
          (cycle.length === 1 ? `${cycle[0]} refers to itself.` : `${cycle.length} types refer to each other: ${cycle.slice(0, 8).join(", ")}${cycle.length > 8 ? ", ..." : ""}.`),
      );
    }
  }
  if (limits.maxResolvedDepth !== undefined) {
    const depth = cycles.length > 0 ? Infinity : resolvedDepth(schema);
    if (depth > limits.maxResolvedDepth) {
      finding(
        "DEPTH_EXCEEDED",
        "",
        depth === Infinity
          ? `Resolved depth is unbounded (a cycle through ${cycles[0]![0]}); ${profile.label} allows ${limits.maxResolvedDepth}.`
          : `Resolved depth is ${depth}; ${profile.label} allows ${limits.maxResolvedDepth}.`,
        { limit: limits.maxResolvedDepth, actual: depth },
      );
    }
  }
  if (strict) {
    if (strict.maxNesting !== undefined) {
      const nesting = objectNesting(schema);
      if (nesting > strict.maxNesting) {
        finding("DEPTH_EXCEEDED", "", `Objects nest ${nesting === Infinity ? "without bound (a cycle)" : nesting + " levels deep"}; strict mode of ${profile.label} allows ${strict.maxNesting}.`, {
          limit: strict.maxNesting,
          actual: nesting,
        });
      }
    }
    if (strict.maxProperties !== undefined && properties > strict.maxProperties) {
      finding("TOO_MANY_PROPERTIES", "", `${properties} object properties in the schema; strict mode of ${profile.label} allows ${strict.maxProperties}.`, { limit: strict.maxProperties, actual: properties });
    }
    if (strict.maxEnumValues !== undefined && enumValues > strict.maxEnumValues) {
      finding("TOO_MANY_ENUM_VALUES", "", `${enumValues} enum values in the schema; strict mode of ${profile.label} allows ${strict.maxEnumValues}.`, { limit: strict.maxEnumValues, actual: enumValues });
    }
    if (strict.maxTotalStringLength !== undefined) {
      const total = stringLength + Object.keys((schema.$defs as object | undefined) ?? {}).reduce((sum, name) => sum + name.length, 0);
      if (total > strict.maxTotalStringLength) {
        finding("STRICT_VIOLATION", "", `Property names, definition names and enum values total ${total} characters; strict mode of ${profile.label} allows ${strict.maxTotalStringLength}.`, {
          limit: strict.maxTotalStringLength,
          actual: total,
        });
      }
    }
  }
}
