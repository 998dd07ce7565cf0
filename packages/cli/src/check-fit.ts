import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { defaultServedSet, SluiceError, type Tool } from "@sluice/core";
import { check, describeFitChange, fit, LossyFitRefusedError, profile, PROFILE_IDS, type Finding, type FitOptions, type FitResult, type Profile } from "@sluice/catalog";
import { parseCommand } from "./args.ts";
import { loadTools } from "./load-tools.ts";
import type { Io } from "./io.ts";

function usage(problem: string): SluiceError {
  return new SluiceError("INVALID_OPTION", `${problem}; providers: ${PROFILE_IDS.join(", ")} (see sluice check --help)`);
}

function profileOf(provider: unknown, asOf: unknown): Profile {
  if (typeof provider !== "string") throw usage("--provider is required");
  return profile(provider, typeof asOf === "string" ? { asOf } : {});
}

/** What check and fit look at: the tools `sluice serve` would serve (no `*_full` twins unless --include-full). */
async function servedTools(spec: string, cwd: string, includeFull: unknown): Promise<Tool<object>[]> {
  const all = await loadTools(spec, cwd);
  return includeFull === true ? all : defaultServedSet(all);
}

function findingLine(f: Finding): string {
  // One finding, one line: a message quoting a schema value may hold a line break.
  return `${f.code}  ${f.tool || "(all tools)"}  ${f.pointer || "-"}  ${f.message.replace(/\s*\n\s*/g, " ")}`;
}

/** Up to this many findings are listed one per line; more are summarised by code (--verbose lists them all). */
const LIST_AT_MOST = 20;
/** Findings shown per code in a summary. */
const EXAMPLES_PER_CODE = 2;

/**
 * Findings by code, most frequent first: how many, in how many tools, and the first few
 * as `findingLine` writes them. The order is stable (count, then code).
 */
export function findingSummary(findings: readonly Finding[], examples = EXAMPLES_PER_CODE): string[] {
  const byCode = new Map<string, Finding[]>();
  for (const finding of findings) byCode.set(finding.code, [...(byCode.get(finding.code) ?? []), finding]);
  const groups = [...byCode].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const width = Math.max(...groups.map(([code]) => code.length));
  const lines: string[] = [];
  for (const [code, group] of groups) {
    const tools = new Set(group.map((f) => f.tool).filter((tool) => tool !== "")).size;
    lines.push(`${code.padEnd(width)}  ${String(group.length).padStart(5)}  ${tools === 0 ? "(all tools)" : `in ${tools} tool${tools === 1 ? "" : "s"}`}`);
    for (const finding of group.slice(0, examples)) lines.push(`    ${findingLine(finding)}`);
    if (group.length > examples) lines.push(`    ... ${group.length - examples} more`);
  }
  return lines;
}

/** `sluice check`: the findings, one per line (or JSON); exit 1 when there are any. */
export async function checkCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("check", args);
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usage("check takes one <pack|module>");
  const p = profileOf(values.provider, values["as-of"]);
  const tools = await servedTools(spec, io.cwd, values["include-full"]);
  const findings = check(tools, p, typeof values.server === "string" ? { server: values.server } : {});
  const summarised = !values.json && values.verbose !== true && findings.length > LIST_AT_MOST;
  if (values.json) io.stdout.write(JSON.stringify(findings) + "\n");
  else if (summarised) io.stdout.write(findingSummary(findings).join("\n") + "\n");
  else if (findings.length > 0) io.stdout.write(findings.map(findingLine).join("\n") + "\n");
  const count = `${findings.length} finding${findings.length === 1 ? "" : "s"} for ${tools.length} tools under ${p.label}`;
  io.stderr.write(summarised ? `${count}, by code above (--verbose lists every one, --json gives them as JSON)\n` : `${count}\n`);
  return findings.length > 0 ? 1 : 0;
}

function nonNegativeInteger(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw usage(`${flag} takes a non-negative integer, got "${String(value)}"`);
  return n;
}

/** fit(), and on a refusal for lossy changes under --verbose, every one of them on stderr before the error line. */
function fitOrExplain(tools: readonly Tool<object>[], p: Profile, verbose: boolean, io: Io, options: FitOptions): FitResult {
  try {
    return fit(tools, p, options);
  } catch (error) {
    if (verbose && error instanceof LossyFitRefusedError) {
      for (const change of error.changes) io.stderr.write(`  lossy: ${describeFitChange(change)}\n`);
    }
    throw error;
  }
}

/**
 * `sluice fit`: writes the fitted tools (as sent: name, description, inputSchema), the
 * reverse name map and the change log to --out. Exit 1 when findings remain that fit
 * cannot change (the file is still written); a refusal is an error (exit 2).
 */
export async function fitCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("fit", args);
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usage("fit takes one <pack|module>");
  if (typeof values.out !== "string") throw usage("fit needs --out <file>");
  const p = profileOf(values.provider, values["as-of"]);
  const unroll = nonNegativeInteger(values.unroll, "--unroll");
  const budget = values["inline-budget"] === undefined ? undefined : Number(values["inline-budget"]);
  if (budget !== undefined && !(budget >= 1)) throw usage(`--inline-budget takes a number of at least 1, got "${String(values["inline-budget"])}"`);
  const tools = await servedTools(spec, io.cwd, values["include-full"]);
  const result = fitOrExplain(tools, p, values.verbose === true, io, {
    allowLossy: values["allow-lossy"] === true,
    ...(unroll === undefined ? {} : { unroll }),
    ...(budget === undefined ? {} : { inlineBudget: budget }),
    ...(typeof values.server === "string" ? { server: values.server } : {}),
  });
  const document = {
    provider: p.id,
    ...(p.since ? { limitsSince: p.since } : {}),
    tools: result.tools.map((t) => t.toJSON()),
    nameMap: result.nameMap,
    changes: result.changes,
    remaining: result.remaining,
  };
  const file = resolve(io.cwd, values.out);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(document, null, 2) + "\n");
  const lossy = result.changes.filter((c) => c.kind === "lossy").length;
  if (values.json) {
    io.stdout.write(JSON.stringify({ out: file, tools: result.tools.length, lossless: result.changes.length - lossy, lossy, remaining: result.remaining }) + "\n");
    return result.remaining.length > 0 ? 1 : 0;
  }
  io.stderr.write(
    `wrote ${values.out} (${result.tools.length} tools, ${result.changes.length - lossy} lossless and ${lossy} lossy changes, ${result.remaining.length} remaining finding${result.remaining.length === 1 ? "" : "s"})\n`,
  );
  for (const change of result.changes.filter((c) => c.kind === "lossy")) io.stderr.write(`  lossy: ${change.tool}: ${change.message}\n`);
  if (result.remaining.length > 0) io.stdout.write(result.remaining.map(findingLine).join("\n") + "\n");
  return result.remaining.length > 0 ? 1 : 0;
}
