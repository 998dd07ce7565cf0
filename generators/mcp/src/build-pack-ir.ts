/**
 * An MCP snapshot -> the tool IR, straight: each tool's `inputSchema` (JSON Schema: often
 * draft-07 from zod-to-json-schema, sometimes 2020-12) is converted into sluice's 2020-12
 * form by @sluice/schema-convert, the converter OpenAPI 3.1 schemas go through, in one JSON
 * Schema bundle of every chosen tool's schema (input-bundle.ts), so every rule it keeps
 * (draft-4/7 keywords, patterns the linear engine cannot run refused, unsupported keywords
 * refused, `$ref`s named once) holds here too; each top-level property is one argument. A
 * tool the converter refuses is skipped with its code and a pointer into the snapshot; the
 * other tools are generated.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool
 */
import { getOwn, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { type McpBinding, type PackIR, type PatternRefusal, type SkippedOperation, type ToolAnnotations, type ToolIR, type WithheldPath } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { compareText, fitToolName, shortHash } from "@sluice/emit";
import { flatteningLoses, reachableDefs, RefResolver, refuseUnsupported, SchemaConverter, unsupportedInDefs, withheldMember, type Located } from "@sluice/schema-convert";
import type { McpSnapshot, McpSnapshotTool } from "@sluice/mcp-client";
import { inputBundle, snapshotPointers, type InputBundle, type PlacedTool } from "./input-bundle.ts";

export interface BuildMcpOptions {
  /** Which tools become tools of the pack (default: all), asked with the pack's tool name and the upstream's. */
  select?: (tool: { tool: string; upstream: string }) => boolean;
}

export interface McpPackSourceInfo {
  name: string;
  /** The snapshot's file name in `spec/`. */
  file: string;
  sha256: string;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Wire names for the upstream tools: a name that is already valid is kept; another (MCP
 * allows `.` and `/`, and any length) has every other character replaced by `_` and is cut
 * to 64, with `_2`, `_3`... on a clash. The binding keeps the upstream name.
 */
export function mcpToolNames(tools: readonly McpSnapshotTool[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(tools.map((tool) => tool.name).filter((name) => NAME.test(name)));
  for (const tool of tools) {
    if (NAME.test(tool.name)) {
      out.set(tool.name, tool.name);
      continue;
    }
    const base = (tool.name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool").slice(0, 64);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    taken.add(name);
    out.set(tool.name, name);
  }
  return out;
}

export function buildMcpPackIR(snapshot: McpSnapshot, source: McpPackSourceInfo, options: BuildMcpOptions = {}): PackIR {
  const names = mcpToolNames(snapshot.tools);
  const chosen = snapshot.tools
    .map((tool, index) => ({ tool, index, name: names.get(tool.name)! }))
    .filter(({ tool, name }) => options.select === undefined || options.select({ tool: name, upstream: tool.name }));
  const bundle = inputBundle(chosen);
  try {
    return withinLimits(`generating pack ${source.name} from ${source.file}`, () => buildFromBundle(chosen, bundle, source));
  } catch (error) {
    // Only when no tool at all could be converted: the first tool's error, its definitions' pointers mapped back into the snapshot.
    if (error instanceof SluiceError) throw new SluiceError(error.code, snapshotPointers(error.message, bundle.pointers), { ...(error.pointer === undefined ? {} : { pointer: snapshotPointers(error.pointer, bundle.pointers) }) });
    throw error;
  }
}

/** Codes that cost one tool and say nothing of the others: a build where every tool failed with one of these is not a failed build. */
const ONE_TOOL_CODES = new Set(["EXTERNAL_REF", "KEYWORD_UNSUPPORTED"]);

function buildFromBundle(chosen: readonly PlacedTool[], bundle: InputBundle, source: McpPackSourceInfo): PackIR {
  // Every schema is JSON Schema: converted as OpenAPI 3.1's (2020-12) are, draft-07 keywords normalised on the way.
  const resolver = new RefResolver(bundle.root);
  const requestBodies = chosen.map(({ index }) => ({ schema: inputSchemaAt(resolver, index), examples: [] }));
  const converter = new SchemaConverter(resolver, "3.1", { namedSchemas: "$defs", requestBodies });
  const unsupported = unsupportedInDefs();
  const tools: ToolIR[] = [];
  const skipped: SkippedOperation[] = [];
  // Every tool whose schema converted, flat or not: their definitions are the pack's.
  const converted: Pick<ToolIR, "parameters">[] = [];
  let failure: unknown;
  for (const entry of chosen) {
    const operation = `tools/call ${entry.tool.name}`;
    converter.operation = operation;
    const at = inputSchemaAt(resolver, entry.index);
    try {
      const flat = flatArguments(at, resolver, converter);
      if (guards.unsupportedKeywords && converter.wroteUnevaluatedItems) refuseUnsupported(flat, operation, converter.defs, unsupported);
      converted.push(flat);
      if (flat.refused !== undefined) {
        skipped.push({ operation, code: "INPUT_SCHEMA_UNSUPPORTED", reason: `INPUT_SCHEMA_UNSUPPORTED: the input schema is not an object of named arguments (${flat.refused})`, pointer: at.pointer });
        continue;
      }
      tools.push(toolOf(entry.tool, entry.name, flat.parameters, flat.withheld));
    } catch (error) {
      // One tool the converter refuses (a dangling $ref, a keyword sluice cannot check exactly) costs that tool, not the pack.
      if (!(error instanceof SluiceError) || error.code === "INTERNAL_LIMIT") throw error;
      skipped.push({ operation, code: error.code, reason: snapshotPointers(`${error.code}: ${error.message}`, bundle.pointers), pointer: snapshotPointers(error.pointer ?? at.pointer, bundle.pointers) });
      if (!ONE_TOOL_CODES.has(error.code)) failure ??= error;
    }
  }
  if (converted.length === 0 && failure !== undefined) throw failure;
  tools.sort((a, b) => compareText(a.name, b.name));
  const reached = reachableDefs(converted, converter.defs);
  const ir: PackIR = {
    name: source.name,
    source: { kind: "mcp", file: source.file, sha256: source.sha256 },
    defs: Object.fromEntries([...reached].sort(compareText).map((name) => [name, converter.defs.get(name)!])),
    tools,
    skipped,
  };
  const withheldMembers = [...converter.withheldMembers].filter(([name]) => reached.has(name)).sort(([a], [b]) => compareText(a, b));
  if (withheldMembers.length > 0) ir.withheldMembers = Object.fromEntries(withheldMembers);
  if (converter.refusedPatterns.length > 0) ir.refusedPatterns = converter.refusedPatterns.map((refused): PatternRefusal => ({ ...refused, pointer: snapshotPointers(refused.pointer, bundle.pointers) }));
  return ir;
}

/** Where a tool's input schema sits in the bundle: where it sits in the snapshot. */
function inputSchemaAt(resolver: RefResolver, index: number): Located {
  return { value: (resolver.main.root as InputBundle["root"]).tools[String(index)]!.inputSchema, document: resolver.main, pointer: `/tools/${index}/inputSchema` };
}

/**
 * A tool's arguments: its input schema's members, converted (`parameters` is also what
 * the definitions are reached from), and, when the schema is not an object of named
 * arguments, why (`refused`: its whole schema is then the one pseudo-argument `body`).
 */
interface FlatArguments {
  parameters: ToolIR["parameters"];
  withheld: WithheldPath[];
  refused?: string;
}

/**
 * An input schema as flat arguments: one per top-level property, each argument named as the
 * property (the binding forwards it under that name), required as the schema says. An
 * object schema that says more than its members (a root `oneOf`, `additionalProperties`
 * other than false, a keyword beside a root `$ref`...; `flatteningLoses`) cannot be split
 * without losing it: it is converted whole (so what the converter refuses in it is still
 * reported first) and then refused, but for a bare `{ type: "object" }`, a tool that takes
 * no arguments. Members the read-only rule withholds are withheld under their argument name.
 */
function flatArguments(at: Located, resolver: RefResolver, converter: SchemaConverter): FlatArguments {
  const input = at.value as Record<string, unknown>;
  const located = resolver.deref(input, at.document, at.pointer);
  const shape = located.value;
  const members = getOwn(shape, "properties");
  const type = getOwn(shape, "type");
  const splittable =
    typeof members === "object" && members !== null && !Array.isArray(members) &&
    (type === undefined || type === "object") &&
    getOwn(shape, "allOf") === undefined && getOwn(shape, "anyOf") === undefined && getOwn(shape, "oneOf") === undefined &&
    !converter.isPolymorphic(input, at.document) && flatteningLoses(at, resolver, "3.1") === undefined;
  if (!splittable) {
    const whole = { properties: { body: asObject(converter.convert(input, at.document, "body", [], at.pointer)) }, required: [] };
    const failed = converter.failureReachedFrom(whole.properties);
    if (failed !== undefined) throw failed;
    if (isBareObject(input)) return { parameters: { properties: {}, required: [] }, withheld: [] };
    return { parameters: whole, withheld: [], refused: notSplittable(input) };
  }
  const memberWithheld: WithheldPath[] = [];
  const converted = asObject(converter.convert(shape, located.document, "", memberWithheld, located.pointer));
  const requiredMembers = new Set(Array.isArray(converted.required) ? converted.required.filter((name): name is string => typeof name === "string") : []);
  const convertedMembers = (converted.properties ?? {}) as Record<string, JsonSchemaObject | boolean>;
  const withheldTop = new Set(memberWithheld.flatMap((entry) => withheldMember(entry.path, members)?.member ?? []));
  // Argument names as a flattened body claims them, in the schema's order, withheld members too.
  const argOf = claimArguments(Object.keys(members).filter((member) => Object.prototype.hasOwnProperty.call(convertedMembers, member) || withheldTop.has(member)));
  const renamed = Object.keys(convertedMembers).find((member) => argOf.get(member) !== member);
  const properties: Record<string, JsonSchemaObject> = {};
  const required: string[] = [];
  for (const [member, schema] of Object.entries(convertedMembers)) {
    Object.defineProperty(properties, member, { value: asObject(schema), enumerable: true, writable: true, configurable: true });
    if (requiredMembers.has(member)) required.push(member);
  }
  const failed = converter.failureReachedFrom(properties);
  if (failed !== undefined) throw failed;
  if (renamed !== undefined) return { parameters: { properties, required }, withheld: [], refused: `its property ${JSON.stringify(renamed)} is no argument name (${ARGUMENT_NAME}), and a tool's arguments are forwarded under their own names` };
  const withheld = memberWithheld.map((entry): WithheldPath => {
    const top = withheldMember(entry.path, members);
    return { ...entry, path: top === undefined ? entry.path.replace(/^\./, "") : `${argOf.get(top.member)!}${entry.path.slice(top.prefix)}` };
  });
  return { parameters: { properties, required }, withheld };
}

const ARGUMENT_NAME = "^[A-Za-z0-9_-]{1,64}$";

/**
 * Argument names for members in order: the member's name made a valid argument name, else
 * prefixed `body_`, else suffixed with a hash (as the OpenAPI generator names a flattened
 * body's members, so a withheld member's path reads the same from either source).
 */
function claimArguments(members: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  const argumentName = (name: string) => fitToolName(name.replace(/[^A-Za-z0-9_-]/g, "_") || "_");
  for (const member of members) {
    const plain = argumentName(member);
    let candidate = taken.has(plain) ? argumentName(`body_${member}`) : plain;
    if (taken.has(candidate)) candidate = fitToolName(`${candidate}_${shortHash(`body:${member}`)}`);
    taken.add(candidate);
    out.set(member, candidate);
  }
  return out;
}


function notSplittable(schema: Record<string, unknown>): string {
  const root = Object.keys(schema).filter((key) => !FLAT_ROOT.has(key)).sort();
  if (schema["type"] !== undefined && schema["type"] !== "object") return `its type is ${JSON.stringify(schema["type"])}, not object`;
  return root.length > 0 ? `its root has ${root.join(", ")}, which sluice cannot split into separate arguments` : "it has no properties";
}

function asObject(schema: JsonSchemaObject | boolean): JsonSchemaObject {
  return typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
}

/** Root keywords a flat argument list keeps (the rest are annotations or go with the arguments). */
const FLAT_ROOT = new Set(["type", "properties", "required", "additionalProperties", "description", "title", "$schema", "$id", "$defs", "definitions", "$comment", "examples", "default"]);

function isBareObject(schema: Record<string, unknown>): boolean {
  return schema["type"] === "object" && Object.keys(schema).every((key) => key === "type" || key === "additionalProperties" || key === "$schema" || key === "description" || key === "title") && schema["additionalProperties"] !== false;
}

function toolOf(upstream: McpSnapshotTool, name: string, parameters: ToolIR["parameters"], withheld: readonly WithheldPath[]): ToolIR {
  const binding: McpBinding = { kind: "mcp", tool: upstream.name, arguments: Object.keys(parameters.properties) };
  if (upstream.annotations !== undefined) binding.annotations = { ...upstream.annotations };
  // Kept as listed, so the proxy serves them as the upstream declared them.
  if (upstream.title !== undefined) binding.title = upstream.title;
  if (upstream.outputSchema !== undefined) binding.outputSchema = upstream.outputSchema;
  const tool: ToolIR = {
    name,
    description: upstream.description ?? upstream.title ?? upstream.annotations?.title ?? "",
    parameters,
    binding,
    annotations: annotationsOf(upstream),
  };
  if (withheld.length > 0) tool.withheld = [...withheld];
  return tool;
}

/**
 * The hints read conservatively: read-only only when the server says so; destructive unless
 * it says otherwise (MCP's default, meaningful only for a tool that writes); idempotent only
 * when said. (MCP: hints from an untrusted server are not guarantees.)
 */
function annotationsOf(tool: McpSnapshotTool): ToolAnnotations {
  const hints = tool.annotations ?? {};
  const readOnly = hints.readOnlyHint === true;
  const out: ToolAnnotations = { readOnly };
  if (!readOnly) out.destructive = hints.destructiveHint !== false;
  if (hints.idempotentHint === true) out.idempotent = true;
  return out;
}
