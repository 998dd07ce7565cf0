/**
 * The modules a source file loads when it is imported: its static value imports and
 * re-exports (not `import type`, not `import()`, which load later or never), followed
 * through relative paths and through `@sluice/*` packages (resolved with the
 * "@sluice/source" condition of their exports maps, as tests and the CLI run them).
 * Other packages are leaves, kept as their specifiers.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "../..");

/** Folders of the workspace packages by name, read from their package.json. */
const packageDirs = (() => {
  const dirs = new Map<string, string>();
  for (const group of ["packages", "generators", "packs"]) {
    for (const name of ts.sys.getDirectories(join(ROOT, group))) {
      const manifest = join(ROOT, group, name, "package.json");
      if (existsSync(manifest)) dirs.set((JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name, join(ROOT, group, name));
    }
  }
  return dirs;
})();

function resolveWorkspace(specifier: string): string | undefined {
  const [scope, name, ...rest] = specifier.split("/");
  const dir = packageDirs.get(`${scope}/${name}`);
  if (dir === undefined) return undefined;
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };
  const entry = manifest.exports[rest.length === 0 ? "." : `./${rest.join("/")}`];
  const target = typeof entry === "object" ? entry["@sluice/source"] : undefined;
  if (target === undefined) throw new Error(`${specifier}: no "@sluice/source" export`);
  return join(dir, target);
}

const importsCache = new Map<string, string[]>();

/** The specifiers a file loads as soon as it is evaluated. */
export function valueImportsOf(file: string): string[] {
  const cached = importsCache.get(file);
  if (cached !== undefined) return cached;
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      // `import type {...}` and `import { type A, type B }` are erased (verbatimModuleSyntax keeps the latter as a bare import).
      if (clause?.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && !statement.isTypeOnly) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text);
    }
  }
  importsCache.set(file, out);
  return out;
}

/**
 * Every module `entry` loads, transitively: workspace source files as paths relative to
 * the repository root, other packages and node: builtins as their specifiers. Sorted.
 */
export function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const leaves = new Set<string>();
  const stack = [resolve(entry)];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of valueImportsOf(file)) {
      const target = specifier.startsWith(".") ? resolve(dirname(file), specifier) : specifier.startsWith("@sluice/") ? resolveWorkspace(specifier) : undefined;
      if (target === undefined) leaves.add(specifier);
      else stack.push(target);
    }
  }
  return [...[...seen].map((file) => relative(ROOT, file)), ...leaves].sort();
}

/**
 * The names an entry module re-exports (`export { a, type B } from "./m.ts"`), each with the
 * workspace module that declares it: re-exports are followed through barrels, so two entries
 * that reach one binding by different paths name the same module.
 */
export function reExports(entry: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const [name, { module, imported }] of exportClauses(resolve(ROOT, entry))) names.set(name, origin(module, imported));
  return names;
}

function exportClauses(file: string): Map<string, { module: string; imported: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names = new Map<string, { module: string; imported: string }>();
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier === undefined || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    const module = specifier.startsWith(".") ? resolve(dirname(file), specifier) : specifier.startsWith("@sluice/") ? (resolveWorkspace(specifier) ?? specifier) : specifier;
    if (statement.exportClause === undefined || !ts.isNamedExports(statement.exportClause)) throw new Error(`${file}: \`export *\` from ${specifier}`);
    for (const element of statement.exportClause.elements) names.set(element.name.text, { module, imported: (element.propertyName ?? element.name).text });
  }
  return names;
}

/** The module that declares `name`, following `module`'s re-exports; relative to the root. */
function origin(module: string, name: string): string {
  if (!module.startsWith("/")) return module;
  const next = exportClauses(module).get(name);
  return next === undefined ? relative(ROOT, module) : origin(next.module, next.imported);
}
