import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { checkEgressMap, defaultServedSet, egressMap, formatEgressMap, packSelections, SluiceError, type EgressMapOptions, type EgressToolEntry, type Tool } from "@sluice/core";
import { DefinitionTotals, type SentDefinition } from "@sluice/core/cost";
import type { Encoding } from "@sluice/core/tokens";
import { parseCommand, stringOption, usageError } from "./args.ts";
import { differenceLines, differenceSummary, egressReport, wideningAnnotations } from "./egress-report.ts";
import { annotation, annotationsWanted } from "./github-annotations.ts";
import { findTool, loadTools, pricedSet } from "./load-tools.ts";
import { resolvePack } from "./resolve-pack.ts";
import { currentServedList } from "./stored-list.ts";
import type { Io } from "./io.ts";

function positiveInteger(command: string, value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(command, `${flag} takes a positive integer, got "${String(value)}"`);
  return n;
}

function encodingOf(command: string, value: unknown): Encoding {
  if (value === undefined) return "o200k_base";
  if (value !== "o200k_base" && value !== "cl100k_base") throw usageError(command, `--encoding must be o200k_base or cl100k_base`);
  return value;
}

/** `sluice survey`: tools by schema tokens. */
export async function surveyCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("survey", args);
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usageError("survey", "survey takes one <pack|module>");
  const top = positiveInteger("survey", values.top, "--top");
  const encoding = encodingOf("survey", values.encoding);
  // The served set is what a pack's stored list holds: read it when its key says it is current, else load the pack.
  const definitions = (values["include-full"] === true ? undefined : (currentServedList(spec, io.cwd)?.definitions as SentDefinition[] | undefined)) ?? pricedSet(await loadTools(spec, io.cwd), values["include-full"]);
  const rows = surveyTools(definitions, encoding).slice(0, top ?? Number.POSITIVE_INFINITY);
  if (values.json) io.stdout.write(JSON.stringify(rows) + "\n");
  else io.stdout.write(table(["tokens", "tool"], rows.map((r) => [String(r.tokens), r.tool])));
  return 0;
}

/**
 * Tools by schema tokens, fattest first (ties by name). Each count is `schemaTokens`
 * exactly; the definitions the tools share are tokenized once (DefinitionTotals).
 */
export function surveyTools(tools: readonly SentDefinition[] | readonly Tool<object>[], encoding: Encoding = "o200k_base"): Array<{ tool: string; tokens: number }> {
  const totals = new DefinitionTotals(encoding);
  return tools
    .map((tool) => ({ tool: tool.name, tokens: totals.total(tool) }))
    .sort((a, b) => b.tokens - a.tokens || (a.tool < b.tool ? -1 : 1));
}

/** `sluice paths`: the selectable paths of one tool, optionally priced. */
export async function pathsCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("paths", args);
  const [spec, toolName, prefix] = positionals;
  if (spec === undefined || toolName === undefined || positionals.length > 3) throw usageError("paths", "paths takes <pack|module> <tool> [prefix]");
  const tool = findTool(await loadTools(spec, io.cwd), toolName, spec);
  const depth = positiveInteger("paths", values.depth, "--depth");
  const rows = await tool.paths(prefix, {
    byCost: values["by-cost"] === true,
    encoding: encodingOf("paths", values.encoding),
    ...(depth === undefined ? {} : { depth }),
  });
  if (values.json) io.stdout.write(JSON.stringify(rows) + "\n");
  else if (values["by-cost"]) io.stdout.write(table(["tokens", "path"], rows.map((r) => [String(r.tokens), r.path])));
  else io.stdout.write(rows.map((r) => r.path).join("\n") + "\n");
  if (values["by-cost"] && prefix !== undefined && rows.length > 0 && rows.every((r) => (r.tokens ?? 0) < 0)) {
    io.stderr.write(
      `note: removing any path below ${prefix} alone makes the tool larger: it splits a definition shared with other places.\n` +
        `      Price a type's members everywhere it is reached instead: sluice paths ${spec} ${toolName} <TypeName> --by-cost\n`,
    );
  }
  return 0;
}

/** `sluice egress`: print, write (--out) or check (--check) the egress map, as text or JSON. */
export async function egressCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("egress", args);
  const [spec] = positionals;
  if (spec === undefined || positionals.length > 1) throw usageError("egress", "egress takes one <pack|module>");
  if (values["include-full"] && !values.served) throw usageError("egress", "--include-full applies to --served (without --served, every exported tool is listed)");
  if (typeof values.out === "string" && typeof values.check === "string") throw usageError("egress", "--out and --check exclude each other");
  // Without --served: every exported tool (code can import the *_full twins); with it: what `sluice serve` serves.
  const loaded = await loadTools(spec, io.cwd);
  const mapped = values.served && !values["include-full"] ? defaultServedSet(loaded) : loaded;
  const entries = egressMap(mapped);
  const options: EgressMapOptions = { selections: packSelections(mapped) };
  const json = values.json === true;
  if (typeof values.check === "string") {
    const command = `sluice egress ${spec}${values.served ? " --served" : ""}${values["include-full"] ? " --include-full" : ""}`;
    return checkAgainst(values.check, entries, options, json, io, annotationsWanted(stringOption(values, "format")), command);
  }
  const text = json ? jsonMap(entries) : formatEgressMap(entries, options);
  if (typeof values.out === "string") {
    const file = resolve(io.cwd, values.out);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    io.stderr.write(`wrote ${values.out} (${entries.length} tools)\n`);
    if (values["served-list"] === true) await writeServedList(spec, loaded, io);
  } else {
    io.stdout.write(text);
  }
  return 0;
}

/**
 * The served list of a pack whose hand-written sources just changed (sluice narrow): keyed
 * by its sources as they now are and listing the tools as loaded, the bytes generate writes.
 */
async function writeServedList(spec: string, tools: readonly Tool<object>[], io: Io): Promise<void> {
  const srcDir = dirname(resolvePack(spec, io.cwd).file);
  const { SERVED_LIST_FILE, servedListText } = await import("@sluice/pipeline");
  const file = resolve(srcDir, SERVED_LIST_FILE);
  if (!existsSync(file)) throw usageError("egress", `--served-list rewrites a pack's src/${SERVED_LIST_FILE}, and ${spec} has none (generate writes it)`);
  await writeFile(file, await servedListText(dirname(srcDir), tools));
  io.stderr.write(`wrote src/${SERVED_LIST_FILE}\n`);
}

function jsonMap(entries: readonly EgressToolEntry[]): string {
  return JSON.stringify(entries, null, 2) + "\n";
}

/**
 * Compares the committed map with the current one by what the model can see and send.
 * The committed file may be a text map or a JSON one (`--out --json`); either way both
 * sides are compared as text maps. The report goes to stdout, in text or, with --json, as
 * one JSON object; exit 0 when the file is what --out would write, 1 when it is not.
 */
async function checkAgainst(name: string, entries: readonly EgressToolEntry[], options: EgressMapOptions, json: boolean, io: Io, github: boolean, command: string): Promise<number> {
  const file = resolve(io.cwd, name);
  const committed = await readFile(file, "utf8").catch(() => {
    throw new SluiceError("EGRESS_MAP_CHANGED", `${name} does not exist (${file}); write it with --out ${name}${json ? " --json" : ""}.`);
  });
  const now = formatEgressMap(entries, options);
  let before = committed;
  let written = now;
  if (committed.trimStart().startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(committed);
    } catch {
      throw new SluiceError("EGRESS_MAP_INVALID", `${name} starts like a JSON egress map but does not parse; rewrite it with --out ${name} --json.`);
    }
    if (!Array.isArray(parsed)) throw new SluiceError("EGRESS_MAP_INVALID", `${name} is not a JSON egress map (an array of tools); rewrite it with --out ${name} --json.`);
    before = formatEgressMap(parsed as EgressToolEntry[]);
    written = jsonMap(entries);
  }
  const result = checkEgressMap(before, now, name);
  const upToDate = committed === written;
  const rewrite = `${command} --out ${name}${written === now ? "" : " --json"}`;
  if (json) {
    io.stdout.write(`${JSON.stringify({ check: "egress", ok: upToDate, file: name, tools: entries.length, ...egressReport(result.same ? undefined : result), diff: result.diff }, null, 2)}\n`);
  } else if (upToDate) {
    io.stdout.write(`${name}: up to date (${entries.length} tools)\n`);
  } else {
    io.stdout.write(result.diff);
    io.stdout.write(differenceLines(result));
    io.stdout.write(`${name}: OUT OF DATE: ${result.same ? "the same map in another format" : differenceSummary(result)}; review it, then rewrite it with ${rewrite}\n`);
  }
  if (github && !upToDate) {
    io.stdout.write(annotation("error", name, `${name} differs from the current tools: review the diff in the log, then rewrite it with ${rewrite}.`, "egress map out of date"));
    io.stdout.write(wideningAnnotations(result, name));
  }
  return upToDate ? 0 : 1;
}

/** A right-aligned first column and a left-aligned second one. */
export function table(header: [string, string], rows: Array<[string, string]>): string {
  const width = Math.max(header[0].length, ...rows.map((r) => r[0].length));
  return [header, ...rows].map(([a, b]) => `${a.padStart(width)}  ${b}`).join("\n") + "\n";
}
