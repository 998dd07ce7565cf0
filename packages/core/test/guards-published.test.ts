/**
 * Guards are a switchboard for sluice's own mutation tests, never a public one: built as it
 * is published (scripts/build-package.mjs), `@sluice/core/guards` hands out a frozen object
 * and refuses withoutGuard, so no module of a user's process can turn redaction off. From
 * source (the tests' condition) the same module still switches.
 * scripts/consumer-test.ts repeats this on the installed tarball.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { guards as sourceGuards, guardsFixed as sourceFixed, withoutGuard as sourceWithout } from "@sluice/core/guards";

const CORE = fileURLToPath(new URL("..", import.meta.url));
// Inside the package, so the bundle's bare imports (@sluice/schema) resolve as they would installed.
const out = mkdtempSync(join(CORE, ".guards-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it("the published build freezes every guard and refuses withoutGuard; the sources switch", async () => {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL("../../../scripts/build-package.mjs", import.meta.url)), "--js-only", "--out", out], { cwd: CORE, encoding: "utf8" });
  expect(build.stderr).toBe("");
  expect(build.status).toBe(0);
  const published = (await import(pathToFileURL(join(out, "guards.js")).href)) as typeof import("@sluice/core/guards");
  expect(published.guardsFixed).toBe(true);
  expect(Object.isFrozen(published.guards)).toBe(true);
  expect(() => {
    (published.guards as { redaction: boolean }).redaction = false;
  }).toThrow(TypeError);
  expect(() => Object.defineProperty(published.guards, "redaction", { value: false })).toThrow(TypeError);
  await expect(published.withoutGuard("redaction", () => "ran")).rejects.toMatchObject({ code: "INVALID_OPTION" });
  expect(Object.values(published.guards).every((on) => on === true)).toBe(true);

  expect(sourceFixed).toBe(false);
  expect(await sourceWithout("redaction", () => sourceGuards.redaction)).toBe(false);
  expect(sourceGuards.redaction).toBe(true);
});
