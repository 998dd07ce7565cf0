/**
 * The import graph of a package's source: every relative import (static, dynamic, type-only
 * and re-exports alike: a circle through types still ties the modules together for a reader
 * and for structure tools), read with the TypeScript parser, and its strongly connected
 * components with more than one module (or a module importing itself): the circles.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { stronglyConnectedComponents } from "@sluice/schema";

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

/**
 * Relative module specifiers of one file, resolved to paths: the TypeScript scanner's
 * import pass (`preProcessFile`: import and export declarations, `import type`, `import()`
 * calls), which reads only the imports and is fast on the megabyte generated files.
 */
export function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return importedFiles.map((entry) => entry.fileName).filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
}

/** The circles among `files` (each sorted, paths relative to `root`), sorted. */
export function importCircles(files: readonly string[], root: string): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
  return stronglyConnectedComponents(edges)
    .filter((component) => component.length > 1 || edges.get(component[0]!)!.includes(component[0]!))
    .map((component) => component.map((file) => relative(root, file)).sort())
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
