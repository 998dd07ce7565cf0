/**
 * The config's tool-level choices, applied to the IR of any kind of pack (OpenAPI, GraphQL,
 * MCP): `readOnly` keeps only tools annotated read-only, and `tools` gives a tool a new wire
 * name or description. They work on generated tools by name and annotations, never on
 * operations, so a source without operations gets them unchanged. What they did is
 * recorded in the IR's `selection`, which the egress map shows.
 */
import { SluiceError, TOOL_NAME_PATTERN, type PackIR, type PackSelection, type RuntimeFacts, type ToolIR } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { closest } from "@sluice/core/edit-distance";
import type { OperationSelection, PackConfig, ToolChoice } from "./config.ts";
import type { OperationFilter } from "./select-operations.ts";

type Choices = Pick<PackConfig, "name" | "include" | "exclude" | "readOnly" | "tools">;

/** What `readOnly` calls a tool that can change something, with what it does (`POST /pet`, `mutation addPet`). */
function notReadOnly(tool: ToolIR): string {
  const { binding } = tool;
  const what = binding.kind === "http" ? `${binding.method} ${binding.path}` : binding.kind === "graphql" ? `${binding.operationType} ${binding.field}` : binding.kind === "mcp" ? `tools/call ${binding.tool}` : undefined;
  return `not read-only${what === undefined ? "" : ` (${what})`}`;
}

/**
 * include/exclude for tools no generator asked the filter about (a source without
 * operations: only `tools` and `operations` entries can match them), then `readOnly`; before
 * any name changes, so left-out tools are named as the generator named them.
 */
export function keepReadOnly(ir: PackIR, job: Choices, filter: OperationFilter, applied?: AppliedChoices): PackIR {
  const unasked = ir.tools.filter((tool) => !filter.asked(tool.name));
  const selected = unasked.length === 0 ? ir.tools : ir.tools.filter((tool) => filter.asked(tool.name) || filter.accepts({ tool: tool.name }));
  if (job.readOnly !== true || !guards.toolSelection) return selected === ir.tools ? ir : { ...ir, tools: selected };
  const kept: ToolIR[] = [];
  for (const tool of selected) {
    if (tool.annotations.readOnly === true) kept.push(tool);
    else filter.leftOut.set(tool.name, notReadOnly(tool));
  }
  if (applied !== undefined) applied.readOnly = true;
  return { ...ir, tools: kept };
}

/**
 * What the tool-level passes did, recorded as they do it: the egress map's selection
 * header is made from this, never from the config's wording (a choice a pass did not
 * carry out must not read as done).
 */
export interface AppliedChoices {
  readOnly: boolean;
  renamed: { from: string; to: string }[];
  described: { tool: string; description: string }[];
}

export function noChoicesApplied(): AppliedChoices {
  return { readOnly: false, renamed: [], described: [] };
}

/**
 * `tools: { generated: { name, description } }`, after `toolPrefix` (`prefixed` maps each
 * generated name to its name in `ir`). Every key must name a generated tool the selection
 * kept; every new name must be a wire name no other tool has.
 */
export function applyToolChoices(ir: PackIR, job: Choices, filter: OperationFilter, prefixed: ReadonlyMap<string, string>, applied?: AppliedChoices): PackIR {
  const choices = Object.entries(job.tools ?? {});
  const fail = (where: string, problem: string, candidates?: string[]): never => {
    throw new SluiceError("CONFIG_INVALID", `pack ${job.name}: tools.${where}: ${problem}`, candidates === undefined || candidates.length === 0 ? undefined : { candidates });
  };
  const renamed = new Map<string, string>();
  const described = new Map<string, string>();
  for (const [generated, choice] of choices) {
    const current = prefixed.get(generated);
    if (current === undefined) {
      const why = filter.leftOut.get(generated);
      if (why !== undefined) fail(generated, `the tool is left out of the pack (${why}); drop this entry or select the tool`);
      const unprefixed = [...prefixed].find(([, name]) => name === generated)?.[0];
      if (unprefixed !== undefined) fail(generated, `name the tool as generated, before toolPrefix: "${unprefixed}"`, [unprefixed]);
      fail(generated, "no generated tool has this name", closest(generated, [...prefixed.keys(), ...filter.leftOut.keys()], 5));
    }
    if (choice.name !== undefined) {
      if (!TOOL_NAME_PATTERN.test(choice.name)) fail(`${generated}.name`, `"${choice.name}" is not a tool name (1 to 64 letters, digits, _ and -)`, [choice.name.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64)]);
      renamed.set(current!, choice.name);
    }
    if (choice.description !== undefined) described.set(current!, choice.description);
  }
  if (renamed.size === 0 && described.size === 0) return ir;
  // Names after the renames: a new name may take one another rename frees, never one a tool keeps.
  const generatedOf = (current: string) => [...prefixed].find(([, name]) => name === current)?.[0] ?? current;
  const owners = new Map<string, string>();
  for (const tool of ir.tools) {
    const name = renamed.get(tool.name) ?? tool.name;
    const other = owners.get(name);
    if (other !== undefined) {
      const [mover, keeper] = renamed.has(tool.name) ? [tool.name, other] : [other, tool.name];
      fail(`${generatedOf(mover)}.name`, `"${name}" is the name of another tool (${generatedOf(keeper)}); choose another`);
    }
    owners.set(name, tool.name);
  }
  const tools = ir.tools.map((tool) => {
    const name = renamed.get(tool.name);
    const description = described.get(tool.name);
    if (name === undefined && description === undefined) return tool;
    const after = { ...tool, ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) };
    // Recorded from the tool as it now is, so the map can only show a change that happened.
    if (applied !== undefined) {
      if (after.name !== tool.name) applied.renamed.push({ from: tool.name, to: after.name });
      if (description !== undefined) applied.described.push({ tool: after.name, description: after.description });
    }
    return after;
  });
  return { ...ir, tools };
}

/** The record the egress map shows, or undefined when the config chose nothing at tool level or by operation. */
export function selectionRecord(job: Choices, filter: OperationFilter, applied: AppliedChoices, ir: PackIR): PackSelection | undefined {
  const rules: string[] = [];
  const describeSelection = (which: string, selection: OperationSelection | undefined) => {
    for (const key of ["tags", "paths", "operations", "tools"] as const) {
      const entries = selection?.[key];
      if (entries !== undefined && entries.length > 0) rules.push(`${which} ${key} ${entries.map((entry) => JSON.stringify(entry)).join(", ")}`);
    }
  };
  describeSelection("include", job.include);
  describeSelection("exclude", job.exclude);
  if (applied.readOnly) rules.push("readOnly");
  const { renamed, described } = applied;
  if (rules.length === 0 && renamed.length === 0 && described.length === 0) return undefined;
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    rules,
    tools: ir.tools.length,
    leftOut: [...filter.leftOut].map(([tool, reason]) => ({ tool, reason })).sort((a, b) => compare(a.tool, b.tool)),
    renamed: [...renamed].sort((a, b) => compare(a.to, b.to)),
    described: [...described].sort((a, b) => compare(a.tool, b.tool)),
  };
}

/**
 * The config's reformatter choices as the generated runtime keeps them: the pack's, and each
 * tool's by its final wire name (after toolPrefix and a rename). Tool names were checked by
 * applyToolChoices; undefined when the config makes no choice.
 */
export function reformatterFacts(job: Pick<PackConfig, "reformatters" | "tools">, prefixed: ReadonlyMap<string, string>): NonNullable<RuntimeFacts["reformatters"]> | undefined {
  const tools: Record<string, NonNullable<ToolChoice["reformatters"]>> = {};
  for (const [generated, choice] of Object.entries(job.tools ?? {})) {
    if (choice.reformatters === undefined) continue;
    const final = choice.name ?? prefixed.get(generated) ?? generated;
    tools[final] = { ...choice.reformatters };
  }
  const pack = job.reformatters === undefined ? undefined : { ...job.reformatters };
  if (pack === undefined && Object.keys(tools).length === 0) return undefined;
  return { ...(pack === undefined ? {} : { pack }), ...(Object.keys(tools).length === 0 ? {} : { tools }) };
}
