/**
 * The layering of ../shared/DESIGN.md, held by the code: nothing under packages/ imports a
 * generator (a package living under generators/), by package name, by relative path, or as
 * a dependency in its package.json. The CLI, at the top, is the one exception, and only for
 * @sluice/pipeline, the engine its generate runs. Every import counts, `import type` and
 * `import()` too: a type-only import still makes the generator a dependency to install.
 *
 * Among the generators, a source (openapi, graphql, mcp) never imports another: what they
 * share lives in the shared ones (emit, schema-convert), so the MCP generator goes from its
 * snapshot to the tool IR without building an OpenAPI document and running that generator.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GENERATORS = join(ROOT, "generators");

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const folders = (group: string) => readdirSync(join(ROOT, group), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(ROOT, group, entry.name));
const generatorNames = new Set(folders("generators").map((dir) => manifest(dir).name));
/** What each package under packages/ may import of generators/: nothing, but for the CLI's pipeline. */
const ALLOWED: Record<string, readonly string[]> = { "@sluice/cli": ["@sluice/pipeline"] };

// `from "x"` (imports, re-exports, `import type`), `import "x"`, `import("x")`, `require("x")`.
const SPECIFIER = /\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']|\brequire\s*\(\s*["']([^"']+)["']/g;

/** Where a package's code (files: absolute path -> text) and manifest reach a generator it may not import. */
function generatorReach(pkg: Manifest, files: ReadonlyMap<string, string>): string[] {
  const allowed = new Set(ALLOWED[pkg.name] ?? []);
  return reachOf(pkg, files, (bare) => generatorNames.has(bare) && !allowed.has(bare), GENERATORS);
}

/** The generators that read one kind of source; the others (emit, schema-convert, pipeline) are shared or run them. */
const SOURCE_GENERATORS = new Set(["@sluice/generator-openapi", "@sluice/generator-graphql", "@sluice/generator-mcp"]);

/** Where a source generator's code and manifest reach another source generator (by name, or by a relative path into its folder). */
function sourceGeneratorReach(dir: string, pkg: Manifest, files: ReadonlyMap<string, string>): string[] {
  const others = folders("generators").filter((other) => other !== dir && SOURCE_GENERATORS.has(manifest(other).name));
  const problems = others.flatMap((other) => reachOf(pkg, files, (bare) => bare === manifest(other).name, other));
  return [...new Set(problems)];
}

/** Imports and dependencies of `pkg` that `forbidden` names (by bare package name), and relative imports into `folder`. */
function reachOf(pkg: Manifest, files: ReadonlyMap<string, string>, forbidden: (bare: string) => boolean, folder: string): string[] {
  const reaches = (specifier: string) => forbidden(specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/"));
  const problems: string[] = [];
  for (const dependency of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies })) if (reaches(dependency)) problems.push(`${pkg.name} package.json depends on ${dependency}`);
  for (const [file, text] of files) {
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      const where = relative(ROOT, file);
      if (reaches(specifier)) problems.push(`${where} imports ${specifier}`);
      else if (specifier.startsWith(".") && !relative(folder, resolve(dirname(file), specifier)).startsWith("..")) problems.push(`${where} imports ${specifier} (under ${relative(ROOT, folder)}/)`);
    }
  }
  return problems;
}

function sourcesOf(packageDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(packageDir, "src"), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.[mc]?[jt]sx?$/.test(entry.name)) files.set(join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name), "utf8"));
  }
  return files;
}

it("no package under packages/ imports a generator (the CLI only the pipeline)", () => {
  const packages = folders("packages");
  expect(packages.map((dir) => manifest(dir).name)).toEqual(expect.arrayContaining(["@sluice/cli", "@sluice/core", "@sluice/mcp", "@sluice/mcp-client"]));
  expect(packages.flatMap((dir) => generatorReach(manifest(dir), sourcesOf(dir)))).toEqual([]);
});

it("fails on every way of reaching one: a package, a type-only import, import(), a relative path, a dependency", () => {
  expect([...generatorNames]).toEqual(expect.arrayContaining(["@sluice/generator-openapi", "@sluice/generator-graphql", "@sluice/generator-mcp", "@sluice/emit", "@sluice/pipeline"]));
  const at = join(ROOT, "packages/mcp/src/upstream.ts");
  const text = ['import { a } from "@sluice/generator-mcp";', 'import type { B } from "@sluice/emit";', 'const c = await import("@sluice/generator-openapi");', 'export { d } from "../../../generators/graphql/src/index.ts";', 'import "@sluice/pipeline/jobs";', 'import { e } from "@sluice/mcp-client";'].join("\n");
  const problems = generatorReach({ name: "@sluice/mcp", dependencies: { "@sluice/generator-mcp": "workspace:*", "@sluice/mcp-client": "workspace:*" } }, new Map([[at, text]]));
  expect(problems).toEqual([
    "@sluice/mcp package.json depends on @sluice/generator-mcp",
    "packages/mcp/src/upstream.ts imports @sluice/generator-mcp",
    "packages/mcp/src/upstream.ts imports @sluice/emit",
    "packages/mcp/src/upstream.ts imports @sluice/generator-openapi",
    "packages/mcp/src/upstream.ts imports ../../../generators/graphql/src/index.ts (under generators/)",
    "packages/mcp/src/upstream.ts imports @sluice/pipeline/jobs",
  ]);
  // The CLI may run the pipeline, and nothing else of generators/.
  const cli = join(ROOT, "packages/cli/src/generate.ts");
  expect(generatorReach({ name: "@sluice/cli" }, new Map([[cli, 'import { buildPack } from "@sluice/pipeline";\nimport { x } from "@sluice/generator-mcp";']]))).toEqual(["packages/cli/src/generate.ts imports @sluice/generator-mcp"]);
});

/** An object literal that reads as an OpenAPI or Swagger document's version field. */
const OPENAPI_DOCUMENT = /\b(?:openapi|swagger)["']?\s*:\s*["'`](?:2|3)\./;

it("no source generator imports another: the MCP generator reaches neither the OpenAPI generator nor an OpenAPI document", () => {
  const sources = folders("generators").filter((dir) => SOURCE_GENERATORS.has(manifest(dir).name));
  expect(sources.map((dir) => manifest(dir).name).sort()).toEqual([...SOURCE_GENERATORS].sort());
  expect(sources.flatMap((dir) => sourceGeneratorReach(dir, manifest(dir), sourcesOf(dir)))).toEqual([]);
  // Nor does it write one of its own to hand to a converter: it calls @sluice/schema-convert with a JSON Schema bundle.
  const mcp = join(GENERATORS, "mcp");
  expect([...sourcesOf(mcp)].filter(([, text]) => OPENAPI_DOCUMENT.test(text)).map(([file]) => relative(ROOT, file))).toEqual([]);
  expect(Object.keys(manifest(mcp).dependencies ?? {})).toContain("@sluice/schema-convert");
});

it("fails when the MCP generator goes back through OpenAPI: its dependency, an import, a relative path, a document literal", () => {
  const mcp = join(GENERATORS, "mcp");
  const at = join(mcp, "src/build-pack-ir.ts");
  const text = ['import { buildOpenAPIPackIR } from "@sluice/generator-openapi";', 'import type { PackSourceInfo } from "../../openapi/src/build-pack-ir.ts";', 'import { emitPackSources } from "@sluice/emit";'].join("\n");
  expect(sourceGeneratorReach(mcp, { name: "@sluice/generator-mcp", dependencies: { "@sluice/generator-openapi": "workspace:*", "@sluice/emit": "workspace:*" } }, new Map([[at, text]]))).toEqual([
    "@sluice/generator-mcp package.json depends on @sluice/generator-openapi",
    "generators/mcp/src/build-pack-ir.ts imports @sluice/generator-openapi",
    "generators/mcp/src/build-pack-ir.ts imports ../../openapi/src/build-pack-ir.ts (under generators/openapi/)",
  ]);
  expect(OPENAPI_DOCUMENT.test('const document = { openapi: "3.1.0", info, paths, components: { schemas } };')).toBe(true);
  expect(OPENAPI_DOCUMENT.test('{ "swagger": "2.0" }')).toBe(true);
  expect(OPENAPI_DOCUMENT.test('const bundle = { $defs: defs, tools };')).toBe(false);
});
