import { editDistance } from "@sluice/core";
import type { SelectableOperation } from "@sluice/emit";
import type { OperationSelection } from "./config.ts";

/**
 * Glob to a whole-string pattern: `**` any run of characters, `*` any run without `/`,
 * `?` one character; everything else literal. Path templates keep their braces literal.
 */
export function globPattern(glob: string, caseInsensitive = false): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, caseInsensitive ? "i" : "");
}

/**
 * What a selection is matched against: an operation as its source describes it (tags and
 * path where it has them, other names an `operations` glob may use), or a generated tool
 * known only by its name (only `tools` and `operations` entries can match that).
 */
export type Operation = SelectableOperation;

type SelectionKey = keyof Required<OperationSelection>;
const SELECTION_KEYS: readonly SelectionKey[] = ["tags", "paths", "operations", "tools"];

/** Whether one operation matches a selection (any entry of any of its lists). */
function matches(selection: OperationSelection, operation: Operation): boolean {
  return matchingEntry(selection, operation) !== undefined;
}

/** The first entry of a selection that matches the operation, as `tags "pet"`, or undefined. */
function matchingEntry(selection: OperationSelection, operation: Operation): string | undefined {
  const names: string[] = [operation.tool, ...(operation.names ?? [])];
  if (operation.tags !== undefined) {
    const tags = new Set(operation.tags.map((tag) => tag.toLowerCase()));
    for (const tag of selection.tags ?? []) if (tags.has(tag.toLowerCase())) return entryLabel("tags", tag);
  }
  const { method, path } = operation;
  if (path !== undefined) {
    for (const glob of selection.paths ?? []) {
      const spaced = /^([A-Za-z]+)\s+(\S.*)$/.exec(glob);
      if (spaced !== null) {
        if (spaced[1]!.toUpperCase() === method && globPattern(spaced[2]!).test(path)) return entryLabel("paths", glob);
      } else if (globPattern(glob).test(path)) return entryLabel("paths", glob);
    }
  }
  for (const glob of selection.operations ?? []) {
    const pattern = globPattern(glob);
    if (names.some((name) => pattern.test(name))) return entryLabel("operations", glob);
  }
  for (const glob of selection.tools ?? []) if (globPattern(glob).test(operation.tool)) return entryLabel("tools", glob);
  return undefined;
}

function entryLabel(key: SelectionKey, entry: string): string {
  return `${key} ${JSON.stringify(entry)}`;
}

/** An entry of include or exclude that matched nothing, with the nearest things it could have meant. */
export interface UnmatchedEntry {
  /** `include tags "nosuchtag"`. */
  label: string;
  /** Nearest first: the spec's tags, paths, operation or tool names. */
  candidates: string[];
  /** How many there are to choose from (the candidates are the nearest few). */
  of: number;
}

/**
 * A selection's verdict on each operation; what it left out (once per tool, with the entry
 * or rule that did), and which entries matched nothing, for the report.
 */
export class OperationFilter {
  /** Generated tool name -> why it was left out (`not in include`, `exclude paths "DELETE /**"`), in the order seen. */
  readonly leftOut = new Map<string, string>();
  private readonly seen = new Map<string, Operation>();

  constructor(
    private readonly include: OperationSelection | undefined,
    private readonly exclude: OperationSelection | undefined,
  ) {}

  /** Tools left out, by generated name. */
  get excluded(): string[] {
    return [...this.leftOut.keys()];
  }

  /** How many operations the filter was asked about (each once, however often it was asked). */
  get operations(): number {
    return this.seen.size;
  }

  /** Whether the generator asked about this tool (by generated name). */
  asked(tool: string): boolean {
    return this.seen.has(tool);
  }

  accepts(operation: Operation): boolean {
    // A generator may ask about one operation more than once; it counts once.
    this.seen.set(operation.tool, operation);
    const included = this.include === undefined || matches(this.include, operation);
    const excludedBy = included && this.exclude !== undefined ? matchingEntry(this.exclude, operation) : undefined;
    if (!included) this.leftOut.set(operation.tool, "not in include");
    else if (excludedBy !== undefined) this.leftOut.set(operation.tool, `exclude ${excludedBy}`);
    else this.leftOut.delete(operation.tool);
    return included && excludedBy === undefined;
  }

  /** Entries of `include` that matched no operation seen: a typo there would otherwise silently generate less. */
  unmatchedIncludes(): UnmatchedEntry[] {
    return this.unmatched("include", this.include);
  }

  /** Entries of `exclude` that matched no operation seen: a typo there silently generates more, which is worse. */
  unmatchedExcludes(): UnmatchedEntry[] {
    return this.unmatched("exclude", this.exclude);
  }

  private unmatched(which: "include" | "exclude", selection: OperationSelection | undefined): UnmatchedEntry[] {
    if (selection === undefined) return [];
    const operations = [...this.seen.values()];
    const out: UnmatchedEntry[] = [];
    for (const key of SELECTION_KEYS) {
      for (const entry of selection[key] ?? []) {
        if (operations.some((operation) => matches({ [key]: [entry] }, operation))) continue;
        const pool = [...new Set(operations.flatMap((operation) => candidatesOf(key, operation)))];
        out.push({ label: `${which} ${entryLabel(key, entry)}`, candidates: nearest(entry, pool, key === "tags" ? 10 : 5), of: pool.length });
      }
    }
    return out;
  }
}

/** What an entry of a list could have named, for did-you-mean. */
function candidatesOf(key: SelectionKey, operation: Operation): string[] {
  if (key === "tools") return [operation.tool];
  if (key === "tags") return operation.tags ?? [];
  if (key === "paths") return operation.path === undefined ? [] : [operation.path, `${operation.method} ${operation.path}`];
  return [operation.tool, ...(operation.suggest ?? [])];
}

/** Every candidate, nearest first (edit distance, case-insensitive, then name), the first `max`. */
function nearest(given: string, pool: readonly string[], max: number): string[] {
  const wanted = given.toLowerCase().replace(/\*+/g, "");
  return pool
    .map((name) => ({ name, distance: editDistance(wanted, name.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, max)
    .map((entry) => entry.name);
}
