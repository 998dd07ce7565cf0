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
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
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
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const rel = relative(srcDir, path).split(sep).join("/");
        if (rel !== SERVED_LIST_FILE) files.set(rel, readFileSync(path));
      }
    }
  };
  walk(srcDir);
  return files;
}

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
  const hash = createHash("sha256").update(`sluice served list ${FORMAT}\0core ${coreVersion}\0`);
  const paths = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    const bytes = files.get(path)!;
    if (/\.[cm]?[jt]sx?$/.test(path) && !/\.gen\.[cm]?[jt]s$/.test(path)) {
      const text = Buffer.from(bytes).toString("utf8");
      // serve reads a module's `outputSchemas` export beside its tools; the list (tools only) cannot hold them.
      if (!importsStayInside(path, text) || text.includes("outputSchemas")) return undefined;
    }
    const keyed = /\.gen\.[cm]?[jt]s$/.test(path) ? withoutRegenerateLine(bytes) : bytes;
    hash.update(`${path}\0${keyed.length}\0`).update(keyed);
  }
  return hash.digest("hex");
}

/**
 * A generated file without its header's `// Regenerate:` line: that line names the command
 * that made the pack (`generate <spec> --name --out`, or a config's pack), which changes
 * nothing a model is served, and generate --check lets it differ.
 */
function withoutRegenerateLine(bytes: Uint8Array): Uint8Array {
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("latin1");
  const line = /^\/\/ Regenerate: [^\n]*\n/m.exec(head);
  if (line === null) return bytes;
  return Buffer.concat([bytes.subarray(0, line.index), bytes.subarray(line.index + line[0].length)]);
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
  const tools = definitions.map((definition) => {
    const defs = definition.inputSchema.$defs;
    if (defs === undefined || typeof defs !== "object" || defs === null || Array.isArray(defs)) return JSON.stringify(definition);
    const refs = Object.entries(defs).map((entry) => {
      const text = JSON.stringify(entry);
      let at = index.get(text);
      if (at === undefined) {
        at = table.length;
        index.set(text, at);
        table.push(text);
      }
      return at;
    });
    return JSON.stringify({ ...definition, inputSchema: { ...definition.inputSchema, $defs: refs } });
  });
  const head = JSON.stringify({ generated: GENERATED, format: FORMAT, digest, ...(reason === undefined ? {} : { reason }), count: definitions.length, twins });
  return `${head.slice(0, -1)},\n"defs": [\n${table.join(",\n")}\n],\n"tools": [\n${tools.join(",\n")}\n]}\n`;
}

/** Reads a served list's text; undefined for one of another format or that does not parse. */
export function parseServedList(text: string): ServedList | undefined {
  let parsed: { format?: unknown; digest?: unknown; count?: unknown; twins?: unknown; defs?: unknown; tools?: unknown };
  try {
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
