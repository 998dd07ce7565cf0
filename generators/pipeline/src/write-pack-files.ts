/**
 * The one writer of a generated pack: its sources and runtime facts, the spec copy, the
 * scaffolds a new pack starts with (only where absent: they are the user's from then on),
 * and the egress map of the pack as it then is on disk. `sluice generate`, `--watch` and
 * generatePack() all write through this, so they write the same bytes.
 */
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { GeneratedPack, PackJob } from "./build-pack.ts";

export interface WritePackOptions {
  step?: (label: string) => void;
  /**
   * The egress map text of a pack whose hand-written files differ from the scaffolds (a
   * curated.ts someone edited): only loading the pack as its users import it tells what it
   * serves. The CLI loads it with its TypeScript loader.
   */
  mapFromDisk: (dir: string) => Promise<string>;
}

export interface WrittenPack {
  /** Paths written, relative to the pack. */
  written: string[];
  /** Scaffolds written because they were absent. */
  scaffolded: string[];
  /** Every file this run wrote, with its bytes (for a stamp's digest, without reading them back). */
  bytes: Map<string, string | Uint8Array>;
}

export async function writePackFiles(pack: GeneratedPack, job: PackJob, options: WritePackOptions): Promise<WrittenPack> {
  const step = options.step ?? (() => {});
  step("writing files");
  const written: string[] = [];
  const scaffolded: string[] = [];
  const bytes = new Map<string, string | Uint8Array>();
  const put = async (path: string, text: string | Uint8Array) => {
    const target = join(job.out, path);
    // Encoded once, for the file and for the digest (Kubernetes writes 15 MB of text).
    const data = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, data);
    bytes.set(path, data);
  };
  for (const file of pack.generated) {
    await put(file.path, file.text);
    written.push(file.path);
  }
  // The spec may already be the copy (a config pointing at <out>/spec/<file>); an MCP pack's snapshot is new each time.
  if (resolve(job.out, pack.spec.path) !== job.spec || job.liveSnapshot !== undefined) {
    await put(pack.spec.path, pack.spec.bytes);
    written.push(pack.spec.path);
  }
  for (const file of pack.scaffolds) {
    if (existsSync(join(job.out, file.path))) continue;
    await put(file.path, file.text);
    scaffolded.push(file.path);
  }
  // The egress map of the pack as it now is on disk: its diff is what a reviewer reads. A
  // pack whose scaffolds were all just written is exactly its generated tools: mapped in
  // memory, so that a project that has not installed @sluice/core yet still gets its map.
  // So is one whose scaffolds are as generate writes them (nobody edited curated.ts):
  // importing the sources just written would only parse them again.
  const fresh = pack.scaffolds.every((file) => scaffolded.includes(file.path)) || (await asScaffolded(pack, job));
  step("egress map");
  const map = fresh ? await generatedEgressMap(pack) : await options.mapFromDisk(job.out);
  await put("egress_map.txt", map);
  written.push("egress_map.txt");
  return { written, scaffolded, bytes };
}

/**
 * Whether the pack's hand-written files are byte for byte the scaffolds generate writes,
 * and the @sluice/core they import is the one this pipeline runs (or none is installed, as
 * in a pack just scaffolded): then the pack's tools are its generated tools, and its egress
 * map is the one computed in memory. Any edit, or another copy of @sluice/core, and the pack
 * is loaded from disk.
 */
export async function asScaffolded(pack: GeneratedPack, job: PackJob): Promise<boolean> {
  for (const file of pack.scaffolds) {
    const current = await readFile(join(job.out, file.path)).catch(() => undefined);
    if (current === undefined || !current.equals(Buffer.from(file.text, "utf8"))) return false;
  }
  const packCore = installedPackage(job.out, "@sluice/core");
  return packCore === undefined || packCore === installedPackage(fileURLToPath(new URL(".", import.meta.url)), "@sluice/core");
}

/** The egress map of the pack's generated tools, as its scaffolds serve them. */
export async function generatedEgressMap(pack: GeneratedPack): Promise<string> {
  const { definePack, egressMap, formatEgressMap } = await import("@sluice/core");
  const { name, defs, withheldMembers, tools } = pack.ir;
  const { selection } = pack.facts;
  const generated = definePack({ name, defs, ...(withheldMembers === undefined ? {} : { withheldMembers }), tools }).tools;
  return formatEgressMap(egressMap(generated), { selections: selection === undefined ? [] : [selection] });
}

/** The nearest `node_modules/<name>` from `from` upwards, as Node resolves a bare name (its real path). */
export function installedPackage(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}
