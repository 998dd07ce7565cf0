/**
 * A config's paths are judged resolved from its folder: one `out` per pack however spelt,
 * and nothing read or written outside the folder unless the pack says `allowOutside: true`.
 * generatePack (the code API) and `sluice generate` (the CLI, which loads the file) apply
 * the same check before anything is written.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePack } from "../src/generate-pack.ts";
import { validateConfig } from "../src/validate-config.ts";
import { runInProcess } from "../../../packages/cli/test/support/run-in-process.ts";

const root = mkdtempSync(join(tmpdir(), "sluice-config-paths-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const project = join(root, "project");
mkdirSync(project);
// A spec small enough to generate in milliseconds.
const SPEC = JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/notes": { get: { operationId: "listNotes", responses: { "200": { description: "ok" } } } } } });
writeFileSync(join(project, "notes.json"), SPEC);
writeFileSync(join(root, "outside.json"), SPEC);

const pack = (extra: Record<string, unknown>) => ({ name: "notes", spec: "notes.json", out: "packs/notes", ...extra });
const check = (packs: unknown[]) => () => validateConfig({ packs }, join(project, "sluice.config.json"));

describe("out compared resolved", () => {
  it.each([
    ["o", "./o"],
    ["o", "o/"],
    ["packs/o", "packs/x/../o"],
    ["o", join(project, "o")],
  ])("%s and %s are one folder: refused naming both packs", (first, second) => {
    const packs = [pack({ name: "first", out: first }), pack({ name: "second", out: second })];
    expect(check(packs)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(/packs\[1\]\.out: ".*" is the folder packs\[0\] \("first"\) writes to \(".*"\); give each pack its own out$/) }));
  });

  it("o and o2, or o and o/sub, are two folders", () => {
    expect(check([pack({ name: "a", out: "o" }), pack({ name: "b", out: "o2" }), pack({ name: "c", out: "o/sub" })])).not.toThrow();
  });
});

describe("paths stay inside the config's folder", () => {
  it.each([
    ["out", { out: "/tmp/sluice-elsewhere" }],
    ["out", { out: "../elsewhere" }],
    ["out", { out: "packs/../../elsewhere" }],
    ["spec", { spec: "../outside.json" }],
    ["spec", { spec: join(root, "outside.json") }],
    ["externalRefs.https://x/a.json", { externalRefs: { "https://x/a.json": "../a.json" } }],
  ])("%s %j is refused, saying how to allow it", (key, extra) => {
    expect(check([pack(extra)])).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining(`packs[0].${key}: "`) }));
    expect(check([pack(extra)])).toThrow(/is outside the config's folder .*; keep it inside, or set allowOutside: true on this pack/);
    expect(check([pack({ ...extra, allowOutside: true })])).not.toThrow();
  });

  it("inside is inside however written: ./, a .. that stays in, an absolute path into the folder, a name starting with two dots", () => {
    expect(check([pack({ out: "./packs/notes/", spec: "specs/../notes.json" }), pack({ name: "b", out: join(project, "packs/b") }), pack({ name: "c", out: "..c" })])).not.toThrow();
  });

  it("an out holding a NUL is CONFIG_INVALID, even with allowOutside", () => {
    expect(check([pack({ out: "packs/a\u0000b", allowOutside: true })])).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("packs[0].out: holds a NUL character") }));
  });

  it("generatePack refuses before writing: nothing appears outside, nor inside", async () => {
    const target = join(root, "escaped");
    await expect(generatePack({ packs: [pack({ out: "../escaped" })] }, { cwd: project })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(project)).toEqual(["notes.json"]);
  });

  it("sluice generate reads a JSON config the same way: coded, one line, nothing written", async () => {
    const dir = join(root, "cli");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.json"), SPEC);
    writeFileSync(join(dir, "sluice.config.json"), JSON.stringify({ packs: [pack({ out: join(root, "cli-escaped") })] }));
    const run = await runInProcess(["generate"], { cwd: dir, env: { GITHUB_ACTIONS: "" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^sluice: CONFIG_INVALID: .*sluice\.config\.json: packs\[0\]\.out: ".*cli-escaped" is outside the config's folder/);
    expect(existsSync(join(root, "cli-escaped"))).toBe(false);
    writeFileSync(join(dir, "sluice.config.json"), JSON.stringify({ packs: [pack({ out: "o" }), pack({ name: "other", out: "./o" })] }));
    const twice = await runInProcess(["generate"], { cwd: dir, env: { GITHUB_ACTIONS: "" } });
    expect(twice.stderr).toMatch(/packs\[1\]\.out: "\.\/o" is the folder packs\[0\] \("notes"\) writes to \("o"\)/);
    expect(readdirSync(dir).sort()).toEqual(["notes.json", "sluice.config.json"]);
  });
});
