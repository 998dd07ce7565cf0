/**
 * The served list a pack carries beside its sources (`src/served-tools.gen.json`): the
 * tools/list definitions `sluice serve` would answer with, written by generate, so that
 * serve answers tools/list before it compiles and loads the pack (which it then does on the
 * first call). Nothing here imports the rest of sluice: serve reads the file on its fast
 * path, where every module loaded is start-up time.
 *
 * The list is only ever trusted under its key: a digest of every file of the pack's `src/`
 * (the list itself aside) and of the @sluice/core version the pack resolves. A hand edit of
 * `index.ts` or `curated.ts` (a new `derived()` call), a regenerated tool file or another
 * sluice changes the key, and serve loads the pack instead. A source that imports what the
 * digest cannot see (a relative import leaving `src/`, a package other than @sluice/core)
 * gets no key at all: its list is written keyless and never served.
 *
 * Layout, one entry a line so that a diff reads per tool, and so that a tools/list page is
 * a concatenation of the file's bytes (serve neither parses the list nor serializes a page):
 * each distinct root `$defs` entry once in `defs`, as a one-member object `{"Name":{...}}`
 * (a pack's tools reach the same definitions many times over: 8,984 Kubernetes tools list
 * 118 MB, mostly repeated definitions), and each tool as
 * `{"defs":[indices],"at":N,"tool":{...}}`: its definition as JSON.stringify writes it with
 * `"$defs":{}` where its entries stood, `at` the UTF-8 byte offset inside that text of the
 * empty object's inside, where the entries' insides go, comma-separated, in their order
 * (`{"tool":{...}}` for a definition without a `$defs` object).
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, type BigIntStats } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";

export const SERVED_LIST_FILE = "served-tools.gen.json";
/** JSON has no comments: the file says what it is in its first member. */
const GENERATED = "written by sluice generate, keyed by the pack's src/: do not edit; regenerate with sluice generate";
/**
 * Bumped whenever the layout or the meaning of the key changes: an old file then never
 * matches, and serve loads the pack instead (3: each tool's text with an empty `$defs` and
 * where its entries go, UTF-8 as written, the body's digest in the header).
 */
const FORMAT = 3;
export const SERVED_LIST_FORMAT = FORMAT;

/** A tools/list definition as this file stores it: only `inputSchema.$defs` is looked into. */
export interface ListedDefinition {
  name: string;
  inputSchema: { $defs?: Record<string, unknown> } & Record<string, unknown>;
  [key: string]: unknown;
}

/** A read served list: its key (null when it has none) and, on demand, its definitions. */
export interface ServedList {
  digest: string | null;
  /** The sha256 of the bytes after the header line, as the header names it (checked when read). */
  body: string;
  count: number;
  /** The `*_full` twins the pack has and the list leaves out (serve's start-up line says how many). */
  twins: number;
  /** The definitions as objects (each parsed; the shared entries' objects shared). */
  definitions(): ListedDefinition[];
  /** Their names, in order, mostly without parsing a definition. */
  names(): string[];
  /**
   * The UTF-8 JSON text of definitions `from` to `to` (an array), the bytes
   * `JSON.stringify(definitions().slice(from, to))` gives, copied from the file's.
   */
  listedJson(from: number, to: number): Buffer;
  /**
   * The same bytes, lent rather than copied out: `json` stays as it is until `done` is
   * called (once they are written), and the next pages reuse its memory after that.
   */
  lentJson(from: number, to: number): LentJson;
}

/** Bytes lent by a served list until `done`. */
export interface LentJson {
  json: Buffer;
  done(): void;
}

/** Files of a pack's `src/` by path relative to it ('/'-separated), the served list itself left out. */
export function packSourceFiles(srcDir: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const rel of packSourcePaths(srcDir)) files.set(rel, readFileSync(join(srcDir, rel)));
  return files;
}

/** The paths packSourceFiles reads, in the order the key takes them. */
function packSourcePaths(srcDir: string): string[] {
  return packSourceEntries(srcDir).paths;
}

/**
 * The paths the key takes, and whether src/ holds nothing else the walk passes over (a
 * symbolic link, a socket): the key leaves those out, so a stat cache never vouches for a
 * src/ that has one.
 */
export function packSourceEntries(srcDir: string): { paths: string[]; plain: boolean } {
  const paths: string[] = [];
  let plain = true;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const rel = relative(srcDir, path).split(sep).join("/");
        if (rel !== SERVED_LIST_FILE) paths.push(rel);
      } else plain = false;
    }
  };
  walk(srcDir);
  return { paths: paths.sort(byCodeUnits), plain };
}

/**
 * What a file's stat says of its identity and last change, in nanoseconds: device, inode,
 * size, mtime, ctime. ctime moves on every write and no user tool can set it back.
 */
export type FileStamp = readonly [dev: bigint, ino: bigint, size: bigint, mtimeNs: bigint, ctimeNs: bigint];

export const stampOf = (stat: BigIntStats): FileStamp => [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs];

export const sameStamp = (a: FileStamp, b: FileStamp): boolean => a.every((value, i) => value === b[i]);

/** Called by packSourceDigest for each file it hashed, with the stamp the file kept while it was read (the descriptor's stat, before and after). */
export type StampObserver = (path: string, stamp: FileStamp) => void;

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const HAND_WRITTEN_SOURCE = /\.[cm]?[jt]sx?$/;
const GENERATED_SOURCE = /\.gen\.[cm]?[jt]s$/;
/** The generated header lies within this many bytes of a file's start. */
const HEADER_BYTES = 4096;
const CHUNK_BYTES = 1 << 20;

/**
 * servedListDigest(packSourceFiles(srcDir), coreVersion), read from disk as serve needs it:
 * the same bytes hashed, each file streamed through one reused buffer into the hash, so the
 * 112 MB of a 9,000-tool pack are never held, copied or decoded (only hand-written sources
 * are decoded, for their imports). A file that changes size while it is read gives no key.
 */
export function packSourceDigest(srcDir: string, coreVersion: string, observe?: StampObserver, entries = packSourceEntries(srcDir)): string | undefined {
  // A symbolic link in src/ (or anything but files and folders) is outside what the key reads:
  // a linked curated.ts could change with the key unmoved. Such a pack has no key; it is loaded.
  if (!entries.plain) return undefined;
  const { paths } = entries;
  const hash = keyHash(coreVersion);
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (const path of paths) {
    const file = join(srcDir, path);
    const fd = openSync(file, "r");
    try {
      const stat = fstatSync(fd, { bigint: true });
      const size = Number(stat.size);
      // A file that changed while it was read gives no key (the bytes hashed may be half of each version).
      const steady = () => {
        if (!sameStamp(stampOf(stat), stampOf(fstatSync(fd, { bigint: true })))) return false;
        observe?.(path, stampOf(stat));
        return true;
      };
      if (HAND_WRITTEN_SOURCE.test(path) && !GENERATED_SOURCE.test(path)) {
        const bytes = Buffer.allocUnsafe(size);
        const read = fill(fd, bytes, 0);
        if (read !== size || !keyableSource(path, bytes)) return undefined;
        if (!steady()) return undefined;
        hash.update(`${path}\0${bytes.length}\0`).update(bytes);
        continue;
      }
      let filled = fill(fd, chunk, 0);
      // The header's Regenerate line, cut out of the first chunk exactly as servedListDigest cuts it.
      const cut = GENERATED_SOURCE.test(path) ? regenerateLine(chunk.subarray(0, Math.min(filled, HEADER_BYTES))) : undefined;
      hash.update(`${path}\0${size - (cut?.length ?? 0)}\0`);
      if (cut === undefined) hash.update(chunk.subarray(0, filled));
      else hash.update(chunk.subarray(0, cut.index)).update(chunk.subarray(cut.index + cut.length, filled));
      let total = filled;
      while (filled === chunk.length) {
        filled = fill(fd, chunk, total);
        hash.update(chunk.subarray(0, filled));
        total += filled;
      }
      if (total !== size || !steady()) return undefined;
    } finally {
      closeSync(fd);
    }
  }
  return hash.digest("hex");
}

/** Reads from `position` until the buffer is full or the file ends; the bytes read. */
function fill(fd: number, buffer: Buffer, position: number): number {
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

const keyHash = (coreVersion: string) => createHash("sha256").update(`sluice served list ${FORMAT}\0core ${coreVersion}\0`);

const IMPORT = /\b(?:from|import)\s*\(?\s*["']([^"'\n]+)["']/g;

/**
 * Whether every import of a source stays where the digest sees it: relative within `src/`,
 * `node:` built-ins, or @sluice/core (whose version is in the key). Generated files
 * (`*.gen.*`) are not scanned: generate writes their imports, and a hand edit of one is drift
 * generate --check names.
 */
function importsStayInside(rel: string, text: string): boolean {
  const dir = posix.dirname(rel);
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1]!;
    if (specifier.startsWith("node:") || specifier === "@sluice/core" || specifier.startsWith("@sluice/core/")) continue;
    if (specifier.startsWith("./") || specifier.startsWith("../")) {
      const target = posix.normalize(posix.join(dir, specifier));
      if (target !== ".." && !target.startsWith("../")) continue;
    }
    return false;
  }
  return true;
}

/**
 * The key of a served list: sha256 over the format, the @sluice/core version the pack
 * resolves (`none` when none is installed) and every source file (path, length, bytes,
 * in path order); undefined when a source imports something the key cannot cover, or
 * names `outputSchemas` (an export serve lists beside the tools).
 */
export function servedListDigest(files: ReadonlyMap<string, Uint8Array>, coreVersion: string): string | undefined {
  const hash = keyHash(coreVersion);
  for (const path of [...files.keys()].sort(byCodeUnits)) {
    const bytes = files.get(path)!;
    if (HAND_WRITTEN_SOURCE.test(path) && !GENERATED_SOURCE.test(path) && !keyableSource(path, bytes)) return undefined;
    // A generated file is hashed without its header's Regenerate line, in two pieces rather than copied.
    const cut = GENERATED_SOURCE.test(path) ? regenerateLine(bytes.subarray(0, HEADER_BYTES)) : undefined;
    hash.update(`${path}\0${bytes.length - (cut?.length ?? 0)}\0`);
    if (cut === undefined) hash.update(bytes);
    else hash.update(bytes.subarray(0, cut.index)).update(bytes.subarray(cut.index + cut.length));
  }
  return hash.digest("hex");
}

/** Whether a hand-written source's imports stay where the key sees them, and it names no `outputSchemas`. */
function keyableSource(path: string, bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  // serve reads a module's `outputSchemas` export beside its tools; the list (tools only) cannot hold them.
  return importsStayInside(path, text) && !text.includes("outputSchemas");
}

/**
 * Where a generated file's header has its `// Regenerate:` line: that line names the command
 * that made the pack (`generate <spec> --name --out`, or a config's pack), which changes
 * nothing a model is served, and generate --check lets it differ. Looked for in `head`, the
 * file's first HEADER_BYTES.
 */
function regenerateLine(head: Uint8Array): { index: number; length: number } | undefined {
  const line = /^\/\/ Regenerate: [^\n]*\n/m.exec(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("latin1"));
  return line === null ? undefined : { index: line.index, length: line[0].length };
}

/** The @sluice/core version a pack directory resolves, as Node would find it (`none` without one). */
export function packCoreVersion(packDir: string): string {
  for (let dir = packDir; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, "node_modules", "@sluice", "core", "package.json"), "utf8")) as { version: string }).version;
    } catch {
      // Not installed here: one folder up, as Node's resolution goes.
    }
    if (dirname(dir) === dir) return "none";
  }
}

/**
 * The file's text: a header line (the key, or null with the reason there is none: a proxied
 * MCP pack, whose listing waits for its upstream's lock, or imports the key cannot see; the
 * counts; `body`, the sha256 of every byte after that line), then the shared definitions and
 * the tools, one a line. UTF-8 exactly as JSON.stringify writes it: the bytes of a tool's
 * definition in the file are the bytes it has on the wire. Deterministic: the definitions
 * come in the order given.
 */
export function formatServedList(definitions: readonly ListedDefinition[], digest: string | null, reason?: string, twins = 0): string {
  const table: string[] = [];
  const index = new Map<string, number>();
  // Tools of a pack share their definitions' objects: an entry met again by the same name and
  // object is found without serializing it again (Kubernetes: 6,338 entries, most of them repeats).
  const seen = new Map<object, Map<string, number>>();
  const entryAt = (name: string, body: unknown): number => {
    const byName = typeof body === "object" && body !== null ? seen.get(body) : undefined;
    let at = byName?.get(name);
    if (at !== undefined) return at;
    const text = JSON.stringify(Object.fromEntries([[name, body]]));
    at = index.get(text);
    if (at === undefined) {
      at = table.length;
      index.set(text, at);
      table.push(text);
    }
    if (typeof body === "object" && body !== null) {
      if (byName === undefined) seen.set(body, new Map([[name, at]]));
      else byName.set(name, at);
    }
    return at;
  };
  const tools = definitions.map((definition) => {
    const defs = definition.inputSchema.$defs;
    if (typeof defs !== "object" || defs === null || Array.isArray(defs)) return `{"tool":${JSON.stringify(definition)}}`;
    const refs = Object.entries(defs).map(([name, body]) => entryAt(name, body));
    const emptied = { ...definition, inputSchema: { ...definition.inputSchema, $defs: {} } };
    const text = JSON.stringify(emptied);
    // Where the empty `$defs` object's inside is: after the members before it, worked out as JSON.stringify writes them.
    const at = openingOf(emptied, "inputSchema").length + openingOf(emptied.inputSchema, "$defs").length + 1;
    if (text.slice(at - EMPTY_DEFS.length + 1, at + 1) !== EMPTY_DEFS) throw new Error(`served list: ${definition.name}'s $defs is not where its members put it`);
    return `{"defs":[${refs.join(",")}],"at":${Buffer.byteLength(text.slice(0, at), "utf8")},"tool":${text}}`;
  });
  const lines = (items: string[]) => (items.length === 0 ? "" : `${items.join(",\n")}\n`);
  const body = `"defs": [\n${lines(table)}],\n"tools": [\n${lines(tools)}]}\n`;
  const bodyDigest = createHash("sha256").update(body, "utf8").digest("hex");
  const head = JSON.stringify({ generated: GENERATED, format: FORMAT, digest, ...(reason === undefined ? {} : { reason }), count: definitions.length, twins, body: bodyDigest });
  return `${head.slice(0, -1)},\n${body}`;
}

/** What stands in a tool's text where its shared definitions go: they are written between the braces. */
const EMPTY_DEFS = '"$defs":{}';

/** The text JSON.stringify writes for `object` up to `key`'s value: the brace, the members before it, the key. */
function openingOf(object: Record<string, unknown>, key: string): string {
  const entries = Object.entries(object);
  const before = JSON.stringify(Object.fromEntries(entries.slice(0, entries.findIndex(([name]) => name === key))));
  return `${before === "{}" ? "{" : `${before.slice(0, -1)},`}${JSON.stringify(key)}:`;
}

/**
 * Reads a served list (its bytes, or its text); undefined for one of another format, whose
 * bytes after the header are not the ones its `body` digest names (an edit by hand), or
 * that does not read as generate writes it. Nothing is parsed beyond the layout: a page of
 * definitions is copied from the file's bytes (listedJson), objects are made on demand.
 */
export function parseServedList(content: string | Uint8Array): ServedList | undefined {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return readServedList(bytes, 0);
}

/**
 * Reads the served list at `path` as parseServedList does, into a buffer with room after the
 * file's bytes for about `pageBytes` of page (three rooms), where pages are then put
 * together without copying the file again.
 */
export function readServedListFile(path: string, pageBytes: number, options: ListReadOptions = {}): ServedList | undefined {
  const fd = openSync(path, "r");
  let bytes: Buffer;
  let room: number;
  try {
    const stamp = stampOf(fstatSync(fd, { bigint: true }));
    if (options.accept !== undefined && !options.accept(stamp)) return undefined;
    const size = Number(stamp[2]);
    room = 3 * Math.max(0, Math.ceil(pageBytes));
    // A buffer of its own (never the shared pool's): the room after the file is the list's to write in.
    const buffer = Buffer.allocUnsafeSlow(size + room);
    if (fill(fd, buffer.subarray(0, size), 0) !== size) return undefined;
    // Bytes read while the file changed are not this file's (and a trusted body is not hashed again).
    if (!sameStamp(stamp, stampOf(fstatSync(fd, { bigint: true })))) return undefined;
    options.observe?.(stamp);
    bytes = buffer.subarray(0, size);
  } finally {
    closeSync(fd);
  }
  return readServedList(bytes, room, options.observeLayout);
}

/**
 * A served list whose layout a full read found before (and whose file still has the stamp it
 * had then: `accept`), read without reading it all: the header and the shared entries now,
 * each tool's text when a page first needs it. A list of 9,000 tools is 50 MB, and on a
 * small VM filling fresh memory and first touching it cost 20 µs a 4 KiB page (0.25 s for the
 * list before its first page); this way each page pays for its own tools, while the client
 * reads the pages before. The file stays open until every tool has been read (or the list is
 * collected); a read finding the file changed since (a regenerate writes it in place) throws
 * STORED_LIST_CHANGED rather than answer with bytes of two versions.
 */
export function readServedListLazily(path: string, pageBytes: number, known: { accept: (stamp: FileStamp) => boolean; layout: ListLayout; digest: string; body: string }): ServedList | undefined {
  const fd = openSync(path, "r");
  let open = true;
  const token = {};
  const close = () => {
    if (open) {
      closeWhenCollected.unregister(token);
      closeSync(fd);
    }
    open = false;
  };
  let list: ServedList | undefined;
  let missing = 0;
  try {
    const stamp = stampOf(fstatSync(fd, { bigint: true }));
    if (!known.accept(stamp)) return undefined;
    const size = Number(stamp[2]);
    const { layout } = known;
    if (!layoutFits(layout, size)) return undefined;
    const room = 3 * Math.max(0, Math.ceil(pageBytes));
    const buffer = Buffer.allocUnsafeSlow(size + room);
    const bytes = buffer.subarray(0, size);
    if (fill(fd, bytes.subarray(0, layout.toolsStart), 0) !== layout.toolsStart) return undefined;
    if (!sameStamp(stamp, stampOf(fstatSync(fd, { bigint: true })))) return undefined;
    const head = readHead(bytes);
    if (head === undefined || head.digest !== known.digest || head.body !== known.body || head.count !== layout.toolFrom.length) return undefined;
    const tools = layout.toolFrom.length;
    const filled = new Uint8Array(tools);
    missing = tools;
    const lazy: LazyFill = (into, from, to) => {
      for (let i = from; i < to; ) {
        if (filled[i] === 1) {
          i++;
          continue;
        }
        let j = i;
        while (j < to && filled[j] === 0) j++;
        const start = layout.toolFrom[i]!;
        const end = layout.toolTo[j - 1]!;
        const steady = open && sameStamp(stamp, stampOf(fstatSync(fd, { bigint: true })));
        if (!steady || fill(fd, into.subarray(start, end), start) !== end - start || !sameStamp(stamp, stampOf(fstatSync(fd, { bigint: true })))) {
          throw Object.assign(new Error(`${path} changed since serve read its key; restart serve (the pack's sources may have been regenerated)`), { code: "STORED_LIST_CHANGED" });
        }
        filled.fill(1, i, j);
        missing -= j - i;
        i = j;
      }
      if (missing === 0) close();
    };
    list = listOver(bytes, room, layout, head, lazy);
    if (missing > 0) closeWhenCollected.register(list, fd, token);
    return list;
  } finally {
    // Held open only by a list with tools still to read.
    if (list === undefined || missing === 0) close();
  }
}

/** A lazily read list let go before all its tools were read gives its descriptor back. */
const closeWhenCollected = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already, when every tool had been read.
  }
});

/** Whether a layout could be a file of `size` bytes's: every range inside it, every index inside its table. */
function layoutFits(layout: ListLayout, size: number): boolean {
  const { toolsStart, defFrom, defTo, toolFrom, toolSplice, toolTo, refStart, refIndex } = layout;
  if (!(toolsStart > 0 && toolsStart <= size) || defFrom.length !== defTo.length || refStart.length !== toolFrom.length + 1 || refStart[0] !== 0 || refStart.at(-1) !== refIndex.length) return false;
  if (toolSplice.length !== toolFrom.length || toolTo.length !== toolFrom.length) return false;
  for (let i = 0; i < defFrom.length; i++) if (!(defFrom[i]! > 0 && defFrom[i]! <= defTo[i]! && defTo[i]! <= toolsStart)) return false;
  for (let i = 0; i < toolFrom.length; i++) {
    const splice = toolSplice[i]!;
    if (!(toolFrom[i]! >= toolsStart && toolFrom[i]! <= toolTo[i]! && toolTo[i]! <= size && refStart[i]! <= refStart[i + 1]!)) return false;
    if (splice !== -1 && !(splice >= toolFrom[i]! && splice <= toolTo[i]!)) return false;
  }
  return refIndex.every((entry) => Number.isInteger(entry) && entry >= 0 && entry < defFrom.length);
}

/** How readServedListFile reads a list for a stat cache (verified-served-list.ts). */
export interface ListReadOptions {
  /** Whether the file's stamp (its descriptor's stat) is the one expected; the list is not read otherwise. */
  accept?: (stamp: FileStamp) => boolean;
  /** Told the file's stamp, which it kept while it was read. */
  observe?: (stamp: FileStamp) => void;
  /** Told the layout found, when the list reads. */
  observeLayout?: (layout: ListLayout) => void;
}

/** A line, or a line's shape, the reader did not expect: the list is not read. */
class NotAList extends Error {}

const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** `roomAfter`: bytes after the file's in its buffer that are the list's own to write pages in. */
function readServedList(bytes: Buffer, roomAfter: number, onLayout?: (layout: ListLayout) => void): ServedList | undefined {
  try {
    return readLayout(bytes, roomAfter, onLayout);
  } catch {
    return undefined;
  }
}

/** The header line's fields, when it is one of this format's. */
function readHead(bytes: Buffer): (ListHead & { headEnd: number }) | undefined {
  const headEnd = bytes.indexOf(0x0a);
  if (headEnd < 1 || bytes[headEnd - 1] !== COMMA) return undefined;
  const head = JSON.parse(`${bytes.toString("utf8", 0, headEnd - 1)}}`) as { format?: unknown; digest?: unknown; count?: unknown; twins?: unknown; body?: unknown };
  const { format, digest, count, twins, body } = head;
  if (format !== FORMAT || (digest !== null && typeof digest !== "string") || !Number.isInteger(count) || !Number.isInteger(twins) || typeof body !== "string") return undefined;
  return { headEnd, digest, body, count: count as number, twins: twins as number };
}

function readLayout(bytes: Buffer, roomAfter: number, onLayout: ((layout: ListLayout) => void) | undefined): ServedList | undefined {
  const head = readHead(bytes);
  if (head === undefined) return undefined;
  const { headEnd, digest, count, twins, body } = head;
  if (createHash("sha256").update(bytes.subarray(headEnd + 1)).digest("hex") !== body) return undefined;

  let next = headEnd + 1;
  /** The next line's [start, end), the newline left out. */
  const line = (): [number, number] => {
    const end = bytes.indexOf(0x0a, next);
    if (end < 0) throw new NotAList();
    const start = next;
    next = end + 1;
    return [start, end];
  };
  const is = (at: number, ascii: string) => {
    for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
    return true;
  };
  const expectLine = (ascii: string) => {
    const [start, end] = line();
    if (end - start !== ascii.length || !is(start, ascii)) throw new NotAList();
  };
  /** A line's end without its separating comma. */
  const unseparated = (start: number, end: number) => (end > start && bytes[end - 1] === COMMA ? end - 1 : end);

  // Each shared entry's inside (`"Name":{...}`) as a byte range of the file, by its index.
  const defFrom: number[] = [];
  const defTo: number[] = [];
  expectLine('"defs": [');
  for (;;) {
    const [start, lineEnd] = line();
    if (lineEnd - start === 2 && bytes[start] === CLOSE_BRACKET && bytes[start + 1] === COMMA) break;
    const end = unseparated(start, lineEnd);
    if (end - start < 4 || !is(start, '{"') || bytes[end - 1] !== CLOSE_BRACE) throw new NotAList();
    defFrom.push(start + 1);
    defTo.push(end - 1);
  }

  // Each tool's text as a byte range, with where its entries go (-1: it has no `$defs` object) and which they
  // are: tool i's entry indices are refIndex[refStart[i]] up to refIndex[refStart[i + 1]] (one array for all
  // tools, and no function made per tool: 9,000 of each cost a start-up tens of milliseconds).
  const toolFrom: number[] = [];
  const toolSplice: number[] = [];
  const toolTo: number[] = [];
  const refStart: number[] = [];
  const refIndex: number[] = [];
  let at = 0;
  const number = () => {
    const from = at;
    let value = 0;
    while (bytes[at]! >= 0x30 && bytes[at]! <= 0x39 && at - from < 10) value = value * 10 + bytes[at++]! - 0x30;
    if (at === from) throw new NotAList();
    return value;
  };
  expectLine('"tools": [');
  const toolsStart = next;
  for (;;) {
    const [start, lineEnd] = line();
    if (lineEnd - start === 2 && bytes[start] === CLOSE_BRACKET && bytes[start + 1] === CLOSE_BRACE) break;
    const end = unseparated(start, lineEnd) - 1;
    if (bytes[end] !== CLOSE_BRACE) throw new NotAList();
    refStart.push(refIndex.length);
    if (is(start, '{"tool":')) {
      toolFrom.push(start + 8);
      toolSplice.push(-1);
      toolTo.push(end);
      continue;
    }
    if (!is(start, '{"defs":[')) throw new NotAList();
    at = start + 9;
    if (bytes[at] === CLOSE_BRACKET) at++;
    else {
      for (;;) {
        const index = number();
        if (index >= defFrom.length) throw new NotAList();
        refIndex.push(index);
        const separator = bytes[at++];
        if (separator === CLOSE_BRACKET) break;
        if (separator !== COMMA) throw new NotAList();
      }
    }
    if (!is(at, ',"at":')) throw new NotAList();
    at += 6;
    const offset = number();
    if (!is(at, ',"tool":')) throw new NotAList();
    const toolStart = at + 8;
    const splice = toolStart + offset;
    // The offset must name the inside of an empty `$defs` object within the tool's text: never a byte off.
    if (splice >= end || !is(splice - EMPTY_DEFS.length + 1, EMPTY_DEFS)) throw new NotAList();
    toolFrom.push(toolStart);
    toolSplice.push(splice);
    toolTo.push(end);
  }
  refStart.push(refIndex.length);
  if (next !== bytes.length || toolFrom.length !== count) return undefined;
  const layout: ListLayout = { toolsStart, defFrom, defTo, toolFrom, toolSplice, toolTo, refStart, refIndex };
  onLayout?.(layout);
  return listOver(bytes, roomAfter, layout, { digest, body, count: count as number, twins: twins as number }, undefined);
}

/**
 * Where a list's pieces lie in its file: each shared entry's inside, each tool's text and where
 * its entries go (-1: nowhere), and tool i's entry indices, refIndex[refStart[i]] up to
 * refIndex[refStart[i + 1]]; the tools' lines start at toolsStart, after the header and entries.
 */
export interface ListLayout {
  toolsStart: number;
  defFrom: number[];
  defTo: number[];
  toolFrom: number[];
  toolSplice: number[];
  toolTo: number[];
  refStart: number[];
  refIndex: number[];
}

interface ListHead {
  digest: string | null;
  body: string;
  count: number;
  twins: number;
}

/** Fills tools' texts into the list's buffer when a page first needs them (readServedListLazily). */
type LazyFill = (bytes: Buffer, from: number, to: number) => void;

/** A ServedList over a file's bytes (`lazy`: the tools' texts are filled in as pages need them). */
function listOver(bytes: Buffer, roomAfter: number, layout: ListLayout, head: ListHead, lazy: LazyFill | undefined): ServedList {
  const { defFrom, defTo, toolFrom, toolSplice, toolTo, refStart, refIndex } = layout;
  const { digest, body, count, twins } = head;
  const tools = toolFrom.length;
  const is = (at: number, ascii: string) => {
    for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
    return true;
  };
  const ensure = (from: number, to: number) => lazy?.(bytes, from, to);

  /**
   * The file's bytes with three rooms after them for pages. Pages are put together there with
   * copyWithin, which copies inside one buffer at memmove's speed, where a copy between two
   * buffers (set, Buffer#copy) costs microseconds a call: a page of 100 Kubernetes tools is
   * about 800 pieces. Two rooms are lent out (a page being written to the client; a room is
   * reused once it is given back, so no page allocates fresh memory), the third is for pages
   * copied out. Made at the first page (one copy of the file), grown for a larger one.
   */
  const fileLength = bytes.length;
  let arena: Uint8Array | undefined;
  let room = 0;
  const lent = [false, false];
  const arenaFor = (length: number): Uint8Array => {
    if (arena !== undefined && room >= length) return arena;
    // Bytes read into a buffer with room to spare after them (readServedListFile) are their own arena: nothing is copied.
    const spare = Math.floor(roomAfter / 3);
    if (arena === undefined && spare >= length) {
      room = spare;
      return (arena = new Uint8Array(bytes.buffer, bytes.byteOffset, fileLength + 3 * spare));
    }
    room = Math.max(length, 2 * room);
    const grown = new Uint8Array(fileLength + 3 * room);
    grown.set(bytes.subarray(0, fileLength));
    // From now on the file is read from the arena's copy; the buffer it came in is let go. Pages
    // lent from an older arena keep it alive until they are written.
    bytes = Buffer.from(grown.buffer, 0, fileLength);
    lent[0] = lent[1] = false;
    return (arena = grown);
  };
  const pageLength = (from: number, to: number) => {
    let length = 2;
    for (let i = from; i < to; i++) {
      length += (i > from ? 1 : 0) + toolTo[i]! - toolFrom[i]!;
      const first = refStart[i]!;
      const last = refStart[i + 1]!;
      for (let k = first; k < last; k++) length += (k > first ? 1 : 0) + defTo[refIndex[k]!]! - defFrom[refIndex[k]!]!;
    }
    return length;
  };
  /** Writes definitions `from` to `to` as a JSON array at `base` of `out`; where it ends. */
  const writePage = (out: Uint8Array, base: number, from: number, to: number): number => {
    let p = base;
    out[p++] = OPEN_BRACKET;
    for (let i = from; i < to; i++) {
      if (i > from) out[p++] = COMMA;
      const splice = toolSplice[i]!;
      if (splice < 0) {
        out.copyWithin(p, toolFrom[i]!, toolTo[i]!);
        p += toolTo[i]! - toolFrom[i]!;
        continue;
      }
      out.copyWithin(p, toolFrom[i]!, splice);
      p += splice - toolFrom[i]!;
      const first = refStart[i]!;
      const last = refStart[i + 1]!;
      for (let k = first; k < last; k++) {
        if (k > first) out[p++] = COMMA;
        const entry = refIndex[k]!;
        out.copyWithin(p, defFrom[entry]!, defTo[entry]!);
        p += defTo[entry]! - defFrom[entry]!;
      }
      out.copyWithin(p, splice, toolTo[i]!);
      p += toolTo[i]! - splice;
    }
    out[p++] = CLOSE_BRACKET;
    return p;
  };
  const listedJson = (from: number, to: number): Buffer => {
    const out = arenaFor(pageLength(from, to));
    ensure(from, to);
    const base = fileLength + 2 * room;
    // The page leaves the arena as a buffer of its own (one copy), so the room can be used again at once.
    const page = out.slice(base, writePage(out, base, from, to));
    return Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  };
  const lentJson = (from: number, to: number): LentJson => {
    const out = arenaFor(pageLength(from, to));
    ensure(from, to);
    const r = lent[0] ? (lent[1] ? -1 : 1) : 0;
    if (r < 0) return { json: listedJson(from, to), done() {} };
    const base = fileLength + r * room;
    const end = writePage(out, base, from, to);
    lent[r] = true;
    return {
      json: Buffer.from(out.buffer, out.byteOffset + base, end - base),
      done() {
        if (arena === out) lent[r] = false;
      },
    };
  };
  /** Tool `i`'s definition, parsed. */
  const definition = (i: number) => (JSON.parse(listedJson(i, i + 1).toString("utf8")) as ListedDefinition[])[0]!;

  return {
    digest,
    body,
    count,
    twins,
    listedJson(from, to) {
      const start = Math.max(0, Math.min(from, tools));
      return listedJson(start, Math.max(start, Math.min(to, tools)));
    },
    lentJson(from, to) {
      const start = Math.max(0, Math.min(from, tools));
      return lentJson(start, Math.max(start, Math.min(to, tools)));
    },
    names() {
      ensure(0, tools);
      return toolFrom.map((from, i) => {
        // The MCP adapter writes `name` first, and a wire name needs no escapes; anything else is parsed whole.
        const quote = is(from, '{"name":"') ? bytes.indexOf(0x22, from + 9) : -1;
        const name = quote > from + 9 && quote < toolTo[i]! ? bytes.toString("latin1", from + 9, quote) : "";
        return /^[a-zA-Z0-9_-]{1,64}$/.test(name) ? name : definition(i).name;
      });
    },
    definitions() {
      ensure(0, tools);
      const entries = defFrom.map((from, i) => Object.entries(JSON.parse(`{${bytes.toString("utf8", from, defTo[i])}}`) as object)[0]!);
      return toolFrom.map((from, i) => {
        const tool = JSON.parse(bytes.toString("utf8", from, toolTo[i])) as ListedDefinition;
        // Assigned in place, so `$defs` keeps the position it has among the schema's keys.
        if (toolSplice[i]! >= 0) tool.inputSchema.$defs = Object.fromEntries(refIndex.slice(refStart[i], refStart[i + 1]).map((entry) => entries[entry]!));
        return tool;
      });
    },
  };
}
