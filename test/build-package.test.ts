/**
 * scripts/build-package.mjs, the build of every published package, on small packages in a
 * temporary folder: what the bundle must not get wrong silently. A module that reads a file
 * relative to itself must read the same file once its code sits in a bundle at another depth,
 * and no package may bundle another's sources (two copies of core: `instanceof` fails).
 * Only the JavaScript half runs here (--js-only); the declarations are tsc's, as before.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/build-package.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "sluice-build-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A package with two entries (src/index.ts, src/extra.ts) and the given files, built; exit status, stderr and dist's files. */
function build(name: string, files: Record<string, string>) {
  const dir = join(work, name);
  const manifest = {
    name: `@fixture/${name}`,
    type: "module",
    exports: {
      ".": { "@sluice/source": "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./extra": { "@sluice/source": "./src/extra.ts", types: "./dist/extra.d.ts", import: "./dist/extra.js" },
    },
  };
  const all = { "package.json": JSON.stringify(manifest), "tsconfig.build.json": "{}", "src/extra.ts": "export const extra = 1;\n", ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT, "--js-only"], { cwd: dir, encoding: "utf8" });
  const dist = join(dir, "dist");
  let outputs: string[] = [];
  try {
    outputs = readdirSync(dist, { recursive: true }).map(String).sort();
  } catch {
    // no dist/ at all
  }
  return { status: run.status, stderr: run.stderr, outputs, read: (path: string) => readFileSync(join(dist, path), "utf8") };
}

describe("scripts/build-package.mjs", () => {
  it("bundles each entry, shares a module two entries import in one chunk, and keeps bare imports external", () => {
    const result = build("shared", {
      "src/index.ts": 'export { Thing } from "./thing.ts";\nexport { SluiceError } from "@sluice/schema";\n',
      "src/extra.ts": 'import { Thing } from "./thing.ts";\nexport const extra = new Thing();\n',
      "src/thing.ts": "export class Thing {}\n",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const chunks = result.outputs.filter((file) => /^chunk-[A-Z0-9]+\.js$/.test(file));
    expect(chunks).toHaveLength(1);
    // esbuild writes a bundled class declaration as `var Thing = class {`.
    const declares = /\bThing = class\b|\bclass Thing\b/;
    expect(result.read(chunks[0]!)).toMatch(declares);
    expect(result.read("index.js")).not.toMatch(declares);
    expect(result.read("extra.js")).not.toMatch(declares);
    expect(result.read("index.js")).toMatch(/from "@sluice\/schema"/);
  });

  it("fails when a module's relative URL would name another file from its output than from its source", () => {
    const result = build("deep-url", {
      "src/index.ts": 'export { file } from "./deep/reader.ts";\n',
      // From src/deep/ this is the package's assets/; from dist/index.js, where the code goes, it is outside the package.
      "src/deep/reader.ts": 'export const file = new URL("../../assets/page.css", import.meta.url);\n',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('src/deep/reader.ts reads new URL("../../assets/page.css", import.meta.url)');
  });

  it("accepts a relative URL from a module at src/'s top, which keeps its depth in dist/", () => {
    const result = build("top-url", {
      "src/index.ts": 'export { file } from "./assets.ts";\n',
      "src/assets.ts": 'export const file = new URL("../assets/page.css", import.meta.url);\n',
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails when a relative import reaches outside the package's src/ (a second copy of another package)", () => {
    const result = build("outside", {
      "src/index.ts": 'export { other } from "../other/other.ts";\n',
      "other/other.ts": "export const other = 1;\n",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("other/other.ts, which is not in this package's src/");
  });

  it("fails when an exports entry's import target is not where its source builds to", () => {
    const dir = "mismatch";
    const result = build(dir, {
      "package.json": JSON.stringify({ name: "@fixture/mismatch", type: "module", exports: { ".": { "@sluice/source": "./src/index.ts", import: "./dist/main.js" } } }),
      "src/index.ts": "export const x = 1;\n",
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("would build to ./dist/index.js");
  });
});

describe("the published packages' bundles", () => {
  const ROOT = fileURLToPath(new URL("../", import.meta.url));
  const PACKAGES = ["packages", "generators"].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`));

  /** The package's JavaScript built into a temporary folder (its dist/ untouched), as file -> text. */
  function bundle(pkg: string, run: number): Map<string, string> {
    const out = join(work, `${pkg.replace("/", "-")}-${run}`);
    const result = spawnSync(process.execPath, [SCRIPT, "--js-only", "--out", out], { cwd: join(ROOT, pkg), encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const files = readdirSync(out, { recursive: true }).map(String).filter((file) => /\.js(\.map)?$/.test(file)).sort();
    return new Map(files.map((file) => [file, readFileSync(join(out, file), "utf8")]));
  }

  // Every package passes the build's checks (relative URLs, own sources only) here, in the quick
  // tier, not only when someone runs the build; the CLI, which reads files beside its modules, twice:
  // the same sources give the same bytes.
  it.each(PACKAGES)("%s builds, and passes the build's checks", (pkg) => {
    const first = bundle(pkg, 1);
    expect([...first.keys()].some((file) => file === "index.js" || file === "main.js")).toBe(true);
    if (pkg === "packages/cli") expect(bundle(pkg, 2)).toEqual(first);
  });
});
