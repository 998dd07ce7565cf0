import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, relative, resolve } from "node:path";
import { readUsageStore, toolsNamedIn, usageReport, type PackUsage, type UsageReport } from "@sluice/catalog/usage";
import type { CacheProvider } from "@sluice/catalog";
import { SluiceError } from "@sluice/schema";
import { parseCommand, stringOption, usageError } from "./args.ts";
import { CONFIG_FILES, type PackConfig } from "./config.ts";
import { excludeToolsEdit, type ExcludeRequest } from "./exclude-tools-edit.ts";
import type { Io } from "./io.ts";
import { loadConfig } from "./load-config.ts";
import { resolvePack } from "./resolve-pack.ts";
import { configIn, packKey, usageLocationOfConfig, usageLocationOfPack } from "./usage-location.ts";

/** The config entry that removes one suggested tool. */
interface ConfigEntry {
  /** The config file, relative to cwd. */
  file: string;
  index: number;
  pack: string;
  /** The tool's name as generated (before toolPrefix and renames), which exclude.tools takes. */
  generated: string;
  /** The entry as it reads in the file. */
  entry: string;
}

interface Target {
  store: string;
  anchor: string;
  keys: string[];
  config: { file: string; packs: readonly PackConfig[]; dir: string } | undefined;
  /** Pack key -> index in the config's packs. */
  indexByKey: Map<string, number>;
}

function integer(values: Readonly<Record<string, unknown>>, flag: string, min: number): number | undefined {
  const value = values[flag];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || !Number.isInteger(n) || n < min) throw usageError("usage", `--${flag} takes an integer of at least ${min}, got "${String(value)}"`);
  return n;
}

const PROVIDERS: readonly CacheProvider[] = ["anthropic", "bedrock", "openai", "gemini"];

async function targetOf(given: string, cwd: string, usageDir: string | undefined): Promise<Target> {
  const path = resolve(cwd, given);
  const asConfig = existsSync(path) && statSync(path).isDirectory() ? configIn(path) : (CONFIG_FILES as readonly string[]).includes(basename(path)) ? path : undefined;
  if (asConfig !== undefined) {
    const { config, dir, file } = await loadConfig(cwd, asConfig);
    const location = usageLocationOfConfig(file, cwd, usageDir);
    const keys = config.packs.map((pack) => packKey(dir, resolve(dir, pack.out)));
    return { store: location.dir, anchor: location.anchor, keys, config: { file, packs: config.packs, dir }, indexByKey: new Map(keys.map((key, index) => [key, index])) };
  }
  const { file } = resolvePack(given, cwd);
  const location = usageLocationOfPack(file, cwd, usageDir);
  let config: Target["config"];
  const indexByKey = new Map<string, number>();
  if (location.config !== undefined) {
    const loaded = await loadConfig(cwd, location.config);
    config = { file: loaded.file, packs: loaded.config.packs, dir: loaded.dir };
    loaded.config.packs.forEach((pack, index) => {
      if (packKey(loaded.dir, resolve(loaded.dir, pack.out)) === location.pack) indexByKey.set(location.pack, index);
    });
  }
  return { store: location.dir, anchor: location.anchor, keys: [location.pack], config, indexByKey };
}

/** The generated name of a served (wire) name: a `tools` rename undone, else toolPrefix taken off. */
function generatedName(pack: PackConfig, wire: string): string {
  for (const [generated, choice] of Object.entries(pack.tools ?? {})) if (choice.name === wire) return generated;
  const prefix = pack.toolPrefix ?? "";
  return prefix !== "" && wire.startsWith(prefix) ? wire.slice(prefix.length) : wire;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

function num(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "never";
}

function weeks(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(1)} weeks` : "never";
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ").trimEnd());
}

function formatPack(pack: PackUsage, report: UsageReport, entries: ReadonlyMap<string, ConfigEntry>, excluded: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  if (pack.sessions === 0) return [`pack ${pack.pack}: no sessions recorded`];
  const latest = pack.latest!;
  lines.push(
    `pack ${pack.pack}: ${plural(pack.sessions, "session")} from ${pack.firstSession} to ${pack.lastSession} (${pack.spanDays.toFixed(1)} days, ${pack.sessionsPerWeek.toFixed(1)} a week); ` +
      `latest declared set ${plural(latest.tools, "tool")}, ${plural(latest.tokens, "token")}, ${latest.digest.slice(0, 19)} (${plural(pack.declaredSets, "distinct set")})`,
  );
  const rows = [["tool", "declared", "invoked", "calls", "tokens"], ...pack.tools.map((tool) => [`${tool.name}${tool.current ? "" : excluded.has(tool.name) ? " (excluded)" : " (no longer served)"}`, String(tool.sessionsDeclared), String(tool.sessionsInvoked), String(tool.calls), String(tool.tokens)])];
  lines.push(...table(rows).map((line) => `  ${line}`));
  const { criteria } = report;
  if (pack.suggestions.length === 0) {
    lines.push(`  nothing to remove: no served tool was declared in ${criteria.minSessions}+ sessions over ${criteria.minDays}+ days and never invoked`);
  } else {
    lines.push(`  remove (declared in ${criteria.minSessions}+ sessions over ${criteria.minDays}+ days, invoked in none; ${criteria.provider} cache: write ${criteria.write}x, read ${criteria.read}x, ${criteria.turns} turns a session):`);
    for (const s of pack.suggestions) {
      lines.push(`    ${s.tool}: ${plural(s.tokens, "token")}, ${s.sessionsDeclared} sessions over ${s.spanDays.toFixed(1)} days; saves ${num(s.weeklySaving)} a week; re-anchoring costs ${num(s.reanchorCost)} once; pays back in ${weeks(s.paybackWeeks)}`);
      const entry = entries.get(s.tool);
      lines.push(`      ${entry === undefined ? "no sluice.config entry for this pack: remove the tool from the module you serve" : `${entry.file} packs[${entry.index}] (${entry.pack}): ${entry.entry}`}`);
    }
    const total = pack.total!;
    lines.push(`  all ${pack.suggestions.length}: ${plural(total.tokens, "token")}; save ${num(total.weeklySaving)} a week; re-anchoring costs ${num(total.reanchorCost)} once; pays back in ${weeks(total.paybackWeeks)} (input-token equivalents)`);
  }
  for (const kept of pack.kept) lines.push(`  kept ${kept.tool}: ${kept.reason}`);
  return lines;
}

export async function usageCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("usage", args);
  if (positionals.length !== 1) throw usageError("usage", "usage takes one <pack|config>");
  const minSessions = integer(values, "min-sessions", 1);
  const minDays = integer(values, "min-days", 0);
  const turns = integer(values, "turns", 1);
  const provider = stringOption(values, "provider");
  if (provider !== undefined && !(PROVIDERS as readonly string[]).includes(provider)) throw usageError("usage", `--provider takes ${PROVIDERS.join(", ")}, got "${provider}"`);

  const target = await targetOf(positionals[0]!, io.cwd, stringOption(values, "usage-dir"));
  const reading = readUsageStore(target.store, target.anchor);
  const keys = new Set(target.keys);
  const records = reading.records.filter((record) => keys.has(record.pack));
  const otherPacks = new Set(reading.records.filter((record) => !keys.has(record.pack)).map((record) => record.pack));

  // Tools a prompt names stay, whatever their use.
  const protect = new Map<string, string>();
  const names = [...new Set(records.flatMap((record) => Object.keys(record.declared.tools)))].sort();
  for (const prompt of (values.prompt as string[] | undefined) ?? []) {
    const path = resolve(io.cwd, prompt);
    if (!existsSync(path) || !statSync(path).isFile()) throw new SluiceError("FILE_NOT_FOUND", `--prompt ${prompt}: no such file (${path}).`);
    for (const name of toolsNamedIn(readFileSync(path, "utf8"), names)) if (!protect.has(name)) protect.set(name, `named in ${prompt}`);
  }
  const report = usageReport(records, {
    ...(minSessions === undefined ? {} : { minSessions }),
    ...(minDays === undefined ? {} : { minDays }),
    ...(turns === undefined ? {} : { turns }),
    ...(provider === undefined ? {} : { provider: provider as CacheProvider }),
    protect,
    packs: target.keys,
  });

  // The config entry of each suggestion; a tool the config already excludes is not suggested again.
  const configFile = target.config === undefined ? undefined : relative(io.cwd, target.config.file) || target.config.file;
  const entriesByPack = new Map<string, Map<string, ConfigEntry>>();
  const excludedByPack = new Map<string, Set<string>>();
  const packs = report.packs.map((pack) => {
    const index = target.indexByKey.get(pack.pack);
    const config = index === undefined ? undefined : target.config!.packs[index]!;
    const excluded = new Set(config?.exclude?.tools ?? []);
    const entries = new Map<string, ConfigEntry>();
    const suggestions = pack.suggestions.filter((s) => config === undefined || !excluded.has(generatedName(config, s.tool)));
    if (config !== undefined) {
      for (const s of suggestions) {
        const generated = generatedName(config, s.tool);
        entries.set(s.tool, { file: configFile!, index: index!, pack: config.name, generated, entry: `exclude: { tools: [${JSON.stringify(generated)}] }` });
      }
    }
    entriesByPack.set(pack.pack, entries);
    excludedByPack.set(pack.pack, new Set([...pack.tools.map((t) => t.name)].filter((name) => config !== undefined && excluded.has(generatedName(config, name)))));
    return { ...pack, suggestions };
  });
  const shown: UsageReport = { ...report, packs };
  const store = relative(io.cwd, target.store) || ".";

  let applied: { file: string; changes: string[] } | undefined;
  if (values.apply) {
    const requests: ExcludeRequest[] = [];
    for (const pack of packs) {
      const entries = [...entriesByPack.get(pack.pack)!.values()];
      if (pack.suggestions.length > 0 && entries.length === 0) {
        throw new SluiceError("USAGE_NO_CONFIG", `--apply: no sluice.config holds the pack ${pack.pack} (looked for one above it and above ${io.cwd}); remove its tools from the module you serve, or generate it from a config.`);
      }
      // By name, so the config reads the same whatever the savings' order.
      if (entries.length > 0) requests.push({ index: entries[0]!.index, pack: entries[0]!.pack, tools: entries.map((entry) => entry.generated).sort() });
    }
    if (requests.length > 0) {
      const file = target.config!.file;
      const before = readFileSync(file, "utf8");
      const edit = await excludeToolsEdit(file, before, requests);
      if (edit.text !== before) writeFileSync(file, edit.text);
      applied = { file: configFile!, changes: edit.changes };
    } else {
      applied = { file: configFile ?? "", changes: [] };
    }
  }

  if (values.json) {
    const json = {
      store,
      criteria: shown.criteria,
      packs: packs.map((pack) => ({ ...pack, suggestions: pack.suggestions.map((s) => ({ ...s, paybackWeeks: Number.isFinite(s.paybackWeeks) ? s.paybackWeeks : null, config: entriesByPack.get(pack.pack)!.get(s.tool) ?? null })) })),
      skipped: reading.skipped,
      ...(applied === undefined ? {} : { applied }),
    };
    io.stdout.write(JSON.stringify(json, null, 2) + "\n");
    return 0;
  }
  const lines = [`usage recorded in ${store}: ${plural(records.length, "session")}${otherPacks.size > 0 ? ` (and ${plural(otherPacks.size, "other pack")} not asked for)` : ""}`];
  if (reading.skipped.length > 0) lines.push(`skipped ${plural(reading.skipped.length, "file")} that are not session records: ${reading.skipped.map((s) => `${s.file} (${s.reason})`).join(", ")}`);
  for (const pack of packs) lines.push(...formatPack(pack, shown, entriesByPack.get(pack.pack)!, excludedByPack.get(pack.pack)!));
  lines.push("Figures are input-token equivalents: multiply by the model's price per input token.");
  if (applied !== undefined) {
    if (applied.changes.length === 0) lines.push("--apply: nothing to change");
    else {
      lines.push(`--apply changed ${applied.file}:`, ...applied.changes.map((change) => `  ${change}`));
      lines.push("Run sluice generate to regenerate the packs (and review the egress map's diff).");
    }
  }
  io.stdout.write(lines.join("\n") + "\n");
  return 0;
}
