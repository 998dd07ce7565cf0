/**
 * What lets `generate --check` answer "up to date" without generating: `generate` leaves a
 * stamp in the pack (`.sluice-stamp.json`) with a digest of everything the pack was made
 * from (the spec's bytes, the config entry, the bytes of every sluice module that generates
 * and maps it, the versions of their dependencies) and the sha256 of every file of the pack
 * as written (generated files, spec copy, egress map, and the hand-written scaffolds the
 * egress map is computed from). `--check` recomputes both; when both match, a fresh
 * generation would write the same bytes, so it is skipped. Anything else (no stamp, another
 * sluice, a spec or config edit, a hand edit of any file, a file added or removed) takes the
 * full check, so the stamp can only make a check faster, never more lenient.
 *
 * Not covered, and said so in docs: a module outside the pack directory that the pack's own
 * source imports (other than @sluice/core, which is fingerprinted as the pack resolves it).
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { guards } from "@sluice/core/guards";
import type { PackJob, PackReport } from "./generate-pack.ts";

export const STAMP_FILE = ".sluice-stamp.json";
const STAMP_FORMAT = 1;
/** Never part of a pack's content: installed or built things, and the stamp itself. */
const SKIPPED = new Set(["node_modules", "dist", ".git", STAMP_FILE]);

interface Stamp {
  stamp: number;
  inputs: string;
  files: Record<string, string>;
  report: Omit<PackReport, "out">;
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/**
 * The files of a directory, relative with `/`, sorted, without the skipped names. Symbolic
 * links are followed (a linked curated.ts is read through its link), each directory once.
 */
async function filesOf(dir: string, skip: ReadonlySet<string>): Promise<string[]> {
  const found: string[] = [];
  const walked = new Set<string>();
  const walk = async (at: string) => {
    const real = await realpath(at).catch(() => at);
    if (walked.has(real)) return;
    walked.add(real);
    const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (skip.has(entry.name)) continue;
      const path = join(at, entry.name);
      const kind = entry.isSymbolicLink() ? await stat(path).catch(() => undefined) : entry;
      if (kind?.isDirectory() === true) await walk(path);
      else if (kind?.isFile() === true) found.push(relative(dir, path).split(sep).join("/"));
    }
  };
  await walk(dir);
  return found.sort();
}

/**
 * sha256 of each file of the pack as it is on disk now; `known` holds the bytes just
 * written to some of them, hashed instead of read back (Kubernetes' 15 MB of sources).
 */
async function packFiles(out: string, known: ReadonlyMap<string, string | Uint8Array> = new Map()): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await filesOf(out, SKIPPED)) files[path] = sha256(known.get(path) ?? (await readFile(join(out, path))));
  return files;
}

/** The nearest `node_modules/<name>` from `from` upwards, as Node resolves a bare name (its real path). */
export function installedPackage(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

const fingerprints = new Map<string, Promise<string>>();
/** The CLI's @sluice dependencies whose code decides what generate writes (the rest serve, report, fit). */
const GENERATING = new Set(["@sluice/core", "@sluice/schema", "@sluice/emit", "@sluice/generator-openapi", "@sluice/generator-graphql"]);

/**
 * The digest of the sluice code that generates and maps a pack: the CLI, every @sluice
 * package it depends on (their modules as this process runs them: src/ from source, dist/
 * installed) and the version of each of their other dependencies. Computed once per process
 * and pack location (the pack's own @sluice/core computes its egress map).
 */
function toolFingerprint(out: string): Promise<string> {
  const cli = fileURLToPath(new URL("..", import.meta.url));
  const ownCore = installedPackage(out, "@sluice/core");
  const key = ownCore ?? "";
  let known = fingerprints.get(key);
  if (known === undefined) fingerprints.set(key, (known = computeFingerprint(cli, ownCore)));
  return known;
}

async function computeFingerprint(cli: string, packCore: string | undefined): Promise<string> {
  const modules = basenameOf(fileURLToPath(new URL(".", import.meta.url)));
  const hash = createHash("sha256");
  const seen = new Set<string>();
  const visit = async (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifestText = await readFile(join(dir, "package.json"), "utf8");
    hash.update(`package ${dir}\n${manifestText}\n`);
    const manifest = JSON.parse(manifestText) as { dependencies?: Record<string, string> };
    const code = join(dir, modules);
    // Test and fixture folders sit beside src/, not in it; only what runs is hashed (no declarations, no source maps).
    for (const path of await filesOf(code, new Set(["node_modules"]))) {
      if (!path.endsWith(".map") && !path.endsWith(".d.ts")) hash.update(`file ${path}\n`).update(await readFile(join(code, path)));
    }
    for (const name of Object.keys(manifest.dependencies ?? {}).sort()) {
      const at = installedPackage(dir, name);
      if (at === undefined) {
        hash.update(`missing ${name}\n`);
      } else if (name.startsWith("@sluice/")) {
        // Of the CLI's own packages, only those generate and the egress map run (not serve's or report's).
        if (dir !== cliRoot || GENERATING.has(name)) await visit(at);
      } else {
        const version = (JSON.parse(await readFile(join(at, "package.json"), "utf8")) as { version?: string }).version;
        hash.update(`dependency ${name}@${version ?? "?"}\n`);
      }
    }
  };
  const cliRoot = realpathSync(cli);
  await visit(cliRoot);
  if (packCore !== undefined) await visit(packCore);
  return hash.digest("hex");
}

function basenameOf(dir: string): string {
  return dir.replace(/[\\/]+$/, "").split(/[\\/]/).pop() ?? "dist";
}

/** Everything a pack is generated from, as one digest. */
async function inputsDigest(job: PackJob, spec: Uint8Array, fingerprint: string): Promise<string> {
  const external: Record<string, string> = {};
  for (const [ref, path] of Object.entries(job.externalRefs ?? {})) {
    // Relative to the spec, as the generator reads them; a missing file is an input too.
    external[ref] = await readFile(resolve(dirname(job.spec), path)).then(sha256, () => "missing");
  }
  return sha256(JSON.stringify({ stamp: STAMP_FORMAT, fingerprint, spec: sha256(spec), job, external }));
}

/**
 * Writes the stamp of a pack just generated: its files as they now are on disk, `written`
 * holding the bytes this run wrote (by path relative to the pack).
 */
export async function writeStamp(job: PackJob, spec: Uint8Array, report: PackReport, written: ReadonlyMap<string, string | Uint8Array>): Promise<void> {
  const { out: _out, ...rest } = report;
  const stamp: Stamp = { stamp: STAMP_FORMAT, inputs: await inputsDigest(job, spec, await toolFingerprint(job.out)), files: await packFiles(job.out, written), report: rest };
  await writeFile(join(job.out, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}

/**
 * The report of the pack when its stamp shows that generating again would change nothing;
 * undefined when a full check is needed. Reads the spec, the stamp and the pack's files.
 */
export async function upToDateReport(job: PackJob): Promise<PackReport | undefined> {
  const text = await readFile(join(job.out, STAMP_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  let stamp: Partial<Stamp>;
  try {
    stamp = JSON.parse(text) as Partial<Stamp>;
  } catch {
    return undefined;
  }
  if (stamp.stamp !== STAMP_FORMAT || typeof stamp.inputs !== "string" || typeof stamp.files !== "object" || stamp.files === null || typeof stamp.report !== "object" || stamp.report === null) return undefined;
  const spec = await readFile(job.spec).catch(() => undefined);
  if (spec === undefined) return undefined;
  if ((await inputsDigest(job, spec, await toolFingerprint(job.out))) !== stamp.inputs) return undefined;
  // Switched off only by the mutation test: the inputs alone would miss a hand edit.
  if (!guards.stampOutputs) return { ...stamp.report, out: job.out } as PackReport;
  const now = await packFiles(job.out);
  const recorded = stamp.files;
  const paths = Object.keys(now);
  if (paths.length !== Object.keys(recorded).length || paths.some((path) => !Object.hasOwn(recorded, path) || recorded[path] !== now[path])) return undefined;
  return { ...stamp.report, out: job.out } as PackReport;
}
