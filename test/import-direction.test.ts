/**
 * The layering of ../shared/DESIGN.md, held by the code: nothing under packages/ imports a
 * generator (a package living under generators/), by package name, by relative path, or as
 * a dependency in its package.json. The CLI, at the top, is the one exception, and only for
 * @sluice/pipeline, the engine its generate runs. Every import counts, `import type` and
 * `import()` too: a type-only import still makes the generator a dependency to install.
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
  const reaches = (specifier: string) => {
    const bare = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
    return generatorNames.has(bare) && !allowed.has(bare);
  };
  const problems: string[] = [];
  for (const dependency of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies })) if (reaches(dependency)) problems.push(`${pkg.name} package.json depends on ${dependency}`);
  for (const [file, text] of files) {
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      const where = relative(ROOT, file);
      if (reaches(specifier)) problems.push(`${where} imports ${specifier}`);
      else if (specifier.startsWith(".") && !relative(GENERATORS, resolve(dirname(file), specifier)).startsWith("..")) problems.push(`${where} imports ${specifier} (under generators/)`);
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
