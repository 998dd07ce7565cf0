/**
 * `generate --check` on an unchanged pack answers from the stamp generate left
 * (.sluice-stamp.json) without generating; every change the full check would catch still
 * takes the full check: a hand edit of a generated file, of the egress map or of a
 * scaffold, a spec edit, another config entry, a tampered or foreign stamp. And the
 * progress line: on a terminal only, never with --json, each pack's result printed when
 * that pack is done.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { main } from "../src/main.ts";
import { progressOn } from "../src/progress.ts";
import { runInProcess, runSluice } from "./support/run-in-process.ts";
import { LONG, sweep } from "../../../test/support/tier.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPECS = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));
const PETSTORE = join(SPECS, "petstore/petstore-expanded-3.0.json");

const project = mkdtempSync(join(tmpdir(), "sluice-stamp-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
afterAll(() => rmSync(project, { recursive: true, force: true }));
vi.setConfig({ testTimeout: 300_000 });

const sluice = (args: string[], env: Record<string, string> = {}) => runSluice(args, { cwd: project, env: { GITHUB_ACTIONS: "", ...env }, timeout: 120_000 });
const at = (path: string) => join(project, path);
const read = (path: string) => readFileSync(at(path), "utf8");

interface StampFile {
  inputs: string;
  files: Record<string, string>;
  report: { tools: number };
}
const stampOf = (pack: string) => JSON.parse(read(`${pack}/.sluice-stamp.json`)) as StampFile;
/** A stamp whose report says 999 tools: a check that prints 999 answered from the stamp. */
function markStamp(pack: string, change: (stamp: StampFile) => void = () => {}): void {
  const stamp = stampOf(pack);
  stamp.report.tools = 999;
  change(stamp);
  writeFileSync(at(`${pack}/.sluice-stamp.json`), JSON.stringify(stamp));
}

describe("generate --check and the stamp", () => {
  const args = (out: string) => ["generate", PETSTORE, "--name", "pets", "--out", out, "--check"];

  it("generate records every file of the pack; an unchanged pack is checked from the stamp, without generating", async () => {
    expect((await sluice(["generate", PETSTORE, "--name", "pets", "--out", "packs/a"])).code).toBe(0);
    const stamp = stampOf("packs/a");
    expect(Object.keys(stamp.files)).toEqual([".gitattributes", "egress_map.txt", "package.json", "spec/petstore-expanded-3.0.json", "src/curated.ts", "src/defs.gen.ts", "src/index.ts", "src/pack-data.gen.ts", "src/runtime.gen.ts", "src/runtime.ts", "src/served-tools.gen.json", "src/tools.gen.ts", "src/types.gen.ts"]);
    markStamp("packs/a");
    const check = await sluice(args("packs/a"));
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("pets: 999 tools (openapi) checked in packs/a");
    expect(check.stdout).toContain("up to date");
    // The stamp is a cache: regenerating rewrites it, and the check then reports the real pack.
    expect((await sluice(["generate", PETSTORE, "--name", "pets", "--out", "packs/a"])).code).toBe(0);
    expect((await sluice(args("packs/a"))).stdout).toContain("pets: 4 tools");
  });

  // The long tier (tier.ts) edits every kind of file; the quick tier has generate.test.ts's hand
  // edit of a stamped pack and the mutation test below, so it runs none of these.
  const edits: Array<[string, string, string]> = [
    ["a generated file", "src/tools.gen.ts", "src/tools.gen.ts"],
    ["the egress map", "egress_map.txt", "egress_map.txt"],
    ["the spec copy", "spec/petstore-expanded-3.0.json", "spec/petstore-expanded-3.0.json"],
  ];
  it.each(sweep(edits, () => false))("a hand edit of %s is drift, whatever the stamp says", async (_what, file, named) => {
    const out = `packs/edit-${file.replace(/\W/g, "-")}`;
    expect((await sluice(["generate", PETSTORE, "--name", "pets", "--out", out])).code).toBe(0);
    markStamp(out);
    writeFileSync(at(`${out}/${file}`), read(`${out}/${file}`) + "\n");
    const check = await sluice(args(out));
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("OUT OF DATE: ");
    expect(check.stdout).toContain(named);
    expect(check.stdout).toContain("pets: 4 tools");
  });

  it("the stamp's output hashes are what catches a hand edit (mutation: stampOutputs off)", async () => {
    const out = "packs/mutation";
    expect((await sluice(["generate", PETSTORE, "--name", "pets", "--out", out])).code).toBe(0);
    writeFileSync(at(`${out}/src/defs.gen.ts`), read(`${out}/src/defs.gen.ts`) + "// edited\n");
    // In this worker, so that the switched-off guard is the one the CLI reads; the stamp path loads no pack module.
    const guarded = await runInProcess(args(out), { cwd: project, env: { GITHUB_ACTIONS: "" } });
    expect(guarded.code).toBe(1);
    const unguarded = await withoutGuard("stampOutputs", () => runInProcess(args(out), { cwd: project, env: { GITHUB_ACTIONS: "" } }));
    expect(unguarded.code).toBe(0);
    expect(unguarded.stdout).toContain("up to date");
  });

  it("a scaffold edited, a file added or removed, a spec edit, another entry or a foreign stamp take the full check", async () => {
    const out = "packs/b";
    const fresh = async () => {
      rmSync(at(out), { recursive: true, force: true });
      expect((await sluice(["generate", at("specs/pets.json"), "--name", "pets", "--out", out])).code).toBe(0);
      markStamp(out);
    };
    mkdirSync(at("specs"), { recursive: true });
    cpSync(PETSTORE, at("specs/pets.json"));
    const checkOf = (extra: string[] = []) => sluice(["generate", at("specs/pets.json"), "--name", "pets", "--out", out, "--check", ...extra]);
    const fullCheck = async (extra: string[] = []) => {
      const check = await checkOf(extra);
      expect(check.stdout).not.toContain("999 tools");
      return check;
    };

    // Each is a full check (seconds on a loaded machine): the quick tier runs two kinds, the long tier all
    // (generate.test.ts checks a spec edit of a stamped pack in the quick tier).
    // An edit in src/ changes the served list's key, so the list is out of date (1) even when the map is not.
    const cases: Array<[string, () => void, number]> = [
      ["a scaffold edited", () => writeFileSync(at(`${out}/src/curated.ts`), read(`${out}/src/curated.ts`) + "// mine\n"), 1],
      ["a file added", () => writeFileSync(at(`${out}/src/extra.ts`), "export {};\n"), 1],
      ["a scaffold removed", () => rmSync(at(`${out}/src/index.ts`)), 1],
      ["a foreign stamp", () => markStamp(out, (stamp) => (stamp.inputs = "0".repeat(64))), 0],
      ["a broken stamp", () => writeFileSync(at(`${out}/.sluice-stamp.json`), "{ not json"), 0],
      [
        "a spec edit",
        () => {
          const spec = JSON.parse(read("specs/pets.json")) as { info: { title: string } };
          spec.info.title = "Changed";
          writeFileSync(at("specs/pets.json"), JSON.stringify(spec));
        },
        1,
      ],
    ];
    for (const [what, change, code] of sweep(cases, ([what]) => ["a scaffold edited", "a foreign stamp"].includes(what))) {
      await fresh();
      change();
      expect([what, (await fullCheck()).code]).toEqual([what, code]);
      cpSync(PETSTORE, at("specs/pets.json"));
    }
    // Another name is another header and another tool set: the stamp of "pets" does not answer for it.
    if (!LONG) return;
    await fresh();
    const renamed = await sluice(["generate", at("specs/pets.json"), "--name", "shop", "--out", out, "--check"]);
    expect(renamed.code).toBe(1);
    expect(renamed.stdout).not.toContain("999 tools");
  });
});

describe("the stamp's file digests", () => {
  it("are the sha256 of each file's bytes on disk, for ASCII sources and for text that is not ASCII", async () => {
    // types.gen.ts carries descriptions as they are (here not ASCII); pack-data.gen.ts is ASCII below
    // its header (json-strings.ts escapes the rest): the stamp hashes slices of both kinds.
    const spec = {
      openapi: "3.0.3",
      info: { title: "Grüße", version: "1" },
      paths: {
        "/items": {
          get: {
            operationId: "listItems",
            description: "Liste — ✓ 😀",
            parameters: [{ name: "q", in: "query", description: "Größe: 10 µm, naïve café", schema: { type: "string" } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    };
    writeFileSync(at("unicode.json"), JSON.stringify(spec));
    expect((await sluice(["generate", at("unicode.json"), "--name", "uni", "--out", "packs/uni"])).code).toBe(0);
    const { files } = stampOf("packs/uni");
    expect(read("packs/uni/src/types.gen.ts")).toContain("Größe: 10 µm, naïve café");
    expect(read("packs/uni/src/pack-data.gen.ts").split("\n").slice(4).join("\n")).toMatch(/^[\x00-\x7f]*$/);
    for (const [path, digest] of Object.entries(files)) expect([path, digest]).toEqual([path, createHash("sha256").update(readFileSync(at(`packs/uni/${path}`))).digest("hex")]);
    expect(Object.keys(files)).toContain("src/types.gen.ts");
  });
});

describe("progress on stderr", () => {
  const lines = (writes: string[]) => writes.join("");

  it("draws steps only on a terminal, after the delay, and erases the line", () => {
    let clock = 0;
    const writes: string[] = [];
    const tty = { isTTY: true, columns: 40, write: (text: string) => writes.push(text) };
    const progress = progressOn(tty, { delayMs: 250, now: () => clock });
    progress.step("generating pets: building tools");
    expect(writes).toEqual([]);
    clock = 1200;
    progress.step("generating pets: emitting sources and a long tail that does not fit");
    expect(writes).toEqual(["\r\x1b[Ksluice: generating pets: emitting sour…"]);
    progress.clear();
    expect(writes.at(-1)).toBe("\r\x1b[K");
    progress.clear();
    expect(writes).toHaveLength(2);

    for (const stream of [{ write: (text: string) => writes.push(text) }, { isTTY: false, write: (text: string) => writes.push(text) }]) {
      const silent = progressOn(stream, { delayMs: 0, now: () => clock });
      silent.step("x");
      silent.clear();
    }
    const quiet = progressOn(tty, { quiet: true, delayMs: 0 });
    quiet.step("x");
    expect(writes).toHaveLength(2);
  });

  it("a config of packs: each pack's result is printed when it is done, the steps name the pack and its place; --json is silent; report too", async () => {
    const dir = mkdtempSync(join(project, "config-"));
    writeFileSync(
      join(dir, "sluice.config.json"),
      JSON.stringify({ packs: [{ spec: PETSTORE, name: "first", out: "packs/first", allowOutside: true }, { spec: PETSTORE, name: "second", out: "packs/second", allowOutside: true }] }),
    );
    const run = async (args: string[]) => {
      const log: string[] = [];
      const saved = process.env["SLUICE_PROGRESS_DELAY_MS"];
      process.env["SLUICE_PROGRESS_DELAY_MS"] = "0";
      try {
        const code = await main(args, { cwd: dir, stdout: { write: (text: string) => log.push(`out:${text}`) }, stderr: { isTTY: true, columns: 200, write: (text: string) => log.push(`err:${text}`) } });
        return { code, log };
      } finally {
        if (saved === undefined) delete process.env["SLUICE_PROGRESS_DELAY_MS"];
        else process.env["SLUICE_PROGRESS_DELAY_MS"] = saved;
      }
    };
    const { code, log } = await run(["generate"]);
    expect(code).toBe(0);
    const firstResult = log.findIndex((entry) => entry.startsWith("out:first: 4 tools"));
    const secondStep = log.findIndex((entry) => entry.includes("generating [2/2] second: "));
    expect(firstResult).toBeGreaterThan(0);
    expect(secondStep).toBeGreaterThan(firstResult);
    expect(lines(log)).toContain("err:\r\x1b[Ksluice: generating [1/2] first: building tools (");
    // The line is erased before each result, so no result shares a line with it.
    expect(log[firstResult - 1]).toBe("err:\r\x1b[K");
    const secondResult = log.findIndex((entry) => entry.startsWith("out:second: 4 tools"));
    expect(log[secondResult - 1]).toBe("err:\r\x1b[K");

    const json = await run(["generate", "--json"]);
    expect(json.code).toBe(0);
    expect(json.log.filter((entry) => entry.startsWith("err:"))).toEqual([]);

    // report: its steps, the line erased before its summary; nothing with --json.
    const report = await run(["report", "packs/first", "--out", "report.html"]);
    expect(report.code).toBe(0);
    expect(lines(report.log)).toContain("err:\r\x1b[Ksluice: report packs/first: loading the pack (");
    expect(lines(report.log)).toContain("sluice: report packs/first: counting tokens of 4 tools (");
    const summary = report.log.findIndex((entry) => entry.startsWith("out:report.html: "));
    expect(report.log[summary - 1]).toBe("err:\r\x1b[K");
    const reportJson = await run(["report", "packs/first", "--json"]);
    expect(reportJson.code).toBe(0);
    expect(reportJson.log.filter((entry) => entry.startsWith("err:"))).toEqual([]);
  });
});
