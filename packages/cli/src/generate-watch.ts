/**
 * `sluice generate --watch`: generate, then regenerate whenever a spec or the config
 * changes, saying per pack what changed, the egress map's widenings first. Runs until
 * SIGINT or SIGTERM; an error (a spec that does not parse mid-edit) is printed and the
 * watch goes on.
 *
 * Each round runs `sluice generate` in a child process: the egress map is computed by
 * importing the pack's modules, and a module cache that lived through the last round would
 * map the pack as it was. The parent only watches, diffs the maps and reports.
 */
import { spawn } from "node:child_process";
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkEgressMap, isSluiceError } from "@sluice/core";
import { differenceLines, differenceSummary } from "./egress-report.ts";
import type { Jobs } from "@sluice/pipeline";
import type { Io } from "./io.ts";

/** Editors write a file in several steps (truncate, write, rename): changes closer than this are one change. */
export const WATCH_DEBOUNCE_MS = 150;

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The JSON `sluice generate --json` prints, as far as the watch reads it. */
interface GenerateJson {
  packs: Array<{ name: string; tools: number; out: string; skipped: unknown[]; warnings: string[] }>;
}

function runChild(args: readonly string[], cwd: string): Promise<ChildRun> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => resolveRun({ code: 2, stdout, stderr: `${stderr}sluice: ${error.message}\n` }));
    child.once("close", (code) => resolveRun({ code, stdout, stderr }));
  });
}

/**
 * Watches and regenerates. `args` are the generate arguments without --watch; `jobsOf`
 * reads the config again (the argument makes a module URL the cache has not seen).
 */
export async function watchGenerate(args: readonly string[], jobsOf: (fresh?: string) => Promise<Jobs>, io: Io): Promise<number> {
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
    const run = await runChild(["generate", ...args.filter((arg) => !(configMode && only !== undefined && jobs.some((job) => job.name === arg))), ...positional, "--json"], io.cwd);
    const stamp = new Date().toISOString().slice(11, 19);
    if (run.code !== 0 || run.stdout.trim() === "") {
      const line = run.stderr.split("\n").find((text) => text.startsWith("sluice:")) ?? run.stderr.trim();
      say(`[${stamp}] ${why}: ${line || `generate exited with ${run.code}`}`);
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
    for (const job of jobs) if (job.mcp === undefined && !watched.has(job.spec)) watched.set(job.spec, [...(watched.get(job.spec) ?? []), job.name]);
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
        say(`cannot watch ${relative(io.cwd, dir) || "."}: ${(error as Error).message}`);
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
      await round(why, configMode ? packs : undefined);
    } catch (error) {
      say(`[${new Date().toISOString().slice(11, 19)}] ${why}: ${isSluiceError(error) ? `sluice: ${error.code}: ${error.message.replace(/\s*\n\s*/g, " ")}` : `sluice: ${(error as Error)?.message ?? String(error)}`}`);
      say("  still watching");
    }
  };

  await round("generated", undefined);
  rewatch();
  say(`watching ${[...watched.keys()].map((file) => relative(io.cwd, file) || file).join(", ")} (Ctrl-C stops)`);
  const signal = await new Promise<NodeJS.Signals>((resolveStop) => {
    process.once("SIGINT", resolveStop);
    process.once("SIGTERM", resolveStop);
  });
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  await busy;
  say(`stopped (${signal})`);
  return 0;
}
