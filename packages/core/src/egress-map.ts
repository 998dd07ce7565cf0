import {
  canonicalJson,
  cyclicComponents,
  defsOf,
  hasOwn,
  isSchemaObject,
  reachable,
  refGraph,
  refTarget,
  ROOT,
  UNION_KEYWORDS,
  walkSchema,
  type JsonSchemaObject,
} from "@sluice/schema";
import type { Tool } from "./tool.ts";
import type { Binding, WithheldPath } from "./tool-ir.ts";
import { fetchedPaths } from "./bindings/graphql-returns.ts";

export interface EgressPath {
  /** Selector spelling: `filter.title` from the root, `IssueFilter.and` inside a type section. */
  path: string;
  /** Short type: `string`, `IssueFilter[]`, `enum: a | b`. */
  type: string;
}

export interface EgressTypeSection {
  name: string;
  recursive: boolean;
  /** For a type without members (an enum, a scalar alias): its values or base type. */
  type?: string;
  members: EgressPath[];
}

export interface EgressToolEntry {
  name: string;
  /** `POST graphql query issues`, `GET /v1/customers`. */
  endpoint: string;
  /** Argument paths the model can see and send. */
  visible: EgressPath[];
  /** Types reached from more than one place or through a cycle, listed once each. */
  types: EgressTypeSection[];
  withheld: WithheldPath[];
  pins: Record<string, unknown>;
  /** GraphQL tools narrowed with `returns`: the response paths still fetched. */
  fetched?: string[];
}

/** What each tool lets the model see and send, and what is withheld and why. */
export function egressMap(tools: readonly Tool<object>[]): EgressToolEntry[] {
  return [...tools].sort((a, b) => compare(a.name, b.name)).map(describeTool);
}

function describeTool(tool: Tool<object>): EgressToolEntry {
  const schema = tool.inputSchema;
  const defs = defsOf(schema);
  const graph = refGraph(schema);
  const live = reachable(graph, ROOT);
  const recursive = new Set(cyclicComponents(graph).flat());
  const sites = new Map<string, number>();
  for (const name of live) {
    const body = name === ROOT ? schema : defs[name]!;
    walkSchema(
      body,
      ({ node }) => {
        if (typeof node.$ref === "string" && hasOwn(node, "$ref")) {
          const target = refTarget(node.$ref);
          sites.set(target, (sites.get(target) ?? 0) + 1);
        }
      },
      name === ROOT ? { skipKeywords: new Set(["$defs"]) } : {},
    );
  }
  const sectioned = new Set([...live].filter((name) => name !== ROOT && (recursive.has(name) || (sites.get(name) ?? 0) > 1)));

  const types = [...sectioned].sort(compare).map((name): EgressTypeSection => {
    const members = inlinePaths(defs[name]!, [name], defs, sectioned);
    const section: EgressTypeSection = { name, recursive: recursive.has(name), members };
    if (members.length === 0) section.type = typeLabel(defs[name]!, defs, sectioned);
    return section;
  });
  const entry: EgressToolEntry = {
    name: tool.name,
    endpoint: endpointOf(tool.binding),
    visible: inlinePaths(schema, [], defs, sectioned),
    types,
    withheld: [...tool.withheld].sort((a, b) => compare(a.path, b.path) || compare(a.reason, b.reason)),
    pins: { ...tool.pins },
  };
  if (tool.binding.kind === "graphql" && tool.binding.returns !== undefined) entry.fetched = fetchedPaths(tool.binding);
  return entry;
}

/** Inline nesting listed in a map; real API inputs stay far below it. */
const MAX_LISTED_DEPTH = 64;

/**
 * Member paths below `start`, descending into inline objects and into definitions used
 * only here; a sectioned definition ends the descent (it is listed once, by name).
 */
function inlinePaths(
  start: JsonSchemaObject,
  prefix: string[],
  defs: Record<string, JsonSchemaObject>,
  sectioned: ReadonlySet<string>,
): EgressPath[] {
  const out: EgressPath[] = [];
  const stack: Array<{ node: JsonSchemaObject; segments: string[] }> = [{ node: start, segments: prefix }];
  while (stack.length > 0) {
    const { node, segments } = stack.pop()!;
    for (const [key, child] of inlineMembers(node, defs, sectioned)) {
      const path = [...segments, key];
      const text = path.join(".");
      if (path.length - prefix.length > MAX_LISTED_DEPTH) {
        // Listing every level would make the map quadratic in the nesting; say so instead.
        out.push({ path: text, type: `nested deeper than ${MAX_LISTED_DEPTH} levels; members below are not listed` });
        continue;
      }
      out.push({ path: text, type: typeLabel(child, defs, sectioned) });
      stack.push({ node: child, segments: path });
    }
  }
  return out.sort((a, b) => compare(a.path, b.path));
}

function inlineMembers(node: JsonSchemaObject, defs: Record<string, JsonSchemaObject>, sectioned: ReadonlySet<string>): Array<[string, JsonSchemaObject]> {
  const members = new Map<string, JsonSchemaObject>();
  const seen = new Set<JsonSchemaObject>();
  const queue = [node];
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (seen.has(current)) continue;
    seen.add(current);
    if (isSchemaObject(current.properties)) {
      for (const key of Object.keys(current.properties)) {
        const child = current.properties[key];
        if (!members.has(key)) members.set(key, isSchemaObject(child) ? child : {});
      }
    }
    if (typeof current.$ref === "string" && hasOwn(current, "$ref")) {
      const target = refTarget(current.$ref);
      if (target !== ROOT && hasOwn(defs, target) && !sectioned.has(target)) queue.push(defs[target]!);
    }
    for (const keyword of ["items", "prefixItems", ...UNION_KEYWORDS]) {
      const value = current[keyword];
      if (Array.isArray(value)) {
        for (const branch of value) if (isSchemaObject(branch)) queue.push(branch);
      } else if (isSchemaObject(value)) {
        queue.push(value);
      }
    }
  }
  return [...members.entries()];
}

/** Labels nest (arrays of unions of arrays ...); past this many levels the rest is elided. */
const LABEL_DEPTH = 8;

function typeLabel(node: JsonSchemaObject, defs: Record<string, JsonSchemaObject>, sectioned: ReadonlySet<string>, level = 0): string {
  if (level >= LABEL_DEPTH) return "…";
  const nested = (child: JsonSchemaObject) => typeLabel(child, defs, sectioned, level + 1);
  if (typeof node.$ref === "string") {
    const target = refTarget(node.$ref);
    const body = defs[target];
    // A type without members used only here is shown by value, so that a new enum
    // value shows up in a diff (sectioned ones show it in their section).
    if (body && !sectioned.has(target) && !isSchemaObject(body.properties)) return `${target} (${nested(body)})`;
    return target;
  }
  if (Array.isArray(node.enum)) return "enum: " + node.enum.map((v) => (typeof v === "string" ? v : canonicalJson(v))).join(" | ");
  if (hasOwn(node, "const")) return "const " + canonicalJson(node.const);
  for (const keyword of UNION_KEYWORDS) {
    if (Array.isArray(node[keyword])) {
      const branches = (node[keyword] as unknown[]).map((b) => (isSchemaObject(b) ? nested(b) : String(b)));
      return branches.join(keyword === "allOf" ? " & " : " | ");
    }
  }
  const type = node.type;
  if (type === "array" || (node.items !== undefined && type === undefined)) {
    const item = isSchemaObject(node.items) ? nested(node.items) : "any";
    return /[ |&]/.test(item) ? `(${item})[]` : `${item}[]`;
  }
  const base = Array.isArray(type) ? type.join(" | ") : typeof type === "string" ? type : "any";
  return typeof node.format === "string" ? `${base} (${node.format})` : base;
}

function endpointOf(binding: Binding): string {
  return binding.kind === "graphql" ? `POST graphql ${binding.operationType} ${binding.field}` : `${binding.method.toUpperCase()} ${binding.path}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The egress map as text, meant to be committed and reviewed: stable order, one path
 * per line, `+` visible, `-` withheld (with the reason), `=` pinned (with the value).
 * A type with the same shape in every tool that uses it is listed once at the end; a
 * type whose shape differs between tools (narrowed in some) is listed inside each tool.
 */
export function formatEgressMap(entries: readonly EgressToolEntry[]): string {
  const variants = new Map<string, Set<string>>();
  for (const entry of entries) {
    for (const section of entry.types) {
      const shapes = variants.get(section.name) ?? new Set<string>();
      shapes.add(sectionLines(section, "").join("\n"));
      variants.set(section.name, shapes);
    }
  }
  const shared = new Map<string, EgressTypeSection>();
  const lines = [
    "# sluice egress map: what the model can see and send, and what is withheld.",
    "# + visible   - withheld: reason   = pinned: value sent on every call",
    "# < fetched: response fields a GraphQL tool narrowed with `returns` still asks for",
    "# Types used in several places or recursively are listed once: inside a tool when",
    "# their shape is particular to it, otherwise under `type` at the end.",
  ];
  for (const entry of entries) {
    lines.push("", `tool ${entry.name}`, `  endpoint ${entry.endpoint}`);
    for (const { path, type } of entry.visible) lines.push(`  + ${path}: ${type}`);
    for (const key of Object.keys(entry.pins).sort(compare)) lines.push(`  = ${key}: ${canonicalJson(entry.pins[key])}`);
    for (const w of entry.withheld) if (w.reason !== "pinned") lines.push(`  - ${w.path}: ${w.reason}`);
    for (const path of entry.fetched ?? []) lines.push(`  < ${path}`);
    for (const section of entry.types) {
      if (variants.get(section.name)!.size === 1) shared.set(section.name, section);
      else lines.push(...sectionLines(section, "  "));
    }
  }
  for (const name of [...shared.keys()].sort(compare)) lines.push("", ...sectionLines(shared.get(name)!, ""));
  return lines.join("\n") + "\n";
}

function sectionLines(section: EgressTypeSection, indent: string): string[] {
  return [
    `${indent}type ${section.name}${section.recursive ? " (recursive)" : ""}${section.type === undefined ? "" : `: ${section.type}`}`,
    ...section.members.map(({ path, type }) => `${indent}  + ${path}: ${type}`),
  ];
}
