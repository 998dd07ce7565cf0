import { escapePointerSegment, hasOwn, isSchemaObject, SluiceError, withinLimits, type JsonSchemaObject } from "@sluice/schema";
import { SchemaWorkspace } from "./schema-workspace.ts";
import { enumeratePaths, locate, parseSelector, splitSelector } from "./selectors.ts";
import type { Encoding } from "./tokens.ts";
import type { Tool } from "./tool.ts";

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
export function toolPaths(tool: Tool, prefix: string | undefined, options: PathsOptions): Promise<PathCost[]> {
  return withinLimits(`paths() of ${tool.name}`, () => listPaths(tool, prefix, options));
}

async function listPaths(tool: Tool, prefix: string | undefined, options: PathsOptions): Promise<PathCost[]> {
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) throw new SluiceError("INVALID_OPTION", `paths(): depth must be a positive integer, got ${String(options.depth)}.`);
  const ws = new SchemaWorkspace(tool.inputSchema, tool.definitionOrigins);
  const starts =
    prefix === undefined
      ? [{ node: ws.root, pointer: "", segments: [] as string[] }]
      : startsBelow(ws, prefix);
  const found = new Set<string>();
  for (const start of starts) {
    for (const { segments } of enumeratePaths(ws, start, start.segments, depth, Number.POSITIVE_INFINITY, true).paths) found.add(segments.join("."));
  }
  const paths = [...found].sort();
  if (!options.byCost) return paths.map((path) => ({ path }));

  // Loaded here: pricing needs the tokenizer, which the core's root entry never loads.
  const { pathCosts } = await import("./cost/path-costs.ts");
  // Type paths keep their type spelling so that each drop is a type selector.
  const costs = pathCosts(tool, paths, options.encoding ?? "o200k_base");
  return costs.sort((a, b) => b.tokens - a.tokens || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Where listing starts. A prefix is a selector, or a bare type name (`IssueFilter`):
 * then the paths are `IssueFilter.<member>`, priced as type selectors (every place the
 * type is reached), which is what a recursive type's members cost.
 */
function startsBelow(ws: SchemaWorkspace, prefix: string): Array<{ node: JsonSchemaObject; pointer: string; segments: string[] }> {
  const isArgument = isSchemaObject(ws.root.properties) && hasOwn(ws.root.properties, prefix);
  if (!prefix.includes(".") && !isArgument && ws.hasType(prefix)) {
    return ws.defsOfType(prefix).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name), segments: [prefix] }));
  }
  const selector = parseSelector(ws, prefix);
  const text = splitSelector(selector.text);
  if (selector.kind === "type" && selector.segments.length === 0) {
    return ws.defsOfType(selector.type!).map((name) => ({ node: ws.defs[name]!, pointer: "/$defs/" + escapePointerSegment(name), segments: text }));
  }
  return locate(ws, selector, false).map(({ holder, key, branch }) => {
    if (branch !== undefined) {
      const element = (branch.container[branch.keyword] as unknown[])[branch.index];
      return { node: isSchemaObject(element) ? element : {}, pointer: "", segments: text };
    }
    const child = (holder.node.properties as Record<string, JsonSchemaObject>)[key]!;
    return { node: child, pointer: holder.pointer + "/properties/" + escapePointerSegment(key), segments: text };
  });
}
