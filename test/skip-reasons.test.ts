/**
 * Every conditional skip says why, and none hides a missing module: a test file skips
 * (or runs only) on the tier flag (`LONG`: the long tier runs it), on the skip helper of
 * test/support/skip-when-absent.ts (a missing input, named in the title; a missing module,
 * refused in CI), or on one of the conditions listed below with its reason. A skip on a
 * file's presence written by hand (`existsSync` in the condition) fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skipWhenAbsent } from "./support/skip-when-absent.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Conditions that select which cases a parametrised test applies to: not a skip of work that should run. */
const LISTED: Record<string, string> = {
  "pack.generated !== true": "pagination declarations of hand-written packs are their authors' (test/pagination-conformance.test.ts)",
  'pack.kind === "graphql"': "a GraphQL-only property of the pack matrix",
  'pack.kind === "openapi"': "an OpenAPI-only property of the pack matrix",
  '_pack === "linear" || _pack === "github"': "only the GraphQL packs ship operation documents",
  "!haveBrowser && requireBrowser": "the report's browser tests: with SLUICE_REQUIRE_BROWSER=1 (CI) a missing Chromium fails",
  haveBrowser: "the report's browser tests run where Chromium is (CI installs it and requires it)",
  'process.platform === "win32"': "generate --watch on a FIFO spec and a symlinked one: Windows has neither as these tests make them",
  'LONG && process.platform !== "win32"': "the long tier's symlinked-spec regeneration, where symlinks are POSIX ones",
};

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? testFiles(path) : entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** `it.skipIf(cond)`, `describe.runIf(cond)`, ...: the condition text, by balanced parentheses. */
export function skipConditions(source: string): string[] {
  const out: string[] = [];
  const start = /\.(skipIf|runIf)\(/g;
  for (let m = start.exec(source); m !== null; m = start.exec(source)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < source.length && depth > 0; i++) depth += source[i] === "(" ? 1 : source[i] === ")" ? -1 : 0;
    out.push(source.slice(m.index + m[0].length, i - 1).trim());
  }
  return out;
}

const files = ["packages", "generators", "packs", "test"].flatMap((dir) => testFiles(join(ROOT, dir)));

describe("conditional skips", () => {
  it("are on the tier flag, the skip helper or a listed condition, never on a hand-written presence check", () => {
    const found: string[] = [];
    let conditions = 0;
    for (const file of files) {
      if (file.endsWith("skip-reasons.test.ts")) continue;
      for (const condition of skipConditions(readFileSync(file, "utf8"))) {
        conditions++;
        const allowed = /^!?LONG$/.test(condition) || /^\w+\.skip$/.test(condition) || Object.hasOwn(LISTED, condition);
        if (!allowed) found.push(`${relative(ROOT, file)}: ${condition}`);
      }
    }
    expect(found).toEqual([]);
    // Not an empty scan: the repository has a few dozen conditional tests.
    expect(conditions).toBeGreaterThan(20);
  });

  it("the scan reads conditions with parentheses in them, and a presence check is not allowed", () => {
    expect(skipConditions('it.skipIf(!specs.every((url) => existsSync(url)))("x", () => {});\ndescribe.runIf(LONG)("y", () => {});')).toEqual(["!specs.every((url) => existsSync(url))", "LONG"]);
  });

  it("the helper names an absent input in the title, and refuses an absent module under SLUICE_CI=1 (in a child, where the flag is read)", async () => {
    // Outside CI an absent module is a skip like an absent input (the title says which).
    const absent = new URL("./no-such-input.json", import.meta.url);
    const input = skipWhenAbsent({ absentInput: absent });
    expect(input.skip).toBe(true);
    expect(input.title("reads it")).toMatch(/^reads it \(skipped: input .*no-such-input\.json is absent\)$/);
    const present = skipWhenAbsent({ absentModule: new URL("./support/skip-when-absent.ts", import.meta.url) });
    expect([present.skip, present.title("t")]).toEqual([false, "t"]);
    const { spawnSync } = await import("node:child_process");
    const helper = fileURLToPath(new URL("./support/skip-when-absent.ts", import.meta.url));
    const script = `const { skipWhenAbsent } = await import(${JSON.stringify(helper)}); skipWhenAbsent({ absentModule: new URL("file:///no/such/module.ts") });`;
    const run = (ci: string) => spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SLUICE_CI: ci } });
    const refused = run("1");
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("CI refuses this skip: the module /no/such/module.ts is missing");
  });
});
