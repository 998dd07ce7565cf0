/**
 * `sluice report` as a user runs it on the Linear pack: the JSON as documented, the page
 * written and byte-identical across runs, errors coded. Each call runs the CLI's main in
 * this worker (support/run-in-process.ts); cli/anywhere tests cover the bin's own process.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./support/run-in-process.ts";
import type { ReportData } from "../src/report/report-data.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The CLI's main in this worker (the packs and modules it loads do not change here). */
const sluice = (args: string[], cwd = ROOT) => runInProcess(args, { cwd });

describe("sluice report", () => {
  it("--json --tool --include-full prints the report of one tool and its twin, as 2-space JSON", async () => {
    const { code, stdout, stderr } = await sluice(["report", "linear", "--json", "--tool", "issues_list", "--include-full"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const data = JSON.parse(stdout) as ReportData;
    expect(stdout).toBe(JSON.stringify(data, null, 2) + "\n");
    expect(Object.keys(data)).toEqual(["version", "pack", "encoding", "totals", "tools", "cycles", "sharedTypes", "curated", "suggestions"]);
    expect(data).toMatchObject({ version: 1, pack: "linear", encoding: "o200k_base", totals: { tools: 2 } });
    expect(data.tools.map((t) => [t.name, t.kind])).toEqual([
      ["issues_list_full", "full"],
      ["issues_list", "curated"],
    ]);
    expect(data.tools[0]!.branches[0]!.path).toBe("filter");
    expect(data.curated.map((c) => c.name)).toEqual(["issues_list"]);
  });

  it("--tool without --include-full reports the served tool alone, its twin priced only beside it; the twin by name is refused with the flag", async () => {
    const served = JSON.parse((await sluice(["report", "linear", "--json", "--tool", "issues_list"])).stdout) as ReportData;
    expect(served.tools.map((t) => [t.name, t.kind])).toEqual([["issues_list", "curated"]]);
    expect(served.totals).toEqual({ tools: 1, tokens: served.tools[0]!.tokens });
    expect(served.curated).toEqual([expect.objectContaining({ name: "issues_list", full: "issues_list_full" })]);
    expect(served.curated[0]!.fullTokens).toBeGreaterThan(served.tools[0]!.tokens);
    const twin = await sluice(["report", "linear", "--json", "--tool", "issues_list_full"]);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toBe("sluice: TOOL_NOT_FOUND: issues_list_full is the *_full twin of issues_list, left out of the served set report prices by default; add --include-full to price it.\n");
  });

  it("--out with --json writes the JSON there, the same bytes as stdout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-report-"));
    const file = join(dir, "nested", "report.json");
    const written = await sluice(["report", "linear", "--json", "--tool", "viewer", "--out", file]);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe("");
    const printed = await sluice(["report", "linear", "--json", "--tool", "viewer"]);
    expect(readFileSync(file, "utf8")).toBe(printed.stdout);
  });

  it("--budget says how many tools are above it and how many a projection fits", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-report-"));
    const file = join(dir, "r.html");
    const run = await sluice(["report", "linear", "--tool", "issues_list", "--include-full", "--budget", "2000", "--out", file]);
    expect(run.code).toBe(0);
    // issues_list_full (29,539) and issues_list (3,6xx) are above 2,000; both fit once narrowed.
    expect(run.stdout.split("\n")[1]).toBe("budget 2000: 2 tools above it, 2 with a projection that fits");
    const tight = await sluice(["report", "linear", "--tool", "issues_list", "--include-full", "--budget", "100", "--out", file]);
    expect(tight.stdout.split("\n")[1]).toMatch(/^budget 100: 2 tools above it, 0 with a projection that fits, 2 whose floor is above it$/);
  });

  it("writes the HTML page, byte-identical across runs, and says where", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-report-"));
    const first = join(dir, "a.html");
    const second = join(dir, "b.html");
    const run = await sluice(["report", "linear", "--tool", "issues_list", "--include-full", "--out", first]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const html = readFileSync(first, "utf8");
    expect(html.toLowerCase()).toMatch(/^<!doctype html>/);
    expect(run.stdout).toBe(`${first}: ${statSync(first).size} bytes, 2 tools, ${tokensOf(html)}; fattest: ${fattest(html)}\n`);
    expect((await sluice(["report", "linear", "--tool", "issues_list", "--include-full", "--out", second])).code).toBe(0);
    expect(readFileSync(second, "utf8")).toBe(html);
  });

  it("an unknown tool is TOOL_NOT_FOUND, exit 2, with the nearest names", async () => {
    const { code, stdout, stderr } = await sluice(["report", "linear", "--json", "--tool", "isues_list"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^sluice: TOOL_NOT_FOUND: linear has no tool named isues_list; did you mean issues_list/);
  });

  it("a bad --depth is a usage error", async () => {
    const { code, stderr } = await sluice(["report", "linear", "--depth", "0"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: INVALID_OPTION: --depth takes a positive integer/);
  });
});

/** The totals and the three fattest tools the command line should name, from the data in the page. */
function pageData(html: string): ReportData {
  const match = /<script[^>]*type="application\/json"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (match === null) throw new Error("no data in the page");
  return JSON.parse(match[1]!) as ReportData;
}

function tokensOf(html: string): string {
  return `${pageData(html).totals.tokens} tokens`;
}

function fattest(html: string): string {
  return pageData(html)
    .tools.slice(0, 3)
    .map((t) => `${t.name} ${t.tokens}`)
    .join(", ");
}
