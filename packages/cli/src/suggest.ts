/**
 * `sluice suggest`: the projection of one tool that fits a token budget, measured step by
 * step (suggestProjection in @sluice/core), printed as the `derived()` call to paste, or
 * written into the pack by `sluice narrow` (--write).
 */
import { fullNameOf, suggestProjection, type Suggestion, type Tool } from "@sluice/core";
import { parseCommand, stringOption, usageError } from "./args.ts";
import { findPricedTool, loadTools, pricedSet } from "./load-tools.ts";
import type { Io } from "./io.ts";
import { narrowCommand } from "./narrow.ts";

/** `sluice suggest <pack|module> <tool> --budget <tokens> [--keep S]... [--json] [--write --name NEW] [--encoding E]`. */
export async function suggestCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("suggest", args);
  const [spec, toolName] = positionals;
  if (spec === undefined || toolName === undefined || positionals.length > 2) throw usageError("suggest", "suggest takes <pack|module> <tool>");
  const budgetText = stringOption(values, "budget");
  if (budgetText === undefined) throw usageError("suggest", "--budget <tokens> is required");
  if (!/^[1-9][0-9]*$/.test(budgetText) || !Number.isSafeInteger(Number(budgetText))) throw usageError("suggest", `--budget takes a positive integer (tokens), got "${budgetText}"`);
  const budget = Number(budgetText);
  const encoding = stringOption(values, "encoding") ?? "o200k_base";
  if (encoding !== "o200k_base" && encoding !== "cl100k_base") throw usageError("suggest", "--encoding must be o200k_base or cl100k_base");
  const keep = listOption(values.keep);
  const write = values.write === true;
  const name = stringOption(values, "name");
  if (write && name === undefined) throw usageError("suggest", "--write needs --name NEW: the tool's own name to replace it (curated), or a new name for a derived tool");

  const tools = await loadTools(spec, io.cwd);
  const tool = findPricedTool(tools, pricedSet(tools, values["include-full"]), toolName, spec, "suggest");
  const suggestion = await suggestProjection(tool, { budget, keep, encoding });

  if (values.json === true) {
    const { tool: toolField, tokens, drop, steps } = suggestion;
    // Keys in this order, always: scripts read them.
    io.stdout.write(JSON.stringify({ tool: toolField, budget: suggestion.budget, tokens, drop, keep: suggestion.keep, steps: steps.map((s) => ({ selector: s.selector, saved: s.saved })) }) + "\n");
  } else {
    io.stdout.write(describe(suggestion, name));
  }
  if (!write) return 0;
  if (suggestion.drop.length === 0) {
    io.stderr.write(`${tool.name} is already within ${budget} tokens: nothing to narrow, nothing written\n`);
    return 0;
  }
  // Narrow edits the generated tool; a *_full twin is that tool under another name.
  const target = generatedNameOf(tool, tools);
  const narrowArgs = [spec, target, "--name", name!, ...suggestion.drop.flatMap((selector) => ["--drop", selector])];
  if (values.json === true) {
    // stdout carries the suggestion alone; narrow's report goes nowhere, its warnings to stderr.
    return narrowCommand(narrowArgs, { stdout: { write: () => true }, stderr: io.stderr, cwd: io.cwd });
  }
  io.stdout.write("\n");
  return narrowCommand(narrowArgs, io);
}

/** The steps, the result against the budget, and the call to paste. */
export function describe(suggestion: Suggestion, name: string | undefined): string {
  const before = suggestion.tokens + suggestion.steps.reduce((sum, step) => sum + step.saved, 0);
  const lines = [`${suggestion.tool}: ${before} tokens, budget ${suggestion.budget}`];
  if (suggestion.steps.length === 0) {
    lines.push("already within budget: nothing to drop");
    return lines.join("\n") + "\n";
  }
  const width = Math.max("saved".length, ...suggestion.steps.map((step) => String(step.saved).length));
  lines.push("", `${"saved".padStart(width)}  drop`);
  for (const step of suggestion.steps) lines.push(`${String(step.saved).padStart(width)}  ${step.selector}${unionPlace(step.selector) === undefined ? "" : "  (branch)"}`);
  const places = [...new Set(suggestion.steps.map((step) => unionPlace(step.selector)).filter((place) => place !== undefined))];
  if (places.length > 0) {
    lines.push(`(branch): one alternative of a union withheld, a shape the model can no longer send; ${places.join(", ")} still accept${places.length === 1 ? "s" : ""} the others`);
  }
  lines.push("", `result: ${suggestion.tokens} tokens (budget ${suggestion.budget}, ${before - suggestion.tokens} saved by ${suggestion.drop.length} drop${suggestion.drop.length === 1 ? "" : "s"})`, "");
  lines.push(derivedCall(suggestion, name));
  return lines.join("\n") + "\n";
}

/**
 * The place whose union a branch selector (`body.anyOf[Modal]`) names, else undefined. Such
 * a drop withholds a whole request shape, which the selector alone does not tell someone
 * who has not met branch selectors, so the text marks it.
 */
function unionPlace(selector: string): string | undefined {
  return /^(.+)\.(?:anyOf|oneOf)\[[^\]]+\]$/.exec(selector)?.[1];
}

/** `tool.derived({ name, drop })` as TypeScript, one selector per line (without --name, the derived tool keeps the tool's name). */
export function derivedCall(suggestion: Suggestion, name: string | undefined): string {
  const list = (selectors: readonly string[]) => `[\n${selectors.map((s) => `    ${JSON.stringify(s)},\n`).join("")}  ]`;
  const parts = [...(name === undefined ? [] : [`  name: ${JSON.stringify(name)},`]), `  drop: ${list(suggestion.drop)},`];
  if (suggestion.keep.length > 0) parts.push(`  keep: ${list(suggestion.keep)},`);
  return `${identifier(suggestion.tool)}.derived({\n${parts.join("\n")}\n});`;
}

/** The generated tool's name: the tool itself, or the tool a *_full twin was renamed from. */
function generatedNameOf(tool: Tool<object>, tools: readonly Tool<object>[]): string {
  const origin = tools.find((other) => other !== tool && fullNameOf(other.name) === tool.name);
  return origin?.name ?? tool.name;
}

/** `issues_list_full` -> `issuesListFull`, the variable the call is written against. */
function identifier(toolName: string): string {
  const out = toolName
    .split(/[-_]+/)
    .filter((part) => part.length > 0)
    .map((part, i) => (i === 0 ? part[0]!.toLowerCase() : part[0]!.toUpperCase()) + part.slice(1))
    .join("");
  return /^[A-Za-z_$]/.test(out) ? out : `_${out}`;
}

function listOption(value: unknown): string[] {
  return Array.isArray(value) ? (value as string[]) : typeof value === "string" ? [value] : [];
}
