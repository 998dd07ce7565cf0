/**
 * No import circles in any package's or generator's source: a circle means neither module
 * can be read, tested or loaded without the other (and ES module evaluation order then
 * decides which one sees the other half-initialised).
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCircles, sourceFiles } from "./support/import-graph.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const roots = ["packages", "generators"].flatMap((group) => readdirSync(`${root}${group}`).map((name) => `${group}/${name}`));

describe("import circles", () => {
  it.each(roots)("%s/src has none", (dir) => {
    expect(importCircles(sourceFiles(`${root}${dir}/src`), root)).toEqual([]);
  });

  it("the check finds a circle (two modules importing each other)", () => {
    const fixture = fileURLToPath(new URL("./fixtures/import-circle/", import.meta.url));
    expect(importCircles(sourceFiles(fixture), root)).toEqual([["test/fixtures/import-circle/a.ts", "test/fixtures/import-circle/b.ts"]]);
  });
});
