/**
 * `generate --watch` stays alive whatever a round does: a round that cannot finish (a FIFO
 * as the spec blocks its reader until a writer comes) is stopped at --watch-timeout and
 * reported with a code, and the next edit starts a new round; a spec that is a symbolic link
 * is watched where it points, so an edit of the target regenerates. The watch runs in this
 * worker (its rounds are real `sluice generate` children, as in the command).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Jobs } from "@sluice/pipeline";
import { watchGenerate } from "../src/generate-watch.ts";
import { main } from "../src/main.ts";
import { LONG } from "../../../test/support/tier.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = (parameters: unknown[] = []) =>
  JSON.stringify({ openapi: "3.0.3", info: { title: "notes", version: "1" }, paths: { "/notes": { get: { operationId: "listNotes", parameters, responses: { "200": { description: "ok" } } } } } });

function watchIn(project: string, timeoutMs?: number) {
  let out = "";
  const io = { cwd: project, stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true } };
  const jobs: Jobs = [{ spec: join(project, "specs/notes.json"), out: join(project, "packs/notes"), name: "notes", regenerate: "sluice generate spec/notes.json --name notes --out ." }];
  const stop = new AbortController();
  const done = watchGenerate(["specs/notes.json", "--name", "notes", "--out", "packs/notes"], async () => jobs, io as never, { stop: stop.signal, ...(timeoutMs === undefined ? {} : { roundTimeoutMs: timeoutMs }) });
  const seen = async (pattern: RegExp) => {
    for (let waited = 0; !pattern.test(out); waited += 50) {
      if (waited > 60_000) throw new Error(`not seen: ${pattern}\n${out}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    }
  };
  return { seen, output: () => out, stopped: async () => (stop.abort(), await done) };
}

it.skipIf(process.platform === "win32")("a round hung on a FIFO spec times out with a code; the next edit, of the symlinked spec's target, starts a new round", async () => {
  const project = join(dir, "fifo");
  mkdirSync(join(project, "specs"), { recursive: true });
  mkdirSync(join(project, "real"));
  execFileSync("mkfifo", [join(project, "real/notes.json")]);
  symlinkSync(join(project, "real/notes.json"), join(project, "specs/notes.json"));
  const watch = watchIn(project, 1500);
  try {
    await watch.seen(/\] generated: sluice: TIMEOUT: generate did not finish within 1\.5 s and was stopped .*; the next edit starts a new round\n {2}still watching\n/);
    await watch.seen(/watching specs\/notes\.json \(-> real\/notes\.json\) \(Ctrl-C stops\)\n/);
    // The FIFO replaced by a file, in the target's folder: the link's own folder sees no event.
    rmSync(join(project, "real/notes.json"));
    writeFileSync(join(project, "real/notes.json"), spec());
    // A new round ran (whether it finished in 1.5 s depends on the machine's load; the next test regenerates for real).
    await watch.seen(/\] real\/notes\.json changed(\n {2}notes: 1 tools -> packs\/notes|: sluice: TIMEOUT: )/);
  } finally {
    expect(await watch.stopped()).toBe(0);
  }
  expect(watch.output()).toMatch(/stopped\n$/);
}, 90_000);

// Two full generations in children: the long tier (the test above shows the target is watched).
it.runIf(LONG && process.platform !== "win32")("an edit of a symlinked spec's target regenerates the pack and names the widening", async () => {
  const project = join(dir, "link");
  mkdirSync(join(project, "specs"), { recursive: true });
  mkdirSync(join(project, "real"));
  writeFileSync(join(project, "real/notes.json"), spec());
  symlinkSync(join(project, "real/notes.json"), join(project, "specs/notes.json"));
  const watch = watchIn(project);
  try {
    await watch.seen(/\] generated\n {2}notes: 1 tools -> packs\/notes \(new egress map\)\n/);
    await watch.seen(/watching specs\/notes\.json \(-> real\/notes\.json\)/);
    writeFileSync(join(project, "real/notes.json"), spec([{ name: "tag", in: "query", schema: { type: "string" } }]));
    await watch.seen(/\] real\/notes\.json changed\n {2}notes: 1 tools -> packs\/notes; egress_map\.txt: 1 widening, 0 narrowings, 0 other changes\n {4}WIDENING: tool list_notes: tag: string is newly visible to the model\n/);
  } finally {
    expect(await watch.stopped()).toBe(0);
  }
}, 120_000);

it("--watch-timeout is checked before anything runs", async () => {
  const run = async (args: string[]) => {
    let err = "";
    const code = await main(args, { cwd: dir, stdout: { write: () => true }, stderr: { write: (text: string) => (err += text) } } as never);
    return { code, err };
  };
  expect(await run(["generate", "x.json", "--name", "x", "--out", "o", "--watch-timeout", "10"])).toEqual({ code: 2, err: "sluice: INVALID_OPTION: --watch-timeout bounds each round of --watch; give --watch too (see sluice generate --help)\n" });
  expect(await run(["generate", "x.json", "--name", "x", "--out", "o", "-w", "--watch-timeout", "soon"])).toEqual({ code: 2, err: "sluice: INVALID_OPTION: --watch-timeout takes milliseconds (a positive integer) (see sluice generate --help)\n" });
});
