import type { ToolIR } from "@sluice/core";
import { refsFrom, ROOT, type JsonSchemaObject } from "@sluice/schema";

/** Definitions some generated tool reaches (a skipped operation's types are left out). */
export function reachableDefs(tools: readonly Pick<ToolIR, "parameters">[], defs: ReadonlyMap<string, JsonSchemaObject>): Set<string> {
  const reached = new Set<string>();
  // One walk over every tool's arguments, then one per round of definitions newly reached,
  // instead of one per tool and per definition: what is reached is a set, and one walk
  // reads a schema object the tools share once (Kubernetes' 1,123 tools have some 8,000
  // arguments, nearly all of them uses of a few hundred schemas). A list under `allOf`
  // holds the roots of a walk: it is no schema of anyone's, so only its members' refs count.
  let roots: JsonSchemaObject[] = [];
  for (const tool of tools) {
    const properties = tool.parameters.properties;
    const names = Object.keys(properties);
    for (let i = 0; i < names.length; i += 1) roots.push(properties[names[i]!]!);
  }
  while (roots.length > 0) {
    const found = refsFrom({ allOf: roots }, "", false);
    roots = [];
    for (let i = 0; i < found.length; i += 1) {
      const name = found[i]!;
      if (name === ROOT || reached.has(name) || !defs.has(name)) continue;
      reached.add(name);
      roots.push(defs.get(name)!);
    }
  }
  return reached;
}
