/**
 * An MCP snapshot -> the tool IR. Each tool's `inputSchema` (JSON Schema: often draft-07
 * from zod-to-json-schema, sometimes 2020-12) is normalised into sluice's 2020-12 form by the
 * same converter OpenAPI 3.1 schemas go through (generators/openapi/src/schema-object.ts):
 * the snapshot is read as a document whose operations take the input schemas as JSON
 * bodies, so every rule that converter keeps (draft-4/7 keywords, patterns the linear
 * engine cannot run refused, unsupported keywords refused, `$ref`s named once) holds here
 * too. A tool the converter refuses is skipped with its code and a pointer into the
 * snapshot; the other tools are generated.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool
 */
import { canonicalJson, SluiceError, type JsonSchemaObject } from "@sluice/schema";
import type { McpBinding, PackIR, PatternRefusal, SkippedOperation, ToolAnnotations, ToolIR } from "@sluice/core";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { definitionsOf, rewriteRefs, withoutDefinitions } from "./schema-definitions.ts";
import { escapePointer, type McpSnapshot, type McpSnapshotTool } from "@sluice/mcp-client";

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
  const { document, pointers } = asDocument(snapshot, chosen);
  let built: PackIR;
  try {
    built = buildOpenAPIPackIR(document, source, { onExternalRef: "skip" });
  } catch (error) {
    // Only when no tool at all could be converted: the first tool's error, with the pointer mapped.
    if (error instanceof SluiceError) throw new SluiceError(error.code, mapPointers(error.message, pointers), { ...(error.pointer === undefined ? {} : { pointer: mapPointers(error.pointer, pointers) }) });
    throw error;
  }
  const byPath = new Map(chosen.map((entry) => [`/${entry.index}`, entry]));
  const tools: ToolIR[] = [];
  const skipped: SkippedOperation[] = [];
  for (const generated of built.tools) {
    if (generated.binding.kind !== "http") continue;
    const entry = byPath.get(generated.binding.path);
    if (entry === undefined) continue;
    const body = generated.binding.body;
    const fields = Object.entries(body?.fields ?? {});
    if (body?.wholeBodyArg !== undefined && isBareObject(entry.tool.inputSchema)) {
      // `{ type: "object" }` and nothing else: a tool that declares no arguments, and is sent none.
      tools.push(toolOf(entry.tool, entry.name, { ...generated, parameters: { properties: {}, required: [] } }));
      continue;
    }
    if (body?.wholeBodyArg !== undefined || fields.some(([arg, member]) => arg !== member)) {
      const root = Object.keys(entry.tool.inputSchema).filter((key) => !FLAT_ROOT.has(key)).sort();
      const why = entry.tool.inputSchema["type"] !== undefined && entry.tool.inputSchema["type"] !== "object" ? `its type is ${JSON.stringify(entry.tool.inputSchema["type"])}, not object` : root.length > 0 ? `its root has ${root.join(", ")}, which sluice cannot split into separate arguments` : "it has no properties";
      skipped.push({
        operation: `tools/call ${entry.tool.name}`,
        code: "INPUT_SCHEMA_UNSUPPORTED",
        reason: `INPUT_SCHEMA_UNSUPPORTED: the input schema is not an object of named arguments (${why})`,
        pointer: `/tools/${entry.index}/inputSchema`,
      });
      continue;
    }
    tools.push(toolOf(entry.tool, entry.name, generated));
  }
  for (const skip of built.skipped) {
    const entry = byPath.get(skip.operation.replace(/^\S+ /, ""));
    skipped.push({
      ...skip,
      operation: entry === undefined ? skip.operation : `tools/call ${entry.tool.name}`,
      reason: mapPointers(skip.reason, pointers),
      ...(skip.pointer === undefined ? {} : { pointer: mapPointers(skip.pointer, pointers) }),
    });
  }
  const ir: PackIR = { name: built.name, source: { kind: "mcp", file: source.file, sha256: source.sha256 }, defs: built.defs, tools, skipped };
  if (built.withheldMembers !== undefined) ir.withheldMembers = built.withheldMembers;
  if (built.refusedPatterns !== undefined) {
    ir.refusedPatterns = built.refusedPatterns.map((refused): PatternRefusal => {
      const entry = byPath.get(refused.operation.replace(/^\S+ /, ""));
      return { ...refused, operation: entry === undefined ? refused.operation : `tools/call ${entry.tool.name}`, pointer: mapPointers(refused.pointer, pointers) };
    });
  }
  return ir;
}

/** Root keywords a flat argument list keeps (the rest are annotations or go with the arguments). */
const FLAT_ROOT = new Set(["type", "properties", "required", "additionalProperties", "description", "title", "$schema", "$id", "$defs", "definitions", "$comment", "examples", "default"]);

function isBareObject(schema: Record<string, unknown>): boolean {
  return schema["type"] === "object" && Object.keys(schema).every((key) => key === "type" || key === "additionalProperties" || key === "$schema" || key === "description" || key === "title") && schema["additionalProperties"] !== false;
}

function toolOf(upstream: McpSnapshotTool, name: string, generated: ToolIR): ToolIR {
  const binding: McpBinding = { kind: "mcp", tool: upstream.name, arguments: Object.keys(generated.parameters.properties) };
  if (upstream.annotations !== undefined) binding.annotations = { ...upstream.annotations };
  // Kept as listed, so the proxy serves them as the upstream declared them.
  if (upstream.title !== undefined) binding.title = upstream.title;
  if (upstream.outputSchema !== undefined) binding.outputSchema = upstream.outputSchema;
  const tool: ToolIR = {
    name,
    description: upstream.description ?? upstream.title ?? upstream.annotations?.title ?? "",
    parameters: generated.parameters,
    binding,
    annotations: annotationsOf(upstream),
  };
  if (generated.withheld !== undefined && generated.withheld.length > 0) tool.withheld = generated.withheld;
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

interface Placed {
  tool: McpSnapshotTool;
  index: number;
  name: string;
}

/**
 * The chosen tools as an OpenAPI 3.1 document: `POST /<index>` with the input schema as its
 * JSON body (required), the tools' `$defs` / `definitions` hoisted to components (one name
 * for a definition that reads the same in every tool, else `<tool>_<Name>`), and every local
 * `$ref` rewritten to where its target now lives. `pointers` maps document locations back to
 * the snapshot, for messages.
 */
function asDocument(snapshot: McpSnapshot, placed: readonly Placed[]): { document: unknown; pointers: Array<[string, string]> } {
  const chosen = placed.map((entry) => ({ ...entry, tool: { ...entry.tool, inputSchema: hoistPropertyRefs(entry.tool.inputSchema) } }));
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  const pointers: Array<[string, string]> = [];
  // A definition name shared by tools that define it alike keeps its name; otherwise it is qualified.
  const seen = new Map<string, Set<string>>();
  for (const { tool } of chosen) {
    for (const [name, def] of definitionsOf(tool.inputSchema)) {
      const forms = seen.get(name) ?? new Set<string>();
      forms.add(canonicalJson(def));
      seen.set(name, forms);
    }
  }
  const taken = new Set<string>();
  const shared = new Set([...seen].filter(([, forms]) => forms.size === 1).map(([name]) => name));
  for (const name of shared) taken.add(name);
  for (const { tool, index, name: toolName } of chosen) {
    const local = new Map<string, string>();
    for (const [keyword, name] of definitionsOf(tool.inputSchema).map(([n], i) => [keywordOf(tool.inputSchema, n, i), n] as const)) {
      if (local.has(name)) continue;
      let component = shared.has(name) ? name : `${toolName}_${name}`;
      for (let n = 2; !shared.has(name) && taken.has(component); n++) component = `${toolName}_${name}_${n}`;
      taken.add(component);
      local.set(name, component);
      pointers.push([`/components/schemas/${escapePointer(component)}`, `/tools/${index}/inputSchema/${keyword}/${escapePointer(name)}`]);
    }
    const root = `${toolName}_input`;
    const rewrite = (node: unknown): unknown => rewriteRefs(node, local, `#/components/schemas/${escapePointer(root)}`);
    let usesRoot = false;
    const rootRef = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(rootRef);
      if (typeof node !== "object" || node === null) return;
      const ref = (node as Record<string, unknown>)["$ref"];
      if (typeof ref === "string" && ref.startsWith("#") && !/^#\/(?:\$defs|definitions)\//.test(ref)) usesRoot = true;
      for (const [key, value] of Object.entries(node)) if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") rootRef(value);
    };
    rootRef(tool.inputSchema);
    for (const [name, def] of definitionsOf(tool.inputSchema)) {
      if (shared.has(name) && Object.prototype.hasOwnProperty.call(schemas, name)) continue;
      schemas[local.get(name)!] = rewrite(def);
    }
    const body = rewrite(withoutDefinitions(tool.inputSchema)) as Record<string, unknown>;
    if (usesRoot) {
      schemas[root] = body;
      pointers.push([`/components/schemas/${escapePointer(root)}`, `/tools/${index}/inputSchema`]);
    }
    paths[`/${index}`] = {
      post: {
        operationId: toolName,
        requestBody: { required: true, content: { "application/json": { schema: body } } },
        responses: { "200": { description: "the tool's result" } },
      },
    };
    pointers.push([`/paths/~1${index}/post/requestBody/content/application~1json/schema`, `/tools/${index}/inputSchema`]);
  }
  const document = { openapi: "3.1.0", info: { title: snapshot.server.name || "mcp", version: snapshot.server.version || "0" }, paths, components: { schemas } };
  // Longest prefixes first, so a nested location maps by its most specific entry.
  pointers.sort((a, b) => b[0].length - a[0].length);
  return { document, pointers };
}

function keywordOf(schema: JsonSchemaObject, name: string, _index: number): string {
  const defs = (schema as Record<string, unknown>)["$defs"];
  return typeof defs === "object" && defs !== null && Object.prototype.hasOwnProperty.call(defs, name) ? "$defs" : "definitions";
}

/** Document pointers in a text (or a pointer) mapped back to snapshot pointers. */
function mapPointers(text: string, pointers: ReadonlyArray<[string, string]>): string {
  let out = text;
  for (const [from, to] of pointers) out = out.split(from).join(to);
  return out;
}

const PROPERTY_REF = /^#((?:\/properties\/[^/]+)+)$/;

/** Keywords that say something about a value without constraining it. */
const ANNOTATIONS = new Set(["description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"]);

/**
 * A schema whose `$ref`s point into its own properties (`#/properties/nextThoughtNeeded`,
 * as zod-to-json-schema writes a type it met before) without them: a ref beside annotations
 * only is written out in place (the target with those annotations), any other is pointed at
 * a copy of its target in the definitions, under the property's name. The same schema, but
 * the converter would otherwise name each target after its whole path
 * (`components_schemas_<tool>_input_properties_<name>`), which the served definition then
 * spells at every use: larger than what the server sent.
 */
export function hoistPropertyRefs(schema: JsonSchemaObject): JsonSchemaObject {
  const refs = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && PROPERTY_REF.test(value)) refs.add(value);
      else if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") collect(value);
    }
  };
  collect(schema);
  if (refs.size === 0) return schema;
  const keyword = Object.prototype.hasOwnProperty.call(schema, "definitions") && !Object.prototype.hasOwnProperty.call(schema, "$defs") ? "definitions" : "$defs";
  const taken = new Set(definitionsOf(schema).map(([name]) => name));
  const named = new Map<string, { name: string; target: unknown }>();
  for (const ref of [...refs].sort()) {
    const segments = PROPERTY_REF.exec(ref)![1]!.split("/").slice(1);
    let target: unknown = schema;
    for (const segment of segments) {
      const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
      target = typeof target === "object" && target !== null && Object.prototype.hasOwnProperty.call(target, key) ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (typeof target !== "object" || target === null) continue;
    const base = segments[segments.length - 1]!.replace(/~1/g, "/").replace(/~0/g, "~");
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    named.set(ref, { name, target });
  }
  const rewrite = (node: unknown, inlining: ReadonlySet<string> = new Set()): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, inlining));
    if (typeof node !== "object" || node === null) return node;
    const ref = (node as Record<string, unknown>)["$ref"];
    const target = typeof ref === "string" ? named.get(ref) : undefined;
    // A ref beside annotations only reads the same as its target with those annotations:
    // written out in place (smaller than a definition and a ref), unless it refers back to itself.
    if (target !== undefined && !inlining.has(ref as string) && Object.keys(node).every((key) => key === "$ref" || ANNOTATIONS.has(key))) {
      const { $ref: _ref, ...annotations } = node as Record<string, unknown>;
      const inlined = rewrite(target.target, new Set([...inlining, ref as string]));
      if (typeof inlined === "object" && inlined !== null && !Array.isArray(inlined)) return { ...inlined, ...annotations };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const hoisted = key === "$ref" && typeof value === "string" ? named.get(value) : undefined;
      const next = hoisted !== undefined ? `#/${keyword}/${escapePointer(hoisted.name)}` : key === "enum" || key === "const" || key === "default" || key === "examples" ? value : rewrite(value, inlining);
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const out = rewrite(schema) as Record<string, unknown>;
  // Definitions only for the targets still referred to (a ref that could not be written out in place).
  const used = new Set<string>();
  const scan = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(scan);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") used.add(value);
      else if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") scan(value);
    }
  };
  const defs = { ...((out[keyword] as Record<string, unknown> | undefined) ?? {}) };
  const pending = [...named.values()];
  scan(out);
  for (let added = true; added; ) {
    added = false;
    for (const entry of pending) {
      if (Object.prototype.hasOwnProperty.call(defs, entry.name) || !used.has(`#/${keyword}/${escapePointer(entry.name)}`)) continue;
      const body = rewrite(entry.target);
      Object.defineProperty(defs, entry.name, { value: body, enumerable: true, writable: true, configurable: true });
      scan(body);
      added = true;
    }
  }
  if (Object.keys(defs).length > 0) out[keyword] = defs;
  return out as JsonSchemaObject;
}
