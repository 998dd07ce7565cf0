/**
 * `sluice narrow` on a pack written by `sluice generate`, in a project outside the
 * repository: the projection lands in src/curated.ts with every other byte kept, the
 * egress map is the one `sluice egress` gives afterwards, and nothing is written when
 * the projection is refused or with --dry-run. Every narrow that writes is a child process
 * (two: narrow spawns the egress that maps the edited pack). The quick tier keeps one, the
 * derived my_pets, traced; it runs every refusal and dry run in the worker (nothing written,
 * so the worker may load the copy), checks the curated edit and the older pack's by --dry-run,
 * and the curated pack's map by egress of a copy holding the curated.ts the long tier's real
 * narrow must write. The long tier (test/support/tier.ts) runs each of those as a child
 * narrow, and the vendored Stripe pack and the dry run of a curated tool.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG, sweep } from "../../../test/support/tier.ts";
import { editCuratedSource, parsePins, variableName, type NarrowRequest } from "../src/narrow.ts";
import type { ChildResult } from "./support/run-child.ts";
import { runInProcess, runSluice } from "./support/run-in-process.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPEC = "/work/shared/specs/petstore/petstore-expanded-3.0.json";
const SLOW = 300_000;

const project = mkdtempSync(join(tmpdir(), "sluice-narrow-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
afterAll(() => rmSync(project, { recursive: true, force: true }));

/**
 * Narrow, and a traced run, as a child process awaited without blocking the test worker (a
 * narrow of a large pack takes a while); a command on a pack the worker has not seen change
 * runs the CLI's main here (support/run-in-process.ts), as a fresh process would see it.
 */
function sluice(args: string[], options: { trace?: string } = {}): Promise<ChildResult> {
  if (options.trace === undefined) return runSluice(args, { cwd: project, timeout: SLOW });
  if (LONG) return runSluice(args, { cwd: project, env: { SLUICE_TRACE: options.trace }, execArgv: ["--import", join(project, "trace-hook.mjs")], timeout: SLOW });
  // The quick tier traces through NODE_OPTIONS, which the egress child narrow spawns inherits:
  // each process writes `<trace>.<command>`, so one narrow traces both narrow and a fresh
  // `sluice egress` (the long tier runs that egress as a child of its own).
  const nodeOptions = `${process.env["NODE_OPTIONS"] ?? ""} --import ${join(project, "trace-hook-by-command.mjs")}`.trim();
  return runSluice(args, { cwd: project, env: { SLUICE_TRACE: options.trace, NODE_OPTIONS: nodeOptions }, timeout: SLOW });
}

/** The pets pack as generate wrote it, copied per test so that tests do not see each other's edits. */
const BASE = join(project, "base/packs/pets");
let copies = 0;
function freshPack(): string {
  const dir = join(project, `case-${++copies}/pets`);
  cpSync(BASE, dir, { recursive: true });
  return dir;
}

/** Every file of a pack directory, by relative path: proof that nothing was written. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dir.length), readFileSync(path, "utf8"));
  }
  return files;
}

/**
 * find_pets curated with tags dropped, in a fresh copy: narrowed once for the tests that need
 * such a pack (each narrow that writes is a child process of seconds of CPU); a test that
 * changes it works on a copy. The narrow is traced (the specifiers it resolved, in `trace`),
 * for the test of what narrow loads.
 */
let curatedPets: Promise<{ dir: string; result: ChildResult; trace: string }> | undefined;
function curatedFindPets(): Promise<{ dir: string; result: ChildResult; trace: string }> {
  curatedPets ??= (async () => {
    const dir = freshPack();
    const trace = join(project, "trace-narrow.txt");
    writeFileSync(trace, "");
    return { dir, trace, result: await sluice(["narrow", dir, "find_pets", "--name", "find_pets", "--drop", "tags"], { trace }) };
  })();
  return curatedPets;
}

/**
 * find_pets narrowed into a derived my_pets (tags dropped, limit pinned), in a fresh copy:
 * narrowed once, for the test of the derived tool and the --dry-run it must match.
 */
const DERIVED_MY_PETS = ["find_pets", "--name", "my_pets", "--drop", "tags", "--pin", "limit=10"];
let derivedPets: Promise<{ dir: string; before: string; result: ChildResult; trace: string }> | undefined;
function derivedMyPets(): Promise<{ dir: string; before: string; result: ChildResult; trace: string }> {
  derivedPets ??= (async () => {
    const dir = freshPack();
    // The quick tier's one narrow that writes, traced for the test of what narrow loads.
    const trace = join(project, "trace-derived.txt");
    return { dir, trace, before: curatedOf(dir), result: await sluice(["narrow", dir, ...DERIVED_MY_PETS], LONG ? {} : { trace }) };
  })();
  return derivedPets;
}

/** What narrow writes for find_pets curated with tags dropped (the second test checks a real narrow writes it). */
const curatedFindPetsSource = () => curatedOf(BASE).replace(EMPTY_CURATED, `export const findPets = curate(generated.findPets, { drop: ["tags"] });\n\nexport const curated: readonly Tool<object>[] = [findPets];`);

/**
 * The quick tier's curated pack: a copy with that curated.ts written here, and its egress map
 * from the CLI's main in the worker (the copy never changes after, so the worker may load it).
 */
let handCurated: Promise<{ dir: string; map: string }> | undefined;
function curatedByHand(): Promise<{ dir: string; map: string }> {
  handCurated ??= (async () => {
    const dir = freshPack();
    writeFileSync(join(dir, "src/curated.ts"), curatedFindPetsSource());
    const { code, stdout, stderr } = await runInProcess(["egress", dir], { cwd: project });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    return { dir, map: stdout };
  })();
  return handCurated;
}

const curatedOf = (dir: string) => readFileSync(join(dir, "src/curated.ts"), "utf8");
const mapOf = (dir: string) => readFileSync(join(dir, "egress_map.txt"), "utf8");

/** The egress map a fresh process computes from the pack as it is now (the worker, when it has not seen the pack change). */
async function egressNow(dir: string): Promise<string> {
  const { code, stdout, stderr } = await sluice(["egress", dir]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return stdout;
}

/** One tool's block of a text egress map. */
function block(map: string, tool: string): string {
  const start = map.indexOf(`\ntool ${tool}\n`);
  if (start < 0) return "";
  const end = map.indexOf("\n\n", start + 1);
  return map.slice(start + 1, end < 0 ? undefined : end).trimEnd();
}

/** The scaffold's lines narrow edits, as generate writes them. */
const EMPTY_CURATED = "export const curated: readonly Tool<object>[] = [];";
const EMPTY_DERIVED = "export const derived: readonly Tool<object>[] = [];";

beforeAll(async () => {
  writeFileSync(
    join(project, "trace-hook.mjs"),
    `import { register } from "node:module";\nregister("data:text/javascript,import{appendFileSync}from'node:fs';export async function resolve(s,c,n){appendFileSync(process.env.SLUICE_TRACE,s+'\\\\n');return n(s,c)}");\n`,
  );
  writeFileSync(
    join(project, "trace-hook-by-command.mjs"),
    `import { register } from "node:module";\nregister("data:text/javascript,import{appendFileSync}from'node:fs';let f;export function initialize(d){f=d.file}export async function resolve(s,c,n){appendFileSync(f,s+'\\\\n');return n(s,c)}", { data: { file: process.env.SLUICE_TRACE + "." + process.argv[2] } });\n`,
  );
  mkdirSync(join(project, "base"));
  // The CLI's main in the worker (runSluice): the base pack is never edited, only copied, so
  // the worker may hold its modules.
  const generated = await runSluice(["generate", SPEC, "--name", "pets", "--out", "packs/pets"], { cwd: join(project, "base"), timeout: SLOW });
  expect(generated.stderr).toBe("");
  expect(generated.code).toBe(0);
  // The layout narrow is written against.
  expect(curatedOf(BASE)).toContain(`${EMPTY_CURATED}\n\n${EMPTY_DERIVED}\n`);
}, SLOW);

describe("sluice narrow on a generated pack", () => {
  it(
    "a new name adds a derived tool: curated.ts, egress map, tokens and survey",
    async () => {
      const { dir, before, result: { code, stdout, stderr } } = await derivedMyPets();
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(curatedOf(dir)).toBe(
        before.replace(
          EMPTY_DERIVED,
          `export const myPets = generated.findPets.derived({ name: "my_pets", drop: ["tags"], pin: { limit: 10 } });\n\nexport const derived: readonly Tool<object>[] = [myPets];`,
        ),
      );
      const map = mapOf(dir);
      expect(map).toBe(await egressNow(dir));
      expect(block(map, "my_pets")).toBe("tool my_pets\n  endpoint GET /pets\n  = limit: 10\n  - tags: projection");
      // The generated tool is still there, unchanged.
      expect(block(map, "find_pets")).toBe(block(mapOf(BASE), "find_pets"));
      const tokens = /^tokens: (\d+) -> (\d+) \(find_pets -> my_pets\)$/m.exec(stdout);
      expect(tokens).not.toBeNull();
      expect(Number(tokens![2])).toBeLessThan(Number(tokens![1]));
      expect(stdout).toContain("+tool my_pets\n");
      const survey = await sluice(["survey", dir, "--json"]);
      expect(survey.code).toBe(0);
      expect((JSON.parse(survey.stdout) as Array<{ tool: string }>).map((row) => row.tool).sort()).toEqual(["add_pet", "delete_pet", "find_pet_by_id", "find_pets", "my_pets"]);
    },
    SLOW,
  );

  it(
    "the tool's own name replaces it (curated), the original kept as _full; the dropped path shows as withheld",
    async () => {
      if (!LONG) {
        // The quick tier: the edit by an in-worker --dry-run (it writes nothing), the map of
        // that edit by `sluice egress` of a copy holding it, and the dry run's predicted map
        // diff against that map. Writing and re-mapping is the first test's child narrow.
        const dir = freshPack();
        const files = snapshot(dir);
        const dry = await runInProcess(["narrow", dir, "find_pets", "--name", "find_pets", "--drop", "tags", "--dry-run"], { cwd: project });
        expect(dry.stderr).toBe("dry run: nothing written\n");
        expect(dry.code).toBe(0);
        expect(snapshot(dir)).toEqual(files);
        expect(dry.stdout).toContain('\n+export const findPets = curate(generated.findPets, { drop: ["tags"] });\n');
        expect(dry.stdout).toContain("\n+export const curated: readonly Tool<object>[] = [findPets];\n");
        const { map } = await curatedByHand();
        expect(block(map, "find_pets")).toBe("tool find_pets\n  endpoint GET /pets\n  + limit: integer (int32)\n  - tags: projection");
        expect(block(map, "find_pets_full")).toBe(block(mapOf(BASE), "find_pets").replace("tool find_pets", "tool find_pets_full"));
        const mapDiff = dry.stdout.slice(dry.stdout.indexOf("--- egress_map.txt (before)"));
        expect(mapDiff).not.toBe("");
        const added = mapDiff.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++"));
        expect(added).toContain("+tool find_pets_full");
        for (const line of added) expect(map.split("\n")).toContain(line.slice(1));
        return;
      }
      const { dir, result: { code, stderr } } = await curatedFindPets();
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(curatedOf(dir)).toBe(curatedFindPetsSource());
      const map = mapOf(dir);
      expect(map).toBe(await egressNow(dir));
      expect(block(map, "find_pets")).toBe("tool find_pets\n  endpoint GET /pets\n  + limit: integer (int32)\n  - tags: projection");
      expect(block(map, "find_pets_full")).toBe(block(mapOf(BASE), "find_pets").replace("tool find_pets", "tool find_pets_full"));
    },
    SLOW,
  );

  // Child processes of their own (about 10 s each): the long tier runs them; the quick tier keeps one narrow of each kind.
  it.runIf(LONG)(
    "narrowing the same name again updates the projection in place; --json reports it",
    async () => {
      const dir = freshPack();
      expect((await sluice(["narrow", dir, "find_pets", "--name", "my_pets", "--drop", "tags"])).code).toBe(0);
      const first = curatedOf(dir);
      const { code, stdout, stderr } = await sluice(["narrow", dir, "find_pets", "--name", "my_pets", "--pin", 'tags=["dogs","cats"]', "--json"]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as Record<string, unknown>;
      expect(Object.keys(report)).toEqual(["tool", "name", "tokensBefore", "tokensAfter", "curatedFile", "egressChanged"]);
      expect(report).toMatchObject({ tool: "find_pets", name: "my_pets", curatedFile: join(dir, "src/curated.ts"), egressChanged: true });
      expect(curatedOf(dir)).toBe(
        first.replace(
          `generated.findPets.derived({ name: "my_pets", drop: ["tags"] })`,
          `generated.findPets.derived({ name: "my_pets", pin: { tags: ["dogs","cats"] } })`,
        ),
      );
      expect(mapOf(dir)).toBe(await egressNow(dir));
      // An update that lets an existing tool send more says so.
      const widened = await sluice(["narrow", dir, "find_pets", "--name", "my_pets", "--drop", "limit"]);
      expect(widened.code).toBe(0);
      expect(widened.stdout).toMatch(/^WIDENING: tool my_pets: tags: string\[\] \(was pinned: \["dogs","cats"\]\) is newly visible to the model$/m);
      expect(widened.stderr).toBe("");
    },
    SLOW,
  );
});

describe("an edit of the user's file", () => {
  // Child processes of their own (about 10 s each): the long tier runs them; the quick tier keeps one narrow of each kind.
  it.runIf(LONG)(
    "a hand-written curated.ts keeps its comments and formatting byte for byte across three narrows",
    async () => {
      const dir = freshPack();
      const own = [
        "// my own header comment, keep me",
        'import {type Tool} from "@sluice/core";',
        'import * as generated from "./tools.gen.ts";',
        "",
        'const  dropTags = { drop: ["tags"] } ;   /* odd spacing */',
        "",
        "/** Pet lookups, mine. */",
        "export const   findPetById = generated.findPetById.derived( { } );  // identity: hand-written",
        "",
        "export const curated: readonly Tool<object>[] = [",
        "    findPetById, // keep this comment",
        "];",
        "",
        "// derived ones, below",
        "export const derived: readonly Tool<object>[] = [ ];",
        "void dropTags;",
        "",
      ].join("\n");
      writeFileSync(join(dir, "src/curated.ts"), own);
      const run = async (args: string[]) => {
        const { code, stderr } = await sluice(["narrow", dir, ...args]);
        expect(stderr).toBe("");
        expect(code).toBe(0);
        return curatedOf(dir);
      };

      // curate is imported into the existing import; the new const goes above the list, the name at its end below the comment.
      const first = await run(["add_pet", "--name", "add_pet", "--drop", "tag"]);
      expect(first).toBe(
        own
          .replace('import {type Tool} from "@sluice/core";', 'import {curate, type Tool} from "@sluice/core";')
          .replace("export const curated:", 'export const addPet = curate(generated.addPet, { drop: ["tag"] });\n\nexport const curated:')
          .replace("    findPetById, // keep this comment\n", "    findPetById, // keep this comment\n    addPet,\n"),
      );
      // A comment right above a list stays with it: the new const goes above the comment.
      const second = await run(["find_pets", "--name", "my_pets", "--drop", "tags"]);
      expect(second).toBe(
        first
          .replace("// derived ones, below\n", 'export const myPets = generated.findPets.derived({ name: "my_pets", drop: ["tags"] });\n\n// derived ones, below\n')
          .replace("[ ];", "[myPets ];"),
      );
      // An existing export of the variable: only its initializer changes.
      const third = await run(["find_pet_by_id", "--name", "find_pet_by_id", "--pin", "id=3"]);
      expect(third).toBe(second.replace("generated.findPetById.derived( { } )", "curate(generated.findPetById, { pin: { id: 3 } })"));
      expect(mapOf(dir)).toBe(await egressNow(dir));
      expect(block(mapOf(dir), "find_pet_by_id")).toBe("tool find_pet_by_id\n  endpoint GET /pets/{id}\n  = id: 3");
    },
    SLOW,
  );

  it(
    "an older pack without a derived list: the list is added when index.ts reads it, else a coded error and nothing written",
    async () => {
      const served = freshPack();
      const curatedOnly = curatedOf(served).replace(`${EMPTY_DERIVED}\n\n`, "");
      writeFileSync(join(served, "src/curated.ts"), curatedOnly);
      const index = readFileSync(join(served, "src/index.ts"), "utf8");
      const namespaceIndex = index
        .replace('import { curated, derived } from "./curated.ts";', 'import * as lists from "./curated.ts";')
        .replace("packToolSets(pack.tools, curated, derived)", "packToolSets(pack.tools, lists.curated, (lists.derived as Tool<object>[] | undefined) ?? [])");
      expect(namespaceIndex).not.toBe(index);
      writeFileSync(join(served, "src/index.ts"), namespaceIndex.replace('import { packToolSets } from "@sluice/core";', 'import { packToolSets, type Tool } from "@sluice/core";'));
      const addedList = `${EMPTY_CURATED}\n\nexport const myPets = generated.findPets.derived({ name: "my_pets", drop: ["tags"] });\n\nexport const derived: readonly Tool<object>[] = [myPets];`;
      if (LONG) {
        const added = await sluice(["narrow", served, "find_pets", "--name", "my_pets", "--drop", "tags"]);
        expect(added.stderr).toBe("");
        expect(added.code).toBe(0);
        expect(curatedOf(served)).toBe(curatedOnly.replace(EMPTY_CURATED, addedList));
        expect(block(mapOf(served), "my_pets")).toBe("tool my_pets\n  endpoint GET /pets\n  + limit: integer (int32)\n  - tags: projection");
        expect(mapOf(served)).toBe(await egressNow(served));
      } else {
        // The quick tier decides the same edit (the namespace import read as serving `derived`,
        // the list added) by --dry-run in the worker, which writes nothing and so may load this
        // copy: writing and re-mapping a pack is the derived narrow's of the first test, a child.
        const files = snapshot(served);
        const dry = await runInProcess(["narrow", served, "find_pets", "--name", "my_pets", "--drop", "tags", "--dry-run"], { cwd: project });
        expect(dry.stderr).toBe("dry run: nothing written\n");
        expect(dry.code).toBe(0);
        expect(snapshot(served)).toEqual(files);
        const added = dry.stdout.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++"));
        expect(added).toEqual(expect.arrayContaining(addedList.split("\n").filter((line) => line !== EMPTY_CURATED && line !== "").map((line) => `+${line}`)));
        expect(dry.stdout).toContain("\n+tool my_pets\n+  endpoint GET /pets\n+  + limit: integer (int32)\n+  - tags: projection\n");
      }

      const unserved = freshPack();
      writeFileSync(join(unserved, "src/curated.ts"), curatedOnly);
      writeFileSync(
        join(unserved, "src/index.ts"),
        index.replace('import { curated, derived } from "./curated.ts";', 'import { curated } from "./curated.ts";').replace("packToolSets(pack.tools, curated, derived)", "packToolSets(pack.tools, curated)"),
      );
      const files = snapshot(unserved);
      // A refusal writes nothing, and the worker never loaded this copy: main in the worker in the quick tier.
      const refusal = ["narrow", unserved, "find_pets", "--name", "my_pets", "--drop", "tags"];
      const refused = LONG ? await sluice(refusal) : await runInProcess(refusal, { cwd: project });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^sluice: INVALID_OPTION: src\/curated\.ts: my_pets is a new tool, but this pack has no `derived` list .*export const derived.*--name find_pets/);
      expect(refused.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(snapshot(unserved)).toEqual(files);
    },
    SLOW,
  );
});

describe("nothing is written", () => {
  it.each([
    ["an unknown selector", ["find_pets", "--name", "my_pets", "--drop", "nope"], "UNKNOWN_SELECTOR"],
    ["an unknown selector in keep", ["find_pets", "--name", "find_pets", "--keep", "limt"], "UNKNOWN_SELECTOR"],
    ["a required argument dropped", ["add_pet", "--name", "add_pet", "--drop", "name"], "REQUIRED_DROPPED"],
    ["a pin its argument refuses", ["find_pets", "--name", "my_pets", "--pin", "limit=many"], "PIN_INVALID"],
    ["a dotted pin no argument is named", ["find_pets", "--name", "my_pets", "--pin", "limit.max=1"], "UNKNOWN_SELECTOR"],
    ["an unknown tool", ["find_petz", "--name", "my_pets", "--drop", "tags"], "TOOL_NOT_FOUND"],
    ["a derived tool under a generated tool's name", ["add_pet", "--name", "find_pets", "--drop", "tag"], "INVALID_NAME"],
    ["a derived tool under a twin's name", ["add_pet", "--name", "add_pet_full", "--drop", "tag"], "INVALID_NAME"],
    ["a name that is not a tool name", ["find_pets", "--name", "my pets", "--drop", "tags"], "INVALID_NAME"],
    ["no --name", ["find_pets", "--drop", "tags"], "INVALID_OPTION"],
    ["nothing to narrow", ["find_pets", "--name", "my_pets"], "INVALID_OPTION"],
    ["a pin without a value", ["find_pets", "--name", "my_pets", "--pin", "limit"], "INVALID_OPTION"],
  ])(
    "%s: exit 2, one coded line",
    async (_case, args, code) => {
      const dir = join(project, "refusals/pets");
      if (!existsSync(dir)) cpSync(BASE, dir, { recursive: true });
      const files = snapshot(dir);
      // The refusals pack never changes, so the worker's modules of it are what a child loads
      // (the bin's own exit status for a refusal is anywhere.test.ts's "a usage error exits 2").
      const result = LONG ? await sluice(["narrow", dir, ...args]) : await runInProcess(["narrow", dir, ...args], { cwd: project });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(new RegExp(`^sluice: ${code}: `));
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(snapshot(dir)).toEqual(files);
    },
    SLOW,
  );

  it(
    "a *_full twin is not a generated tool: TOOL_NOT_FOUND naming the tool",
    async () => {
      let dir: string;
      if (LONG) {
        const curated = await curatedFindPets();
        expect(curated.result.code).toBe(0);
        dir = join(project, `case-${++copies}/pets`);
        cpSync(curated.dir, dir, { recursive: true });
        expect(mapOf(dir)).toContain("\ntool find_pets_full\n");
      } else {
        // The quick tier's curated pack is written here, the same curated.ts (see curatedByHand).
        const curated = await curatedByHand();
        dir = curated.dir;
        expect(curated.map).toContain("\ntool find_pets_full\n");
      }
      const files = snapshot(dir);
      // A refusal of a copy the worker never loaded: main in the worker in the quick tier.
      const refusal = ["narrow", dir, "find_pets_full", "--name", "find_pets", "--drop", "limit"];
      const result = LONG ? await sluice(refusal) : await runInProcess(refusal, { cwd: project });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^sluice: TOOL_NOT_FOUND: .*find_pets_full.*\(candidates: find_pets\)$/m);
      expect(snapshot(dir)).toEqual(files);
    },
    SLOW,
  );

  it(
    "a directory without src/curated.ts: FILE_NOT_FOUND",
    async () => {
      const dir = freshPack();
      rmSync(join(dir, "src/curated.ts"));
      const files = snapshot(dir);
      // A pack the worker never loaded, and nothing is written: main in the worker in the quick tier.
      const args = ["narrow", dir, "find_pets", "--name", "my_pets", "--drop", "tags"];
      const result = LONG ? await sluice(args) : await runInProcess(args, { cwd: project });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^sluice: FILE_NOT_FOUND: narrow edits a pack's src\/curated\.ts/);
      expect(snapshot(dir)).toEqual(files);
    },
    SLOW,
  );

  it.each(
    sweep(
      [
        ["a derived tool", DERIVED_MY_PETS],
        ["a curated tool", ["find_pets", "--name", "find_pets", "--keep", "limit"]],
      ] as Array<[string, string[]]>,
      ([name]) => name === "a derived tool",
    ),
  )(
    "--dry-run of %s prints both diffs and writes nothing; the map diff is the one the real run gives",
    async (_case, args) => {
      const dir = freshPack();
      const files = snapshot(dir);
      // The dry run writes nothing and the pack is fresh: main in the worker in the quick tier
      // (the real run, which rewrites what it loads, stays a child: its map diff checks this one).
      const dry = LONG ? await sluice(["narrow", dir, ...args, "--dry-run"]) : await runInProcess(["narrow", dir, ...args, "--dry-run"], { cwd: project });
      expect(dry.code).toBe(0);
      expect(dry.stderr).toBe("dry run: nothing written\n");
      expect(snapshot(dir)).toEqual(files);
      expect(dry.stdout).toMatch(/^would write .*src\/curated\.ts: added /);
      expect(dry.stdout).toContain("--- src/curated.ts (before)\n+++ src/curated.ts (after)\n");
      // The real run on a copy of its own: the worker keeps the modules the dry run loaded, and
      // once a module it holds changes on disk every later runSluice of the worker (this
      // file's and the next files') is a child process (support/run-in-process.ts). The derived
      // tool's is the narrow of the first test (the same arguments: a narrow is two processes).
      const shared = _case === "a derived tool" ? await derivedMyPets() : undefined;
      const target = shared?.dir ?? freshPack();
      const real = shared?.result ?? (await sluice(["narrow", target, ...args]));
      expect(real.code).toBe(0);
      const mapDiff = real.stdout.slice(real.stdout.indexOf("===="));
      expect(mapDiff).toContain("--- egress_map.txt (before)\n+++ egress_map.txt (after)\n");
      expect(dry.stdout.endsWith(mapDiff)).toBe(true);
      // The curated.ts diff of the dry run, applied, is what the real run wrote.
      for (const line of dry.stdout.split("\n").filter((l) => l.startsWith("+export const"))) expect(curatedOf(target)).toContain(line.slice(1));
    },
    SLOW,
  );
});

describe("loading", () => {
  it(
    "ts-morph is loaded by narrow only",
    async () => {
      if (LONG) {
        const egressTrace = join(project, "trace-egress.txt");
        writeFileSync(egressTrace, "");
        expect((await sluice(["egress", BASE], { trace: egressTrace })).code).toBe(0);
        // The narrow traced is the curated find_pets of the tests above (a narrow process of its own costs seconds).
        const narrowed = await curatedFindPets();
        expect(narrowed.result.code).toBe(0);
        expect(readFileSync(egressTrace, "utf8")).not.toMatch(/ts-morph/);
        expect(readFileSync(narrowed.trace, "utf8")).toMatch(/^ts-morph$/m);
        return;
      }
      // The quick tier's narrow traced is the derived my_pets of the first test, and its egress
      // the fresh process that narrow spawned to write the map.
      const narrowed = await derivedMyPets();
      expect(narrowed.result.code).toBe(0);
      const egressTrace = readFileSync(`${narrowed.trace}.egress`, "utf8");
      expect(egressTrace).toMatch(/^@sluice\/core$/m);
      expect(egressTrace).not.toMatch(/ts-morph/);
      expect(readFileSync(`${narrowed.trace}.narrow`, "utf8")).toMatch(/^ts-morph$/m);
    },
    SLOW,
  );
});

describe("a vendored pack (stripe), copied out of the repository", () => {
  it.runIf(LONG)(
    "updates an existing curated projection in place; a new name is refused, since its index serves no derived list",
    async () => {
      const dir = join(project, "stripe");
      mkdirSync(dir);
      for (const entry of ["src", "package.json", "egress_map.txt"]) cpSync(join(ROOT, "packs/stripe", entry), join(dir, entry), { recursive: true });
      mkdirSync(join(dir, "node_modules/@sluice"), { recursive: true });
      symlinkSync(join(ROOT, "packages/core"), join(dir, "node_modules/@sluice/core"), "dir");
      const before = curatedOf(dir);
      const committedMap = mapOf(dir);

      const refused = await sluice(["narrow", dir, "get_customers", "--name", "customers_by_email", "--keep", "email"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^sluice: INVALID_OPTION: src\/curated\.ts: customers_by_email is a new tool, but this pack has no `derived` list/);
      expect(curatedOf(dir)).toBe(before);

      const drops = ["metadata", "spending_controls.allowed_categories", "spending_controls.blocked_categories", "spending_controls.spending_limits.categories"];
      const { code, stdout, stderr } = await sluice(["narrow", dir, "post_issuing_cards", "--name", "post_issuing_cards", ...drops.flatMap((d) => ["--drop", d])]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toMatch(/^wrote .*: updated postIssuingCards, post_issuing_cards curated/);
      expect(curatedOf(dir)).toBe(
        before.replace(
          "export const postIssuingCards = curate(generated.postIssuingCards, withoutCategoryLists);",
          `export const postIssuingCards = curate(generated.postIssuingCards, { drop: [${drops.map((d) => JSON.stringify(d)).join(", ")}] });`,
        ),
      );
      const map = mapOf(dir);
      expect(block(map, "post_issuing_cards")).toContain("\n  - metadata: projection\n");
      expect(block(committedMap, "post_issuing_cards")).toContain("\n  + metadata: object\n");
      // Every other tool's entry is as committed.
      const rest = (text: string) => text.replace(block(text, "post_issuing_cards"), "");
      expect(rest(map)).toBe(rest(committedMap));
    },
    SLOW,
  );
});

describe("arguments", () => {
  it.each([
    ["my_issues", "myIssues"],
    ["find-pet-by-id", "findPetById"],
    ["List_Things", "listThings"],
    ["3d_print", "_3dPrint"],
    ["delete", "deleteTool"],
    ["derived", "derivedTool"],
    ["__", "tool"],
  ])("variable of %s is %s", (name, variable) => {
    expect(variableName(name)).toBe(variable);
  });

  it.each([
    ["limit=10", { limit: 10 }],
    ['q="10"', { q: "10" }],
    ["state=open", { state: "open" }],
    ["a.b=true", { "a.b": true }],
    ["tags=[1,2]", { tags: [1, 2] }],
    ["x=", { x: "" }],
    ["x=a=b", { x: "a=b" }],
  ])("--pin %s", (item, pins) => {
    expect(parsePins([item])).toEqual(pins);
  });

  it("--pin __proto__ stays an own key", () => {
    const pins = parsePins(['__proto__={"a":1}']);
    expect(Object.keys(pins)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(pins)).toBe(Object.prototype);
  });
});

describe("editCuratedSource, in process", () => {
  const request: NarrowRequest = { tool: "find_pets", exportName: "findPets", name: "my_pets", drop: ["tags"] };
  const derivedLine = 'export const myPets = generated.findPets.derived({ name: "my_pets", drop: ["tags"] });';

  it("keeps CRLF line endings", async () => {
    const text = ['import { curate, type Tool } from "@sluice/core";', 'import * as generated from "./tools.gen.ts";', "", EMPTY_CURATED, "", EMPTY_DERIVED, ""].join("\r\n");
    const edit = await editCuratedSource(text, request, { derivedServed: true });
    expect(edit).toEqual({ variable: "myPets", added: true, text: text.replace(EMPTY_DERIVED, `${derivedLine}\r\n\r\n${EMPTY_DERIVED.replace("= [];", "= [myPets];")}`) });
  });

  it("adds the imports it needs as new lines when none can take them", async () => {
    const text = ['import type { Tool } from "@sluice/core";', "", EMPTY_CURATED, ""].join("\n");
    const curated = await editCuratedSource(text, { ...request, name: "find_pets" }, { derivedServed: false });
    expect(curated.text).toBe(
      [
        'import type { Tool } from "@sluice/core";',
        'import { curate } from "@sluice/core";',
        'import * as generated from "./tools.gen.ts";',
        "",
        'export const findPets = curate(generated.findPets, { drop: ["tags"] });',
        "",
        EMPTY_CURATED.replace("= [];", "= [findPets];"),
        "",
      ].join("\n"),
    );
  });

  it("uses the names the file already imports under", async () => {
    const text = ['import { curate as narrowed, type Tool as T } from "@sluice/core";', 'import * as gen from "./tools.gen.ts";', "", "export const curated: readonly T<object>[] = [];", ""].join("\n");
    const edit = await editCuratedSource(text, { ...request, name: "find_pets" }, { derivedServed: false });
    expect(edit.text).toBe(text.replace("export const curated", 'export const findPets = narrowed(gen.findPets, { drop: ["tags"] });\n\nexport const curated').replace("= [];", "= [findPets];"));
    const derived = await editCuratedSource(text, request, { derivedServed: true });
    expect(derived.text).toBe(text.replace("T<object>[] = [];", `T<object>[] = [];\n\n${derivedLine.replace("generated.", "gen.")}\n\nexport const derived: readonly T<object>[] = [myPets];`));
  });

  it.each([
    ["a list that is not an array literal", "export const curated: readonly Tool<object>[] = build();\nexport const derived: readonly Tool<object>[] = [];", "find_pets", /`curated` is not an array literal/],
    ["a variable declared but not exported", "const findPets = 1;\nexport const curated: readonly Tool<object>[] = [];", "find_pets", /findPets is declared but is not an exported const/],
    ["a function of the variable's name", "function myPets() {}\nexport const curated: readonly Tool<object>[] = [];\nexport const derived: readonly Tool<object>[] = [];", "my_pets", /myPets .* is already declared here/],
    ["no curated list", "export const derived: readonly Tool<object>[] = [];", "my_pets", /has no `curated` list/],
  ])("refuses %s", async (_case, body, name, message) => {
    const text = `import { curate, type Tool } from "@sluice/core";\nimport * as generated from "./tools.gen.ts";\n${body}\n`;
    await expect(editCuratedSource(text, { ...request, name }, { derivedServed: true })).rejects.toMatchObject({ code: "INVALID_OPTION", message: expect.stringMatching(message) });
  });
});
