import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { CONFIG_FILES } from "../../src/config.ts";
import { main } from "../../src/main.ts";
import { cachedFiles, changedSinceSeen, staleHeldModules } from "../../../../test/support/held-modules.ts";
import { runChild, type ChildResult } from "./run-child.ts";

const BIN = fileURLToPath(new URL("../../bin/sluice.mjs", import.meta.url));
const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * `sluice <args>` run by the CLI's own `main` in the test worker, with stdout, stderr and
 * the exit code captured: what the bin does once it has loaded, without a node child that
 * loads tsx and every source again (about a second of CPU per call, most of what the CLI
 * tests cost). The bin's own behaviours (static --help and --version, signals, pipes,
 * Node's resolution from a project) are tested with real children elsewhere.
 *
 * Only for commands whose modules do not change during the test file: the worker keeps every
 * module it has imported (and vitest keeps the transformed file by path), so a pack rewritten
 * after it was loaded here would be loaded stale. Use runSluice when the file rewrites packs.
 */
export async function runInProcess(args: readonly string[], options: { cwd: string; env?: Record<string, string | undefined>; stdin?: string }): Promise<ChildResult> {
  let stdout = "";
  let stderr = "";
  const saved = new Map<string, string | undefined>();
  // The variables a child would get; restored after, since the worker runs the next test.
  for (const [key, value] of Object.entries(options.env ?? {})) {
    saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    const code = await main(args, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      cwd: options.cwd,
      ...(options.stdin === undefined ? {} : { stdin: Readable.from([options.stdin]) }),
    } as Parameters<typeof main>[1]);
    return { code, stdout, stderr };
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/**
 * For a test that imports a pack's modules itself (not through runSluice): records them as they
 * are on disk now, right after the import, so that a later `generate --check` of that pack can
 * still run in the worker while they stay unchanged. Unrecorded, a held module runSluice never
 * saw counts as changed (it cannot tell what the file was when it was loaded).
 */
export function recordHeldModules(): void {
  staleHeldModules();
}

/** A module this worker loaded has changed on disk since: importing it here would give the old one. */
function workerHoldsStaleModule(): boolean {
  return staleHeldModules().length > 0;
}

/**
 * Commands that may write a module they then load, or have loaded: narrow edits curated.ts
 * and index.ts (suggest --write narrows), and generate rewrites the .gen.ts files it maps
 * right after, which is stale here once the worker holds a module of the project.
 */
function rewritesItsModules(args: readonly string[], cwd: string): boolean {
  // serve runs until stopped and owns the process (signals, stdio): always the bin.
  if (args[0] === "serve" || args[0] === "narrow" || (args[0] === "suggest" && args.includes("--write"))) return true;
  if (args[0] !== "generate" || args.includes("--check")) return false;
  // Its output may lie outside the project (--out): any module outside the repository counts.
  const project = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return cachedFiles().some((file) => file.startsWith(project) || !file.startsWith(REPOSITORY));
}

/** generate's options that take a value (bin/commands.json): the word after one is no pack name. */
const VALUED = new Set(["--name", "--out", "--config", "--format", "--url", "--env", "--header", "--timeout"]);

/**
 * The pack folders `sluice generate <args>` writes and loads modules from: `--out`, else the
 * `out` of the packs of a JSON config in cwd that it names, or of all (none without a config:
 * CONFIG_INVALID before anything loads). Undefined when they cannot be told without running
 * it (a config module, --config, --watch), and the caller keeps to the general rule.
 */
function generateOuts(args: readonly string[], cwd: string): string[] | undefined {
  if (args.includes("--watch") || args.some((arg) => arg.startsWith("--config") || arg.startsWith("--out="))) return undefined;
  const at = args.indexOf("--out");
  if (at >= 0) return args[at + 1] === undefined ? undefined : [resolve(cwd, args[at + 1]!)];
  const config = CONFIG_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
  if (config === undefined) return [];
  if (!config.endsWith(".json")) return undefined;
  let packs: unknown;
  try {
    packs = (JSON.parse(readFileSync(config, "utf8")) as { packs?: unknown }).packs;
  } catch {
    return undefined;
  }
  if (!Array.isArray(packs)) return undefined;
  // `generate ld` runs only the packs it names (an unknown name is PACK_NOT_FOUND before any loads).
  const named = args.slice(1).filter((arg, i, rest) => !arg.startsWith("-") && !VALUED.has(rest[i - 1] ?? ""));
  if (named.length > 0) packs = packs.filter((pack: unknown) => pack !== null && typeof pack === "object" && named.includes((pack as { name?: unknown }).name as string));
  const outs = (packs as unknown[]).map((pack: unknown) => (pack !== null && typeof pack === "object" && typeof (pack as { out?: unknown }).out === "string" ? resolve(cwd, (pack as { out: string }).out) : undefined));
  return outs.every((out) => out !== undefined) ? outs : undefined;
}

/**
 * generate loads modules only from the sluice sources (unchanged during a test) and from the
 * packs it writes: it needs a fresh process only when the worker holds a module of one of
 * them, not whenever some other module changed (a hand edit to another pack earlier in the
 * file). --check writes none of them (a stale pack is mapped from a scratch copy), so only a
 * module of theirs that changed since this worker loaded it, or one loaded outside runSluice.
 */
function generateNeedsChild(outs: readonly string[], check: boolean): boolean {
  return cachedFiles().some((file) => {
    if (!outs.some((out) => file === out || file.startsWith(`${out}/`))) return false;
    if (!check) return true;
    return changedSinceSeen(file);
  });
}

/**
 * `sluice <args>` in the worker when that gives what a fresh process would: no module the
 * worker holds has changed on disk since it was loaded, and the command writes no module it
 * loads. Otherwise (a pack narrowed after it was surveyed here, say) a node child of the bin,
 * as a user runs it. Either way the same { code, stdout, stderr }.
 */
export async function runSluice(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; stdin?: string; timeout: number; execArgv?: readonly string[] },
): Promise<ChildResult & { inProcess: boolean }> {
  const outs = args[0] === "generate" ? generateOuts(args, options.cwd) : undefined;
  const child =
    options.execArgv !== undefined || options.stdin !== undefined || (outs !== undefined ? generateNeedsChild(outs, args.includes("--check")) : rewritesItsModules(args, options.cwd) || workerHoldsStaleModule());
  if (child) {
    const env = options.env === undefined ? process.env : ({ ...process.env, ...options.env } as NodeJS.ProcessEnv);
    return { ...(await runChild([...(options.execArgv ?? []), BIN, ...args], { cwd: options.cwd, env, timeout: options.timeout })), inProcess: false };
  }
  const result = await runInProcess(args, options);
  // Record what this call loaded, as it is now: a later change to it sends later calls to a child.
  workerHoldsStaleModule();
  return { ...result, inProcess: true };
}
