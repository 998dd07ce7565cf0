import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { SchemaWorkspace } from "./schema-workspace.ts";
import { enumeratePaths, locate, parseSelector, selectorText } from "./selectors.ts";
import type { Encoding } from "../tokens.ts";
import type { ProjectableTool } from "../tool-definition.ts";

export interface PathsOptions {
  /** Measure each path's cost in tokens by really removing it. */
  byCost?: boolean;
  /** Levels below the prefix to list (default 1). */
  depth?: number;
  encoding?: Encoding;
}

export interface PathCost {
  path: string;
  /** With `byCost`: tokens(tool) - tokens(tool without the path). Can be negative when removing it splits a shared definition. */
  tokens?: number;
}

/** See `Tool.paths`. */
export function toolPaths(tool: ProjectableTool, prefix: string | undefined, options: PathsOptions): Promise<PathCost[]> {
  return withinLimits(`paths() of ${tool.name}`, () => listPaths(tool, prefix, options));
}

async function listPaths(tool: ProjectableTool, prefix: string | undefined, options: PathsOptions): Promise<PathCost[]> {
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) throw new SluiceError("INVALID_OPTION", `paths(): depth must be a positive integer, got ${String(options.depth)}.`);
  const ws = new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
  const starts =
    prefix === undefined
      ? [{ node: ws.root, pointer: "", segments: [] as string[] } as Start]
      : startsBelow(ws, prefix);
  const found = new Set<string>();
  for (const start of starts) {
    for (const { segments } of enumeratePaths(ws, start, start.segments, depth, Number.POSITIVE_INFINITY, true).paths) {
      // Spelled as derived() reads it: names with selector syntax quoted, a type as Type:member where needed.
      found.add(start.type === undefined ? selectorText(ws, "path", undefined, segments) : selectorText(ws, "type", start.type, segments));
    }
  }
  const paths = [...found].sort();
  if (!options.byCost) return paths.map((path) => ({ path }));

  // Loaded here: pricing needs the tokenizer, which the core's root entry never loads.
  const { pathCosts } = await import("../cost/path-costs.ts");
  // Type paths keep their type spelling so that each drop is a type selector.
  const costs = pathCosts(tool, paths, options.encoding ?? "o200k_base");
  return costs.sort((a, b) => b.tokens - a.tokens || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Where listing starts. A prefix is a selector, or a bare type name (`IssueFilter`):
 * then the paths are `IssueFilter.<member>`, priced as type selectors (every place the
 * type is reached), which is what a recursive type's members cost. `IssueFilter:` says
 * the type when an argument has the same name.
 */
function startsBelow(ws: SchemaWorkspace, prefix: string): Start[] {
  const isArgument = isSchemaObject(ws.root.properties) && hasOwn(ws.root.properties, prefix);
  const typeName = prefix.endsWith(":") && ws.hasType(prefix.slice(0, -1)) ? prefix.slice(0, -1) : !isArgument && ws.hasType(prefix) ? prefix : undefined;
  if (typeName !== undefined) return typeStarts(ws, typeName, []);
  const selector = parseSelector(ws, prefix);
  if (selector.kind === "type" && selector.segments.length === 0) return typeStarts(ws, selector.type!, []);
  return locate(ws, selector, false).map(({ holder, key, branch }) => {
    const base = { segments: selector.segments, ...(selector.kind === "type" ? { type: selector.type! } : {}) };
    if (branch !== undefined) {
      const element = (branch.container[branch.keyword] as unknown[])[branch.index];
      return { node: isSchemaObject(element) ? element : {}, pointer: "", ...base };
    }
    const child = (holder.node.properties as Record<string, JsonSchemaObject>)[key]!;
    return { node: child, pointer: holder.pointer + "/properties/" + escapePointerSegment(key), ...base };
  });
}

interface Start {
  node: JsonSchemaObject;
  pointer: string;
  /** Segments of the prefix (below the type, for a type prefix). */
  segments: string[];
  type?: string;
}

function typeStarts(ws: SchemaWorkspace, type: string, segments: string[]): Start[] {
  return ws.defsOfType(type).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name), segments, type }));
}
