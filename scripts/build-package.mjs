// The build of one published package (packages/*, generators/*), run in the package's folder by
// its `build` script (`pnpm -r build` runs them in dependency order):
//
//  1. dist/ is emptied, so nothing of an earlier build (or of the old one-file-per-module layout)
//     is left to be published or loaded.
//  2. esbuild bundles src/ into one ES module per `exports` entry plus shared chunks (code
//     splitting, so two entries of a package share one copy of each module: one class, one
//     registry). Every bare import stays external: npm dependencies, and above all the other
//     @sluice packages, since serve checks `instanceof Tool` and `instanceof SluiceError`
//     against the core a user's pack imports. A module the sources import with import() becomes
//     a file of its own too (`<module>-<hash>.js`), so what loads lazily still does.
//  3. tsc writes the declarations only (tsconfig.build.json with emitDeclarationOnly), at the
//     paths `exports` names, checked against the sibling packages' declarations as before.
//
// Fewer, larger modules load faster than the ~250 files Node otherwise resolves, reads and links
// on `sluice serve` (bench/STARTUP.md, bench/GENERATE.md: "bundle").
//
// A module that finds a file beside itself (`new URL("../assets/x", import.meta.url)`) would
// find another one once its code sits in a chunk at another depth: the build checks that every
// such URL names the same file from the module's place in src/ and from its output's in dist/.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = process.cwd();
const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
const SRC = join(PACKAGE, "src");
const DIST = join(PACKAGE, "dist");
// --out DIR: write the JavaScript there instead of dist/ (with --js-only: tests build the real
// packages into a temporary folder without touching their dist/). The checks below still judge
// each file as if it sat in dist/.
const outAt = process.argv.indexOf("--out");
const OUT = outAt === -1 ? DIST : resolve(process.argv[outAt + 1] ?? fail("--out needs a folder"));
const require = createRequire(join(PACKAGE, "package.json"));

/**
 * Modules built under their own name though no `exports` entry names them: serve's, which the
 * start-up benchmarks import on its own to time it apart from the CLI's main
 * (bench/startup/serve-stages.mjs, scripts/bench-startup.ts). main imports it with import() in
 * any case, so this only names the file it would have been in.
 */
const NAMED_MODULES = { "@sluice/cli": ["src/serve.ts"] };

/** The source file of each `exports` entry with an "import" target, from its "@sluice/source" condition. */
function entryPoints() {
  const entries = [];
  for (const [key, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target !== "object" || target === null || typeof target.import !== "string") continue;
    const source = target["@sluice/source"];
    const expected = typeof source === "string" ? source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, ".js") : undefined;
    if (expected !== target.import) fail(`exports["${key}"] imports ${target.import}, but its source ${source} would build to ${expected}`);
    entries.push(join(PACKAGE, source));
  }
  for (const source of NAMED_MODULES[manifest.name] ?? []) entries.push(join(PACKAGE, source));
  return entries;
}

function fail(message) {
  process.stderr.write(`${manifest.name}: ${message}\n`);
  process.exit(1);
}

rmSync(OUT, { recursive: true, force: true });

// The workspace's esbuild (a root devDependency, pinned), which this script sits beside.
const { build } = await import(createRequire(import.meta.url).resolve("esbuild"));
const result = await build({
  absWorkingDir: PACKAGE,
  entryPoints: entryPoints(),
  outbase: SRC,
  outdir: OUT,
  entryNames: "[dir]/[name]",
  // Chunks beside the entries at dist/'s top, the depth most sources sit at in src/ (see below).
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  tsconfig: join(PACKAGE, "tsconfig.build.json"),
  // A class or function keeps the name its source gives it: without this, bundling renames some
  // (Tool would print as `_Tool {` in util.inspect, and a stack trace would name `ownValue2`). Users
  // read those names; about 6 ms of serve's module CPU is the price (bundle branch, 21 rounds).
  keepNames: true,
  sourcemap: true,
  sourcesContent: true,
  // Nothing third-party is bundled, so there are no licence comments to carry. The output has no
  // banner or timestamp: the same sources give the same bytes (two builds' dist/ compare equal;
  // test/build-package.test.ts builds the CLI twice).
  legalComments: "none",
  // The published build: guards frozen, withoutGuard refused (packages/core/src/guards.ts).
  define: { __SLUICE_PUBLISHED__: "true" },
  metafile: true,
  logLevel: "warning",
});
if (result.errors.length > 0) process.exit(1);
checkInputs(result.metafile);
checkRelativeUrls(result.metafile);

// --js-only: the bundle and its checks without declarations (test/build-package.test.ts; without
// --out it leaves dist/ with no declarations).
if (process.argv.includes("--js-only")) process.exit(0);
// emitDeclarationOnly: declarations at dist/<path>.d.ts for every source module, as before.
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--emitDeclarationOnly"], { cwd: PACKAGE, stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

/**
 * Only this package's own sources are bundled. A relative import that reached into another
 * package's folder would put a second copy of that package's modules (a second Tool class, a
 * second SluiceError) in this one's dist, and `instanceof` would fail between them.
 */
function checkInputs(metafile) {
  for (const input of Object.keys(metafile.inputs)) {
    const path = resolve(PACKAGE, input);
    if (!path.startsWith(SRC + sep)) fail(`the bundle would include ${input}, which is not in this package's src/; import it by its package name so it stays external`);
  }
}

/**
 * Every `new URL("relative", import.meta.url)` in a source module must name the same file from
 * the output file its code went into: a module two folders down in src/ that lands in a chunk
 * one folder down reads the wrong file (or none) at run time, which no type check sees.
 */
function checkRelativeUrls(metafile) {
  const pattern = /new URL\(\s*(["'`])([^"'`]*)\1\s*,\s*import\.meta\.url\s*\)/g;
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!output.endsWith(".js")) continue;
    for (const input of Object.keys(inputs)) {
      const source = resolve(PACKAGE, input);
      if (!source.startsWith(SRC + sep)) continue;
      const text = readFileSync(source, "utf8");
      for (const match of text.matchAll(pattern)) {
        const url = match[2];
        // From src/, a file in src/ is the same file's build in dist/.
        const fromSource = fileURLToPath(new URL(url, `file://${source}`));
        const intended = fromSource === SRC || fromSource.startsWith(SRC + sep) ? join(DIST, relative(SRC, fromSource)) : fromSource;
        const placed = join(DIST, relative(OUT, resolve(PACKAGE, output)));
        const fromOutput = fileURLToPath(new URL(url, `file://${placed}`));
        const trim = (path) => path.replace(/[\\/]+$/, "");
        if (trim(intended) !== trim(fromOutput)) {
          fail(`${relative(PACKAGE, source)} reads new URL("${url}", import.meta.url), which is ${relative(PACKAGE, intended) || "."} from the source but ${relative(PACKAGE, fromOutput) || "."} from ${relative(PACKAGE, placed)}, where its code is bundled; move the URL into a module at the depth of its output`);
        }
      }
    }
  }
}
