import { createTwoFilesPatch } from "diff";

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
  const widenings = [...visiblePaths(current)].filter((path) => !before.has(path)).sort();
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
