/**
 * `sluice survey` reads a pack's stored served list (src/served-tools.gen.json) instead of
 * compiling the pack, when the list's key matches the pack's sources as they are: the rows
 * are those of the pack as loaded (each count `schemaTokens` of the loaded tool), for the
 * committed packs (quick tier: Google Docs, which has a curated tool and its twin, and Gmail;
 * long tier: every pack). A stale list (a source edited since generate), a list that does
 * not read, a module other than the pack's entry and --include-full all load the pack.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { schemaTokens } from "@sluice/core/tokens";
import { sweep } from "../../../test/support/tier.ts";
import { surveyCommand } from "../src/inspect.ts";
import { currentServedList } from "../src/stored-list.ts";

const storedServedDefinitions = (spec: string, cwd: string) => currentServedList(spec, cwd)?.definitions as Array<{ name: string }> | undefined;
import { loadTools, pricedSet } from "../src/load-tools.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SLOW = 300_000;

type Row = { tool: string; tokens: number };

/** The survey's contract, computed the slow way: schemaTokens of each loaded tool, fattest first, ties by name. */
function oracle(tools: ReadonlyArray<Parameters<typeof schemaTokens>[0] & { name: string }>): Row[] {
  return tools.map((tool) => ({ tool: tool.name, tokens: schemaTokens(tool) })).sort((a, b) => b.tokens - a.tokens || (a.tool < b.tool ? -1 : 1));
}

async function survey(args: string[], cwd: string): Promise<Row[]> {
  let out = "";
  const code = await surveyCommand([...args, "--json"], { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true }, cwd });
  expect(code).toBe(0);
  return JSON.parse(out) as Row[];
}

const packs = readdirSync(join(ROOT, "packs"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe.each(sweep(packs, (pack) => pack === "gmail" || pack === "gdocs"))("the committed pack %s", (pack) => {
  it("has a current stored list, and the survey from it is the survey of the pack as loaded", async () => {
    const entry = `packs/${pack}/src/index.ts`;
    const listed = storedServedDefinitions(entry, ROOT);
    expect(listed).toBeDefined();
    const served = pricedSet(await loadTools(entry, ROOT), false);
    expect(listed!.map((d) => d.name).sort()).toEqual(served.map((t) => t.name).sort());
    const want = oracle(served);
    expect(await survey([entry], ROOT)).toEqual(want);
    expect(await survey([entry, "--top", "3"], ROOT)).toEqual(want.slice(0, 3));
  }, SLOW);
});

describe("when the stored list does not stand for the pack", () => {
  const project = mkdtempSync(join(tmpdir(), "sluice-survey-list-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  // As a user's project: the pack resolves @sluice/core (whose version is in the key) from its own node_modules.
  mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
  symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
  const copy = (name: string) => {
    cpSync(join(ROOT, "packs/gdocs/src"), join(project, name, "src"), { recursive: true });
    cpSync(join(ROOT, "packs/gdocs/package.json"), join(project, name, "package.json"));
    return name;
  };

  it("reads a current list in a user's project, and loads the pack for a module that is not the pack's entry", async () => {
    const dir = copy("current");
    expect(storedServedDefinitions(dir, project)?.length).toBeGreaterThan(0);
    expect(storedServedDefinitions(`${dir}/src/tools.gen.ts`, project)).toBeUndefined();
    // tools.gen.ts exports the generated tools only: no curated projection, unlike the list.
    const generated = await survey([`${dir}/src/tools.gen.ts`], project);
    expect(generated).toEqual(oracle(await loadTools(`${dir}/src/tools.gen.ts`, project)));
  }, SLOW);

  it("never answers from a list older than an edit of the pack's sources", async () => {
    const dir = copy("edited");
    const before = await survey([dir], project);
    const dropped = before[0]!.tool;
    // A hand edit generate has not seen: the fattest tool (and its twin, if curated) leaves the pack.
    const index = join(project, dir, "src/index.ts");
    writeFileSync(index, readFileSync(index, "utf8").replace("export const { tools, allTools } = packToolSets(pack.tools, curated);", `const sets = packToolSets(pack.tools, curated);\nexport const tools = sets.tools.filter((tool) => tool.name !== ${JSON.stringify(dropped)});\nexport const allTools = sets.allTools.filter((tool) => !tool.name.startsWith(${JSON.stringify(dropped)}));`));
    expect(storedServedDefinitions(dir, project)).toBeUndefined();
    const after = await survey([dir], project);
    expect(after.map((row) => row.tool)).not.toContain(dropped);
    expect(after).toEqual(before.filter((row) => row.tool !== dropped));
  }, SLOW);

  it("loads the pack when the list does not read, and for --include-full", async () => {
    const dir = copy("unreadable");
    const fromList = await survey([dir], project);
    writeFileSync(join(project, dir, "src/served-tools.gen.json"), '{"format": 2, "digest": ');
    expect(storedServedDefinitions(dir, project)).toBeUndefined();
    expect(await survey([dir], project)).toEqual(fromList);
    const full = await survey([dir, "--include-full"], project);
    expect(full.some((row) => row.tool.endsWith("_full"))).toBe(true);
    expect(full).toEqual(oracle(await loadTools(dir, project)));
  }, SLOW);
});
