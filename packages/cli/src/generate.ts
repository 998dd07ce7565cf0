import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { EgressMapCheck } from "@sluice/core";
import { SluiceError } from "@sluice/schema";
import { parseCommand, stringOption, usageError, type OptionValues } from "./args.ts";
import { cliVersion } from "./commands.ts";
import type { GeneratedPack, Jobs, PackJob, PackReport } from "@sluice/pipeline";
import { packJob, SNAPSHOT_PATH } from "@sluice/pipeline/jobs";
import { differenceLines, differenceSummary, egressReport, wideningAnnotations } from "./egress-report.ts";
import { annotation, annotationsWanted } from "./github-annotations.ts";
import { loadConfig } from "./load-config.ts";
import type { Io } from "./io.ts";
import { packNameProblem, suggestPackName } from "@sluice/pipeline/config-check";
import { upToDateReport, writeStamp } from "./generate-stamp.ts";
import { counted, progressOn } from "./progress.ts";
import type { SnapshotDiff } from "@sluice/mcp-client";


/** One pack's outcome: its report, and what was written or (with --check) found out of date. */
interface PackOutcome extends PackReport {
  written: string[];
  scaffolded: string[];
  /** --check: generated files, spec copy or egress map that differ from what generate would write. */
  changed: string[];
  /** --check: generated files that differ only in their `// Regenerate:` line (made by another command for the same pack): not drift. */
  headerOnly?: { files: string[]; was: string; now: string };
  /** --check of an MCP pack: how the live server differs from the committed snapshot, and whether that blocks (MCP_SNAPSHOT_CHANGED). */
  snapshot?: { blocking: boolean; diff: SnapshotDiff; text: string };
}

/** With --check, the comparison of the committed egress map with the one generate would write. */
interface CheckedPack {
  outcome: PackOutcome;
  map: EgressMapCheck | undefined;
}

/**
 * `sluice generate`:
 *   generate <spec> --name N --out DIR        one pack (kind detected from the file)
 *   generate graphql|openapi <spec> ...       the same, kind given
 *   generate [pack...] [--config FILE]        every pack of sluice.config.* (or the named ones)
 * --check writes nothing and exits 1 when a generated file, the spec copy or the egress
 * map differs from what generate would write.
 */
export async function generateCommand(args: readonly string[], io: Io): Promise<number> {
  // `generate mcp ... -- <command> [args...]`: what follows `--` is the server's command line, not sluice's.
  const dashes = args.indexOf("--");
  const serverCommand = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseCommand("generate", dashes === -1 ? args : args.slice(0, dashes));
  if (serverCommand.length > 0 && positionals[0] !== "mcp") throw usageError("generate", "a command after -- is an MCP server's: sluice generate mcp --name N --out DIR -- <command> [args...]");
  const check = values.check === true;
  const json = values.json === true;
  const watchTimeout = stringOption(values, "watch-timeout");
  if (watchTimeout !== undefined && values.watch !== true) throw usageError("generate", "--watch-timeout bounds each round of --watch; give --watch too");
  if (values.watch === true) {
    if (check || json) throw usageError("generate", `--watch keeps regenerating; it takes neither --check nor --json`);
    const timeoutMs = watchTimeout === undefined ? undefined : Number(watchTimeout);
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw usageError("generate", "--watch-timeout takes milliseconds (a positive integer)");
    const { watchGenerate } = await import("./generate-watch.ts");
    // The rounds run generate without the watch's own flags (a child that watched too would never return).
    const roundArgs = args.filter((arg, i) => arg !== "--watch" && arg !== "-w" && arg !== "--watch-timeout" && args[i - 1] !== "--watch-timeout" && !arg.startsWith("--watch-timeout="));
    return watchGenerate(roundArgs, (fresh) => jobsFrom(values, positionals, io, serverCommand, fresh), io, timeoutMs === undefined ? {} : { roundTimeoutMs: timeoutMs });
  }
  const github = annotationsWanted(stringOption(values, "format"));
  const jobs = await jobsFrom(values, positionals, io, serverCommand);

  const checked: CheckedPack[] = [];
  // A terminal sees which pack and step is under way; each pack's result is printed when
  // that pack is done, not after the last one (JSON is one document, so it waits).
  const progress = progressOn(io.stderr, { quiet: json });
  try {
    for (const [index, job] of jobs.entries()) {
      const label = `${check ? "checking" : "generating"} ${counted(index, jobs.length, job.name)}`;
      const step = (what: string) => progress.step(`${label}: ${what}`);
      const result = await (async (): Promise<CheckedPack> => {
        // An MCP pack's check always lists the server again: the stamp knows the committed
        // snapshot, not what the server serves now, and the lock is about the latter.
        if (check && job.mcp === undefined) {
          step("reading the stamp");
          const known = await upToDateReport(job);
          if (known !== undefined) return { outcome: { ...known, written: [], scaffolded: [], changed: [] }, map: undefined };
        }
        if (job.mcp !== undefined) step("listing the MCP server's tools");
        const live = job.mcp === undefined ? job : await withLiveSnapshot(job, values);
        // Loaded here, not on top: a check the stamp answers never loads the generators.
        const { buildPack } = await import("@sluice/pipeline");
        const pack = await buildPack(live, cliVersion(), step);
        return check ? await checkPack(pack, live, io, step) : { outcome: await writePackFiles(pack, live, io, step), map: undefined };
      })();
      checked.push(result);
      if (!json) {
        progress.clear();
        io.stdout.write(describe(result.outcome, check, io.cwd, result.map, values.verbose === true));
      }
    }
  } finally {
    progress.clear();
  }
  const failed = checked.some(({ outcome }) => outcome.changed.length > 0);
  if (json) {
    const packs = checked.map(({ outcome, map }) => ({ ...outcome, out: relative(io.cwd, outcome.out) || ".", ...(check ? egressReport(map) : {}) }));
    io.stdout.write(`${JSON.stringify({ check, ok: !failed, packs }, null, 2)}\n`);
  }
  if (github) {
    for (const { outcome, map } of checked) {
      for (const change of outcome.changed) {
        // "src/index.ts (missing)": the annotation goes on the file, the note in the message.
        const path = change.replace(/ \(missing\)$/, "");
        io.stdout.write(annotation("error", relative(io.cwd, join(outcome.out, path)), `${change} is out of date: run sluice generate and commit the result.`));
      }
      if (map !== undefined) io.stdout.write(wideningAnnotations(map, relative(io.cwd, join(outcome.out, "egress_map.txt"))));
    }
  }
  return failed ? 1 : 0;
}

/** Lists the job's MCP server (the child always stopped) and carries the snapshot it gives. */
async function withLiveSnapshot(job: PackJob, values: OptionValues): Promise<PackJob> {
  const timeout = stringOption(values, "timeout");
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw usageError("generate", "--timeout takes milliseconds (a positive integer)");
  const pipeline = await import("@sluice/pipeline");
  return pipeline.withLiveSnapshot(job, timeoutMs === undefined ? {} : { timeoutMs });
}

/** `generate mcp --name N --out DIR (--url URL | -- command args...)`, with `--env NAME` and `--header Name=VARIABLE` read from the environment. */
function mcpSourceFrom(values: OptionValues, serverCommand: readonly string[]): NonNullable<PackJob["mcp"]> {
  const url = stringOption(values, "url");
  if ((url === undefined) === (serverCommand.length === 0)) throw usageError("generate", "generate mcp needs the server: --url URL (Streamable HTTP) or -- <command> [args...] (stdio), one of them");
  const list = (key: string): string[] => (Array.isArray(values[key]) ? (values[key] as string[]) : []);
  if (url !== undefined) {
    if (list("env").length > 0) throw usageError("generate", "--env passes variables to a server sluice starts; an HTTP server takes --header Name=VARIABLE");
    const headers: Record<string, { fromEnv: string }> = {};
    for (const entry of list("header")) {
      const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(entry);
      if (match === null) throw usageError("generate", `--header ${entry}: write Name=VARIABLE (the header's value is read from that environment variable)`);
      headers[match[1]!] = { fromEnv: match[2]! };
    }
    return { url, ...(Object.keys(headers).length === 0 ? {} : { headers }) };
  }
  if (list("header").length > 0) throw usageError("generate", "--header is for an HTTP server (--url); a server sluice starts takes --env NAME");
  const env: Record<string, { fromEnv: string }> = {};
  for (const name of list("env")) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw usageError("generate", `--env ${name}: give the name of an environment variable to pass on`);
    env[name] = { fromEnv: name };
  }
  return { command: serverCommand[0]!, args: serverCommand.slice(1), ...(Object.keys(env).length === 0 ? {} : { env }) };
}

/** A shell word as the regenerate line prints it. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

async function jobsFrom(values: OptionValues, positionals: readonly string[], io: Io, serverCommand: readonly string[], fresh?: string): Promise<Jobs> {
  const name = values["name"];
  const out = values["out"];
  if (positionals[0] === "mcp") {
    if (typeof values["config"] === "string") throw usageError("generate", "--config lists packs; give either it or mcp --name --out");
    if (positionals.length !== 1 || typeof name !== "string" || typeof out !== "string") throw usageError("generate", "generate mcp needs --name <name> --out <dir>, then --url URL or -- <command> [args...]");
    const problem = packNameProblem(name);
    if (problem !== undefined) throw usageError("generate", `--name ${problem}`, [suggestPackName(name)]);
    const outDir = resolve(io.cwd, out);
    const mcp = mcpSourceFrom(values, serverCommand);
    const how = "url" in mcp ? `--url ${shellWord(mcp.url)}${Object.entries(mcp.headers ?? {}).map(([header, value]) => ` --header ${shellWord(`${header}=${(value as { fromEnv: string }).fromEnv}`)}`).join("")}` : `${Object.keys(mcp.env ?? {}).map((variable) => `--env ${variable} `).join("")}-- ${[mcp.command, ...(mcp.args ?? [])].map(shellWord).join(" ")}`;
    return [{ spec: join(outDir, SNAPSHOT_PATH), out: outDir, name, kind: "mcp", mcp, configDir: io.cwd, regenerate: `sluice generate mcp --name ${name} --out . ${how}` }];
  }
  const explicitKind = positionals[0] === "graphql" || positionals[0] === "openapi" ? positionals[0] : undefined;
  const specArgs = explicitKind === undefined ? positionals : positionals.slice(1);
  if (typeof name === "string" || typeof out === "string" || explicitKind !== undefined) {
    if (typeof values["config"] === "string") throw usageError("generate", "--config lists packs; give either it or <spec> --name --out");
    if (specArgs.length !== 1 || typeof name !== "string" || typeof out !== "string") throw missingNameOrOut(specArgs, name, out);
    const spec = resolve(io.cwd, specArgs[0]!);
    if (!existsSync(spec)) throw new SluiceError("FILE_NOT_FOUND", `the spec file ${specArgs[0]} does not exist (${spec}).`);
    if (isDirectory(spec)) throw await folderGivenAsSpec(specArgs[0]!, values, io);
    const problem = packNameProblem(name);
    if (problem !== undefined) throw usageError("generate", `--name ${problem}`, [suggestPackName(name)]);
    const outDir = resolve(io.cwd, out);
    // Run from the pack directory, this regenerates from the spec copy the pack carries.
    const regenerate = `sluice generate ${explicitKind === undefined ? "" : `${explicitKind} `}spec/${spec.split(/[\\/]/).pop()} --name ${name} --out .`;
    return [{ spec, out: outDir, name, regenerate, ...(explicitKind === undefined ? {} : { kind: explicitKind }) }];
  }
  // `sluice generate specs/petstore.yaml`: a spec without --name/--out is not a pack name of a config.
  if (positionals.length === 1 && looksLikeSpec(positionals[0]!, io.cwd)) {
    if (isDirectory(resolve(io.cwd, positionals[0]!))) throw await folderGivenAsSpec(positionals[0]!, values, io);
    throw missingNameOrOut(positionals, undefined, undefined);
  }
  const loaded = await loadConfig(io.cwd, typeof values["config"] === "string" ? values["config"] : undefined, fresh);
  const known = loaded.config.packs.map((pack) => pack.name);
  const unknown = positionals.filter((wanted) => !known.includes(wanted));
  if (unknown.length > 0) throw new SluiceError("PACK_NOT_FOUND", `${relative(io.cwd, loaded.file)} has no pack named ${unknown.join(", ")}.`, { candidates: known });
  const configName = relative(io.cwd, loaded.file) || loaded.file;
  const jobs: Jobs = loaded.config.packs.filter((pack) => positionals.length === 0 || positionals.includes(pack.name)).map((pack) => packJob(pack, loaded.dir, configName));
  jobs.configFile = loaded.file;
  return jobs;
}

const SPEC_FILE = /\.(json|ya?ml|graphqls?|gql|sdl)$/i;

/** A file that exists, or a name only a spec file would have (a pack name has no dot or slash). */
function looksLikeSpec(given: string, cwd: string): boolean {
  return SPEC_FILE.test(given) || /[\\/]/.test(given) || (given.includes(".") && existsSync(resolve(cwd, given)));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Files in a folder that could be a spec (not a licence note or a readme). */
function specFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && SPEC_FILE.test(entry.name) && !/^(readme|licen[cs]e)/i.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * A folder where a spec file was expected (`generate --check packs/netlify`): said as such,
 * with the command that works. A pack listed in the config is checked by its name; another
 * pack by the spec copy it carries in spec/, under the name its generated headers give.
 */
async function folderGivenAsSpec(given: string, values: OptionValues, io: Io): Promise<SluiceError> {
  const dir = resolve(io.cwd, given);
  const flags = `${values.check === true ? " --check" : ""}${values.watch === true ? " --watch" : ""}`;
  const isPack = existsSync(join(dir, "egress_map.txt")) || existsSync(join(dir, "spec"));
  if (!isPack) {
    const inside = specFilesIn(dir);
    const shown = inside.length === 0 ? "it holds no spec file" : `it holds ${inside.slice(0, 3).map((file) => join(given, file)).join(", ")}${inside.length > 3 ? "..." : ""}`;
    return usageError("generate", `${given} is a folder, not a spec file (${shown}): sluice generate <spec file> --name <name> --out <dir>`);
  }
  const listed = await loadConfig(io.cwd, typeof values["config"] === "string" ? values["config"] : undefined).then((loaded) => loaded.config.packs.find((pack) => resolve(loaded.dir, pack.out) === dir)?.name, () => undefined);
  if (listed !== undefined) {
    const command = `sluice generate ${listed}${flags}`;
    return usageError("generate", `${given} is a pack folder, not a spec file; the config lists it as pack "${listed}": ${command}`);
  }
  const specs = specFilesIn(join(dir, "spec"));
  const spec = specs.length === 1 ? join(given, "spec", specs[0]!) : join(given, "spec", "<spec file>");
  // The name the pack was generated under, from the line its generated files end their header with.
  const regenerate = (() => {
    try {
      const generated = readdirSync(join(dir, "src")).filter((file) => file.endsWith(".gen.ts")).sort()[0];
      return generated === undefined ? undefined : /^\/\/ Regenerate: (.*)$/m.exec(readFileSync(join(dir, "src", generated), "utf8").slice(0, 2000))?.[1];
    } catch {
      return undefined;
    }
  })();
  const name = /--name (\S+)/.exec(regenerate ?? "")?.[1] ?? /\(pack "([^"]+)"/.exec(regenerate ?? "")?.[1] ?? suggestPackName(basename(dir));
  const command = `sluice generate ${spec} --name ${name} --out ${given}${flags}`;
  return usageError("generate", `${given} is a pack folder, not a spec file; generate from the spec it carries: ${command}`);
}

/** What to add to `generate <spec>`: the whole command, with a name and a folder made from the spec's file name. */
function missingNameOrOut(specArgs: readonly string[], name: unknown, out: unknown): SluiceError {
  if (specArgs.length !== 1) return usageError("generate", specArgs.length === 0 ? "generate needs a spec: sluice generate <spec> --name <name> --out <dir>" : `generate takes one spec, got ${specArgs.length}: ${specArgs.join(" ")}`);
  const spec = specArgs[0]!;
  const base = basename(spec).replace(/\.[^.]*$/, "").replace(/[-_.]?(openapi|swagger|spec|schema|api)[-_.]?(v?\d[\w.]*)?$/i, "") || basename(spec);
  const packName = typeof name === "string" ? name : suggestPackName(base);
  const dir = typeof out === "string" ? out : `packs/${packName}`;
  const missing = [typeof name === "string" ? [] : ["--name (the pack's name)"], typeof out === "string" ? [] : ["--out (the folder it is written to)"]].flat().join(" and ");
  const command = `sluice generate ${spec} --name ${packName} --out ${dir}`;
  return usageError("generate", `generate ${spec} needs ${missing}: ${command}; or list the pack in sluice.config.ts and run sluice generate`);
}

async function writePackFiles(pack: GeneratedPack, job: PackJob, io: Io, step: (label: string) => void): Promise<PackOutcome> {
  const pipeline = await import("@sluice/pipeline");
  const { written, scaffolded, bytes } = await pipeline.writePackFiles(pack, job, { step, mapFromDisk: (dir) => egressMapText(dir, io), toolsFromDisk: async (dir) => (await import("./load-tools.ts")).loadTools(dir, io.cwd) });
  step("recording the stamp");
  // Last, so that it records the files as they now are: --check can then skip generating.
  await writeStamp(job, pack.spec.bytes, pack.report, bytes);
  // The stat cache (outside the pack, in its project's node_modules/.cache): the first serve after this one reads no source.
  await (await import("./stored-list.ts")).recordServedListKey(job.out);
  return { ...pack.report, written, scaffolded, changed: [] };
}

async function checkPack(pack: GeneratedPack, job: PackJob, io: Io, step: (label: string) => void): Promise<CheckedPack> {
  step("comparing files");
  const changed: string[] = [];
  const headerOnly: { files: string[]; was: string; now: string } = { files: [], was: "", now: "" };
  const differs = async (path: string, expected: Uint8Array) => {
    const current = await readFile(join(job.out, path)).catch(() => undefined);
    if (current === undefined || !Buffer.from(expected).equals(current)) changed.push(current === undefined ? `${path} (missing)` : path);
  };
  for (const file of pack.generated) {
    const current = await readFile(join(job.out, file.path), "utf8").catch(() => undefined);
    if (current === file.text) continue;
    // A pack first made by `generate <spec> --name --out` and now listed in the config: the same
    // bytes but for the header's regenerate line, which names the command. Not drift.
    const regenerated = current === undefined ? undefined : onlyRegenerateLineDiffers(current, file.text);
    if (regenerated !== undefined) {
      headerOnly.files.push(file.path);
      headerOnly.was = regenerated.was;
      headerOnly.now = regenerated.now;
    } else changed.push(current === undefined ? `${file.path} (missing)` : file.path);
  }
  if (resolve(job.out, pack.spec.path) !== job.spec || job.liveSnapshot !== undefined) await differs(pack.spec.path, pack.spec.bytes);
  for (const file of pack.scaffolds) if (!existsSync(join(job.out, file.path))) changed.push(`${file.path} (missing)`);
  // The map generate would write, compared with the committed one even when other files are
  // out of date too: a spec edit that widens is named as a widening, not only as drift.
  const committed = await readFile(join(job.out, "egress_map.txt"), "utf8").catch(() => undefined);
  const outcome: PackOutcome = { ...pack.report, written: [], scaffolded: [], changed, ...(headerOnly.files.length === 0 ? {} : { headerOnly }) };
  step("served list");
  // Reported last: `changed` decides below whether the egress map needs the pack regenerated in a copy, and the list is not one of its inputs.
  const listed = await servedListDrift(pack, job, io);
  if (job.liveSnapshot !== undefined) {
    // The lock: the live server against the committed snapshot, by what a model could be made to send.
    const mcp = await import("@sluice/mcp-client");
    const text = await readFile(job.spec, "utf8").catch(() => undefined);
    if (text !== undefined) {
      const diff = mcp.diffSnapshot(mcp.parseSnapshot(text, relative(io.cwd, job.spec)), mcp.parseSnapshot(job.liveSnapshot));
      if (diff.added.length + diff.removed.length + diff.changed.length > 0 || diff.server !== undefined) outcome.snapshot = { blocking: mcp.diffBlocks(diff), diff, text: mcp.formatSnapshotDiff(diff, "    ") };
    }
  }
  if (committed === undefined) {
    changed.push("egress_map.txt (missing)");
    if (listed !== undefined) changed.push(listed);
    return { outcome, map: undefined };
  }
  const { checkEgressMap } = await import("@sluice/core");
  step("egress map");
  const { asScaffolded, generatedEgressMap } = await import("@sluice/pipeline");
  const now = changed.length > 0 ? await regeneratedEgressMap(pack, job, io) : (await asScaffolded(pack, job)) ? await generatedEgressMap(pack) : await egressMapText(job.out, io);
  // By what is served, as `egress --served --check` compares: a curate() drop is the narrowing it is, its *_full twin no widening.
  const map = checkEgressMap(committed, now, relative(io.cwd, join(job.out, "egress_map.txt")), { served: true });
  if (!map.same) changed.push("egress_map.txt");
  if (listed !== undefined) changed.push(listed);
  return { outcome, map: map.same ? undefined : map };
}

/** The two `// Regenerate:` lines when `committed` and `generated` differ in that header line and nowhere else. */
function onlyRegenerateLineDiffers(committed: string, generated: string): { was: string; now: string } | undefined {
  // The header is the file's first lines (generatedHeader); the line is looked for there only.
  const line = /^((?:\/\/[^\n]*\n){0,4}?)\/\/ Regenerate: ([^\n]*)\n/;
  const was = line.exec(committed);
  const now = line.exec(generated);
  if (was === null || now === null || was[2] === now[2] || was[1] !== now[1]) return undefined;
  return committed.slice(was[0].length) === generated.slice(now[0].length) ? { was: was[2]!, now: now[2]! } : undefined;
}

/**
 * Whether the pack's served list (src/served-tools.gen.json) is the one generate would write:
 * undefined when it is, else the name to report. Its key covers every file of src/, so when
 * a source generate would rewrite differs, the key does, and the list is out of date without
 * loading anything; when the key matches, the list is compared with the one the pack as loaded
 * gives (a change of sluice's own MCP definitions is drift too).
 */
async function servedListDrift(pack: GeneratedPack, job: PackJob, io: Io): Promise<string | undefined> {
  const pipeline = await import("@sluice/pipeline");
  const list = await import("@sluice/catalog/served-list");
  const path = `src/${pipeline.SERVED_LIST_FILE}`;
  const committed = await readFile(join(job.out, path), "utf8").catch(() => undefined);
  if (committed === undefined) return `${path} (missing)`;
  const overlay = new Map<string, Uint8Array>();
  for (const file of [...pack.generated, ...pack.scaffolds.filter((scaffold) => !existsSync(join(job.out, scaffold.path)))]) {
    if (file.path.startsWith("src/")) overlay.set(file.path.slice(4), Buffer.from(file.text, "utf8"));
  }
  const parsed = list.parseServedList(committed);
  if (parsed === undefined) return path;
  if (parsed.digest !== null) {
    const files = list.packSourceFiles(join(job.out, "src"));
    for (const [name, bytes] of overlay) files.set(name, bytes);
    if (list.servedListDigest(files, list.packCoreVersion(job.out)) !== parsed.digest) return path;
  }
  // The key matches (or there is none): the sources are as generate leaves them, so the pack on disk lists what a regenerated one would.
  const fresh = pack.scaffolds.every((file) => !existsSync(join(job.out, file.path))) || (await pipeline.asScaffolded(pack, job));
  const tools = fresh ? pipeline.generatedPackTools(pack) : await (await import("./load-tools.ts")).loadTools(job.out, io.cwd);
  return (await pipeline.servedListText(job.out, tools, overlay)) === committed ? undefined : path;
}

/**
 * The egress map of the pack as generate would leave it, without touching the pack: the
 * pack is copied beside itself (so that its imports resolve as they do from the pack),
 * the generated files are written into the copy, and the copy is mapped and removed.
 */
async function regeneratedEgressMap(pack: GeneratedPack, job: PackJob, io: Io): Promise<string> {
  if (pack.scaffolds.every((file) => !existsSync(join(job.out, file.path)))) return (await import("@sluice/pipeline")).generatedEgressMap(pack);
  const copy = await mkdtemp(join(dirname(job.out), `.${basename(job.out)}.sluice-check-`));
  try {
    for (const entry of await readdir(job.out)) {
      // Installed dependencies are linked, not copied.
      if (entry === "node_modules") await symlink(join(job.out, entry), join(copy, entry), "dir");
      else await cp(join(job.out, entry), join(copy, entry), { recursive: true, verbatimSymlinks: true });
    }
    const put = async (path: string, data: string | Uint8Array) => {
      await mkdir(dirname(join(copy, path)), { recursive: true });
      await writeFile(join(copy, path), data);
    };
    for (const file of pack.generated) await put(file.path, file.text);
    await put(pack.spec.path, pack.spec.bytes);
    for (const file of pack.scaffolds) if (!existsSync(join(copy, file.path))) await put(file.path, file.text);
    return await egressMapText(copy, io);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

async function egressMapText(dir: string, io: Io): Promise<string> {
  const [{ egressMap, formatEgressMap, packSelections }, { loadTools }] = await Promise.all([import("@sluice/core"), import("./load-tools.ts")]);
  const tools = await loadTools(dir, io.cwd);
  return formatEgressMap(egressMap(tools), { selections: packSelections(tools) });
}

/**
 * A snapshot that drifted without anything wider (tools removed, schemas narrowed, the
 * output schema or the server's version moved). --check still fails, since the committed
 * pack no longer matches the server, but the line says what a CI user needs to decide:
 * accepting it needs no security review, and what serve does until then.
 */
function staleSnapshotLine(diff: SnapshotDiff): string {
  const meanwhile = ["sluice serve meanwhile serves every tool as committed (the server may refuse a value it no longer takes)"];
  if (diff.removed.length > 0) meanwhile.push(`answers MCP_TOOL_REMOVED for ${diff.removed.join(", ")}`);
  return `  MCP_SNAPSHOT_STALE: the live server differs from ${SNAPSHOT_PATH}, but nothing the model may send got wider and no text it reads changed (no new tool, no widened input schema, no changed description): safe to accept without a security review; run sluice generate and commit. ${meanwhile.join(" and ")}:`;
}

function describe(outcome: PackOutcome, check: boolean, cwd: string, map: EgressMapCheck | undefined, verbose: boolean): string {
  const lines = [`${outcome.name}: ${outcome.tools} tools (${outcome.kind}) ${check ? "checked in" : "->"} ${relative(cwd, outcome.out) || "."}`];
  if (outcome.excluded > 0) lines.push(`  left out by the selection: ${outcome.excluded} of ${outcome.operations} tools (egress_map.txt names each, with why)`);
  if (outcome.skipped.length > 0) {
    // Once, counted by code (80 subscriptions or 30 dangling refs are one line); each under --verbose.
    const byCode = new Map<string, number>();
    for (const skip of outcome.skipped) byCode.set(skip.code ?? "SKIPPED", (byCode.get(skip.code ?? "SKIPPED") ?? 0) + 1);
    const counts = [...byCode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([code, n]) => `${code} ${n}`);
    lines.push(`  skipped ${outcome.skipped.length} operation${outcome.skipped.length === 1 ? "" : "s"} (${counts.join(", ")})${verbose ? ":" : "; --verbose lists them"}`);
    if (verbose) {
      for (const skip of outcome.skipped) lines.push(`    ${skip.operation}${skip.pointer === undefined ? "" : ` at ${skip.pointer}`}: ${skip.reason}`);
    }
  }
  if (outcome.baseUrl !== undefined) lines.push(`  base URL: ${outcome.baseUrl}`);
  if (outcome.endpointEnv !== undefined) lines.push(`  GraphQL endpoint: from ${outcome.endpointEnv} (or endpoint in the config)`);
  for (const credential of outcome.credentials) lines.push(`  credential ${credential.scheme} (${credential.argumentOnly === true ? "filled into arguments" : credential.type}): ${credential.env}`);
  const withheld = Object.entries(outcome.credentialArguments);
  if (withheld.length > 0) lines.push(`  withheld as credentials: ${withheld.map(([argument, scheme]) => `${argument} (${scheme})`).join(", ")}`);
  lines.push(`  pagination found for ${outcome.paginated} tools`);
  for (const warning of outcome.warnings) lines.push(`  warning: ${warning}`);
  if (check && outcome.headerOnly !== undefined) {
    const { files, was, now } = outcome.headerOnly;
    lines.push(`  not drift: ${files.length} generated file${files.length === 1 ? "" : "s"} differ only in the "// Regenerate:" line (was "${was}", now "${now}": the pack is made another way now); sluice generate${outcome.changed.length === 0 ? "" : " (needed anyway)"} rewrites ${files.length === 1 ? "it" : "them"}`);
  }
  if (check) lines.push(outcome.changed.length === 0 ? "  up to date" : `  OUT OF DATE: ${outcome.changed.join(", ")}`);
  else {
    lines.push(`  wrote ${outcome.written.join(", ")}`);
    if (outcome.scaffolded.length > 0) lines.push(`  new (yours from now on): ${outcome.scaffolded.join(", ")}`);
  }
  if (outcome.snapshot !== undefined) {
    const { blocking, diff } = outcome.snapshot;
    // "Safe" is read from the diff itself, not from `blocking`, which the snapshot-lock guard can switch off.
    const safe = diff.added.length === 0 && !diff.changed.some((change) => change.blocking);
    lines.push(
      blocking
        ? `  MCP_SNAPSHOT_CHANGED: the live server differs from ${SNAPSHOT_PATH} in what the model reads or may send; review it, then run sluice generate and commit:`
        : safe
          ? staleSnapshotLine(diff)
          : `  the live server differs from ${SNAPSHOT_PATH} (not judged: the snapshot lock is switched off); review it, then run sluice generate and commit:`,
    );
    lines.push(outcome.snapshot.text.trimEnd());
  }
  if (map === undefined) return `${lines.join("\n")}\n`;
  lines.push(`  egress_map.txt: ${differenceSummary(map)}`);
  return `${lines.join("\n")}\n${map.diff}${differenceLines(map)}`;
}
