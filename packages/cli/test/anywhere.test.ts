/**
 * The sluice command outside this repository's root: help and version without a loader,
 * `<pack>` resolved in the documented order from the current directory, coded one-line
 * errors and the exit codes 0 / 1 / 2. Every case is a child process, but where a fresh
 * process shows nothing more than the CLI's main does (a parse error's hint, a pack path
 * given relative after the absolute one, a path that is not there, a name that resolves to
 * nothing, tools of another @sluice/core, a pack generated in the project, the short name
 * of the installed pack-tiny, its egress --check sequence and ok exit): those run main in
 * the worker (support/run-in-process.ts) in the quick tier, and as children in the long
 * tier (test/support/tier.ts). What only a fresh process shows stays a child in both: static
 * help, the bin's TypeScript loader for a module in a CommonJS package, Node's own failure
 * to resolve an import, an installed package loaded by Node. (pack-tiny loads in the worker
 * because vitest.config.ts transforms installed @sluice/pack-* packages: left to Node there,
 * its import of @sluice/core resolved to TypeScript sources Node cannot load.)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LONG, sweep } from "../../../test/support/tier.ts";
import { runChild, type ChildResult } from "./support/run-child.ts";
import { runInProcess } from "./support/run-in-process.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
/** A test's children are awaited, so vitest's deadline covers them all (a spawnSync child ran past it unnoticed): room for a loaded machine. */
const SLOW = 300_000;
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TABLE = JSON.parse(readFileSync(new URL("../bin/commands.json", import.meta.url), "utf8")) as {
  overview: string[];
  commands: Record<string, { options: Record<string, unknown>; help: string[]; dynamicHelp?: boolean }>;
};
const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** A project folder outside the repository, with @sluice/core installed (linked) and a tiny pack package. */
const project = mkdtempSync(join(tmpdir(), "sluice-project-"));
mkdirSync(join(project, "node_modules/@sluice/pack-tiny"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
writeFileSync(join(project, "node_modules/@sluice/pack-tiny/package.json"), JSON.stringify({ name: "@sluice/pack-tiny", type: "module", exports: { ".": "./index.js" } }));
writeFileSync(
  join(project, "node_modules/@sluice/pack-tiny/index.js"),
  [
    `import { definePack } from "@sluice/core";`,
    `const tiny_get = { name: "tiny_get", description: "Get one tiny thing.", parameters: { properties: { id: { type: "string" } }, required: ["id"] },`,
    `  binding: { kind: "http", method: "GET", path: "/things/{id}", server: "https://tiny.example", parameters: [{ arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true }] },`,
    `  annotations: { readOnly: true } };`,
    `export const tools = definePack({ name: "tiny", defs: {}, withheldMembers: {}, tools: [tiny_get] }).tools;`,
  ].join("\n"),
);
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** A resolve hook that appends every specifier it sees to $SLUICE_TRACE: proof of what a command loaded. */
const traceHook = join(project, "trace-hook.mjs");
writeFileSync(
  traceHook,
  `import { register } from "node:module";\nregister("data:text/javascript,import{appendFileSync}from'node:fs';export async function resolve(s,c,n){appendFileSync(process.env.SLUICE_TRACE,s+'\\\\n');return n(s,c)}");\n`,
);

/** `sluice <args>` as a child, awaited: spawnSync held the worker off its event loop while a child ran, past vitest's RPC deadline under load. */
function sluice(args: string[], options: { cwd?: string; trace?: string } = {}): Promise<ChildResult> {
  const execArgv = options.trace === undefined ? [] : ["--import", traceHook];
  const env = options.trace === undefined ? process.env : { ...process.env, SLUICE_TRACE: options.trace };
  return runChild([...execArgv, BIN, ...args], { cwd: options.cwd ?? project, env, timeout: 120_000 });
}

/** `sluice <args>` from the project (or `cwd`): main in the worker in the quick tier, a child in the long tier. */
async function sluiceHere(args: string[], options: { cwd?: string } = {}): Promise<ChildResult> {
  return LONG ? sluice(args, options) : runInProcess(args, { cwd: options.cwd ?? project });
}

describe("help and version", { timeout: SLOW }, () => {
  it("--version prints the package version", async () => {
    expect(await sluice(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("--help lists every command", async () => {
    const { code, stdout } = await sluice(["--help"]);
    expect(code).toBe(0);
    for (const command of Object.keys(TABLE.commands)) expect(stdout).toMatch(new RegExp(`^ {2}${command} +\\S`, "m"));
  });

  it.each(Object.keys(TABLE.commands))("%s --help and help %s print the command's usage, exit 0", async (command) => {
    // Each form is its own branch of the bin's static help (bin/sluice.mjs): the quick tier
    // runs all three for survey and --help for every command; the long tier, all three for all.
    // serve's help is main's (dynamicHelp: each child loads tsx and main), so its other two
    // forms run main in the worker in the quick tier.
    const forms = sweep([[command, "--help"], ["help", command], [command, "-h"]], (args) => args[1] === "--help" || command === "survey" || command === "serve");
    for (const args of forms) {
      const { code, stdout, stderr } = command === "serve" && args[1] !== "--help" ? await sluiceHere(args) : await sluice(args);
      expect(code, args.join(" ")).toBe(0);
      expect(stdout).toMatch(new RegExp(`^usage:\\s+sluice ${command}\\b`));
      expect(stderr).toBe("");
    }
  });

  it.each(Object.entries(TABLE.commands).filter(([, entry]) => !entry.dynamicHelp))("the help of %s documents each of its options", (_command, entry) => {
    for (const option of Object.keys(entry.options)) expect(entry.help.join("\n")).toContain(`--${option}`);
  });

  it("help, version and a command's help load neither tsx nor the CLI's modules", async () => {
    for (const args of [["--help"], ["--version"], ["egress", "--help"], ["generate", "--help"]]) {
      const trace = join(project, `trace-${args.join("-")}.txt`);
      writeFileSync(trace, "");
      expect((await sluice(args, { trace })).code).toBe(0);
      const loaded = readFileSync(trace, "utf8");
      expect(loaded, args.join(" ")).not.toMatch(/tsx|main\.(ts|js)|@sluice/);
    }
  });
});

describe("did you mean", { timeout: SLOW }, () => {
  it.each([
    [["survy", "linear"], /^sluice: INVALID_OPTION: unknown command "survy"; did you mean survey/],
    [["egres"], /did you mean egress/],
    [["survey", "linear", "--tpo", "3"], /^sluice: INVALID_OPTION: unknown option --tpo for sluice survey; did you mean --top\?/],
    [["egress", "linear", "--chek", "x"], /did you mean --check/],
    [["generate", "openapi", "x.json", "--nmae", "x"], /did you mean --name/],
    [["compact", "--mdoe", "strip"], /^sluice compact: unknown option --mdoe; did you mean --mode\?/],
    [["compact", "--mode", "stirp"], /^sluice compact: unknown mode "stirp"; did you mean strip/],
  ])("%j", async (args, message) => {
    // The first as a child; the others' hints come from the same parser.
    const { code, stdout, stderr } = args[0] === "survy" ? await sluice(args) : await sluiceHere(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("<pack> resolution, from a folder outside the repository", { timeout: SLOW }, () => {
  const survey = async (spec: string, run: (args: string[]) => Promise<ChildResult> = sluice) => {
    const { code, stdout, stderr } = await run(["survey", spec, "--json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    return (JSON.parse(stdout) as Array<{ tool: string }>).map((row) => row.tool);
  };

  it("a path to a pack directory, absolute or relative", async () => {
    // Any pack directory shows the resolution; the quick tier's is the smallest of the
    // repository (notion: a child loads it in a third of linear's CPU), the long tier's linear.
    const [dir, tool] = LONG ? ["packs/linear", "issues_list"] : ["packs/notion", "post_search"];
    const absolute = await survey(join(ROOT, dir));
    expect(absolute).toContain(tool);
    const { code, stdout, stderr } = await sluiceHere(["survey", relative(project, join(ROOT, dir)), "--json"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect((JSON.parse(stdout) as Array<{ tool: string }>).map((row) => row.tool)).toEqual(absolute);
  });

  it("an installed package by its name, and by its short name", async () => {
    expect(await survey("@sluice/pack-tiny")).toEqual(["tiny_get"]);
    // The short name is main's lookup of the same package: in the worker in the quick tier.
    expect(await survey("tiny", sluiceHere)).toEqual(["tiny_get"]);
  });

  it("a pack directory written by sluice generate in the project", async () => {
    const spec = fileURLToPath(new URL("../../../../shared/specs/petstore/petstore-expanded-3.0.json", import.meta.url));
    // Written and loaded by main in the worker in the quick tier: nothing here is a fresh process's own.
    const generated = await sluiceHere(["generate", "openapi", spec, "--name", "pets", "--out", "packs/pets", "--json"]);
    expect(generated.code).toBe(0);
    const report = JSON.parse(generated.stdout) as { ok: boolean; packs: Array<{ kind: string; name: string; out: string; tools: number; skipped: unknown[] }> };
    expect(report.ok).toBe(true);
    expect(report.packs).toMatchObject([{ kind: "openapi", name: "pets", out: "packs/pets", tools: 4, skipped: [] }]);
    expect((await survey("./packs/pets", sluiceHere)).sort()).toEqual(["add_pet", "delete_pet", "find_pet_by_id", "find_pets"]);
  });

  it("a missing file is FILE_NOT_FOUND with its path", async () => {
    const { code, stderr } = await sluiceHere(["survey", "./tools/missing.ts"]);
    expect(code).toBe(2);
    expect(stderr).toBe(`sluice: FILE_NOT_FOUND: ./tools/missing.ts: no such file or directory (${join(project, "tools/missing.ts")}).\n`);
  });

  it("an unknown name is PACK_NOT_FOUND with the nearest names", async () => {
    const { code, stderr } = await sluiceHere(["survey", "tiyn"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: PACK_NOT_FOUND: "tiyn" is not a path, an installed package \(@sluice\/pack-tiyn or tiyn, looked up from .*; did you mean tiny/);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("a module that cannot import its dependencies names the import that failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-lonely-"));
    writeFileSync(join(dir, "tools.mjs"), `import { Tool } from "@sluice/not-installed";\nexport const tools = [];\n`);
    const { code, stderr } = await sluice(["survey", "tools.mjs"], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: IMPORT_FAILED: tools\.mjs: cannot import "@sluice\/not-installed" \(imported from .*tools\.mjs\); install @sluice\/not-installed/);
    expect(stderr).not.toMatch(/\n\s+at /);
    rmSync(dir, { recursive: true, force: true });
  });

  it("tools made by another copy of @sluice/core are named as such, not as 'no tools'", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-two-cores-"));
    // What a Tool of a second @sluice/core install looks like from here: the shape, not the class.
    writeFileSync(join(dir, "tools.mjs"), `export const tools = [{ name: "x_get", inputSchema: { type: "object" }, derived() {} }];\n`);
    const { code, stderr } = await sluiceHere(["survey", "./tools.mjs"], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: IMPORT_FAILED: \.\/tools\.mjs \(.*\) exports tools made by another copy of @sluice\/core/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a .ts module in a package that says "type": "commonjs" loads as an ES module; CommonJS syntax in it is one coded line', async () => {
    // `npm init` writes "type": "commonjs"; loaded as CommonJS, `import "@sluice/core"` becomes a require() of an ES-only package.
    const dir = join(project, "cjs-app");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "cjs-app", version: "1.0.0", type: "commonjs" }));
    writeFileSync(join(dir, "tools.ts"), `import { tools } from "@sluice/pack-tiny";\nexport const mine = tools[0]!.derived({ name: "tiny_mine" });\n`);
    writeFileSync(join(dir, "old.ts"), `const { tools } = require("@sluice/pack-tiny");\nmodule.exports = { tools };\n`);
    expect(await survey("./cjs-app/tools.ts")).toEqual(["tiny_mine"]);
    const { code, stderr } = await sluice(["survey", "./cjs-app/old.ts"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: IMPORT_FAILED: \.\/cjs-app\/old\.ts: require is not defined.*a CommonJS module is named \.cts or \.cjs\.\n$/);
  });

  it("a generated TypeScript pack in a project that cannot resolve @sluice/core says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-no-core-"));
    const spec = fileURLToPath(new URL("../../../../shared/specs/petstore/petstore-expanded-3.0.json", import.meta.url));
    // Generated by main in the worker in the quick tier; the failing import is Node's, in a child.
    expect((await sluiceHere(["generate", "openapi", spec, "--name", "pets", "--out", "pets"], { cwd: dir })).code).toBe(0);
    const { code, stderr } = await sluice(["survey", "./pets"], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: IMPORT_FAILED: \.\/pets: cannot import "@sluice\/core" \(imported from .*pets\/src\/\w+(\.gen)?\.ts\); install @sluice\/core/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("--json and exit codes", { timeout: SLOW }, () => {
  it("egress --out --json, then --check --json: 0 when equal, 1 naming the widening when the file shows less", async () => {
    // main in the worker in the quick tier: the checks are main's, the pack is the one installed.
    const map = join(project, "egress.json");
    expect((await sluiceHere(["egress", "tiny", "--json", "--out", "egress.json"])).code).toBe(0);
    const written = JSON.parse(readFileSync(map, "utf8")) as Array<{ name: string }>;
    expect(written.map((entry) => entry.name)).toEqual(["tiny_get"]);
    const same = await sluiceHere(["egress", "tiny", "--json", "--check", "egress.json"]);
    expect(same).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(same.stdout)).toMatchObject({ check: "egress", ok: true, file: "egress.json", tools: 1, widenings: [], narrowings: [], changes: [] });
    expect(await sluiceHere(["egress", "tiny", "--check", "egress.json"])).toMatchObject({ code: 0, stdout: `egress.json: up to date (1 tools)\n` });

    // The committed map without the id argument: the tools now show more than was reviewed.
    const narrower = readFileSync(map, "utf8").replace(/\n\s*\{[^{}]*"path": "id"[^{}]*\},?/, "");
    expect(narrower).not.toBe(readFileSync(map, "utf8"));
    writeFileSync(map, narrower);
    const changed = await sluiceHere(["egress", "tiny", "--json", "--check", "egress.json"]);
    // The report is on stdout, as JSON with --json; nothing on stderr for a check that ran.
    expect(changed.code).toBe(1);
    expect(changed.stderr).toBe("");
    const report = JSON.parse(changed.stdout) as { check: string; ok: boolean; widenings: Array<{ subject: string; kind: string }> };
    expect(report).toMatchObject({ check: "egress", ok: false });
    expect(report.widenings.map((w) => [w.kind, w.subject])).toEqual([["member", expect.stringMatching(/^tool tiny_get: id: /)]]);
    const text = await sluiceHere(["egress", "tiny", "--check", "egress.json"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^WIDENING: tool tiny_get: id: .* is newly visible to the model$/m);
    expect(text.stdout).toMatch(/^egress\.json: OUT OF DATE: 1 widening, 0 narrowings, 0 other changes; review it, then rewrite it with sluice egress tiny --out egress\.json --json$/m);
  });

  // Four more children of the installed pack: the long tier's.
  it.runIf(LONG)("egress --check reads the committed file's format from the file: a text map checks with or without --json", async () => {
    const map = join(project, "egress-text.json");
    expect((await sluice(["egress", "tiny", "--out", "egress-text.json"])).code).toBe(0);
    expect(await sluice(["egress", "tiny", "--json", "--check", "egress-text.json"])).toMatchObject({ code: 0, stderr: "" });
    expect((await sluice(["egress", "tiny", "--check", "egress-text.json"])).code).toBe(0);
    writeFileSync(map, "[ not json");
    expect((await sluice(["egress", "tiny", "--check", "egress-text.json"])).stderr).toMatch(/^sluice: EGRESS_MAP_INVALID: egress-text\.json starts like a JSON egress map but does not parse/);
  });

  it.each([
    ["a usage error", 2, ["survey"]],
    ["no command", 2, []],
    ["an ok survey", 0, ["survey", "tiny"]],
  ])("%s exits %i", async (name, want, args) => {
    // "no command" is main's parse error, as "a usage error" is, which stays a child; an ok
    // survey is main's too: both in the worker in the quick tier.
    expect((await (name === "a usage error" ? sluice(args as string[]) : sluiceHere(args as string[]))).code).toBe(want);
  });
});
