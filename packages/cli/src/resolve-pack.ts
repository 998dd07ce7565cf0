import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { SluiceError } from "@sluice/schema";
import { closest } from "./args.ts";

/** What `<pack>` named: the module file to import and how it was found. */
export interface ResolvedPack {
  file: string;
  via: "path" | "package" | "workspace";
}

/** The export condition naming a workspace package's TypeScript sources (package.json `exports`). */
const SOURCE_CONDITION = "@sluice/source";
/** From its own sources (the sluice repository), the CLI prefers packages' sources too: the SOURCE_CONDITION export. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const MODULE_FILE = /\.(?:[mc]?[jt]s)$/;

/**
 * Resolves `<pack>`, in this order:
 * 1. a path (relative to cwd) to a module file, or to a pack directory (its package.json
 *    entry, else src/index.ts); something that looks like a path and is missing is FILE_NOT_FOUND;
 * 2. an installed package, found from cwd the way Node would (node_modules up the folders):
 *    the name as given, and `@sluice/pack-<name>` for a short name;
 * 3. inside the sluice repository, one of its packs (packs/<name>).
 * Anything else is PACK_NOT_FOUND, with the nearest names that would have worked.
 */
export function resolvePack(spec: string, cwd: string): ResolvedPack {
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (existsSync(path)) return { file: statSync(path).isDirectory() ? directoryEntry(path, spec) : path, via: "path" };
  if (looksLikePath(spec)) throw new SluiceError("FILE_NOT_FOUND", `${spec}: no such file or directory (${path}).`);

  const names = spec.startsWith("@") || spec.includes("/") ? [spec] : [`@sluice/pack-${spec}`, spec];
  for (const name of names) {
    const dir = installedPackage(name, cwd);
    if (dir !== undefined) return { file: directoryEntry(dir, name), via: "package" };
  }
  const workspace = workspacePacksDir();
  if (workspace !== undefined && /^[a-z0-9][a-z0-9-]*$/.test(spec) && existsSync(join(workspace, spec, "package.json"))) {
    return { file: directoryEntry(join(workspace, spec), spec), via: "workspace" };
  }
  // A pack the user generated sits in ./packs/<name> (sluice generate's default layout), or
  // in a packs/ folder up the tree: a bare name then most likely meant that directory.
  const local = localPackDirs(spec, cwd);
  const known = knownPacks(cwd);
  const near = [...local, ...closest(spec, known)].slice(0, 3);
  throw new SluiceError(
    "PACK_NOT_FOUND",
    `"${spec}" is not a path, an installed package (${names.join(" or ")}, looked up from ${cwd})${workspace === undefined ? "" : ", nor a pack of this repository"}${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""}`,
    { candidates: near.length > 0 ? near : known.slice(0, 20) },
  );
}

/** `./packs/<name>` (or `../packs/<name>` ...) when such a pack directory exists, spelled relative to cwd. */
function localPackDirs(spec: string, cwd: string): string[] {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(spec)) return [];
  const out: string[] = [];
  for (let dir = cwd, up = ""; ; dir = dirname(dir), up += "../") {
    const candidate = join(dir, "packs", spec);
    if (existsSync(join(candidate, "package.json")) || existsSync(join(candidate, "src", "index.ts"))) out.push(`${up === "" ? "./" : up}packs/${spec}`);
    if (out.length > 0 || dirname(dir) === dir || existsSync(join(dir, "package.json"))) break;
  }
  return out;
}

function looksLikePath(spec: string): boolean {
  return spec.startsWith(".") || isAbsolute(spec) || spec.includes("\\") || (spec.includes("/") && !spec.startsWith("@")) || MODULE_FILE.test(spec);
}

/** The directory of an installed package, as Node would find it from cwd (symlinks resolved, as pnpm makes them). */
function installedPackage(name: string, cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** The module a pack directory stands for: its package.json entry (export conditions as Node reads them), else src/index.ts or index.js. */
function directoryEntry(dir: string, label: string): string {
  const manifest = join(dir, "package.json");
  const entries: string[] = [];
  if (existsSync(manifest)) {
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { exports?: unknown; main?: string; module?: string };
    const root = rootExport(pkg.exports);
    const conditions = FROM_SOURCE ? [SOURCE_CONDITION, "import", "node", "default"] : ["import", "node", "default"];
    const chosen = root === undefined ? undefined : pick(root, conditions);
    if (chosen !== undefined) entries.push(chosen);
    // A pack directory that is not built yet still has its sources.
    const source = root === undefined ? undefined : pick(root, [SOURCE_CONDITION]);
    if (source !== undefined) entries.push(source);
    if (pkg.main !== undefined) entries.push(pkg.main);
  }
  entries.push("src/index.ts", "src/index.js", "index.js", "index.mjs", "src/tools.gen.ts");
  for (const entry of entries) {
    const file = resolve(dir, entry);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  throw new SluiceError("FILE_NOT_FOUND", `${label} (${dir}) has no module to load: no package.json entry, src/index.ts or index.js there.`);
}

function rootExport(exports: unknown): unknown {
  if (exports === undefined || exports === null) return undefined;
  if (typeof exports === "string" || Array.isArray(exports)) return exports;
  const record = exports as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.some((key) => key.startsWith("."))) return record["."];
  return record;
}

function pick(target: unknown, conditions: readonly string[]): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = pick(item, conditions);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (target === null || typeof target !== "object") return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!conditions.includes(condition)) continue;
    const found = pick(value, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** packs/ of the sluice repository, when this CLI is that repository's own copy (never an installed one). */
export function workspacePacksDir(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (here.includes(`${sep}node_modules${sep}`)) return undefined;
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  return existsSync(join(root, "pnpm-workspace.yaml")) && existsSync(join(root, "packs")) ? join(root, "packs") : undefined;
}

/** Every name resolvePack would accept without a path: the repository's packs and the installed @sluice/pack-* (short and full). */
function knownPacks(cwd: string): string[] {
  const names = new Set<string>();
  const workspace = workspacePacksDir();
  if (workspace !== undefined) for (const name of listDirs(workspace)) if (existsSync(join(workspace, name, "package.json"))) names.add(name);
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of listDirs(join(dir, "node_modules", "@sluice"))) {
      if (name.startsWith("pack-")) {
        names.add(name.slice("pack-".length));
        names.add(`@sluice/${name}`);
      }
    }
    if (dirname(dir) === dir) break;
  }
  return [...names].sort();
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
