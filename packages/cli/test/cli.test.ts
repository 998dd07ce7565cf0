/**
 * The sluice command as a user runs it: real packs, output parsed as the documented JSON,
 * errors as one line with a non-zero exit. Most calls run the CLI's main in this worker
 * (support/run-in-process.ts: the packs they load do not change here); determinism across
 * two processes (a child beside this worker; two children in the long tier) and a catalog
 * piped on stdin run the bin as a child process.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./support/run-in-process.ts";
import { LONG } from "../../../test/support/tier.ts";

const BIN = fileURLToPath(new URL("../bin/sluice.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function sluiceChild(args: string[], cwd = ROOT) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const sluice = (args: string[], cwd = ROOT) => runInProcess(args, { cwd });

describe("sluice survey", () => {
  it("lists tools fattest first as JSON; the *_full twins only with --include-full", async () => {
    const { code, stdout } = await sluice(["survey", "linear", "--top", "5", "--json", "--include-full"]);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{ tool: string; tokens: number }>;
    expect(rows).toHaveLength(5);
    expect(rows[0]!.tool).toMatch(/_list_full$/); // an untouched recursive filter tool
    const served = JSON.parse((await sluice(["survey", "linear", "--top", "5", "--json"])).stdout) as typeof rows;
    expect(served.filter((row) => row.tool.endsWith("_full"))).toEqual([]);
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.tokens).toBeGreaterThanOrEqual(rows[i]!.tokens);
    expect(Object.keys(rows[0]!).sort()).toEqual(["tokens", "tool"]);
  });
});

describe("sluice paths", () => {
  it("prices the branches of the fattest tool", async () => {
    const { code, stdout } = await sluice(["paths", "linear", "issues_list_full", "--by-cost", "--json"]);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{ path: string; tokens: number }>;
    expect(rows[0]!.path).toBe("filter");
    expect(rows.map((r) => r.path)).toContain("first");
  });

  it("lists paths below a prefix, two levels deep", async () => {
    const { code, stdout } = await sluice(["paths", "linear", "issues_list_full", "filter.team", "--depth", "2", "--json"]);
    expect(code).toBe(0);
    const paths = (JSON.parse(stdout) as Array<{ path: string }>).map((r) => r.path);
    expect(paths).toContain("filter.team.key");
    expect(paths).toContain("filter.team.key.eq");
  });

  it("says so when every path below a prefix costs tokens to remove (a shared type splits)", async () => {
    const { code, stdout, stderr } = await sluice(["paths", "linear", "issues_list_full", "filter", "--by-cost"]);
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^tokens {2}path$/);
    expect(stdout).toMatch(/^ *-\d+ {2}filter\.and$/m);
    expect(stderr).toContain("note: removing any path below filter alone makes the tool larger");
    const plain = await sluice(["paths", "linear", "issues_list_full"]);
    expect(plain.stdout).toBe(["after", "before", "filter", "first", "includeArchived", "last", "orderBy", ""].join("\n"));
  });

  it("an unknown tool or selector is one line with candidates and exit 2", async () => {
    const tool = await sluice(["paths", "linear", "issues_lst", "--by-cost"]);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toMatch(/^sluice: TOOL_NOT_FOUND: /);
    expect(tool.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const selector = await sluice(["paths", "linear", "issues_list_full", "filtr"]);
    expect(selector.code).toBe(2);
    expect(selector.stderr).toMatch(/UNKNOWN_SELECTOR/);
    expect(selector.stderr).toMatch(/did you mean "filter"/);
  });
});

describe("sluice egress", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-egress-"));
  const moduleFile = join(dir, "tools.ts");
  writeFileSync(
    moduleFile,
    [
      `import { generatedTools as linear } from "@sluice/pack-linear";`,
      `export const tools = [`,
      `  linear.issuesList.derived({ name: "issues_by_team", keep: ["first", "filter.team", "filter.team.key"] }),`,
      `  linear.issueCreate.derived({ name: "issue_create_in_team", pin: { input: { teamId: "team-1", title: "x" } } }),`,
      `];`,
    ].join("\n"),
  );
  // The module imports a workspace package, so it must resolve from inside the workspace.
  const workspaceModule = join(ROOT, "packs/linear/test-egress-module.tmp.ts");

  it("prints the same bytes in two processes, and --check passes on them", async () => {
    writeFileSync(workspaceModule, readFileSync(moduleFile));
    try {
      // The two processes: a child and this worker (the long tier, two children).
      const first = sluiceChild(["egress", workspaceModule]);
      const second = LONG ? sluiceChild(["egress", workspaceModule]) : await sluice(["egress", workspaceModule]);
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(second.stdout);
      expect(first.stdout).toContain("tool issues_by_team\n  endpoint POST graphql query issues\n");
      expect(first.stdout).toContain("  = input: {");
      const mapFile = join(dir, "egress_map.txt");
      expect((await sluice(["egress", workspaceModule, "--out", mapFile])).code).toBe(0);
      expect((await sluice(["egress", workspaceModule, "--check", mapFile])).code).toBe(0);

      // A committed map that shows less than the tools now do: the check fails and names the widening.
      const narrower = readFileSync(mapFile, "utf8").replace(/^ {2}\+ filter\.team\.key: .*\n/m, "");
      writeFileSync(mapFile, narrower);
      const check = await sluice(["egress", workspaceModule, "--check", mapFile]);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/^WIDENING: tool issues_by_team: filter\.team\.key: StringComparator is newly visible to the model$/m);
      expect(check.stdout).toMatch(/^\+ {2}\+ filter\.team\.key: /m); // the unified diff line
    } finally {
      writeFileSync(workspaceModule, "");
      spawnSync("rm", ["-f", workspaceModule]);
    }
  });

  it("an unknown pack is a coded one-line error", async () => {
    const { code, stderr } = await sluice(["egress", "no-such-pack"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: PACK_NOT_FOUND: .*\(candidates: .*linear.*\)\n$/);
  });
});

describe("sluice generate", () => {
  it.each([
    ["openapi", "petstore/petstore-expanded-3.0.json", /^sample: 4 tools \(openapi\) -> /],
    ["graphql", "shopify-storefront/storefront.schema.json", /^sample: 75 tools \(graphql\) -> /],
  ])("%s %s writes marked pack sources and prints the counts", async (kind, spec, summary) => {
    const out = mkdtempSync(join(tmpdir(), `sluice-generate-${kind}-`));
    const specFile = fileURLToPath(new URL(`../../../../shared/specs/${spec}`, import.meta.url));
    const { code, stdout } = await sluice(["generate", kind, specFile, "--name", "sample", "--out", out]);
    expect(code).toBe(0);
    expect(stdout).toMatch(summary);
    const tools = readFileSync(join(out, "src/tools.gen.ts"), "utf8");
    expect(tools).toMatch(new RegExp(`^// @generated by @sluice/generator-${kind} \\d+\\.\\d+\\.\\d+ - do not edit\\.\n`));
    expect(tools).toContain(`// Regenerate: sluice generate ${kind} spec/${spec.split("/").pop()} --name sample --out .\n`);
  });

  it("a malformed spec is one coded line with its location", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-bad-spec-"));
    const bad = join(dir, "bad.json");
    writeFileSync(bad, '{"openapi": "3.0.0",\n  "paths": {,}\n}');
    const { code, stderr } = await sluice(["generate", "openapi", bad, "--name", "bad", "--out", dir]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: SPEC_INVALID: .*2:1[0-9]/);
  });
});

describe("sluice compact: catalog modes", () => {
  async function run(args: string[], stdin: string) {
    const result = await runInProcess(["compact", ...args], { cwd: ROOT, stdin });
    return { code: result.code, stdout: result.stdout, report: JSON.parse(result.stderr.trim().split("\n").pop()!) as Record<string, unknown> };
  }
  const tools = JSON.stringify(
    Array.from({ length: 40 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Tool number ${i}. It lists things in the workspace and can filter them by owner, label and state. The page size must be at most 100.`,
      input_schema: { type: "object", properties: { owner: { type: "string" }, label: { type: "string" }, first: { type: "integer" } }, required: ["owner"] },
    })),
  );

  it("level3 replaces the catalog by a dispatcher and a lookup, with the code map as system text and the break-even in the report", async () => {
    const { code, stdout, report } = await run(["--mode", "level3"], tools);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { tools: Array<{ name: string }>; system: string };
    expect(out.tools.map((t) => t.name)).toEqual(["call_tool", "describe_tool"]);
    expect(out.system).toContain("tool_39");
    expect(report).toMatchObject({ method: "dispatcher-level-3", lossless: true, adopted: true });
    expect(report.tokensAfter as number).toBeLessThan(report.tokensBefore as number);
    expect(report.cacheBreakEven).toMatchObject({ warm: false, breakEvenRequests: 0 });
  });

  it("filter removes what it may and reports what it refused and why", async () => {
    const { code, stdout, report } = await run(["--mode", "filter", "--remove", "tool_1,tool_2,nope", "--tool-choice", "tool_2", "--warm"], tools);
    expect(code).toBe(0);
    const names = (JSON.parse(stdout) as Array<{ name: string }>).map((t) => t.name);
    expect(names).not.toContain("tool_1");
    expect(names).toContain("tool_2");
    expect(report.removed).toEqual(["tool_1"]);
    expect((report.refused as Array<{ name: string; reason: string }>).map((r) => [r.name, r.reason]).sort()).toEqual([
      ["nope", "not_in_catalog"],
      ["tool_2", "forced_by_tool_choice"],
    ]);
    expect((report.cacheBreakEven as { warm: boolean; breakEvenRequests: number }).warm).toBe(true);
  });

  it("a catalog that is not JSON is one line and exit 2", async () => {
    const result = spawnSync(process.execPath, [BIN, "compact", "--mode", "level1"], { cwd: ROOT, input: "{nope", encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^sluice compact: the catalog is not JSON/);
  });
});

describe("usage errors", () => {
  it.each([
    [["survey"], /survey takes one/],
    [["survey", "linear", "--top", "zero"], /--top takes a positive integer/],
    [["paths", "linear"], /paths takes/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["survey", "linear", "--bogus"], /unknown option --bogus for sluice survey/],
    [["--verison"], /unknown option --verison; did you mean --version\?/],
    [["-v"], /unknown option -v; did you mean --version\?/],
    [["--hlep"], /did you mean --help\?/],
  ])("%j", async (args, message) => {
    const { code, stderr } = await sluice(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("a bare pack name suggests the pack directory sluice generate wrote (./packs/<name>)", async () => {
    const project = mkdtempSync(join(tmpdir(), "sluice-local-pack-"));
    mkdirSync(join(project, "packs/petstore/src"), { recursive: true });
    writeFileSync(join(project, "packs/petstore/package.json"), "{}");
    const { code, stderr } = await sluice(["survey", "petstore"], project);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: PACK_NOT_FOUND: .*; did you mean \.\/packs\/petstore\?/);
    rmSync(project, { recursive: true, force: true });
  });
});
