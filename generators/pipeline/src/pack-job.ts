/**
 * A config entry as the pipeline runs it: paths resolved from the config's folder, the line
 * that regenerates it (written into every generated header), and, for an MCP pack, what the
 * live server lists now.
 */
import { join, resolve } from "node:path";
import type { PackJob } from "./build-pack.ts";
import type { PackConfig } from "./config.ts";

/** Where an MCP pack keeps the snapshot of its server, inside the pack. */
export const SNAPSHOT_PATH = "spec/tools.snapshot.json";

/** One config entry, read from `configDir` (the config file's folder; `configFile` is its name, for the regenerate line). */
export function packJob(pack: PackConfig, configDir: string, configFile: string): PackJob {
  const { spec, ...rest } = pack;
  const out = resolve(configDir, pack.out);
  return {
    ...rest,
    // A config has exactly one of spec and mcp (validateConfig holds it).
    spec: spec === undefined ? join(out, SNAPSHOT_PATH) : resolve(configDir, spec),
    ...(pack.mcp === undefined ? {} : { kind: "mcp" as const, configDir }),
    out,
    regenerate: `sluice generate ${pack.name} (pack "${pack.name}" of ${configFile.split(/[\\/]/).pop()})`,
  };
}

/** Lists the job's MCP server (a started child is always stopped) and carries the snapshot it gives. */
export async function withLiveSnapshot(job: PackJob, options: { timeoutMs?: number } = {}): Promise<PackJob> {
  const mcp = await import("@sluice/mcp-client");
  const source = job.mcp!;
  // A stdio command runs in the config's folder (or the folder sluice was asked from), not in
  // whatever the process's own cwd is: the pipeline may run inside another program (a test, an editor).
  const connect = "command" in source && job.configDir !== undefined ? { ...source, cwd: resolve(job.configDir, source.cwd ?? ".") } : source;
  const snapshot = await mcp.listMcpTools(connect, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  return { ...job, liveSnapshot: mcp.formatSnapshot(snapshot) };
}
