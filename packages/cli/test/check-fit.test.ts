/**
 * `sluice check` and `sluice fit` as a user runs them: real packs and module files, JSON
 * output parsed, exit codes as documented. Each call runs the CLI's main in this worker
 * (support/run-in-process.ts); the modules it loads are written once, before any call.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "./support/run-in-process.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The CLI's main in this worker (the packs and modules it loads do not change here). */
const sluice = (args: string[], cwd = ROOT) => runInProcess(args, { cwd });

const dir = mkdtempSync(join(tmpdir(), "sluice-check-fit-"));
const modules: string[] = [];
// The modules import a workspace package, so they must resolve from inside the workspace.
function moduleWith(file: string, names: string[]): string {
  const path = join(ROOT, `packs/linear/check-fit-${process.pid}-${file}.tmp.ts`);
  modules.push(path);
  writeFileSync(
    path,
    [`import { allTools as linear } from "@sluice/pack-linear";`, `export const tools = ${JSON.stringify(names)}.map((name) => linear.find((t) => t.name === name)!);`].join("\n"),
  );
  return path;
}
const recursive = moduleWith("recursive.ts", ["issues_list_full"]);
const curated = moduleWith("curated.ts", ["issues_list"]);
afterAll(() => {
  for (const path of modules) rmSync(path, { force: true });
});

describe("sluice check", () => {
  it("reports the recursive Linear tool for Fireworks with exit 1, and its curated twin passes", async () => {
    const bad = await sluice(["check", recursive, "--provider", "fireworks", "--json"]);
    expect(bad.code).toBe(1);
    const findings = JSON.parse(bad.stdout) as Array<{ code: string; tool: string; pointer: string }>;
    expect(findings.map((f) => f.code)).toEqual(expect.arrayContaining(["RECURSIVE_SCHEMA", "DEPTH_EXCEEDED"]));
    expect(findings.every((f) => f.tool === "issues_list_full")).toBe(true);
    const good = await sluice(["check", curated, "--provider", "fireworks"]);
    expect(good.code).toBe(0);
    expect(good.stdout).toBe("");
    expect(good.stderr).toMatch(/^0 findings for 1 tools under Fireworks/);
  });

  it("counts a whole pack's served set against a client's tool limit, one line per finding; --include-full counts the twins too", async () => {
    const { code, stdout } = await sluice(["check", "linear", "--provider", "cursor"]);
    expect(code).toBe(1);
    expect(stdout.split("\n")[0]).toMatch(/^TOO_MANY_TOOLS {2}\(all tools\) {2}- {2}535 tools; Cursor .* at most 40\.$/);
    const full = await sluice(["check", "linear", "--provider", "cursor", "--include-full"]);
    expect(full.code).toBe(1);
    expect(full.stdout.split("\n")[0]).toMatch(/^TOO_MANY_TOOLS {2}\(all tools\) {2}- {2}569 tools; Cursor .* at most 40\.$/);
  });

  it("an unknown provider is one line with the known ones and exit 2", async () => {
    const { code, stderr } = await sluice(["check", "linear", "--provider", "firewroks"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: INVALID_OPTION: Unknown provider profile "firewroks"/);
    expect(stderr).toMatch(/did you mean "fireworks"\?/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe("long lists are summarised", () => {
  it("check: more than 20 findings come as counts by code with two of each; --verbose lists every one", async () => {
    const all = JSON.parse((await sluice(["check", "stripe", "--provider", "openai-strict", "--json"])).stdout) as Array<{ code: string }>;
    expect(all.length).toBeGreaterThan(20);
    const { code, stdout, stderr } = await sluice(["check", "stripe", "--provider", "openai-strict"]);
    expect(code).toBe(1);
    const heads = stdout.split("\n").filter((line) => /^[A-Z_]+ +\d+ {2}/.test(line));
    const counts = new Map<string, number>();
    for (const finding of all) counts.set(finding.code, (counts.get(finding.code) ?? 0) + 1);
    expect(heads.map((line) => line.split(/ +/)[0])).toEqual([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c));
    for (const line of heads) expect(Number(line.split(/ +/)[1])).toBe(counts.get(line.split(/ +/)[0]!));
    expect(stdout.split("\n").length).toBeLessThan(4 * counts.size + 2);
    expect(stderr).toMatch(new RegExp(`^${all.length} findings for \\d+ tools under .*--verbose lists every one, --json`));
    const verbose = await sluice(["check", "stripe", "--provider", "openai-strict", "--verbose"]);
    expect(verbose.stdout.trimEnd().split("\n")).toHaveLength(all.length);
  });

  it("fit: a refusal for lossy changes is one short line by kind; --verbose lists every change first", async () => {
    const out = join(dir, "refused-lossy.json");
    const refused = await sluice(["fit", "stripe", "--provider", "openai-strict", "--out", out]);
    expect(refused.code).toBe(2);
    const line = refused.stderr.trimEnd();
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(/^sluice: LOSSY_FIT_REFUSED: Fitting to .* needs (\d+) lossy changes in \d+ tools \(\d+ close-object, .*--allow-lossy.*sluice fit --verbose prints them/);
    expect(line.length).toBeLessThan(1_200);
    const total = Number(/needs (\d+) lossy/.exec(line)![1]);
    const verbose = await sluice(["fit", "stripe", "--provider", "openai-strict", "--out", out, "--verbose"]);
    expect(verbose.stderr.split("\n").filter((l) => l.startsWith("  lossy: "))).toHaveLength(total);
    expect(() => readFileSync(out)).toThrow();
  });
});

describe("sluice fit", () => {
  it("refuses the recursive tool for Gemini, naming the cycle and the projection (exit 2, nothing written)", async () => {
    const out = join(dir, "refused.json");
    const { code, stderr } = await sluice(["fit", recursive, "--provider", "gemini", "--out", out]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sluice: RECURSIVE_SCHEMA: issues_list_full is recursive/);
    expect(stderr).toContain("Cheapest projection");
    expect(() => readFileSync(out)).toThrow();
  });

  it("unrolls with --unroll and --allow-lossy, writing tools without $ref, the name map and the change log", async () => {
    const out = join(dir, "fitted.json");
    const { code, stderr } = await sluice(["fit", recursive, "--provider", "gemini", "--unroll", "2", "--allow-lossy", "--out", out]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^wrote .*fitted\.json \(1 tools, 1 lossless and 1 lossy changes, 0 remaining findings\)/);
    const written = JSON.parse(readFileSync(out, "utf8")) as {
      provider: string;
      tools: Array<{ name: string; inputSchema: object }>;
      nameMap: Record<string, string>;
      changes: Array<{ action: string; kind: string; tokens?: { before: number; after: number } }>;
    };
    expect(written.provider).toBe("gemini");
    expect(JSON.stringify(written.tools)).not.toContain("$ref");
    expect(written.nameMap).toEqual({ issues_list_full: "issues_list_full" });
    const unroll = written.changes.find((c) => c.action === "unroll-cycle")!;
    expect(unroll.kind).toBe("lossy");
    expect(unroll.tokens!.before).toBeGreaterThan(unroll.tokens!.after);
  });

  it("writes the file and exits 1 when findings remain that fit cannot change", async () => {
    const out = join(dir, "cursor.json");
    const { code, stdout } = await sluice(["fit", "stripe", "--provider", "cursor", "--server", "stripe", "--out", out]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^TOO_MANY_TOOLS/);
    const written = JSON.parse(readFileSync(out, "utf8")) as { tools: Array<{ name: string }>; nameMap: Record<string, string> };
    for (const tool of written.tools) expect(("stripe" + tool.name).length).toBeLessThanOrEqual(59);
    expect(Object.values(written.nameMap)).toContain("post_test_helpers_terminal_readers_reader_present_payment_method");
  });
});
