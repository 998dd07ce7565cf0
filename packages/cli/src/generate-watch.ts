/**
 * `sluice generate --watch`: generate, then regenerate whenever a spec or the config
 * changes, saying per pack what changed, the egress map's widenings first. Runs until
 * SIGINT or SIGTERM; an error (a spec that does not parse mid-edit) is printed and the
 * watch goes on.
 *
 * Each round runs `sluice generate` in a child process: the egress map is computed by
 * importing the pack's modules, and a module cache that lived through the last round would
 * map the pack as it was. The parent only watches, diffs the maps and reports.
 *
 * A round is bounded (`--watch-timeout`): a generation that does not finish (a FIFO as the
 * spec waits for a writer forever) is stopped, reported as TIMEOUT, and the next edit starts
 * the next round. A spec that is a symbolic link is watched where it points, too: editors
 * and generators write the target, and the link's own folder sees nothing of that.
 */
import { spawn } from "node:child_process";
import { realpathSync, watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkEgressMap, isSluiceError } from "@sluice/core";
import { differenceLines, differenceSummary } from "./egress-report.ts";
import type { Jobs } from "@sluice/pipeline";
import type { Io } from "./io.ts";

/** Editors write a file in several steps (truncate, write, rename): changes closer than this are one change. */
export const WATCH_DEBOUNCE_MS = 150;
/** How long one round may take by default: a Stripe-sized spec generates in well under a minute. */
export const WATCH_ROUND_TIMEOUT_MS = 120_000;

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Stopped because it ran past the round's time. */
  timedOut: boolean;
}

/** The JSON `sluice generate --json` prints, as far as the watch reads it. */
interface GenerateJson {
  packs: Array<{ name: string; tools: number; out: string; skipped: unknown[]; warnings: string[] }>;
}

/** The running round's child, stopped with its own children (an MCP server it started) when the round times out or the watch stops. */
let running: ReturnType<typeof spawn> | undefined;

function stopChild(child: ReturnType<typeof spawn>): void {
  try {
    // Its own process group (detached): the group is stopped, not only the child.
    if (process.platform !== "win32" && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

function runChild(args: readonly string[], cwd: string, timeoutMs: number): Promise<ChildRun> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: process.env, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
    running = child;
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopChild(child);
    }, timeoutMs);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    let settled = false;
    const done = (run: Omit<ChildRun, "timedOut">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (running === child) running = undefined;
      resolveRun({ ...run, timedOut });
    };
    child.once("error", (error) => done({ code: 2, stdout, stderr: `${stderr}sluice: INTERNAL_ERROR: ${error.message}\n` }));
    child.once("close", (code) => done({ code, stdout, stderr }));
    // A stopped round ends when the child does: a process that left the group could hold its pipes open, and "close" would never come.
    child.once("exit", (code) => {
      if (timedOut) done({ code, stdout, stderr });
    });
  });
}

export interface WatchOptions {
  /** The longest one round may take (default WATCH_ROUND_TIMEOUT_MS). */
  roundTimeoutMs?: number;
  /** Stops the watch as SIGINT does (for a program that runs the watch inside itself). */
  stop?: AbortSignal;
}

/**
 * Watches and regenerates. `args` are the generate arguments without --watch; `jobsOf`
 * reads the config again (the argument makes a module URL the cache has not seen).
 */
export async function watchGenerate(args: readonly string[], jobsOf: (fresh?: string) => Promise<Jobs>, io: Io, options: WatchOptions = {}): Promise<number> {
  const roundTimeoutMs = options.roundTimeoutMs ?? WATCH_ROUND_TIMEOUT_MS;
  const say = (line: string) => io.stdout.write(`${line}\n`);
  let rounds = 0;
  let jobs: Jobs = await jobsOf();
  const configMode = jobs.configFile !== undefined;

  /** One round: regenerate the named packs (all when `only` is undefined) and report. */
  const round = async (why: string, only: readonly string[] | undefined): Promise<void> => {
    const selected = only === undefined ? jobs : jobs.filter((job) => only.includes(job.name));
    const mapFile = (out: string) => join(out, "egress_map.txt");
    const before = new Map<string, string | undefined>();
    for (const job of selected) before.set(job.name, await readFile(mapFile(job.out), "utf8").catch(() => undefined));
    // In config mode only the packs whose spec changed are regenerated (the config's other packs are untouched).
    const positional = configMode && only !== undefined ? only : [];
    const run = await runChild(["generate", ...args.filter((arg) => !(configMode && only !== undefined && jobs.some((job) => job.name === arg))), ...positional, "--json"], io.cwd, roundTimeoutMs);
    const stamp = new Date().toISOString().slice(11, 19);
    if (run.timedOut) {
      say(`[${stamp}] ${why}: sluice: TIMEOUT: generate did not finish within ${roundTimeoutMs / 1000} s and was stopped (a spec that is a FIFO or a device waits for a writer; --watch-timeout MS gives a slow spec longer); the next edit starts a new round`);
      say("  still watching");
      return;
    }
    if (run.code !== 0 || run.stdout.trim() === "") {
      const line = run.stderr.split("\n").find((text) => text.startsWith("sluice:")) ?? run.stderr.trim();
      // Every line says a code: a child that died without one (a signal, a crash before main) is reported as such.
      const coded = /^sluice: [A-Z][A-Z0-9_]*: /.test(line) ? line : `sluice: INTERNAL_ERROR: ${line.replace(/^sluice: /, "") || `generate exited with ${run.code ?? "a signal"}`}`;
      say(`[${stamp}] ${why}: ${coded}`);
      say("  still watching");
      return;
    }
    const report = JSON.parse(run.stdout) as GenerateJson;
    say(`[${stamp}] ${why}`);
    for (const pack of report.packs) {
      const job = selected.find((entry) => entry.name === pack.name);
      const previous = job === undefined ? undefined : before.get(job.name);
      const now = job === undefined ? undefined : await readFile(mapFile(job.out), "utf8").catch(() => undefined);
      const where = job === undefined ? pack.out : relative(io.cwd, job.out) || ".";
      const skipped = pack.skipped.length === 0 ? "" : `, ${pack.skipped.length} skipped`;
      if (previous === undefined || now === undefined) {
        say(`  ${pack.name}: ${pack.tools} tools${skipped} -> ${where} (new egress map)`);
        continue;
      }
      const map = checkEgressMap(previous, now, relative(io.cwd, mapFile(job!.out)));
      say(`  ${pack.name}: ${pack.tools} tools${skipped} -> ${where}; egress_map.txt: ${map.same ? "unchanged" : differenceSummary(map)}`);
      if (!map.same) for (const line of differenceLines(map).trimEnd().split("\n")) say(`    ${line}`);
      for (const warning of pack.warnings) say(`    warning: ${warning}`);
    }
  };

  const watchers: FSWatcher[] = [];
  /** Files to watch -> the packs they feed (undefined: every pack, for the config). */
  let watched = new Map<string, string[] | undefined>();
  const rewatch = () => {
    for (const watcher of watchers.splice(0)) watcher.close();
    watched = new Map();
    if (jobs.configFile !== undefined) watched.set(jobs.configFile, undefined);
    // An MCP pack's "spec" is the snapshot generate itself writes: watching it would loop; its server is not a file.
    for (const job of jobs) {
      if (job.mcp === undefined) for (const file of [job.spec, linkTarget(job.spec)]) if (file !== undefined) watched.set(file, [...new Set([...(watched.get(file) ?? []), job.name])]);
    }
    // Directories, not files: an editor that saves by renaming replaces the file a watch holds.
    const byDir = new Map<string, Set<string>>();
    for (const file of watched.keys()) byDir.set(dirname(file), (byDir.get(dirname(file)) ?? new Set()).add(basename(file)));
    for (const [dir, names] of byDir) {
      try {
        watchers.push(
          watch(dir, (_event, name) => {
            if (name !== null && names.has(name.toString())) changed(join(dir, name.toString()));
          }),
        );
      } catch (error) {
        // Coded like every other line: a folder that is gone is FILE_NOT_FOUND, anything else (no permission, no more watches) INTERNAL_ERROR.
        const code = (error as NodeJS.ErrnoException).code === "ENOENT" ? "FILE_NOT_FOUND" : "INTERNAL_ERROR";
        say(`sluice: ${code}: cannot watch ${relative(io.cwd, dir) || "."} (${(error as Error).message}); edits there are not seen`);
      }
    }
  };

  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();
  const changed = (file: string) => {
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...pending];
      pending = new Set();
      busy = busy.then(() => react(files));
    }, WATCH_DEBOUNCE_MS);
  };
  const react = async (files: readonly string[]): Promise<void> => {
    const names = files.map((file) => relative(io.cwd, file) || file);
    const why = `${names.join(", ")} changed`;
    try {
      if (jobs.configFile !== undefined && files.includes(jobs.configFile)) {
        jobs = await jobsOf(`watch=${++rounds}`);
        rewatch();
        await round(why, undefined);
        return;
      }
      const packs = [...new Set(files.flatMap((file) => watched.get(file) ?? []))];
      // A link may now point elsewhere: watch where it points now.
      if (jobs.some((job) => job.mcp === undefined && linkTarget(job.spec) !== undefined && !watched.has(linkTarget(job.spec)!))) rewatch();
      await round(why, configMode ? packs : undefined);
    } catch (error) {
      say(`[${new Date().toISOString().slice(11, 19)}] ${why}: ${isSluiceError(error) ? `sluice: ${error.code}: ${error.message.replace(/\s*\n\s*/g, " ")}` : `sluice: INTERNAL_ERROR: ${(error as Error)?.message ?? String(error)}`}`);
      say("  still watching");
    }
  };

  // Watching before the first round: an edit made while it runs (or hangs) starts the next one.
  rewatch();
  busy = round("generated", undefined);
  await busy;
  const targets = new Set(jobs.map((job) => (job.mcp === undefined ? linkTarget(job.spec) : undefined)).filter((file) => file !== undefined));
  const shown = [...watched.keys()].filter((file) => !targets.has(file) || jobs.some((job) => job.spec === file));
  const label = (file: string) => {
    const target = linkTarget(file);
    return `${relative(io.cwd, file) || file}${target === undefined || !watched.has(target) ? "" : ` (-> ${relative(io.cwd, target) || target})`}`;
  };
  say(`watching ${shown.map(label).join(", ")} (Ctrl-C stops)`);
  let stopOnSignal: (signal: NodeJS.Signals) => void = () => {};
  const signal = await new Promise<NodeJS.Signals | "stop">((resolveStop) => {
    stopOnSignal = resolveStop;
    process.once("SIGINT", stopOnSignal);
    process.once("SIGTERM", stopOnSignal);
    if (options.stop?.aborted === true) resolveStop("stop");
    options.stop?.addEventListener("abort", () => resolveStop("stop"), { once: true });
  });
  // Only the one that did not fire is left; a watch run inside a program must not leave its listeners behind.
  process.removeListener("SIGINT", stopOnSignal).removeListener("SIGTERM", stopOnSignal);
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  if (running !== undefined) stopChild(running);
  await busy;
  say(signal === "stop" ? "stopped" : `stopped (${signal})`);
  return 0;
}

/** Where a symbolic link finally points, or undefined for a file that is no link (or a link to nothing, yet). */
function linkTarget(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return real === file ? undefined : real;
  } catch {
    return undefined;
  }
}
