import { existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DEFAULT_USAGE_DIR } from "@sluice/catalog/usage";
import { SluiceError } from "@sluice/schema";
import { CONFIG_FILES } from "./config.ts";

/**
 * Where usage is recorded, and under which pack key. The store is `.sluice/usage/` in the
 * project folder: the folder of the nearest sluice.config above the pack's module (else
 * above the current folder), else the pack's own folder (its package.json). `--usage-dir`
 * (or SLUICE_USAGE_DIR) puts it elsewhere. A pack is keyed by its folder relative to the
 * project, so `sluice usage` finds a config's packs by their `out`.
 */
export interface UsageLocation {
  /** The store folder. */
  dir: string;
  /** The project folder: links on the way to the store must stay inside it. */
  anchor: string;
  /** The pack key the sessions are recorded under. */
  pack: string;
  /** The config file of the project, when there is one. */
  config: string | undefined;
}

export const USAGE_ENV = { dir: "SLUICE_USAGE_DIR", off: "SLUICE_USAGE", now: "SLUICE_USAGE_NOW" } as const;

/** The config file in `dir`, the first of CONFIG_FILES there. */
export function configIn(dir: string): string | undefined {
  return CONFIG_FILES.map((name) => join(dir, name)).find((path) => existsSync(path));
}

function configAbove(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const found = configIn(dir);
    if (found !== undefined) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The folder of a pack's module: the nearest folder up from it with a package.json, else the module's own folder. */
function packDirOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

/** `a/b` from the project to the pack, `.` for the project itself; `/` on every platform. */
export function packKey(anchor: string, packDir: string): string {
  const rel = relative(anchor, packDir).split(sep).join("/");
  return rel === "" ? "." : rel;
}

function override(given: string | undefined, cwd: string): string | undefined {
  const value = given ?? process.env[USAGE_ENV.dir]?.trim();
  return value === undefined || value === "" ? undefined : resolve(cwd, value);
}

/** The location for a served pack (its module file). */
export function usageLocationOfPack(file: string, cwd: string, given: string | undefined): UsageLocation {
  const config = configAbove(dirname(file)) ?? configAbove(cwd);
  const packDir = packDirOf(file);
  const anchor = config === undefined ? packDir : dirname(config);
  const chosen = override(given, cwd);
  return { dir: chosen ?? join(anchor, DEFAULT_USAGE_DIR), anchor: chosen === undefined ? anchor : dirname(chosen), pack: packKey(anchor, packDir), config };
}

/** The location for a config file's packs. */
export function usageLocationOfConfig(config: string, cwd: string, given: string | undefined): Omit<UsageLocation, "pack"> {
  const anchor = dirname(config);
  const chosen = override(given, cwd);
  return { dir: chosen ?? join(anchor, DEFAULT_USAGE_DIR), anchor: chosen === undefined ? anchor : dirname(chosen), config };
}

/** Whether recording is switched off: `--no-usage`, or SLUICE_USAGE=off (also 0, false, no). */
export function usageOff(flag: unknown): boolean {
  if (flag === true) return true;
  const value = process.env[USAGE_ENV.off]?.trim().toLowerCase();
  return value === "off" || value === "0" || value === "false" || value === "no";
}

/**
 * SLUICE_USAGE_NOW: the start time every session of this process records, ISO 8601. A test
 * hook (recorded sessions spread over days without waiting for them); unset, the clock.
 */
export function usageNow(): Date | undefined {
  const value = process.env[USAGE_ENV.now]?.trim();
  if (value === undefined || value === "") return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw new SluiceError("INVALID_OPTION", `${USAGE_ENV.now} must be an ISO 8601 time such as 2026-01-05T09:00:00Z, not ${JSON.stringify(value.slice(0, 40))}.`);
  }
  return date;
}
