/**
 * check() per profile, on real pack tools that break each rule (and twins that pass).
 * Table-driven: [profile, tools, expected finding] rows; every row also proves the
 * finding names the tool and a pointer that exists in that tool's input schema.
 */
import { describe, expect, it } from "vitest";
import { walkSchema } from "@sluice/schema";
import { Tool, type JsonSchemaObject } from "@sluice/core";
import { allTools as linear } from "@sluice/pack-linear";
import { allTools as stripe } from "@sluice/pack-stripe";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { tools as notion } from "@sluice/pack-notion";
import { allTools as gmail } from "@sluice/pack-gmail";
import { tools as gsheets } from "@sluice/pack-gsheets";
import { sweep } from "../../../test/support/tier.ts";
import { check, fit, MAX_FINDINGS_PER_CODE, profile, type Finding, type FindingCode } from "../src/profiles/index.ts";

const byName = (tools: readonly Tool<object>[], name: string): Tool<object> => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
};

const issuesListFull = byName(linear, "issues_list_full");
const issuesList = byName(linear, "issues_list");
/** 64 characters: the longest names the generators produce. */
const longStripe = byName(stripe, "post_test_helpers_terminal_readers_reader_present_payment_method");
const cardholders = byName(stripe, "post_issuing_cardholders_full");
const longDescription = byName(githubRest, "migrations_get_import_status");
const batchUpdate = byName(gsheets, "sheets_spreadsheets_batch_update");
const notionMove = byName(notion, "move_page");
const arrayWithoutItems = byName(githubRest, "enterprise_admin_update_attribute_for_enterprise_group");
/** A union at the root: GraphQL and OpenAPI never generate one, so it is built around a real binding. */
const unionRoot = Tool.create({
  name: "issue_by_id_or_key",
  description: "An issue by id or by key.",
  inputSchema: { anyOf: [{ type: "object", properties: { id: { type: "string" } } }, { type: "object", properties: { key: { type: "string" } } }] },
  binding: issuesList.binding,
});
const stringRoot = Tool.create({ name: "search_text", description: "Free text.", inputSchema: { type: "string" }, binding: issuesList.binding });

function pointerExists(schema: JsonSchemaObject, pointer: string): boolean {
  if (pointer === "") return true;
  let node: unknown = schema;
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<string, unknown>)[segment];
  }
  return true;
}

type Row = [string, { profile: string; asOf?: string; server?: string; tools: readonly Tool<object>[]; code: FindingCode; tool: string; pointer?: string | RegExp; limit?: number; actual?: number }];

const breaks: Row[] = [
  ["fireworks: the recursive Linear filter tool", { profile: "fireworks", tools: [issuesListFull], code: "RECURSIVE_SCHEMA", tool: "issues_list_full", pointer: /^\/\$defs\// }],
  ["fireworks: its resolved depth is unbounded", { profile: "fireworks", tools: [issuesListFull], code: "DEPTH_EXCEEDED", tool: "issues_list_full", pointer: "", limit: 50, actual: Infinity }],
  ["bedrock: recursion refused (not documented)", { profile: "bedrock", tools: [issuesListFull], code: "RECURSIVE_SCHEMA", tool: "issues_list_full" }],
  ["anthropic-strict: no recursive schemas", { profile: "anthropic-strict", tools: [issuesListFull], code: "RECURSIVE_SCHEMA", tool: "issues_list_full" }],
  ["gemini: $ref is not part of the parameters form", { profile: "gemini", tools: [issuesList], code: "REF_UNSUPPORTED", tool: "issues_list", pointer: /\/\$ref$|^\/\$defs$/ }],
  ["gemini: additionalProperties", { profile: "gemini", tools: [cardholders], code: "UNSUPPORTED_KEYWORD", tool: "post_issuing_cardholders_full", pointer: /\/additionalProperties$/ }],
  ["gemini: const", { profile: "gemini", tools: [notionMove], code: "UNSUPPORTED_KEYWORD", tool: "move_page", pointer: /\/const$/ }],
  ["gemini: an array needs items", { profile: "gemini", tools: [arrayWithoutItems], code: "MISSING_ITEMS", tool: arrayWithoutItems.name }],
  ["claude-code: mcp__<server>__ counts against 64", { profile: "claude-code", tools: [longStripe], code: "NAME_TOO_LONG", tool: longStripe.name, limit: 64, actual: 64 + "mcp__sluice__".length }],
  ["cursor: server + tool over 59", { profile: "cursor", server: "stripe", tools: [longStripe], code: "NAME_TOO_LONG", tool: longStripe.name, limit: 59, actual: 70 }],
  ["cursor: 40 tools", { profile: "cursor", tools: linear, code: "TOO_MANY_TOOLS", tool: "", limit: 40, actual: linear.length }],
  ["vscode: 128 tools", { profile: "vscode", tools: linear, code: "TOO_MANY_TOOLS", tool: "", limit: 128, actual: linear.length }],
  ["windsurf: 100 tools", { profile: "windsurf", tools: linear, code: "TOO_MANY_TOOLS", tool: "", limit: 100, actual: linear.length }],
  ["openai-chat: 128 tools", { profile: "openai-chat", tools: stripe, code: "TOO_MANY_TOOLS", tool: "", limit: 128, actual: stripe.length }],
  ["gemini: 128 declarations", { profile: "gemini", tools: githubRest, code: "TOO_MANY_TOOLS", tool: "", limit: 128, actual: githubRest.length }],
  ["openai-chat: description over 1024", { profile: "openai-chat", tools: [longDescription], code: "DESCRIPTION_TOO_LONG", tool: longDescription.name, limit: 1024, actual: longDescription.description.length }],
  ["gemini: a name starting with a digit", { profile: "gemini", tools: [issuesList.derived({ name: "2issues" })], code: "INVALID_NAME", tool: "2issues" }],
  ["anthropic: a union at the root", { profile: "anthropic", tools: [unionRoot], code: "ROOT_UNION", tool: "issue_by_id_or_key", pointer: "/anyOf" }],
  ["bedrock: the root must be an object", { profile: "bedrock", tools: [stringRoot], code: "ROOT_NOT_OBJECT", tool: "search_text", pointer: "" }],
  ["openai-strict: optional properties", { profile: "openai-strict", tools: [issuesList], code: "STRICT_VIOLATION", tool: "issues_list", pointer: /^\/\$defs\/BooleanComparator\/(required|properties)$/ }],
  ["openai-strict: objects must be closed", { profile: "openai-strict", tools: [issuesList], code: "STRICT_VIOLATION", tool: "issues_list", pointer: "" }],
  ["openai-strict: maxLength unsupported", { profile: "openai-strict", tools: [cardholders], code: "STRICT_VIOLATION", tool: cardholders.name, pointer: /\/maxLength$/ }],
  ["openai-strict (2024 set): nesting over 5", { profile: "openai-strict", asOf: "2024-09-01", tools: [batchUpdate], code: "DEPTH_EXCEEDED", tool: batchUpdate.name, limit: 5 }],
  ["openai-strict (2024 set): over 100 properties", { profile: "openai-strict", asOf: "2024-09-01", tools: [issuesListFull], code: "TOO_MANY_PROPERTIES", tool: "issues_list_full", limit: 100 }],
  ["openai-strict: a cycle nests without bound", { profile: "openai-strict", tools: [byName(gmail, "gmail_users_drafts_create_full")], code: "DEPTH_EXCEEDED", tool: "gmail_users_drafts_create_full", actual: Infinity }],
  ["openai-responses: strict by default", { profile: "openai-responses", tools: [issuesList], code: "STRICT_VIOLATION", tool: "issues_list", pointer: /\/(required|properties)$/ }],
];

describe("check: a real tool that breaks the rule gives the coded finding", () => {
  it.each(breaks)("%s", (_name, want) => {
    const findings = check(want.tools, profile(want.profile, want.asOf ? { asOf: want.asOf } : {}), want.server ? { server: want.server } : {});
    const matching = findings.filter((f) => f.code === want.code && f.tool === want.tool);
    expect(matching.length, JSON.stringify(findings.slice(0, 5))).toBeGreaterThan(0);
    const pointed = want.pointer === undefined ? matching : matching.filter((f) => (typeof want.pointer === "string" ? f.pointer === want.pointer : want.pointer!.test(f.pointer)));
    expect(pointed.length).toBeGreaterThan(0);
    const finding = pointed[0]!;
    if (want.limit !== undefined) expect(finding.limit).toBe(want.limit);
    if (want.actual !== undefined) expect(finding.actual).toBe(want.actual);
    expect(finding.message.length).toBeGreaterThan(10);
    const tool = want.tools.find((t) => t.name === finding.tool);
    if (tool) for (const f of matching) expect(pointerExists(tool.inputSchema, f.pointer), f.pointer).toBe(true);
  });
});

const passes: Array<[string, { profile: string; tools: readonly Tool<object>[] }]> = [
  ["fireworks: the curated twin issues_list", { profile: "fireworks", tools: [issuesList] }],
  ["anthropic: the recursive tool itself (refs and recursion accepted)", { profile: "anthropic", tools: [issuesListFull] }],
  ["mcp: the whole Linear pack", { profile: "mcp", tools: linear }],
  ["claude-code: a short name", { profile: "claude-code", tools: [issuesList] }],
  ["cursor: 40 tools exactly", { profile: "cursor", tools: linear.filter((t) => !t.name.endsWith("_full")).slice(0, 40) }],
  ["gemini: the Stripe tool without additionalProperties is only flagged for that", { profile: "gemini", tools: [byName(stripe, "get_customers")] }],
];

describe("check: tools within the limits give no finding", () => {
  it.each(passes)("%s", (_name, { profile: id, tools }) => {
    expect(check(tools, profile(id))).toEqual([]);
  });
});

describe("check: determinism and bounds", () => {
  it("picks the OpenAI strict limit set by date", () => {
    expect(profile("openai-strict", { asOf: "2024-09-01" }).limits.strict?.maxProperties).toBe(100);
    expect(profile("openai-strict").limits.strict?.maxProperties).toBe(5_000);
    const counts = (asOf?: string) => check([issuesList], profile("openai-strict", asOf ? { asOf } : {})).filter((f) => f.code === "TOO_MANY_PROPERTIES").length;
    expect([counts("2024-09-01"), counts()]).toEqual([1, 0]);
  });

  it("gives the same findings in the same order on every run, sorted by pointer within a tool", () => {
    const tools = [issuesListFull, issuesList, cardholders];
    const first = check(tools, profile("gemini"));
    expect(check(tools, profile("gemini"))).toEqual(first);
    const order = first.map((f) => f.tool);
    expect(order.indexOf("issues_list_full")).toBeLessThan(order.indexOf("issues_list"));
    const ofOne = first.filter((f) => f.tool === "issues_list").map((f: Finding) => f.pointer);
    expect(ofOne).toEqual([...ofOne].sort());
  });

  it("reads a 47-type cycle without unrolling it: findings stay within one per schema node", () => {
    let nodes = 0;
    walkSchema(issuesListFull.inputSchema, () => void nodes++);
    for (const id of ["fireworks", "gemini", "openai-strict", "anthropic-strict"]) {
      expect(check([issuesListFull], profile(id)).length).toBeLessThanOrEqual(nodes + 1);
    }
  });
});

describe("hostile nesting", () => {
  it("a 20,000-level schema is checked and fitted without overflowing the stack, with findings capped per code", async () => {
    let node: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20_000; i++) node = { type: "object", properties: { a: node } };
    const deep = Tool.create({
      name: "deep",
      description: "deeply nested",
      inputSchema: { type: "object", properties: { a: node } },
      binding: { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} },
    });
    // Seconds per profile: the quick tier checks and fits under fireworks (the profile with a
    // depth limit, asserted below); the long tier under all three. test/hostile-inputs.test.ts
    // also runs a provider's check and fit on 20,000-level inputs, in both tiers.
    for (const id of sweep(["fireworks", "openai-strict", "gemini"] as const, (id) => id === "fireworks")) {
      // Seconds per profile: vitest's RPC gets a turn between them (a worker held longer than 60 s fails the run).
      await new Promise((resolve) => setImmediate(resolve));
      const findings = check([deep], profile(id));
      const perCode = new Map<string, number>();
      for (const f of findings) perCode.set(f.code, (perCode.get(f.code) ?? 0) + 1);
      for (const count of perCode.values()) expect(count).toBeLessThanOrEqual(MAX_FINDINGS_PER_CODE + 1);
      expect(() => fit([deep], profile(id), { allowLossy: true })).not.toThrow(RangeError);
    }
    expect(check([deep], profile("fireworks")).map((f) => f.code)).toContain("DEPTH_EXCEEDED");
  });
});
