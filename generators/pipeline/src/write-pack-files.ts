/**
 * The one writer of a generated pack: its sources and runtime facts, the spec copy, the
 * scaffolds a new pack starts with (only where absent: they are the user's from then on),
 * and the egress map of the pack as it then is on disk. `sluice generate`, `--watch` and
 * generatePack() all write through this, so they write the same bytes.
 */
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { definePack } from "@sluice/core/pack";
import { SluiceError } from "@sluice/schema";
import type { Tool } from "@sluice/core/pack";
import type { GeneratedPack, PackJob } from "./build-pack.ts";

export interface WritePackOptions {
  step?: (label: string) => void;
  /**
   * The egress map text of a pack whose hand-written files differ from the scaffolds (a
   * curated.ts someone edited): only loading the pack as its users import it tells what it
   * serves. The CLI loads it with its TypeScript loader.
   */
  mapFromDisk: (dir: string) => Promise<string>;
  /**
   * Every tool of such a pack, loaded as its users import it, for its served list (default:
   * its `src/index.ts` imported, which needs a TypeScript-capable Node or loader). The CLI
   * passes its own loader, whose module cache makes this the load the egress map made.
   */
  toolsFromDisk?: (dir: string) => Promise<readonly Tool<object>[]>;
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
  // Last of the sources: its key is a digest of everything else in src/ as now written.
  step("served list");
  const tools = fresh ? generatedPackTools(pack) : await (options.toolsFromDisk ?? importedPackTools)(job.out);
  await put(`src/${SERVED_LIST_FILE}`, await servedListText(job.out, tools));
  written.push(`src/${SERVED_LIST_FILE}`);
  return { written, scaffolded, bytes };
}

/** Where a pack keeps the list `sluice serve` answers tools/list from before the pack is loaded. */
export const SERVED_LIST_FILE = "served-tools.gen.json";

/**
 * The served list of a pack whose `src/` is as on disk (`overlay`: files as they would be
 * written instead), listing `tools` (all of the pack's; the list takes the served set).
 * Keyless for a pack whose tools forward to an MCP server (what it lists waits for the
 * upstream's lock) or whose sources import what the key cannot see.
 */
export async function servedListText(packDir: string, tools: readonly Tool<object>[], overlay: ReadonlyMap<string, Uint8Array> = new Map()): Promise<string> {
  const list = await import("@sluice/catalog/served-list");
  if (tools.some((tool) => tool.binding.kind === "mcp")) return list.formatServedList([], null, "its tools forward to an MCP server: serve lists them once the upstream is held to the snapshot");
  const files = list.packSourceFiles(join(packDir, "src"));
  for (const [path, bytes] of overlay) files.set(path, bytes);
  const digest = list.servedListDigest(files, list.packCoreVersion(packDir));
  if (digest === undefined) return list.formatServedList([], null, "a source imports a module outside src/ (other than @sluice/core) or names outputSchemas, which the key cannot cover: serve loads the pack");
  const { servedListOf } = await import("@sluice/catalog");
  const definitions = servedListOf(tools);
  return list.formatServedList(definitions, digest, undefined, tools.length - definitions.length);
}

/** The pack's tools as its `src/index.ts` exports them (`allTools`, else `tools`). */
async function importedPackTools(dir: string): Promise<readonly Tool<object>[]> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(join(dir, "src/index.ts")).href)) as Record<string, unknown>;
  } catch (error) {
    throw new SluiceError("IMPORT_FAILED", `${dir}: its hand-written files were edited, so its served list needs the pack loaded, and src/index.ts did not load (${(error as Error).message}); run under a TypeScript loader, or pass toolsFromDisk.`);
  }
  const tools = (module["allTools"] ?? module["tools"]) as readonly Tool<object>[] | undefined;
  if (!Array.isArray(tools)) throw new SluiceError("IMPORT_FAILED", `${dir}/src/index.ts exports neither allTools nor tools.`);
  return tools;
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
  const { egressMap, formatEgressMap } = await import("@sluice/core");
  const { selection } = pack.facts;
  return formatEgressMap(egressMap(generatedPackTools(pack)), { selections: selection === undefined ? [] : [selection] });
}

/** The pack's generated tools, as its scaffolds export them (one set per pack: the map and the served list share it). */
const generatedToolSets = new WeakMap<GeneratedPack, readonly Tool<object>[]>();
export function generatedPackTools(pack: GeneratedPack): readonly Tool<object>[] {
  let tools = generatedToolSets.get(pack);
  if (tools === undefined) {
    const { name, defs, withheldMembers, tools: ir } = pack.ir;
    tools = definePack({ name, defs, ...(withheldMembers === undefined ? {} : { withheldMembers }), tools: ir }).tools;
    generatedToolSets.set(pack, tools);
  }
  return tools;
}

/** The nearest `node_modules/<name>` from `from` upwards, as Node resolves a bare name (its real path). */
export function installedPackage(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}
