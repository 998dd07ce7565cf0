/**
 * A pack's served list, read only when its key still matches the pack's sources, without
 * reading every source when nothing has changed: a stat cache in the manner of git's index.
 * After a full verification (every file of src/ hashed to the list's key, the list's body
 * hashed to its header's digest) the stamp of each file (device, inode, size, mtime and
 * ctime in nanoseconds) is recorded with the digests it vouched for; a later start that finds
 * src/ holding the same files, each with the same stamp, trusts those digests, and reads the
 * list by the layout recorded with them (its header and shared entries at once, each tool when
 * a page first needs it: readServedListLazily). ctime moves on every write and no user tool can
 * set it (utimes sets mtime), so a same-size edit with its mtime put back still shows.
 *
 * The racy case, as git handles it: an edit in the same clock tick as the stamp taken would
 * leave the stamp as it was, so a stamp is only recorded as trustworthy when its mtime and
 * ctime are older than the moment the verification began (read off the file system's own
 * clock: the cache's temporary file, created before anything is read), by more than the
 * file system's timestamp granularity. Any doubt (a file added or removed, a symbolic link in
 * src/, a cache that does not parse or whose checksum fails, another core version, another
 * folder's cache) is a full verification, never a trusted stale list.
 *
 * The cache lives in the project's node_modules/.cache/sluice (the convention babel, ava and
 * eslint follow): never in src/, never committed (a clone gets devices and inodes of its
 * own anyway), and where it cannot be written there is simply no cache.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { guards } from "@sluice/core/guards";
import { packSourceDigest, packSourceEntries, readServedListFile, readServedListLazily, sameStamp, SERVED_LIST_FILE, SERVED_LIST_FORMAT, stampOf, type FileStamp, type ListLayout, type ServedList } from "./served-list-file.ts";

const CACHE_VERSION = 2;
const CACHE_NAME = "sluice served-list stat cache";
/**
 * How much older than the verification's start a stamp must be: the kernel's coarse clock
 * ticks at most every 10 ms; a clock reading of whole seconds says the file system keeps
 * whole seconds (FAT keeps two).
 */
const TICK_NS = 10_000_000n;
const WHOLE_SECONDS_NS = 2_000_000_000n;

export interface VerifiedListOptions {
  /** Room for pages read in after the list (readServedListFile). */
  pageBytes: number;
  /** Where the stat cache is kept (statCacheDir); undefined: no cache, every start verifies in full. */
  cacheDir: string | undefined;
}

/**
 * The served list in `srcDir` when its key is the digest of the sources as they are (with
 * `coreVersion`) and its body is the one its header names: trusted from the stat cache when
 * every stamp there still holds, otherwise verified in full (and the cache written). A keyless
 * list is returned as read (its caller does not serve it); undefined for a list that does not
 * read or whose key does not match.
 */
export function verifiedServedList(srcDir: string, coreVersion: string, options: VerifiedListOptions): ServedList | undefined {
  const listPath = join(srcDir, SERVED_LIST_FILE);
  const cachePath = options.cacheDir === undefined ? undefined : join(options.cacheDir, `served-list-${sha256(srcDir).slice(0, 16)}.json`);
  const trusted = cachePath === undefined ? undefined : trustedByCache(cachePath, srcDir, coreVersion);
  if (trusted !== undefined) {
    // The list as the verification found it: its layout is the cache's, its tools read as pages ask for them.
    const list = readServedListLazily(listPath, options.pageBytes, { accept: trusted.acceptList, layout: trusted.layout, digest: trusted.digest, body: trusted.body });
    if (list !== undefined) return list;
  }
  return verifyInFull(srcDir, coreVersion, listPath, options.pageBytes, cachePath);
}

/**
 * The stat cache's folder for the pack in `packDir`: node_modules/.cache/sluice beside the
 * @sluice/core the pack resolves (its project's node_modules), undefined when it resolves none.
 */
export function statCacheDir(packDir: string): string | undefined {
  for (let dir = packDir; ; ) {
    const modules = join(dir, "node_modules");
    if (existsSync(join(modules, "@sluice", "core", "package.json"))) return join(modules, ".cache", "sluice");
    const up = join(dir, "..");
    if (up === dir) return undefined;
    dir = up;
  }
}

interface StatCache {
  version: number;
  cache: string;
  listFormat: number;
  src: string;
  core: string;
  digest: string;
  body: string;
  /** The file system's clock when the verification began (ns), and the device it was read on. */
  at: string;
  dev: string;
  files: Array<[string, ...string[]]>;
  list: string[];
  /** The list's layout (where each entry and tool lies), little-endian int32s in base64. */
  layout: string;
}

/** The layout as int32s: four counts, then each array in turn. */
function encodeLayout(layout: ListLayout): string | undefined {
  const { toolsStart, defFrom, defTo, toolFrom, toolSplice, toolTo, refStart, refIndex } = layout;
  const ints = [toolsStart, defFrom.length, toolFrom.length, refIndex.length, ...defFrom, ...defTo, ...toolFrom, ...toolSplice, ...toolTo, ...refStart, ...refIndex];
  // A list past 2 GiB has offsets an int32 cannot hold: no cache (it is verified in full each time).
  if (!ints.every((value) => value >= -1 && value <= 0x7fffffff)) return undefined;
  return Buffer.from(Int32Array.from(ints).buffer).toString("base64");
}

function decodeLayout(text: string): ListLayout | undefined {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0 || bytes.length < 16) return undefined;
  const ints = new Int32Array(bytes.length / 4);
  Buffer.from(ints.buffer).set(bytes);
  const [toolsStart, defs, tools, refs] = ints;
  if (ints.length !== 4 + 2 * defs! + 4 * tools! + 1 + refs!) return undefined;
  let at = 4;
  const take = (length: number) => Array.from(ints.subarray(at, (at += length)));
  return { toolsStart: toolsStart!, defFrom: take(defs!), defTo: take(defs!), toolFrom: take(tools!), toolSplice: take(tools!), toolTo: take(tools!), refStart: take(tools! + 1), refIndex: take(refs!) };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const DIGITS = /^\d{1,30}$/;
const stampFrom = (fields: readonly unknown[]): FileStamp | undefined =>
  fields.length === 5 && fields.every((field) => typeof field === "string" && DIGITS.test(field)) ? (fields.map((field) => BigInt(field as string)) as unknown as FileStamp) : undefined;
const stampText = (stamp: FileStamp) => stamp.map(String);

/** Whether a stamp is older than the verification that began at `at`, by more than the clock's granularity. */
function settled(stamp: FileStamp, at: bigint): boolean {
  const before = at - (at % 1_000_000_000n === 0n ? WHOLE_SECONDS_NS : TICK_NS);
  return stamp[3] < before && stamp[4] < before;
}

/** What an intact cache of this pack vouches for: the key, the body digest, and the test the list file's stamp must pass. */
function trustedByCache(cachePath: string, srcDir: string, coreVersion: string): { digest: string; body: string; layout: ListLayout; acceptList: (stamp: FileStamp) => boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(cachePath, "latin1");
  } catch {
    return undefined;
  }
  const strict = guards.servedListStatCache;
  const newline = text.indexOf("\n");
  const content = text.slice(newline + 1);
  // A checksum line first: a cache damaged into other valid JSON (a digit of an inode, a dropped entry) is no cache.
  if (newline < 0 || (strict && sha256(content) !== text.slice(0, newline))) return undefined;
  let cache: StatCache;
  try {
    cache = JSON.parse(content) as StatCache;
  } catch {
    return undefined;
  }
  if (typeof cache !== "object" || cache === null || cache.version !== CACHE_VERSION || cache.cache !== CACHE_NAME || cache.listFormat !== SERVED_LIST_FORMAT) return undefined;
  const { src, core, digest, body, at, dev, files, list } = cache;
  if (typeof src !== "string" || typeof core !== "string" || typeof digest !== "string" || typeof body !== "string" || !Array.isArray(files) || !Array.isArray(list) || typeof cache.layout !== "string") return undefined;
  const layout = decodeLayout(cache.layout);
  if (layout === undefined) return undefined;
  if (typeof at !== "string" || !DIGITS.test(at) || typeof dev !== "string" || !DIGITS.test(dev)) return undefined;
  const listStamp = stampFrom(list);
  const stamps = files.map((entry) => (Array.isArray(entry) && typeof entry[0] === "string" ? stampFrom(entry.slice(1)) : undefined));
  if (listStamp === undefined || stamps.some((stamp) => stamp === undefined) || core !== coreVersion) return undefined;
  const began = BigInt(at);
  const device = BigInt(dev);

  if (!strict) {
    // The guard off: what a naive cache checks, each named file's size and mtime.
    for (const [i, [path]] of files.entries()) {
      const now = statStamp(join(srcDir, path));
      if (now === undefined || now[2] !== stamps[i]![2] || now[3] !== stamps[i]![3]) return undefined;
    }
    return { digest, body, layout, acceptList: (stamp) => stamp[2] === listStamp[2] && stamp[3] === listStamp[3] };
  }

  // This folder's cache (a copy from another pack names another), the same files in src/ and nothing the key passes over.
  if (src !== srcDir) return undefined;
  const { paths, plain } = packSourceEntries(srcDir);
  if (!plain || paths.length !== files.length || paths.some((path, i) => path !== files[i]![0])) return undefined;
  const holds = (stamp: FileStamp, recorded: FileStamp) => sameStamp(stamp, recorded) && stamp[0] === device && settled(recorded, began);
  for (const [i, path] of paths.entries()) {
    const now = lstatStamp(join(srcDir, path));
    if (now === undefined || !holds(now, stamps[i]!)) return undefined;
  }
  return { digest, body, layout, acceptList: (stamp) => holds(stamp, listStamp) };
}

function lstatStamp(path: string): FileStamp | undefined {
  try {
    const stat = lstatSync(path, { bigint: true });
    return stat.isFile() ? stampOf(stat) : undefined;
  } catch {
    return undefined;
  }
}

function statStamp(path: string): FileStamp | undefined {
  try {
    return stampOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}

/**
 * The whole check (the list's body hashed, every source hashed into the key), then, when it
 * holds and every stamp is settled, the cache written for the next start: into a temporary
 * file created before anything is read (its mtime is the verification's start on the file
 * system's clock), renamed into place. A cache that cannot be written is no cache.
 */
function verifyInFull(srcDir: string, coreVersion: string, listPath: string, pageBytes: number, cachePath: string | undefined): ServedList | undefined {
  const record = cachePath === undefined ? undefined : startRecord(cachePath);
  try {
    let listStamp: FileStamp | undefined;
    let layout: ListLayout | undefined;
    const list = readServedListFile(listPath, pageBytes, { observe: (stamp) => (listStamp = stamp), observeLayout: (found) => (layout = found) });
    if (list === undefined || list.digest === null) return list;
    const entries = packSourceEntries(srcDir);
    const { paths, plain } = entries;
    const files: Array<[string, FileStamp]> = [];
    if (packSourceDigest(srcDir, coreVersion, (path, stamp) => files.push([path, stamp]), entries) !== list.digest) return undefined;
    const layoutText = layout === undefined ? undefined : encodeLayout(layout);
    if (record !== undefined && listStamp !== undefined && layoutText !== undefined && plain && files.length === paths.length) {
      // The guard off records every stamp, racy or not, as a naive cache would.
      const steady = !guards.servedListStatCache || [listStamp, ...files.map(([, stamp]) => stamp)].every((stamp) => stamp[0] === record.dev && settled(stamp, record.at));
      if (steady) {
        const cache: StatCache = {
          version: CACHE_VERSION,
          cache: CACHE_NAME,
          listFormat: SERVED_LIST_FORMAT,
          src: srcDir,
          core: coreVersion,
          digest: list.digest,
          body: list.body,
          at: String(record.at),
          dev: String(record.dev),
          files: files.map(([path, stamp]) => [path, ...stampText(stamp)]),
          list: stampText(listStamp),
          layout: layoutText,
        };
        const content = JSON.stringify(cache);
        record.finish(`${sha256(content)}\n${content}`);
      }
    }
    return list;
  } finally {
    record?.abandon();
  }
}

let records = 0;

/** A temporary file beside the cache, created now: its mtime is the file system's clock at this moment. */
function startRecord(cachePath: string): { at: bigint; dev: bigint; finish(text: string): void; abandon(): void } | undefined {
  const temporary = `${cachePath}.${process.pid}.${(records += 1)}.tmp`;
  let fd: number;
  try {
    mkdirSync(join(cachePath, ".."), { recursive: true });
    fd = openSync(temporary, "wx");
  } catch {
    return undefined;
  }
  let open = true;
  let placed = false;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const stat = fstatSync(fd, { bigint: true });
    return {
      at: stat.mtimeNs,
      dev: stat.dev,
      finish(text) {
        try {
          writeSync(fd, text);
          close();
          renameSync(temporary, cachePath);
          placed = true;
        } catch {
          // Never fail serve over its cache: the next start verifies in full again.
        }
      },
      abandon() {
        close();
        if (!placed) {
          try {
            unlinkSync(temporary);
          } catch {
            // Already gone.
          }
        }
      },
    };
  } catch {
    close();
    return undefined;
  }
}
