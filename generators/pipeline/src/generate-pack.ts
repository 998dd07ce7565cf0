/**
 * The code API of `sluice generate`: every pack of a config, built by the pipeline and
 * written by its one writer, the same bytes the command writes.
 *
 *   import { generatePack } from "@sluice/pipeline";
 *   await generatePack({ packs: [{ name: "store", spec: "specs/petstore.yaml", out: "packs/store", readOnly: true }] }, { cwd: here });
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SluiceError } from "@sluice/schema";
import { buildPack, type PackReport } from "./build-pack.ts";
import type { SluiceConfig } from "./config.ts";
import { packJob, withLiveSnapshot } from "./pack-job.ts";
import { validateConfig } from "./validate-config.ts";
import { writePackFiles } from "./write-pack-files.ts";

export interface GeneratePackOptions {
  /** The folder the config's paths are relative to (default: the current directory). */
  cwd?: string;
  /** The config file's name, for the line each generated header gives to regenerate (default `sluice.config.ts`). */
  configFile?: string;
  /** Only the packs of these names (default: every one). */
  only?: readonly string[];
  /** How long an MCP server may take to list its tools. */
  timeoutMs?: number;
  /** Progress, one label per step. */
  step?: (label: string) => void;
  /** The egress map of a pack whose hand-written files were edited (default: its `src/index.ts` imported, which needs a TypeScript-capable Node or loader). */
  mapFromDisk?: (dir: string) => Promise<string>;
}

export interface GeneratePackResult {
  report: PackReport;
  written: string[];
  scaffolded: string[];
}

/** Every pack of `config` (checked as sluice generate checks a config file: CONFIG_INVALID naming the place), written under `cwd`. */
export async function generatePack(given: SluiceConfig, options: GeneratePackOptions = {}): Promise<GeneratePackResult[]> {
  const cwd = options.cwd ?? process.cwd();
  const configFile = options.configFile ?? "sluice.config.ts";
  const config = validateConfig(given, configFile, cwd);
  const known = config.packs.map((pack) => pack.name);
  const unknown = (options.only ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new SluiceError("PACK_NOT_FOUND", `the config has no pack named ${unknown.join(", ")}.`, { candidates: known });
  const results: GeneratePackResult[] = [];
  for (const pack of config.packs) {
    if (options.only !== undefined && !options.only.includes(pack.name)) continue;
    const planned = packJob(pack, cwd, configFile);
    const job = planned.mcp === undefined ? planned : await withLiveSnapshot(planned, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    const built = await buildPack(job, pipelineVersion(), options.step);
    const { written, scaffolded } = await writePackFiles(built, job, { mapFromDisk: options.mapFromDisk ?? importedPackMap, ...(options.step === undefined ? {} : { step: options.step }) });
    results.push({ report: built.report, written, scaffolded });
  }
  return results;
}

/** The version of the sluice packages this pipeline belongs to (they are released together): what a new pack's package.json asks of @sluice/core. */
export function pipelineVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

async function importedPackMap(dir: string): Promise<string> {
  const { egressMap, formatEgressMap, packSelections } = await import("@sluice/core");
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as Record<string, unknown>;
  } catch (error) {
    throw new SluiceError("IMPORT_FAILED", `${dir}: its hand-written files were edited, so its egress map needs the pack loaded, and src/index.ts did not load (${(error as Error).message}); run under a TypeScript loader, or pass mapFromDisk.`);
  }
  const tools = (module["allTools"] ?? module["tools"]) as Parameters<typeof egressMap>[0] | undefined;
  if (!Array.isArray(tools)) throw new SluiceError("IMPORT_FAILED", `${dir}/src/index.ts exports neither allTools nor tools.`);
  return formatEgressMap(egressMap(tools), { selections: packSelections(tools) });
}
