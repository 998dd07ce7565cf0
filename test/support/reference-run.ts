/**
 * One spec against the reference: every (sampled) operation, a few seeded argument draws
 * each, both requests built and compared, each difference named by a known rule or left
 * unexplained.
 */
import fc from "fast-check";
import type { Tool } from "@sluice/core";
import { differences, drawArguments, referenceRequest, referenceSpec, specKind, specOperation, specParameters, wireOfSluice, type Difference, type Draw, type SpecKind, type WireRequest } from "./reference-builder.ts";
import { classify, type DifferenceContext } from "./reference-differences.ts";
import { minimalArguments } from "./egress-fuzz.ts";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// ---------------------------------------------------------------------------------------

export interface CaseResult {
  tool: string;
  endpoint: string;
  args: Record<string, unknown>;
  /** Empty: the two requests are equal. */
  differences: Difference[];
  /** Ids of the known differences (docs/reference-request-builder.md) the differences are, in order. */
  known: string[];
  /** Differences no rule explains. */
  unexplained: Difference[];
}

export interface SpecRun {
  spec: string;
  kind: SpecKind;
  operations: number;
  cases: CaseResult[];
  /** Operations with no argument set the tool accepts (a draw the schema refuses every time), or none the reference can address. */
  skipped: Array<{ tool: string; why: string }>;
}

/** Draws `draws` argument sets for each tool and compares the two builders' requests. */
export async function runSpec(spec: string, doc: Doc, tools: readonly Tool<object>[], seed: number, draws: number): Promise<SpecRun> {
  const run: SpecRun = { spec, kind: specKind(doc), operations: tools.length, cases: [], skipped: [] };
  for (const tool of tools) {
    const binding = tool.binding;
    if (binding.kind !== "http") continue;
    const record = (result: Omit<CaseResult, "known" | "unexplained">): void => {
      const context: DifferenceContext = { kind: run.kind, binding, args: result.args, specParameters: specParameters(referenceSpec(doc, binding), binding) };
      const ids = result.differences.map((d) => classify(d, context));
      run.cases.push({ ...result, known: ids.filter((id): id is string => id !== undefined), unexplained: result.differences.filter((_, i) => ids[i] === undefined) });
    };
    if (specOperation(doc, binding) === undefined) {
      run.skipped.push({ tool: tool.name, why: `no operation ${binding.method} ${binding.path} in the spec` });
      continue;
    }
    const endpoint = `${binding.method} ${binding.path}`;
    let drawn = 0;
    for (let i = 0; i < draws; i++) {
      const [g] = fc.sample(fc.gen(), { seed: seed + hashText(`${tool.name}#${i}`), numRuns: 1 });
      const draw: Draw = (arb) => g!(() => arb);
      const args = drawArguments(draw, tool) ?? (i === 0 ? minimal(tool) : undefined);
      if (args === undefined) continue;
      drawn++;
      let sluice: WireRequest;
      try {
        sluice = wireOfSluice(await tool.request(args, { credentials: anyCredential }), binding);
      } catch (error) {
        const reference = await referenceRequest(doc, binding, args);
        if ("error" in reference) continue; // neither builds: nothing to compare
        record({ tool: tool.name, endpoint, args, differences: [{ part: "build", sluice: `refused: ${(error as { code?: string }).code ?? ""} ${(error as Error).message}`, reference: "built" }] });
        continue;
      }
      const reference = await referenceRequest(doc, binding, args);
      if ("error" in reference) {
        record({ tool: tool.name, endpoint, args, differences: [{ part: "build", sluice: "built", reference: `refused: ${reference.error}` }] });
        continue;
      }
      record({ tool: tool.name, endpoint, args, differences: differences(sluice, reference) });
      if (i % 4 === 3) await new Promise((r) => setImmediate(r));
    }
    if (drawn === 0) {
      const issue = tool.check(minimalArguments(tool))[0];
      run.skipped.push({ tool: tool.name, why: `no argument set passes the tool's own check (not even its minimal one: ${issue === undefined ? "?" : `${issue.path ?? ""} ${issue.message}`})` });
    }
    await new Promise((r) => setImmediate(r));
  }
  return run;
}

/** Every scheme gets a token (basic a user and password): authentication is not under comparison, only that the request can be built. */
const anyCredential = (scheme: { type: string }): { token: string } | { username: string; password: string } => (scheme.type === "basic" ? { username: "u", password: "p" } : { token: "t0ken" });

/** The small valid set the egress fuzzer uses (required members only), when no draw passes: some real operations have constraints no draw meets. */
function minimal(tool: Tool<object>): Record<string, unknown> | undefined {
  const args = minimalArguments(tool);
  return tool.check(args).length === 0 ? args : undefined;
}

function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h % 1_000_000;
}
