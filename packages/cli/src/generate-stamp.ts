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
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, type Dirent } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { guards } from "@sluice/core/guards";
import type { PackJob, PackReport } from "@sluice/pipeline";

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

/** Digests of byte arrays already hashed: the spec's bytes are an input and a file of the pack (spec/<file>), hashed once. */
const digested = new WeakMap<Uint8Array, string>();

/**
 * sha256 of a text's UTF-8 bytes or of bytes. A text is hashed in slices of 64 Ki characters:
 * a slice that is all ASCII (UTF-8 one byte a character, which Buffer.byteLength tells
 * cheaply) is hashed as Latin-1, the same bytes copied straight from V8's one-byte string;
 * only a slice with other characters (a generated file's header, a description) is encoded
 * as UTF-8. A slice never ends between the two halves of a surrogate pair, which UTF-8
 * encodes together.
 */
export function sha256(data: string | Uint8Array): string {
  if (typeof data !== "string") {
    let digest = digested.get(data);
    if (digest === undefined) digested.set(data, (digest = createHash("sha256").update(data).digest("hex")));
    return digest;
  }
  const hash = createHash("sha256");
  for (let start = 0; start < data.length; ) {
    let end = Math.min(start + SLICE, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    const slice = data.slice(start, end);
    hash.update(slice, Buffer.byteLength(slice, "utf8") === slice.length ? "latin1" : "utf8");
    start = end;
  }
  return hash.digest("hex");
}
const SLICE = 64 * 1024;

/**
 * The files of a directory, relative with `/`, sorted, without the skipped names. Symbolic
 * links are followed (a linked curated.ts is read through its link), each directory once.
 * Synchronous, as are the reads below: a pack and the sluice modules are a few dozen to a
 * few hundred local files, and each asynchronous call is a trip through the thread pool
 * (the fingerprint's 153 module files: about 30 ms of CPU read asynchronously, 4 ms so).
 */
function filesOf(dir: string, skip: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const walked = new Set<string>();
  const walk = (at: string) => {
    const real = attempt(() => realpathSync(at)) ?? at;
    if (walked.has(real)) return;
    walked.add(real);
    const entries: Dirent[] = attempt(() => readdirSync(at, { withFileTypes: true })) ?? [];
    for (const entry of entries) {
      if (skip.has(entry.name)) continue;
      const path = join(at, entry.name);
      const kind = entry.isSymbolicLink() ? attempt(() => statSync(path)) : entry;
      if (kind?.isDirectory() === true) walk(path);
      else if (kind?.isFile() === true) found.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return found.sort();
}

/** What `run` returns, or undefined when it throws (a file gone or unreadable is left out, as before). */
function attempt<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

/**
 * sha256 of each file of the pack as it is on disk now; `known` holds the bytes just
 * written to some of them, hashed instead of read back (Kubernetes' 15 MB of sources).
 */
function packFiles(out: string, known: ReadonlyMap<string, string | Uint8Array> = new Map()): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of filesOf(out, SKIPPED)) files[path] = sha256(known.get(path) ?? readFileSync(join(out, path)));
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

const fingerprints = new Map<string, string>();
/** The CLI's @sluice dependencies whose code decides what generate writes (the rest serve, report, fit). */
const GENERATING = new Set(["@sluice/core", "@sluice/schema", "@sluice/emit", "@sluice/generator-openapi", "@sluice/generator-graphql", "@sluice/pipeline"]);

/**
 * The digest of the sluice code that generates and maps a pack: the CLI, every @sluice
 * package it depends on (their modules as this process runs them: src/ from source, dist/
 * installed) and the version of each of their other dependencies. Computed once per process
 * and pack location (the pack's own @sluice/core computes its egress map).
 */
function toolFingerprint(out: string): string {
  const cli = fileURLToPath(new URL("..", import.meta.url));
  const ownCore = installedPackage(out, "@sluice/core");
  const key = ownCore ?? "";
  let known = fingerprints.get(key);
  if (known === undefined) fingerprints.set(key, (known = computeFingerprint(cli, ownCore)));
  return known;
}

function computeFingerprint(cli: string, packCore: string | undefined): string {
  const modules = basenameOf(fileURLToPath(new URL(".", import.meta.url)));
  const hash = createHash("sha256");
  const seen = new Set<string>();
  const visit = (dir: string): void => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifestText = readFileSync(join(dir, "package.json"), "utf8");
    hash.update(`package ${dir}\n${manifestText}\n`);
    const manifest = JSON.parse(manifestText) as { dependencies?: Record<string, string> };
    const code = join(dir, modules);
    // Test and fixture folders sit beside src/, not in it; only what runs is hashed (no declarations, no source maps).
    for (const path of filesOf(code, new Set(["node_modules"]))) {
      if (!path.endsWith(".map") && !path.endsWith(".d.ts")) hash.update(`file ${path}\n`).update(readFileSync(join(code, path)));
    }
    for (const name of Object.keys(manifest.dependencies ?? {}).sort()) {
      const at = installedPackage(dir, name);
      if (at === undefined) {
        hash.update(`missing ${name}\n`);
      } else if (name.startsWith("@sluice/")) {
        // Of the CLI's own packages, only those generate and the egress map run (not serve's or report's).
        if (dir !== cliRoot || GENERATING.has(name)) visit(at);
      } else {
        const version = (JSON.parse(readFileSync(join(at, "package.json"), "utf8")) as { version?: string }).version;
        hash.update(`dependency ${name}@${version ?? "?"}\n`);
      }
    }
  };
  const cliRoot = realpathSync(cli);
  visit(cliRoot);
  if (packCore !== undefined) visit(packCore);
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
  const stamp: Stamp = { stamp: STAMP_FORMAT, inputs: await inputsDigest(job, spec, toolFingerprint(job.out)), files: packFiles(job.out, written), report: rest };
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
  if ((await inputsDigest(job, spec, toolFingerprint(job.out))) !== stamp.inputs) return undefined;
  // Switched off only by the mutation test: the inputs alone would miss a hand edit.
  if (!guards.stampOutputs) return { ...stamp.report, out: job.out } as PackReport;
  const now = packFiles(job.out);
  const recorded = stamp.files;
  const paths = Object.keys(now);
  if (paths.length !== Object.keys(recorded).length || paths.some((path) => !Object.hasOwn(recorded, path) || recorded[path] !== now[path])) return undefined;
  return { ...stamp.report, out: job.out } as PackReport;
}
