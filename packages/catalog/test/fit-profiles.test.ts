/**
 * fit() on real pack tools: refusals name what to do, every change is logged and
 * labelled, nothing lossy happens without consent, cycles are bounded.
 */
import { describe, expect, it } from "vitest";
import { isSluiceError, Tool, type JsonSchemaObject } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { canonicalJson, defsOf, resolvedDepth } from "@sluice/schema";
import { allTools as linear } from "@sluice/pack-linear";
import { allTools as stripe } from "@sluice/pack-stripe";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { tools as notion } from "@sluice/pack-notion";
import { check, describeFitChange, fit, LossyFitRefusedError, profile, type FitResult } from "../src/profiles/index.ts";

const byName = (tools: readonly Tool<object>[], name: string): Tool<object> => tools.find((t) => t.name === name)!;
const issuesListFull = byName(linear, "issues_list_full");
const issuesList = byName(linear, "issues_list");
const cardholders = byName(stripe, "post_issuing_cardholders_full");

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

// Bounded work is shown by what fit returns (sizes, refusals before building); the
// suite's test timeout guards against a hang. No wall-clock limits: machines are noisy.

describe("fit: a recursive tool for a profile without $ref support", () => {
  it("refuses by default, naming the cycle and the cheapest projection that removes it, in bounded time", () => {
    const error = thrown(() => fit([issuesListFull], profile("gemini")));
    expect(isSluiceError(error, "RECURSIVE_SCHEMA")).toBe(true);
    const e = error as { message: string; candidates: string[]; pointer: string };
    expect(e.message).toContain("IssueFilter");
    expect(e.message).toContain("NullableUserFilter");
    expect(e.message).toMatch(/Cheapest projection that removes (it|them): derived\(\{ drop: \[/);
    expect(e.message).toMatch(/keeps \d+ of \d+ tokens/);
    expect(e.message).toContain("unroll");
    expect(e.pointer).toMatch(/^\/\$defs\//);
    // The projection named really removes every cycle and is the one that keeps the most.
    const projected = issuesListFull.derived({ drop: e.candidates });
    expect(check([projected], profile("fireworks"))).toEqual([]);
    expect(schemaTokens(projected)).toBeGreaterThan(schemaTokens(issuesListFull.derived({ drop: ["filter"] })));
  });

  it("refuses an unroll whose inlined size exceeds the budget, before building it", () => {
    const error = thrown(() => fit([issuesListFull], profile("gemini"), { unroll: 2 }));
    expect(isSluiceError(error, "INLINE_BUDGET_EXCEEDED")).toBe(true);
    expect((error as Error).message).toMatch(/about \d+ bytes, over the budget of 4x its 134696 bytes/);
  });

  it("with allowLossy, lowers the unroll depth until the inlined schema fits, and reports the token cost", () => {
    const result = fit([issuesListFull], profile("gemini"), { unroll: 2, allowLossy: true });
    const [tool] = result.tools;
    const text = canonicalJson(tool!.inputSchema);
    expect(text).not.toContain("$ref");
    expect(text.length).toBeLessThanOrEqual(4 * canonicalJson(issuesListFull.inputSchema).length);
    const unroll = result.changes.find((c) => c.action === "unroll-cycle")!;
    expect(unroll.kind).toBe("lossy");
    expect(unroll.tokens).toEqual({ before: schemaTokens(issuesListFull), after: schemaTokens(tool!) });
    expect(unroll.message).toMatch(/unroll 2 lowered to \d/);
    expect(result.changes.find((c) => c.action === "inline-refs")?.kind).toBe("lossless");
    expect(result.remaining).toEqual([]);
  });
});

describe("fit: unrolling to a requested depth where refs are resolved by the provider (Fireworks)", () => {
  it("unrolls every cycle exactly N levels and stays under the resolved depth limit", () => {
    const result = fit([issuesListFull], profile("fireworks"), { unroll: 2 });
    const schema = result.tools[0]!.inputSchema;
    const defs = Object.keys(defsOf(schema));
    expect(defs).toContain("IssueFilter");
    expect(defs).toContain("IssueFilter_r1");
    expect(defs).toContain("IssueFilter_r2");
    expect(defs.some((name) => name.endsWith("_r3"))).toBe(false);
    // At the last level the properties leading back into the cycle are gone, the leaves stay.
    const last = defsOf(schema).IssueFilter_r2!.properties as Record<string, unknown>;
    expect(last).not.toHaveProperty("and");
    expect(last).toHaveProperty("title");
    const middle = defsOf(schema).IssueFilter_r1!.properties as Record<string, { items?: { $ref?: string } }>;
    expect(middle.and?.items?.$ref).toBe("#/$defs/IssueFilter_r2");
    expect(resolvedDepth(schema)).toBeLessThanOrEqual(50);
    expect(check(result.tools, profile("fireworks"))).toEqual([]);
    const unroll = result.changes.find((c) => c.action === "unroll-cycle")!;
    expect(unroll.message).toContain("to depth 2");
    expect(unroll.tokens!.after).toBeGreaterThan(0);
  });

  it("is byte-identical across runs", () => {
    const a = fit([issuesListFull], profile("fireworks"), { unroll: 1 });
    const b = fit([issuesListFull], profile("fireworks"), { unroll: 1 });
    expect(a.tools[0]!.canonical()).toBe(b.tools[0]!.canonical());
    expect(a.changes).toEqual(b.changes);
  });
});

describe("fit: labels", () => {
  it.each([
    ["gemini inlines the curated twin's refs within the budget (lossless)", { tools: [issuesList], id: "gemini", action: "inline-refs", kind: "lossless" }],
    ["gemini writes const as a one-value enum (lossless)", { tools: [byName(notion, "move_page")], id: "gemini", action: "convert-keyword", kind: "lossless", allowLossy: true }],
    ["gemini writes [T, null] as T + nullable (lossless)", { tools: [byName(githubRest, "code_scanning_delete_analysis")], id: "gemini", action: "convert-keyword", kind: "lossless", allowLossy: true }],
    ["gemini removes additionalProperties (lossy)", { tools: [cardholders], id: "gemini", action: "remove-keyword", kind: "lossy", allowLossy: true }],
    ["openai-strict closes objects (lossy)", { tools: [issuesList], id: "openai-strict", action: "close-object", kind: "lossy", allowLossy: true }],
    ["openai-strict makes optional properties required and nullable (lossy)", { tools: [issuesList], id: "openai-strict", action: "require-as-nullable", kind: "lossy", allowLossy: true }],
    ["openai-chat cuts a description over 1024 (lossy)", { tools: [byName(githubRest, "migrations_get_import_status")], id: "openai-chat", action: "truncate-description", kind: "lossy", allowLossy: true }],
  ] as const)("%s", (_name, want) => {
    const result: FitResult = fit(want.tools, profile(want.id), { allowLossy: "allowLossy" in want ? want.allowLossy : false });
    const change = result.changes.find((c) => c.action === want.action);
    expect(change, JSON.stringify(result.changes.map((c) => [c.action, c.kind, c.message]))).toBeDefined();
    expect(change!.kind).toBe(want.kind);
    expect(change!.pointers.length).toBeGreaterThan(0);
    expect(result.remaining.filter((f) => f.tool !== "")).toEqual([]);
  });

  it("refuses lossy changes unless allowed: a summary by kind with one example of each, and every change on the error", () => {
    const error = thrown(() => fit([cardholders, issuesList], profile("openai-strict")));
    expect(isSluiceError(error, "LOSSY_FIT_REFUSED")).toBe(true);
    const refused = error as LossyFitRefusedError;
    expect(refused).toBeInstanceOf(LossyFitRefusedError);
    const { changes } = fit([cardholders, issuesList], profile("openai-strict"), { allowLossy: true });
    expect(refused.changes).toEqual(changes.filter((c) => c.kind === "lossy" && c.action !== "unroll-cycle"));
    const counts = new Map<string, number>();
    for (const change of refused.changes) counts.set(change.action, (counts.get(change.action) ?? 0) + 1);
    for (const [action, n] of counts) expect(refused.message).toContain(`${n} ${action}`);
    expect(refused.message).toContain(`needs ${refused.changes.length} lossy changes in 2 tools`);
    expect(refused.message).toContain("post_issuing_cardholders_full: close-object");
    expect(refused.message).toContain("post_issuing_cardholders_full: remove-keyword");
    expect(refused.changes.some((c) => c.tool === "issues_list" && c.action === "require-as-nullable")).toBe(true);
    // Short whatever the count: one line per kind of change, at most three.
    expect(refused.message.split("\n").length).toBeLessThanOrEqual(4);
  });

  it("changes nothing when the profile already accepts the tool: the same tool comes back", () => {
    const result = fit([issuesListFull, issuesList], profile("anthropic"));
    expect(result.tools[0]).toBe(issuesListFull);
    expect(result.tools[1]).toBe(issuesList);
    expect(result.changes).toEqual([]);
    expect(result.nameMap).toEqual({ issues_list_full: "issues_list_full", issues_list: "issues_list" });
  });

  it("leaves what it cannot change in `remaining` (too many tools)", () => {
    const result = fit(linear.slice(0, 45), profile("cursor"));
    expect(result.remaining.map((f) => f.code)).toEqual(["TOO_MANY_TOOLS"]);
  });

  it("a change met at every level of a deep schema lists the first 50 places, sorted, and counts them all", () => {
    // Every level is an object to close: 301 places whose pointers grow with the depth. Listing
    // and sorting all of them was quadratic in the depth (a 20,000-level schema: 2.6 GB).
    let node: JsonSchemaObject = { type: "string" };
    for (let i = 0; i < 300; i++) node = { type: "object", properties: { a: node } };
    const deep = Tool.create({ name: "deep", description: "deeply nested", inputSchema: { type: "object", properties: { a: node } }, binding: { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } });
    const { changes } = fit([deep], profile("openai-strict"), { allowLossy: true });
    const closed = changes.find((c) => c.action === "close-object")!;
    expect(closed.places).toBe(301);
    expect(closed.pointers).toHaveLength(50);
    expect(closed.pointers).toEqual([...closed.pointers].sort());
    // The first reached: the root and the 49 levels below it.
    expect(closed.pointers).toContain("");
    expect(closed.pointers).toContain(`${"/properties/a".repeat(49)}`);
    expect(describeFitChange(closed)).toMatch(/^deep: close-object \(301 places\): /);
    // Under the limit nothing is counted apart: `places` is absent.
    const shallow = fit([issuesList], profile("openai-strict"), { allowLossy: true }).changes.find((c) => c.action === "close-object")!;
    expect(shallow.pointers.length).toBeLessThanOrEqual(50);
    expect(shallow).not.toHaveProperty("places");
  });
});

describe("fit: names", () => {
  it("shortens names to the client's budget, deterministically, without collisions, with a reverse map", () => {
    const long = stripe.filter((t) => t.name.length > 50);
    expect(long.length).toBeGreaterThan(5);
    const p = profile("claude-code");
    const a = fit(long, p, { server: "stripe" });
    const b = fit(long, p, { server: "stripe" });
    expect(a.tools.map((t) => t.name)).toEqual(b.tools.map((t) => t.name));
    const names = a.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(`mcp__stripe__${name}`.length).toBeLessThanOrEqual(64);
    expect(Object.keys(a.nameMap).sort()).toEqual([...names].sort());
    for (const [fitted, original] of Object.entries(a.nameMap)) {
      expect(long.find((t) => t.name === original)).toBeDefined();
      expect(fitted.length).toBeLessThanOrEqual(64 - "mcp__stripe__".length);
    }
    expect(a.changes.every((c) => c.action === "rename" && c.kind === "lossless")).toBe(true);
    expect(check(a.tools, p, { server: "stripe" })).toEqual([]);
  });

  it("two names that share their first 44 characters stay distinct", () => {
    const twins = [
      byName(stripe, "post_test_helpers_terminal_readers_reader_present_payment_method"),
      byName(stripe, "post_test_helpers_terminal_readers_reader_present_payment_method").derived({ name: "post_test_helpers_terminal_readers_reader_present_payment_metho2" }),
    ];
    const result = fit(twins, profile("cursor"), { server: "stripe" });
    const [first, second] = result.tools.map((t) => t.name);
    expect(first).not.toBe(second);
    expect(first!.slice(0, 20)).toBe(second!.slice(0, 20));
  });

  it("a fitted name never takes a name that already fits", () => {
    const result = fit(stripe, profile("cursor"), { server: "s" });
    const names = result.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
