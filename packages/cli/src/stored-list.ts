import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { packCoreVersion, packSourceEntries, SERVED_LIST_FILE, statCacheDir, verifiedServedList, type ServedList, type VerifiedListOptions } from "@sluice/catalog/served-list";
import { resolvePack } from "./resolve-pack.ts";

/** A pack's stored tools/list (src/served-tools.gen.json), found current. */
export interface CurrentServedList {
  /** The list file. */
  file: string;
  /** How many definitions it lists. */
  count: number;
  /** The definitions as tools/list sends them, in order (parsed when first read). */
  readonly definitions: unknown[];
  /** Their names, in order. */
  names(): string[];
  /** The UTF-8 JSON array of definitions `from` to `to`, copied from the file's bytes (serve's pages). */
  listedJson(from: number, to: number): Buffer;
  /** The same, lent until `done` (serve's pages: written, then the memory is reused). */
  lentJson(from: number, to: number): { json: Buffer; done(): void };
  /** How many `*_full` twins the served set leaves out. */
  twins: number;
}

/**
 * Room read in after the list for serve's pages to be put together in (three of this size):
 * a page of 100 Kubernetes tools is 1.3 MB. A larger page gets room of its own (the list is
 * copied once then); memory never written is never paged in.
 */
const PAGE_ROOM_BYTES = 4 * 1024 * 1024;

/**
 * The served list generate stored for the pack `spec` names, when it stands for what loading
 * that module would serve: the spec resolves to a pack's entry (src/index.*, the module whose
 * default served set the list holds; tools.gen.ts lacks the curated and derived tools), and
 * the list's key is the digest of the pack's sources and @sluice/core version as they are now,
 * so an edit since generate never answers with the old list. Anything else (no list, a keyless
 * one, another module, no @sluice/core to load it with, a file that does not read) gives
 * undefined: the caller loads the pack. The key is checked through the stat cache of the
 * pack's project (verifiedServedList): in full only when a file's stamp is not as recorded.
 * serve and survey both decide here.
 */
export function currentServedList(spec: string, cwd: string): CurrentServedList | undefined {
  try {
    const found = storedListOf(spec, cwd);
    return found === undefined ? undefined : current(found.file, verifiedServedList(found.srcDir, found.coreVersion, found.options));
  } catch {
    return undefined;
  }
}

/** Where the pack `spec` names keeps its list, when it has one and resolves a @sluice/core; throws for a spec that resolves to nothing. */
function storedListOf(spec: string, cwd: string): { file: string; srcDir: string; coreVersion: string; options: VerifiedListOptions } | undefined {
  const entry = resolvePack(spec, cwd).file;
  if (!/^index\.[cm]?[jt]s$/.test(basename(entry))) return undefined;
  const srcDir = dirname(entry);
  const file = join(srcDir, SERVED_LIST_FILE);
  if (!existsSync(file)) return undefined;
  // A pack that resolves no @sluice/core cannot load: loading it says so (IMPORT_FAILED), where
  // a list answered from would only fail at the first call.
  const packDir = dirname(srcDir);
  const coreVersion = packCoreVersion(packDir);
  if (coreVersion === "none") return undefined;
  return { file, srcDir, coreVersion, options: { pageBytes: PAGE_ROOM_BYTES, cacheDir: statCacheDir(packDir) } };
}

function current(file: string, list: ServedList | undefined): CurrentServedList | undefined {
  if (list === undefined || list.digest === null) return undefined;
  let definitions: unknown[] | undefined;
  return {
    file,
    count: list.count,
    get definitions() {
      return (definitions ??= list.definitions());
    },
    names: () => list.names(),
    listedJson: (from, to) => list.listedJson(from, to),
    lentJson: (from, to) => list.lentJson(from, to),
    twins: list.twins,
  };
}

/**
 * After generate wrote a pack: a full check of its served list, which leaves the stat cache
 * vouching for it, so that the first serve after generating is as fast as the next. Taken once
 * the file system's clock has moved past the files just written (a stamp in the racy window
 * would not be recorded), for a pack of 16 MiB of sources or more (RECORD_FROM_BYTES). Nothing
 * here can fail generate: without a cache, serve verifies in full.
 */
export async function recordServedListKey(packDir: string, fromBytes = RECORD_FROM_BYTES): Promise<void> {
  const coreVersion = packCoreVersion(packDir);
  const cacheDir = statCacheDir(packDir);
  const srcDir = join(packDir, "src");
  if (coreVersion === "none" || cacheDir === undefined || !existsSync(join(srcDir, SERVED_LIST_FILE))) return;
  try {
    // A small pack's first serve checks it in full faster than generate would wait here.
    let bytes = 0;
    for (const path of packSourceEntries(srcDir).paths) bytes += statSync(join(srcDir, path)).size;
    if (bytes < fromBytes) return;
    await sleep(SETTLE_MS);
    verifiedServedList(join(packDir, "src"), coreVersion, { pageBytes: 0, cacheDir });
  } catch {
    // No cache, then.
  }
}

/** Longer than the racy window (10 ms) plus a tick of the kernel's coarse clock. */
const SETTLE_MS = 25;
/**
 * Sources from which generate records the key: a full check costs serve about 3.5 ms a MB of
 * sources and list (a 9,000-tool pack: 112 MB, 0.5-0.6 s); below 16 MiB (Kubernetes' 14 MB,
 * under 0.1 s) the 25 ms wait and the check would cost generate more than they save serve.
 */
const RECORD_FROM_BYTES = 16 * 1024 * 1024;
