import { createRequire } from "node:module";
import type { createTwoFilesPatch as CreatePatch } from "diff";

export interface EgressMapCheck {
  /** True when the committed text and the current text are byte-identical. */
  same: boolean;
  /** Lines the model can now see that the committed map did not show (`tool <name>: <path>: <type>`). */
  widenings: string[];
  /** Unified diff from the committed map to the current one (empty when same). */
  diff: string;
}

/**
 * Compares a committed egress map with the current one. Any difference fails the
 * check; newly visible paths are called out by name, because those widen what the
 * model can send.
 */
export function checkEgressMap(committed: string, current: string, label = "egress_map.txt"): EgressMapCheck {
  if (committed === current) return { same: true, widenings: [], diff: "" };
  const before = visiblePaths(committed);
  const widenings = [...visiblePaths(current)].filter((path) => !before.has(path));
  // The response side: a narrowed GraphQL tool that fetches a new field, or is no longer narrowed.
  const fetchedBefore = fetchedFields(committed);
  for (const [tool, fields] of fetchedFields(current)) {
    const old = fetchedBefore.get(tool);
    if (old !== undefined) for (const field of fields) if (!old.has(field)) widenings.push(`${tool}: < ${field}`);
  }
  const now = fetchedFields(current);
  for (const tool of fetchedBefore.keys()) if (!now.has(tool) && current.includes(`\n${tool}\n`)) widenings.push(`${tool}: < (every field: no longer narrowed by returns)`);
  widenings.sort();
  // Required when a map is checked, not when @sluice/core is imported.
  const { createTwoFilesPatch } = createRequire(import.meta.url)("diff") as { createTwoFilesPatch: typeof CreatePatch };
  const diff = createTwoFilesPatch(`${label} (committed)`, `${label} (current)`, committed, current, undefined, undefined, { context: 2 });
  return { same: false, widenings, diff };
}

/**
 * `tool <name>: <path>: <type>` (or `type <name>: ...`) for every `+` line of a formatted
 * map. The whole line is the key: property names may contain `:`, and a visible path
 * whose type changed (say to `any`) is worth calling out like a new one.
 */
function visiblePaths(text: string): Set<string> {
  const paths = new Set<string>();
  let scope = "";
  for (const line of text.split("\n")) {
    const heading = /^(tool|type) (\S+)/.exec(line);
    if (heading) scope = `${heading[1]} ${heading[2]}`;
    const match = /^\s+\+ (.*)$/.exec(line);
    if (match) paths.add(`${scope}: ${match[1]}`);
  }
  return paths;
}

/** Per `tool <name>` heading, the `<` (fetched) lines, for tools that have any. */
function fetchedFields(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let scope = "";
  for (const line of text.split("\n")) {
    const heading = /^tool (\S+)$/.exec(line);
    if (heading) scope = line;
    const match = /^\s+< (.*)$/.exec(line);
    if (match && scope !== "") {
      const set = out.get(scope) ?? new Set<string>();
      set.add(match[1]!);
      out.set(scope, set);
    }
  }
  return out;
}
