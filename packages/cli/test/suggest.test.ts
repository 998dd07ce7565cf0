/**
 * `sluice suggest`: the text report (steps, result against the budget, the call to paste),
 * the exact --json shape, exit 2 with BUDGET_UNREACHABLE below the floor, usage errors,
 * and --write through `sluice narrow` on a pack written by `sluice generate` in a project
 * outside the repository (child processes there, awaited without blocking the worker).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG } from "../../../test/support/tier.ts";
import { schemaTokens } from "@sluice/core/tokens";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { allTools as linearTools } from "@sluice/pack-linear";
import { main } from "../src/main.ts";
import type { ChildResult } from "./support/run-child.ts";
import { runSluice } from "./support/run-in-process.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SPEC = "/work/shared/specs/petstore/petstore-expanded-3.0.json";
const SLOW = 300_000;

/** `sluice ...` in this process, from the repository root (where `linear` names the Linear pack). */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd: ROOT });
  return { code, stdout, stderr };
}

const issuesListFull = linearTools.find((tool) => tool.name === "issues_list_full")!;

describe("sluice suggest on the Linear pack", () => {
  // The same run as the text case above, printed as JSON: the long tier checks its shape.
  it.runIf(LONG)(
    "--json: exactly { tool, budget, tokens, drop, keep, steps }, the figure that of the derived tool",
    async () => {
      const { code, stdout, stderr } = await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "1000", "--json"]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout.endsWith("\n")).toBe(true);
      const report = JSON.parse(stdout) as { tool: string; budget: number; tokens: number; drop: string[]; keep: string[]; steps: Array<Record<string, unknown>> };
      expect(Object.keys(report)).toEqual(["tool", "budget", "tokens", "drop", "keep", "steps"]);
      expect(report.tool).toBe("issues_list_full");
      expect(report.budget).toBe(1000);
      expect(report.tokens).toBeLessThanOrEqual(1000);
      expect(report.tokens).toBe(schemaTokens(issuesListFull.derived({ drop: report.drop, keep: report.keep })));
      expect(report.steps.length).toBe(report.drop.length);
      for (const step of report.steps) expect(Object.keys(step)).toEqual(["selector", "saved"]);
      expect(report.steps.map((step) => step.selector)).toEqual(report.drop);
      for (const arg of ["first", "after", "last", "before"]) expect(report.drop).not.toContain(arg);
    },
    SLOW,
  );

  it(
    "text: each step with its saving, the result against the budget, and the derived() call",
    async () => {
      const json = JSON.parse((await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "1000", "--json"])).stdout) as { tokens: number; drop: string[]; steps: Array<{ selector: string; saved: number }> };
      const { code, stdout, stderr } = await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "1000", "--name", "issues_fit"]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const lines = stdout.split("\n");
      expect(lines[0]).toBe(`issues_list_full: ${schemaTokens(issuesListFull)} tokens, budget 1000`);
      const header = lines.indexOf("saved  drop");
      expect(header).toBeGreaterThan(0);
      const rows = lines.slice(header + 1, header + 1 + json.steps.length);
      expect(rows).toEqual(json.steps.map((step) => `${String(step.saved).padStart(5)}  ${step.selector}`));
      expect(stdout).toContain(`\nresult: ${json.tokens} tokens (budget 1000, ${schemaTokens(issuesListFull) - json.tokens} saved by ${json.drop.length} drops)\n`);
      const call = stdout.slice(stdout.indexOf("issuesListFull.derived({"));
      expect(call).toBe(`issuesListFull.derived({\n  name: "issues_fit",\n  drop: [\n${json.drop.map((s) => `    ${JSON.stringify(s)},\n`).join("")}  ],\n});\n`);
    },
    SLOW,
  );

  it("a tool within the budget: nothing to drop", async () => {
    const { code, stdout } = await run(["suggest", "linear", "issues_list", "--budget", "100000"]);
    expect(code).toBe(0);
    expect(stdout).toBe(`issues_list: ${schemaTokens(linearTools.find((tool) => tool.name === "issues_list")!)} tokens, budget 100000\nalready within budget: nothing to drop\n`);
  });

  it(
    "below the floor: exit 2, one line, BUDGET_UNREACHABLE with the floor",
    async () => {
      const { code, stdout, stderr } = await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "50"]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^sluice: BUDGET_UNREACHABLE: issues_list_full cannot fit 50 tokens: its smallest projection is \d+ tokens, held up by pagination arguments after, before, first, last[^\n]*\n$/);
    },
    SLOW,
  );

  it.each([
    ["0", "--budget takes a positive integer"],
    ["-3", "--budget takes a positive integer"],
    ["12.5", "--budget takes a positive integer"],
    ["lots", "--budget takes a positive integer"],
    [undefined, "--budget <tokens> is required"],
  ])("budget %s is a usage error", async (budget, message) => {
    const { code, stdout, stderr } = await run(["suggest", "linear", "issues_list", ...(budget === undefined ? [] : [`--budget=${budget}`])]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`sluice: INVALID_OPTION: ${message}`);
    expect(stderr).toContain("(see sluice suggest --help)");
  });

  it("--write without --name is a usage error", async () => {
    const { code, stderr } = await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "1000", "--write"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--write needs --name NEW");
  });

  it("prices the served set: a *_full twin is named as one, with the flag that brings it back", async () => {
    const { code, stdout, stderr } = await run(["suggest", "linear", "issues_list_full", "--budget", "1000"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe("sluice: TOOL_NOT_FOUND: issues_list_full is the *_full twin of issues_list, left out of the served set suggest prices by default; add --include-full to price it.\n");
  });

  it("an unknown --keep selector fails with candidates", async () => {
    const { code, stderr } = await run(["suggest", "linear", "issues_list_full", "--include-full", "--budget", "1000", "--keep", "filter.asignee"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: UNKNOWN_SELECTOR: .*filter\.assignee/);
  });
});

describe("sluice suggest with a union branch to drop (GitHub REST checks_create)", () => {
  const checksCreate = githubRestTools.find((tool) => tool.name === "checks_create")!;

  it(
    "a branch drop is a selector like any other in --json, and marked in the text with what it withholds",
    async () => {
      const json = await run(["suggest", "github-rest", "checks_create", "--budget", "500", "--json"]);
      expect(json.stderr).toBe("");
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout) as { tokens: number; drop: string[]; steps: Array<{ selector: string; saved: number }> };
      // body is required; of its two shapes (a completed check run, or one still running) one goes.
      const branches = report.drop.filter((selector) => selector.includes(".oneOf["));
      expect(branches).toHaveLength(1);
      expect(["body.oneOf[0]", "body.oneOf[1]"]).toContain(branches[0]);
      expect(report.tokens).toBeLessThanOrEqual(500);
      expect(report.tokens).toBe(schemaTokens(checksCreate.derived({ drop: report.drop })));

      const { code, stdout, stderr } = await run(["suggest", "github-rest", "checks_create", "--budget", "500"]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const lines = stdout.split("\n");
      const header = lines.indexOf("saved  drop");
      expect(header).toBeGreaterThan(0);
      const rows = lines.slice(header + 1, header + 1 + report.steps.length);
      expect(rows).toEqual(report.steps.map((step) => `${String(step.saved).padStart(5)}  ${step.selector}${step.selector === branches[0] ? "  (branch)" : ""}`));
      expect(lines[header + 1 + report.steps.length]).toBe("(branch): one alternative of a union withheld, a shape the model can no longer send; body still accepts the others");
      // The call to paste lists the branch selector as it is.
      expect(stdout).toContain(`\n    "${branches[0]!}",\n`);
    },
    SLOW,
  );

  it("below the floor: the message names the branch the floor keeps", async () => {
    const { code, stderr } = await run(["suggest", "github-rest", "checks_create", "--budget", "100"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: BUDGET_UNREACHABLE: checks_create cannot fit 100 tokens: its smallest projection is \d+ tokens, held up by required arguments body, owner, repo; of each union among them one branch, the one that costs least \(body\.oneOf\[1\]\)/);
  });
});

describe("sluice suggest --write", () => {
  const project = mkdtempSync(join(tmpdir(), "sluice-suggest-"));
  const base = join(project, "base/packs/pets");
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  // --write narrows, so it is a child process; a run after it on a pack the worker never loaded is main in the worker (support/run-in-process.ts).
  const sluice = (args: string[], cwd: string): Promise<ChildResult> => runSluice(args, { cwd, timeout: SLOW });

  beforeAll(async () => {
    mkdirSync(join(project, "node_modules/@sluice"), { recursive: true });
    symlinkSync(join(ROOT, "packages/core"), join(project, "node_modules/@sluice/core"), "dir");
    mkdirSync(join(project, "base"));
    const generated = await sluice(["generate", SPEC, "--name", "pets", "--out", "packs/pets"], join(project, "base"));
    expect(generated.stderr).toBe("");
    expect(generated.code).toBe(0);
  }, SLOW);

  it(
    "writes the suggested projection with narrow: curated.ts, egress map, and the tool fits",
    async () => {
      const dir = join(project, "case/pets");
      cpSync(base, dir, { recursive: true });
      const survey = JSON.parse((await sluice(["survey", dir, "--json"], project)).stdout) as Array<{ tool: string; tokens: number }>;
      const before = survey.find((row) => row.tool === "find_pets")!.tokens;
      // Just below the tool: one drop is needed; `limit` is a pagination argument and stays.
      const budget = before - 5;
      const suggestion = await sluice(["suggest", dir, "find_pets", "--budget", String(budget), "--json"], project);
      expect(suggestion.code).toBe(0);
      const planned = JSON.parse(suggestion.stdout) as { tokens: number; drop: string[] };
      expect(planned.drop).toEqual(["tags"]);

      // Written into a copy of its own: the survey and the plan above loaded `dir` in the worker, and
      // once a module the worker holds changes on disk every later runSluice of the worker (the
      // next files' too) is a child process (support/run-in-process.ts).
      const target = join(project, "case-written/pets");
      cpSync(base, target, { recursive: true });
      const { code, stdout, stderr } = await sluice(["suggest", target, "find_pets", "--budget", String(budget), "--write", "--name", "my_pets"], project);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain(`result: ${planned.tokens} tokens (budget ${budget}, ${before - planned.tokens} saved by 1 drop)`);
      expect(stdout).toContain(`tokens: ${before} -> ${planned.tokens} (find_pets -> my_pets)`);
      const curated = readFileSync(join(target, "src/curated.ts"), "utf8");
      expect(curated).toContain(`export const myPets = generated.findPets.derived({ name: "my_pets", drop: ["tags"] });`);
      const map = readFileSync(join(target, "egress_map.txt"), "utf8");
      expect(map).toContain("tool my_pets\n");
      expect(map).toContain("  - tags: projection");
      const after = JSON.parse((await sluice(["survey", target, "--json"], project)).stdout) as Array<{ tool: string; tokens: number }>;
      expect(after.find((row) => row.tool === "my_pets")!.tokens).toBe(planned.tokens);
      expect(planned.tokens).toBeLessThanOrEqual(budget);
    },
    SLOW,
  );

  // Two narrows and their egress children: the quick tier has one --write (above), the long tier (test/support/tier.ts) both.
  it.runIf(LONG)(
    "on a *_full twin it narrows the generated tool; with --json stdout is the suggestion alone",
    async () => {
      const dir = join(project, "twin/pets");
      cpSync(base, dir, { recursive: true });
      const curate = await sluice(["narrow", dir, "find_pets", "--name", "find_pets", "--drop", "tags"], project);
      expect(curate.code).toBe(0);
      const survey = JSON.parse((await sluice(["survey", dir, "--json", "--include-full"], project)).stdout) as Array<{ tool: string; tokens: number }>;
      const before = survey.find((row) => row.tool === "find_pets_full")!.tokens;
      const { code, stdout, stderr } = await sluice(["suggest", dir, "find_pets_full", "--include-full", "--budget", String(before - 5), "--write", "--name", "pets_fit", "--json"], project);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as Record<string, unknown>;
      expect(report).toMatchObject({ tool: "find_pets_full", budget: before - 5, drop: ["tags"], keep: [] });
      expect(stdout.trim().split("\n")).toHaveLength(1);
      expect(readFileSync(join(dir, "src/curated.ts"), "utf8")).toContain(`export const petsFit = generated.findPets.derived({ name: "pets_fit", drop: ["tags"] });`);
      expect(readFileSync(join(dir, "egress_map.txt"), "utf8")).toContain("tool pets_fit\n");
    },
    SLOW,
  );
});
