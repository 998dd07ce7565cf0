/**
 * A pack whose hand-written files are still the scaffolds generate wrote is exactly its
 * generated tools, so generate and `generate --check` map it in memory instead of importing
 * the sources they just wrote (or compared). The project here has no @sluice/core
 * installed: importing the pack from disk fails, so a map that comes out proves it was made
 * in memory, and an edited curated.ts proves that an edit still sends the pack to disk.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runChild } from "./support/run-child.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const PETSTORE = fileURLToPath(new URL("../../../../shared/specs/petstore/petstore-expanded-3.0.json", import.meta.url));
const project = mkdtempSync(join(tmpdir(), "sluice-map-in-memory-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
vi.setConfig({ testTimeout: 300_000 });

// Always a child: in the test worker, the pack's import of @sluice/core would resolve through vitest.
const sluice = (args: string[]) => runChild([BIN, ...args], { cwd: project, env: { ...process.env, GITHUB_ACTIONS: "" }, timeout: 120_000 });
const generate = ["generate", PETSTORE, "--name", "pets", "--out", "packs/pets"];
const read = (path: string) => readFileSync(join(project, "packs/pets", path), "utf8");

describe("the egress map of a pack as scaffolded", () => {
  it("is computed in memory by generate and --check; an edited curated.ts is imported from disk", async () => {
    expect((await sluice(generate)).code).toBe(0);
    const map = read("egress_map.txt");
    expect(map).toContain("tool ");

    // Generated again over itself: the scaffolds are there, untouched.
    rmSync(join(project, "packs/pets/.sluice-stamp.json"));
    const again = await sluice(generate);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(read("egress_map.txt")).toBe(map);

    // The full check (no stamp) of the unchanged pack.
    rmSync(join(project, "packs/pets/.sluice-stamp.json"));
    const check = await sluice([...generate, "--check"]);
    expect(check.stdout).toContain("up to date");
    expect(check.code).toBe(0);

    // One byte more in curated.ts: the pack is no longer its scaffold, and is loaded, which
    // fails in a project without @sluice/core.
    appendFileSync(join(project, "packs/pets/src/curated.ts"), "\n");
    const edited = await sluice([...generate, "--check"]);
    expect(edited.code).not.toBe(0);
    expect(edited.stdout + edited.stderr).toMatch(/@sluice\/core/);
  });
});
