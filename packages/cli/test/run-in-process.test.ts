/**
 * The test helper that runs the CLI's main in the worker (support/run-in-process.ts) gives
 * what a fresh process gives, and stops running in the worker once a module it loaded has
 * changed on disk: the worker would import the old module, and a test would pass on it.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runChild } from "./support/run-child.ts";
import { runSluice } from "./support/run-in-process.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPEC = join(ROOT, "../shared/specs/petstore/petstore-expanded-3.0.json");
const SLOW = 120_000;

const project = mkdtempSync(join(tmpdir(), "sluice-in-process-"));
mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
afterAll(() => rmSync(project, { recursive: true, force: true }));

const toolsOf = (stdout: string) => (JSON.parse(stdout) as Array<{ tool: string }>).map((row) => row.tool).sort();

describe("sluice in the test worker", () => {
  it(
    "gives a fresh process's output, and runs the bin as a child once a pack it loaded has changed",
    async () => {
      const generated = await runSluice(["generate", SPEC, "--name", "pets", "--out", "packs/pets"], { cwd: project, timeout: SLOW });
      expect(generated).toMatchObject({ code: 0, stderr: "", inProcess: true });
      const here = await runSluice(["survey", "packs/pets", "--json"], { cwd: project, timeout: SLOW });
      expect(here.inProcess).toBe(true);
      const child = await runChild([BIN, "survey", "packs/pets", "--json"], { cwd: project, timeout: SLOW });
      expect(here).toMatchObject({ code: child.code, stdout: child.stdout, stderr: child.stderr });
      const map = await runSluice(["egress", "packs/pets"], { cwd: project, timeout: SLOW });
      expect(map).toMatchObject({ code: 0, stdout: readFileSync(join(project, "packs/pets/egress_map.txt"), "utf8"), inProcess: true });

      // A hand edit to a module the worker loaded: the worker's copy is stale, a child sees the edit.
      const curated = join(project, "packs/pets/src/curated.ts");
      writeFileSync(curated, readFileSync(curated, "utf8").replace("export const derived: readonly Tool<object>[] = [];", 'export const derived: readonly Tool<object>[] = [generated.findPets.derived({ name: "my_pets", drop: ["tags"] })];'));
      const after = await runSluice(["survey", "packs/pets", "--json"], { cwd: project, timeout: SLOW });
      expect(after).toMatchObject({ code: 0, inProcess: false });
      expect(toolsOf(after.stdout)).toEqual([...toolsOf(here.stdout), "my_pets"].sort());
      // A pack the worker has not loaded is still not stale, but the worker now holds a stale module: every later call is a child.
      cpSync(join(project, "packs/pets"), join(project, "packs/copy"), { recursive: true });
      expect(await runSluice(["survey", "packs/copy", "--json"], { cwd: project, timeout: SLOW })).toMatchObject({ code: 0, inProcess: false });
    },
    SLOW,
  );
});
