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
 * Layout, one entry a line so that a diff reads per tool: each distinct root `$defs` entry
 * once in `defs` (a pack's tools reach the same definitions many times over: 8,984
 * Kubernetes tools list 118 MB, mostly repeated definitions), and each tool's definition
 * with its `inputSchema.$defs` standing as the indices of its entries, in their order.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";

export const SERVED_LIST_FILE = "served-tools.gen.json";
/** JSON has no comments: the file says what it is in its first member. */
const GENERATED = "written by sluice generate, keyed by the pack's src/: do not edit; regenerate with sluice generate";
/** Bumped whenever the layout or the meaning of the key changes: an old file then never matches. */
const FORMAT = 2;

/** A tools/list definition as this file stores it: only `inputSchema.$defs` is looked into. */
export interface ListedDefinition {
  name: string;
  inputSchema: { $defs?: Record<string, unknown> } & Record<string, unknown>;
  [key: string]: unknown;
}

/** A read served list: its key (null when it has none) and, on demand, its definitions. */
export interface ServedList {
  digest: string | null;
  count: number;
  /** The `*_full` twins the pack has and the list leaves out (serve's start-up line says how many). */
  twins: number;
  definitions(): ListedDefinition[];
}

/** Files of a pack's `src/` by path relative to it ('/'-separated), the served list itself left out. */
export function packSourceFiles(srcDir: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const rel of packSourcePaths(srcDir)) files.set(rel, readFileSync(join(srcDir, rel)));
  return files;
}

/** The paths packSourceFiles reads, in the order the key takes them. */
function packSourcePaths(srcDir: string): string[] {
  const paths: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const rel = relative(srcDir, path).split(sep).join("/");
        if (rel !== SERVED_LIST_FILE) paths.push(rel);
      }
    }
  };
  walk(srcDir);
  return paths.sort(byCodeUnits);
}

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
export function packSourceDigest(srcDir: string, coreVersion: string): string | undefined {
  const hash = keyHash(coreVersion);
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (const path of packSourcePaths(srcDir)) {
    const file = join(srcDir, path);
    if (HAND_WRITTEN_SOURCE.test(path) && !GENERATED_SOURCE.test(path)) {
      const bytes = readFileSync(file);
      if (!keyableSource(path, bytes)) return undefined;
      hash.update(`${path}\0${bytes.length}\0`).update(bytes);
      continue;
    }
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
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
      if (total !== size) return undefined;
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
 * The file's text: the key, or null with the reason there is none (a proxied MCP pack, whose
 * listing waits for its upstream's lock; imports the key cannot see), the shared definitions
 * and the tools, one a line. Deterministic: the definitions come in the order given.
 */
export function formatServedList(definitions: readonly ListedDefinition[], digest: string | null, reason?: string, twins = 0): string {
  const table: string[] = [];
  const index = new Map<string, number>();
  // Tools of a pack share their definitions' objects: an entry met again by the same name and
  // object is found without serializing it again (Kubernetes: 6,338 entries, most of them repeats).
  const seen = new Map<object, Map<string, number>>();
  const tools = definitions.map((definition) => {
    const defs = definition.inputSchema.$defs;
    if (defs === undefined || typeof defs !== "object" || defs === null || Array.isArray(defs)) return JSON.stringify(definition);
    const refs = Object.entries(defs).map((entry) => {
      const [name, body] = entry;
      const byName = typeof body === "object" && body !== null ? seen.get(body) : undefined;
      let at = byName?.get(name);
      if (at !== undefined) return at;
      const text = JSON.stringify(entry);
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
    });
    return JSON.stringify({ ...definition, inputSchema: { ...definition.inputSchema, $defs: refs } });
  });
  const head = JSON.stringify({ generated: GENERATED, format: FORMAT, digest, ...(reason === undefined ? {} : { reason }), count: definitions.length, twins });
  return asciiOnly(`${head.slice(0, -1)},\n"defs": [\n${table.join(",\n")}\n],\n"tools": [\n${tools.join(",\n")}\n]}\n`);
}

/**
 * JSON text with every character past ASCII written as its \u escape: the same values once
 * parsed, and a file serve can decode as Latin-1 (a copy) instead of as UTF-8, which for one
 * dash in 50 MB builds a two-byte string of it all (twice the memory, several times the time).
 */
function asciiOnly(json: string): string {
  return json.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Reads a served list (its bytes, or its text); undefined for one of another format or that does not parse. */
export function parseServedList(content: string | Uint8Array): ServedList | undefined {
  let parsed: { format?: unknown; digest?: unknown; count?: unknown; twins?: unknown; defs?: unknown; tools?: unknown };
  try {
    const text = typeof content === "string" ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString(isAscii(content) ? "latin1" : "utf8");
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  const { format, digest, count, twins, defs, tools } = parsed;
  if (format !== FORMAT || (digest !== null && typeof digest !== "string") || typeof count !== "number" || typeof twins !== "number" || !Array.isArray(defs) || !Array.isArray(tools) || tools.length !== count) return undefined;
  return {
    digest,
    count,
    twins,
    definitions() {
      const table = defs as Array<[string, unknown]>;
      return (tools as ListedDefinition[]).map((tool) => {
        const refs = tool.inputSchema.$defs as unknown;
        if (!Array.isArray(refs)) return tool;
        // Assigned in place, so `$defs` keeps the position it had among the schema's keys.
        tool.inputSchema.$defs = Object.fromEntries(refs.map((at: number) => table[at]!));
        return tool;
      });
    },
  };
}
