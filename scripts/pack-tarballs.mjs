#!/usr/bin/env node
/**
 * Builds every published package and packs it into one folder, so that a project
 * outside this repository can install sluice before it is on a registry:
 *
 *   npx --yes pnpm@10.34.8 pack:tarballs [--out DIR]     (DIR defaults to ./tarballs)
 *
 * then, in the other project, the one `npm install` this prints. The packages depend on
 * each other by version, and npm looks a version up on the registry unless the tarball
 * that satisfies it is in the same install: so the toolkit's tarballs go in together,
 * with the packs you want beside them. The consumer test installs through this script.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function usage(message) {
  process.stderr.write(`${message}\nusage: pack-tarballs [--out DIR] [--no-build]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let out = join(ROOT, "tarballs");
let build = true;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out") {
    const value = args[++i];
    if (value === undefined || value.startsWith("--")) usage("--out needs a folder");
    out = resolve(value);
  } else if (args[i] === "--no-build") build = false;
  else usage(`unknown argument ${args[i]}`);
}

// The pnpm running this script (`pnpm pack:tarballs`), else the pinned one through npx.
const execpath = process.env["npm_execpath"];
const pnpm = execpath !== undefined && /pnpm/.test(execpath) ? [process.execPath, execpath] : ["npx", "--yes", "pnpm@10.34.8"];

function run(pnpmArgs, stdout = "inherit") {
  const result = spawnSync(pnpm[0], [...pnpm.slice(1), ...pnpmArgs], { cwd: ROOT, stdio: ["ignore", stdout, "inherit"] });
  if (result.status !== 0) {
    process.stderr.write(`pnpm ${pnpmArgs.join(" ")}: exit ${result.status ?? result.signal}\n`);
    process.exit(1);
  }
}

// A stale tarball of an older version would be installed beside the new one.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
if (build) run(["-r", "build"]);
// pnpm leaves private packages (the workspace root) out and rewrites workspace: ranges; its
// listing of every file packed is left out (the tarballs are listed below).
run(["-r", "pack", "--pack-destination", out], "ignore");

const files = readdirSync(out)
  .filter((file) => file.endsWith(".tgz"))
  .sort();
const packs = files.filter((file) => file.startsWith("sluice-pack-"));
const toolkit = files.filter((file) => !packs.includes(file));
const quote = (path) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);

process.stdout.write(
  [
    `${files.length} tarballs in ${out}`,
    "",
    "In your project, install the toolkit in one command (add the packs you want to the same command):",
    "",
    `  npm install ${toolkit.map((file) => quote(join(out, file))).join(" \\\n    ")}`,
    "",
    `Packs: ${packs.join(", ")}`,
    "",
  ].join("\n"),
);
