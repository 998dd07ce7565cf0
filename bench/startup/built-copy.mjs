// A copy of this checkout's built tree (what `sluice serve` of bench/startup/github-rest-500.mjs
// loads: the packages' package.json, dist/ and node_modules links, and this folder), for timing
// a variant beside the checkout itself with serve-cpu.sh. Third-party packages are linked, not
// copied; the @sluice packages resolve to the copies, so the pack shares the copy's @sluice/core.
//   node bench/startup/built-copy.mjs OUT [--bundle | --minify] [--serve-root-entries]
// --bundle / --minify: each of @sluice/schema, core, catalog, mcp and cli rebuilt as one esbuild
//   bundle per package (code splitting over its export entries, so entries share state;
//   dependencies external), from the compiled dist/ (the esbuild that tsx brings).
// --serve-root-entries: the CLI's serve imports @sluice/mcp and @sluice/catalog as before their
//   serve entries existed (the MCP proxy and the whole catalog load again).
// Both options rewrite a tree built one file per module by tsc, as every package was until the
// build bundled them (scripts/build-package.mjs); on a bundled tree --bundle adds nothing and
// --serve-root-entries finds none of the files it edits.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { bundle: { type: "boolean" }, minify: { type: "boolean" }, "serve-root-entries": { type: "boolean" } } });
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OUT = resolve(positionals[0] ?? "");
if (positionals.length !== 1 || OUT === ROOT.replace(/\/$/, "")) throw new Error("usage: node bench/startup/built-copy.mjs OUT [--bundle | --minify] [--serve-root-entries]");
const PACKAGES = ["packages/schema", "packages/core", "packages/catalog", "packages/mcp", "packages/cli"];

rmSync(OUT, { recursive: true, force: true });
for (const dir of [...PACKAGES, "generators/mcp", "generators/openapi", "generators/emit", "generators/graphql", "packs/github-rest"]) {
  for (const part of ["package.json", "dist", "node_modules", "bin", "assets", "config.schema.json"]) {
    // verbatimSymlinks: the packages' links are relative, so they resolve inside the copy.
    if (existsSync(join(ROOT, dir, part))) cpSync(join(ROOT, dir, part), join(OUT, dir, part), { recursive: true, verbatimSymlinks: true });
  }
}
cpSync(join(ROOT, "bench/startup"), join(OUT, "bench/startup"), { recursive: true });
cpSync(join(ROOT, "package.json"), join(OUT, "package.json"));
mkdirSync(join(OUT, "node_modules/@sluice"), { recursive: true });
for (const entry of readdirSync(join(ROOT, "node_modules"))) {
  if (entry !== "@sluice") symlinkSync(join(ROOT, "node_modules", entry), join(OUT, "node_modules", entry));
}
for (const entry of readdirSync(join(ROOT, "node_modules/@sluice"))) {
  cpSync(join(ROOT, "node_modules/@sluice", entry), join(OUT, "node_modules/@sluice", entry), { verbatimSymlinks: true });
}

if (values["serve-root-entries"]) {
  const serve = join(OUT, "packages/cli/dist/serve.js");
  writeFileSync(serve, readFileSync(serve, "utf8").replace('from "@sluice/mcp/serve"', 'from "@sluice/mcp"').replace('from "@sluice/catalog/serve"', 'from "@sluice/catalog"'));
  for (const file of ["packages/mcp/dist/server.js", "packages/mcp/dist/served-catalog.js"]) {
    writeFileSync(join(OUT, file), readFileSync(join(OUT, file), "utf8").replace('from "@sluice/catalog/serve"', 'from "@sluice/catalog"'));
  }
}

if (values.bundle || values.minify) {
  const { build } = createRequire(createRequire(join(ROOT, "package.json")).resolve("tsx"))("esbuild");
  for (const pkg of PACKAGES) {
    const dir = join(OUT, pkg);
    const { exports } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const entries = Object.values(exports).filter((entry) => typeof entry === "object").map((entry) => entry.import.replace(/^\.\/dist\//, ""));
    cpSync(join(dir, "dist"), join(dir, "dist-tsc"), { recursive: true });
    rmSync(join(dir, "dist"), { recursive: true });
    await build({ absWorkingDir: join(dir, "dist-tsc"), entryPoints: entries, outdir: join(dir, "dist"), outbase: ".", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20", packages: "external", minify: values.minify === true, logLevel: "warning" });
  }
}
process.stdout.write(`${OUT}\n`);
