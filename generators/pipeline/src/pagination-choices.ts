/**
 * `pagination` in the config: next-page declarations for tools whose spec does not show
 * them (a `Link` header no response declares, a cursor in an untyped body). Applied after the
 * per-tool names, to the facts the pack's runtime reads, for OpenAPI and GraphQL packs alike.
 * Every key must select a tool and every selected tool must have the argument: a declaration
 * that paginated nothing would read as done.
 */
import { SluiceError, checkedPagination, type PackIR, type Pagination, type RuntimeFacts } from "@sluice/core";
import { closest } from "@sluice/core/edit-distance";
import type { PackConfig } from "./config.ts";
import { globPattern } from "./select-operations.ts";

export interface PaginationChoicesResult {
  facts: RuntimeFacts;
  /** Final tool names the config declared pagination for, sorted. */
  declared: string[];
  /** Of those, the ones whose spec-found declaration the config replaced. */
  replaced: string[];
}

/**
 * `prefixed` maps each generated name to its name after `toolPrefix`; a `tools` entry's new
 * name then wins, as `applyToolChoices` applied it. Keys are generated names or globs of them.
 */
export function applyPaginationChoices(facts: RuntimeFacts, ir: PackIR, job: Pick<PackConfig, "name" | "pagination" | "tools">, prefixed: ReadonlyMap<string, string>): PaginationChoicesResult {
  const entries = Object.entries(job.pagination ?? {});
  if (entries.length === 0) return { facts, declared: [], replaced: [] };
  const fail = (key: string, problem: string, candidates?: string[]): never => {
    throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: pagination.${key}: ${problem}`, candidates === undefined || candidates.length === 0 ? undefined : { candidates });
  };
  const byName = new Map(ir.tools.map((tool) => [tool.name, tool]));
  const generated = [...prefixed.keys()];
  const claimedBy = new Map<string, string>();
  const pagination: Record<string, Pagination> = { ...facts.pagination };
  const replaced: string[] = [];
  for (const [key, given] of entries) {
    const declaration = checkedPagination(given, `pack ${job.name}: pagination.${key}`);
    const matched = key.includes("*") ? generated.filter((name) => globPattern(key).test(name)) : generated.filter((name) => name === key);
    if (matched.length === 0) {
      const unprefixed = [...prefixed].find(([, name]) => name === key)?.[0];
      if (unprefixed !== undefined) fail(key, `name the tool as generated, before toolPrefix: "${unprefixed}"`, [unprefixed]);
      fail(key, key.includes("*") ? "the pattern matches no generated tool" : "no generated tool has this name", closest(key, generated, 5));
    }
    for (const name of matched) {
      const final = job.tools?.[name]?.name ?? prefixed.get(name)!;
      const other = claimedBy.get(final);
      if (other !== undefined) fail(key, `${name} is also matched by pagination.${other}; one declaration per tool`);
      claimedBy.set(final, key);
      const tool = byName.get(final)!;
      if (!Object.hasOwn(tool.parameters.properties, declaration.arg)) {
        fail(key, `${name} has no argument "${declaration.arg}" to carry the next page's marker${tool.withheld?.some((path) => path.path === declaration.arg) === true ? " (it is withheld)" : ""}`, closest(declaration.arg, Object.keys(tool.parameters.properties), 5));
      }
      if (Object.hasOwn(pagination, final)) replaced.push(final);
      pagination[final] = declaration;
    }
  }
  return { facts: { ...facts, pagination }, declared: [...claimedBy.keys()].sort(), replaced: replaced.sort() };
}
