import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePack } from "../src/resolve-pack.ts";

const project = mkdtempSync(join(tmpdir(), "sluice-resolve-pack-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** A pack folder as the repository's packs are: exports name the sources under @sluice/source and the build under import. */
function pack(name: string, built: boolean): string {
  const dir = join(project, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "src/index.ts"), "export const tools = [];\n");
  if (built) writeFileSync(join(dir, "dist/index.js"), "export const tools = [];\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, type: "module", exports: { ".": { "@sluice/source": "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" } } }));
  return dir;
}

describe("resolvePack of a pack folder", () => {
  // These tests run the CLI's sources (.ts), which prefer a workspace package's sources: a
  // stale build must not stand in for what the folder now says.
  it("takes the @sluice/source entry over a build beside it", () => {
    const dir = pack("built", true);
    expect(resolvePack(dir, project)).toEqual({ file: join(dir, "src/index.ts"), via: "path" });
  });

  it("takes the sources of a pack that is not built", () => {
    const dir = pack("unbuilt", false);
    expect(resolvePack(dir, project).file).toBe(join(dir, "src/index.ts"));
  });
});
