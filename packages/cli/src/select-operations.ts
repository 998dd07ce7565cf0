import type { GraphQLFieldInfo } from "@sluice/generator-graphql";
import type { OpenAPIOperationInfo } from "@sluice/generator-openapi";
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

type Operation = { kind: "openapi"; info: OpenAPIOperationInfo } | { kind: "graphql"; info: GraphQLFieldInfo } | { kind: "mcp"; info: { tool: string; upstream: string } };

/** Whether one operation matches a selection (any of its lists). */
function matches(selection: OperationSelection, operation: Operation): boolean {
  const names: string[] = [operation.info.tool];
  if (operation.kind === "openapi") {
    const { info } = operation;
    if (info.operationId !== undefined) names.push(info.operationId);
    const tags = new Set(info.tags.map((tag) => tag.toLowerCase()));
    if ((selection.tags ?? []).some((tag) => tags.has(tag.toLowerCase()))) return true;
    for (const glob of selection.paths ?? []) {
      const spaced = /^([A-Za-z]+)\s+(\S.*)$/.exec(glob);
      if (spaced !== null) {
        if (spaced[1]!.toUpperCase() === info.method && globPattern(spaced[2]!).test(info.path)) return true;
      } else if (globPattern(glob).test(info.path)) return true;
    }
  } else if (operation.kind === "mcp") {
    // An MCP tool by its pack name or the upstream's.
    names.push(operation.info.upstream);
  } else {
    const { info } = operation;
    names.push(info.field, `${info.operationType === "query" ? "Query" : "Mutation"}.${info.field}`);
  }
  return (selection.operations ?? []).some((glob) => {
    const pattern = globPattern(glob);
    return names.some((name) => pattern.test(name));
  });
}

/** A selection's verdict on each operation; what it left out and which include entries matched nothing, for the report. */
export class OperationFilter {
  readonly excluded: string[] = [];
  private readonly seen: Operation[] = [];

  constructor(
    private readonly include: OperationSelection | undefined,
    private readonly exclude: OperationSelection | undefined,
  ) {}

  accepts(operation: Operation): boolean {
    this.seen.push(operation);
    const included = this.include === undefined || matches(this.include, operation);
    const accepted = included && !(this.exclude !== undefined && matches(this.exclude, operation));
    if (!accepted) this.excluded.push(operation.info.tool);
    return accepted;
  }

  /** Entries of `include` that matched no operation seen: a typo there would otherwise silently generate less. */
  unmatchedIncludes(): string[] {
    const entries = [
      ...(this.include?.tags ?? []).map((tag) => ({ label: `tag "${tag}"`, selection: { tags: [tag] } })),
      ...(this.include?.paths ?? []).map((path) => ({ label: `path "${path}"`, selection: { paths: [path] } })),
      ...(this.include?.operations ?? []).map((name) => ({ label: `operation "${name}"`, selection: { operations: [name] } })),
    ];
    return entries.filter(({ selection }) => !this.seen.some((operation) => matches(selection, operation))).map(({ label }) => label);
  }
}
