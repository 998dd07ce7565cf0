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
    expect(stderr).toMatch(/candidates: .*fireworks/);
    expect(stderr).not.toMatch(/\n\s+at /);
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
