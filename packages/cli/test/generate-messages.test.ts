/**
 * What `sluice generate` says when a user's first week goes sideways: a pack moved from
 * `generate <spec> --name --out` into the config is not drift; a pack folder given where a
 * spec file goes is named as such, with a command that then works.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "./support/run-in-process.ts";

const root = mkdtempSync(join(tmpdir(), "sluice-messages-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const spec = (parameters: unknown[] = []) =>
  JSON.stringify({ openapi: "3.0.3", info: { title: "notes", version: "1" }, paths: { "/notes": { get: { operationId: "listNotes", parameters, responses: { "200": { description: "ok" } } } } } });
const sluice = (args: string[], cwd: string) => runInProcess(args, { cwd, env: { GITHUB_ACTIONS: "" } });

/** A project with a pack made by the one-spec command, as a new user starts. */
async function startedByCommand(name: string): Promise<string> {
  const project = join(root, name);
  mkdirSync(join(project, "specs"), { recursive: true });
  writeFileSync(join(project, "specs/notes.json"), spec());
  const made = await sluice(["generate", "specs/notes.json", "--name", "notes", "--out", "packs/notes"], project);
  expect(made.code, made.stderr).toBe(0);
  return project;
}

describe("a pack moved from generate <spec> --name --out into sluice.config", () => {
  it("--check passes: only the // Regenerate: line differs, which is said in one line with what to do", async () => {
    const project = await startedByCommand("moved");
    writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs: [{ name: "notes", spec: "specs/notes.json", out: "packs/notes" }] }));
    const run = await sluice(["generate", "--check"], project);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '  not drift: 5 generated files differ only in the "// Regenerate:" line (was "sluice generate spec/notes.json --name notes --out .", now "sluice generate notes (pack "notes" of sluice.config.json)": the pack is made another way now); sluice generate rewrites them\n  up to date\n',
    );
    const json = JSON.parse((await sluice(["generate", "--check", "--json"], project)).stdout) as { ok: boolean; packs: Array<{ changed: string[]; headerOnly: { files: string[] } }> };
    expect(json.ok).toBe(true);
    expect(json.packs[0]!.headerOnly.files.sort()).toEqual(["src/defs.gen.ts", "src/pack-data.gen.ts", "src/runtime.gen.ts", "src/tools.gen.ts", "src/types.gen.ts"]);
  });

  it("a real difference beside the header line is still drift", async () => {
    const project = await startedByCommand("moved-and-edited");
    writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs: [{ name: "notes", spec: "specs/notes.json", out: "packs/notes" }] }));
    writeFileSync(join(project, "specs/notes.json"), spec([{ name: "tag", in: "query", schema: { type: "string" } }]));
    const run = await sluice(["generate", "--check"], project);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/ {2}OUT OF DATE: .*src\/tools\.gen\.ts, .*spec\/notes\.json/);
    expect(run.stdout).toContain("WIDENING: tool list_notes: tag: string is newly visible to the model");
  });
});

describe("a folder where a spec file goes", () => {
  it("a pack folder the config lists: named as such, checked by its pack name", async () => {
    const project = await startedByCommand("listed");
    writeFileSync(join(project, "sluice.config.json"), JSON.stringify({ packs: [{ name: "notes", spec: "specs/notes.json", out: "packs/notes" }] }));
    const run = await sluice(["generate", "--check", "packs/notes"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('sluice: INVALID_OPTION: packs/notes is a pack folder, not a spec file; the config lists it as pack "notes": sluice generate notes --check (see sluice generate --help)\n');
    expect((await sluice(["generate", "notes", "--check"], project)).code).toBe(0);
  });

  it("a pack folder without a config: the command from the spec copy it carries, which then works", async () => {
    const project = await startedByCommand("unlisted");
    const run = await sluice(["generate", "--check", "packs/notes"], project);
    expect(run.code).toBe(2);
    const command = "sluice generate packs/notes/spec/notes.json --name notes --out packs/notes --check";
    expect(run.stderr).toBe(`sluice: INVALID_OPTION: packs/notes is a pack folder, not a spec file; generate from the spec it carries: ${command} (see sluice generate --help)\n`);
    const suggested = await sluice(command.split(" ").slice(1), project);
    expect(suggested.stderr).toBe("");
    expect(suggested.code).toBe(0);
    // With --name and --out given too, the same answer (not "does not exist", not a parse error of a folder).
    expect((await sluice(["generate", "packs/notes", "--name", "notes", "--out", "packs/notes"], project)).stderr).toContain("packs/notes is a pack folder, not a spec file; generate from the spec it carries: sluice generate packs/notes/spec/notes.json --name notes --out packs/notes (see");
  });

  it("a folder of specs: the files it holds", async () => {
    const project = await startedByCommand("specs-folder");
    const run = await sluice(["generate", "specs/"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("sluice: INVALID_OPTION: specs/ is a folder, not a spec file (it holds specs/notes.json): sluice generate <spec file> --name <name> --out <dir> (see sluice generate --help)\n");
    expect(readFileSync(join(project, "specs/notes.json"), "utf8")).toBe(spec());
  });
});
