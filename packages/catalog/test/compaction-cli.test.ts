import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCompact } from "../../cli/src/compact.ts";

const annotated = readFileSync(new URL("./compaction-fixtures/annotated-catalog.json", import.meta.url), "utf8");

async function compact(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  async function* input(): AsyncIterable<Uint8Array> {
    yield Buffer.from(stdin, "utf8");
  }
  const code = await runCompact(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, cwd: process.cwd(), stdin: input() });
  return { code, stdout, stderr };
}

describe("sluice compact", () => {
  it.each<[string, { mode: string; method: string; lossless: boolean }]>([
    ["strip", { mode: "strip", method: "strip-annotations", lossless: true }],
    ["strip-bytes", { mode: "strip-bytes", method: "strip-annotation-bytes", lossless: true }],
    ["reduce", { mode: "reduce", method: "reduce-descriptions", lossless: false }],
  ])("--mode %s: catalog on stdin, result on stdout, JSON report on stderr", async (_name, { mode, method, lossless }) => {
    const long = "This tool does many things for many people in many places, and it keeps doing them. It also never stops. The id must be a UUID, at most 36 bytes.";
    const input = mode === "reduce" ? JSON.stringify([{ name: "t", description: long + " " + long, input_schema: { type: "object" } }]) : annotated;
    const { code, stdout, stderr } = await compact(["--mode", mode], input);
    expect(code).toBe(0);
    const report = JSON.parse(stderr) as Record<string, unknown>;
    expect(report).toMatchObject({ method, lossless, encoding: "o200k_base", adopted: true });
    expect(report.tokensAfter as number).toBeLessThan(report.tokensBefore as number);
    expect(report.ratio).toBeLessThan(1);
    expect(() => JSON.parse(stdout)).not.toThrow();
  });

  it("writes the input byte for byte when nothing is adopted", async () => {
    const { code, stdout, stderr } = await compact(["--mode", "strip", "--encoding", "cl100k_base"], "not json");
    expect(code).toBe(0);
    expect(stdout).toBe("not json");
    expect(JSON.parse(stderr)).toMatchObject({ adopted: false, reason: "parse-error", encoding: "cl100k_base" });
  });

  it.each([[[]], [["--mode", "squeeze"]], [["--mode", "strip", "--encoding", "p50k"]], [["--mode", "strip", "extra"]]])("usage error for %j", async (args) => {
    const { code, stdout, stderr } = await compact(args, "[]");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("usage: sluice compact");
  });
});
