/**
 * The usage store and its recorders: what ToolSession and toolCallRouter write (names and
 * counts, never an argument), one file per session written by rename, the folder checks
 * (a link out of the project, a folder that cannot be written), and the report's thresholds,
 * protections, prices and determinism.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isSluiceError, Tool, type JsonSchemaObject } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { schemaTokens } from "@sluice/core/tokens";
import { ToolSession } from "../src/session/index.ts";
import { toolCallRouter } from "../src/dispatch/index.ts";
import { openUsageStore, readUsageStore, toolsNamedIn, usageReport, type UsageRecord } from "../src/usage/index.ts";

const root = mkdtempSync(join(tmpdir(), "sluice-usage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const project = () => {
  const dir = join(root, `p${counter++}`);
  mkdirSync(dir);
  return dir;
};

function tool(name: string, properties: Record<string, JsonSchemaObject> = { id: { type: "string" } }): Tool<object> {
  return Tool.create({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties, required: [] },
    binding: { kind: "http", method: "GET", path: `/${name}`, parameters: [] },
  });
}

const tools = [tool("issues_list"), tool("issue_create", { title: { type: "string" }, token: { type: "string" } }), tool("team_get")];
const SECRET = "sk_live_51HusageSECRETvalue0123456789";

/** Every byte under a folder, as one string. */
function everything(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
  return "no error";
}

describe("recording", () => {
  it("a ToolSession records the search tool, each loaded tool and the calls by name; no argument value reaches the store", () => {
    const dir = join(project(), ".sluice/usage");
    const store = openUsageStore({ dir });
    const recorder = store.session("packs/demo", { startedAt: new Date("2026-03-02T10:00:00Z") });
    const session = new ToolSession(tools, { usage: recorder });
    session.call("tool_search", { query: "select:issue_create" });
    expect(session.call("issue_create", { title: SECRET, token: SECRET }).kind).toBe("tool");
    session.call("issue_create", { title: "again" });
    // Not loaded, and not in the catalog: neither is a call of a declared tool.
    session.call("team_get", {});
    session.call(SECRET, {});
    // Changes are written within 200 ms, at close, at exit, or now.
    expect(store.read().records).toEqual([]);
    recorder.flush();
    const [record, ...more] = store.read().records;
    expect(more).toEqual([]);
    expect(record).toMatchObject({ pack: "packs/demo", startedAt: "2026-03-02T10:00:00.000Z", invoked: { issue_create: 2, tool_search: 1 } });
    expect(Object.keys(record!.declared.tools)).toEqual(["issue_create", "tool_search"]);
    expect(record!.declared.tools["issue_create"]).toBe(schemaTokens(tools[1]!));
    expect(record!.declared.tokens).toBe(schemaTokens(tools[1]!) + schemaTokens(session.searchTool));
    expect(everything(dir)).not.toContain(SECRET);
    expect(everything(dir)).not.toContain("sk_live");
  });

  it("a toolCallRouter declares its tools and counts calls of known tools only", async () => {
    const dir = join(project(), "store");
    const store = openUsageStore({ dir });
    const recorder = store.session("mine");
    const router = toolCallRouter(tools, { usage: recorder, ctx: { baseUrl: "http://127.0.0.1:9" } });
    await router.call("issue_create", JSON.stringify({ title: SECRET }));
    await router.call("issues_lisst", {});
    await router.call(SECRET, {});
    recorder.close();
    const [record] = store.read().records;
    expect(Object.keys(record!.declared.tools)).toEqual(["issue_create", "issues_list", "team_get"]);
    expect(record!.invoked).toEqual({ issue_create: 1 });
    expect(everything(dir)).not.toContain(SECRET);
  });

  it("the recorder itself stores calls of declared names only: a name it never declared (anything a client typed) is dropped", () => {
    const dir = join(project(), "store");
    const recorder = openUsageStore({ dir }).session("p");
    recorder.invoked(SECRET); // before anything is declared: no file at all
    expect(readdirSync(join(dir, "sessions"))).toEqual([]);
    recorder.declared([tools[0]!.toJSON()]);
    recorder.invoked(SECRET);
    recorder.invoked("issues_list");
    expect(recorder.record().invoked).toEqual({ issues_list: 1 });
    expect(everything(dir)).not.toContain(SECRET);
  });

  it("keeps one complete file per session, rewritten by rename (no temporary file left)", () => {
    const dir = join(project(), "store");
    const store = openUsageStore({ dir });
    const a = store.session("p");
    const b = store.session("p");
    a.declared(tools.map((t) => t.toJSON()));
    b.declared([tools[0]!.toJSON()]);
    for (let i = 0; i < 20; i++) {
      (i % 2 === 0 ? a : b).invoked("issues_list");
      if (i % 5 === 0) a.flush();
    }
    b.close();
    a.close();
    a.invoked("issues_list"); // after close: not recorded
    const files = readdirSync(join(dir, "sessions")).sort();
    expect(files).toHaveLength(2);
    expect(files.every((file) => /^\d{8}T\d{6}Z-[0-9a-f]{16}\.json$/.test(file))).toBe(true);
    expect(store.read().records.map((r) => r.invoked["issues_list"]).sort()).toEqual([10, 10]);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("a record that cannot be written stops recording without failing the session, and says so once", () => {
    const dir = join(project(), "store");
    const told: string[] = [];
    const recorder = openUsageStore({ dir }).session("p", { onError: (error) => told.push(error.code) });
    rmSync(join(dir, "sessions"), { recursive: true });
    writeFileSync(join(dir, "sessions"), "not a folder any more");
    const session = new ToolSession(tools, { usage: recorder });
    session.call("tool_search", { query: "select:team_get" });
    expect(session.call("team_get", {}).kind).toBe("tool");
    recorder.flush();
    expect(told).toEqual(["USAGE_DIR_NOT_WRITABLE"]);
    expect(recorder.error?.code).toBe("USAGE_DIR_NOT_WRITABLE");
  });

  it("the digest is the set's: same definitions, same digest, in any order", () => {
    const store = openUsageStore({ dir: join(project(), "s") });
    const a = store.session("p");
    const b = store.session("p");
    a.declared(tools.map((t) => t.toJSON()));
    b.declared([...tools].reverse().map((t) => t.toJSON()));
    expect(a.record().declared.digest).toBe(b.record().declared.digest);
    b.declared([tool("team_get", { other: { type: "number" } }).toJSON()]);
    expect(a.record().declared.digest).not.toBe(b.record().declared.digest);
  });
});

describe("the store folder", () => {
  it("refuses a folder reached through a link out of the project (and only with the guard on)", async () => {
    const dir = project();
    const outside = project();
    symlinkSync(outside, join(dir, ".sluice"), "dir");
    expect(codeOf(() => openUsageStore({ dir: join(dir, ".sluice/usage"), anchor: dir }))).toBe("USAGE_DIR_UNSAFE");
    expect(readdirSync(outside)).toEqual([]);
    expect(codeOf(() => readUsageStore(join(dir, ".sluice/usage"), dir))).toBe("USAGE_DIR_UNSAFE");
    // The guard off: the link is followed and the store lands outside, which is what it prevents.
    await withoutGuard("usageStorePath", () => openUsageStore({ dir: join(dir, ".sluice/usage"), anchor: dir }));
    expect(readdirSync(outside)).toEqual(["usage"]);
  });

  it("accepts a link that stays inside the project; refuses a store folder that is itself a link", () => {
    const dir = project();
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, ".sluice"), "dir");
    expect(openUsageStore({ dir: join(dir, ".sluice/usage"), anchor: dir }).dir).toBe(join(dir, ".sluice/usage"));
    const other = project();
    symlinkSync(other, join(dir, "elsewhere"), "dir");
    expect(codeOf(() => openUsageStore({ dir: join(dir, "elsewhere") }))).toBe("USAGE_DIR_UNSAFE");
  });

  it("refuses a folder it cannot create or write, with a code", () => {
    const dir = project();
    writeFileSync(join(dir, ".sluice"), "a file where the folder would be");
    expect(codeOf(() => openUsageStore({ dir: join(dir, ".sluice/usage"), anchor: dir }))).toBe("USAGE_DIR_NOT_WRITABLE");
    expect(codeOf(() => openUsageStore({ dir: "" }))).toBe("INVALID_OPTION");
  });

  it("reads past files that are not records, and says which", () => {
    const dir = join(project(), "s");
    const store = openUsageStore({ dir });
    const recorder = store.session("p");
    recorder.declared([tools[0]!.toJSON()]);
    recorder.close();
    writeFileSync(join(dir, "sessions", "20260101T000000Z-0000000000000000.json"), "{ torn");
    writeFileSync(join(dir, "sessions", "notes.json"), "{}");
    writeFileSync(join(dir, "sessions", "20260101T000000Z-0000000000000001.json.abc.tmp"), "{");
    const reading = store.read();
    expect(reading.records).toHaveLength(1);
    expect(reading.skipped).toEqual([
      { file: "20260101T000000Z-0000000000000000.json", reason: "not JSON" },
      { file: "notes.json", reason: "not a session file name" },
    ]);
  });
});

/** A record as serve writes it. */
function record(day: number, declared: Record<string, number>, invoked: Record<string, number> = {}, pack = "packs/p", id = day): UsageRecord {
  const tokens = Object.values(declared).reduce((a, b) => a + b, 0);
  return { format: "sluice-usage/1", session: String(id).padStart(16, "0"), pack, startedAt: new Date(Date.UTC(2026, 0, 1 + day)).toISOString(), declared: { digest: `sha256:${tokens}`, tokens, tools: declared }, invoked };
}

const SET = { list: 100, create: 300, remove: 200, admin: 50 };

describe("the report", () => {
  const sessions = [0, 2, 4, 6, 8].map((day) => record(day, SET, day === 4 ? { list: 3 } : day === 6 ? { create: 1 } : {}));

  it.each([
    ["5 sessions over 8 days: the two never called", {}, ["remove", "admin"]],
    ["more sessions needed than there are", { minSessions: 6 }, []],
    ["more days needed than they span", { minDays: 9 }, []],
    ["looser thresholds", { minSessions: 2, minDays: 2 }, ["remove", "admin"]],
  ] as const)("%s", (_name, options, want) => {
    expect(usageReport(sessions, options).packs[0]!.suggestions.map((s) => s.tool)).toEqual(want);
  });

  it("prices a week with the cache multipliers and the re-anchoring with cacheBreakEven", () => {
    const pack = usageReport(sessions, { provider: "anthropic", turns: 20 }).packs[0]!;
    expect(pack.sessionsPerWeek).toBe(4.38); // 5 sessions over 8 days
    const remove = pack.suggestions[0]!;
    // 200 tokens × (1.25 write + 0.1 read × 19 turns) × 35/8 sessions a week.
    expect(remove.weeklySaving).toBe(Math.round(200 * (1.25 + 0.1 * 19) * (35 / 8) * 100) / 100);
    // A warm prefix of the 450 tokens left is written (1.25) instead of read (0.1) once.
    expect(remove.reanchorCost).toBe(Math.round((1.25 - 0.1) * 450 * 100) / 100);
    expect(remove.paybackWeeks).toBe(Math.round(((1.15 * 450) / (200 * 3.15 * 4.375)) * 100) / 100);
    const gemini = usageReport(sessions, { provider: "gemini" }).packs[0]!.suggestions[0]!;
    expect(gemini.weeklySaving).toBe(Math.round(200 * (1 + 0.25 * 19) * (35 / 8) * 100) / 100);
    expect(pack.total).toMatchObject({ tokens: 250 });
  });

  it("keeps a tool the prompt names, and never the last tool of a pack", () => {
    const protectedReport = usageReport(sessions, { protect: new Map([["remove", "named in prompt.md"]]) }).packs[0]!;
    expect(protectedReport.suggestions.map((s) => s.tool)).toEqual(["admin"]);
    expect(protectedReport.kept).toEqual([{ tool: "remove", reason: "named in prompt.md" }]);
    const idle = [0, 3, 6, 9, 12].map((day) => record(day, { only: 10, other: 20 }));
    const idleReport = usageReport(idle).packs[0]!;
    expect(idleReport.suggestions.map((s) => s.tool)).toEqual(["other"]);
    expect(idleReport.kept).toEqual([{ tool: "only", reason: "the last remaining tool of the pack" }]);
  });

  it("suggests only tools the latest session still declared", () => {
    const later = [...sessions, record(9, { list: 100, create: 300, admin: 50 })];
    expect(usageReport(later).packs[0]!.suggestions.map((s) => s.tool)).toEqual(["admin"]);
  });

  it("is the same whatever order the records come in", () => {
    const packs = [...sessions, record(1, { x: 5 }, {}, "packs/q", 99)];
    const one = JSON.stringify(usageReport(packs));
    const shuffled = JSON.stringify(usageReport([...packs].reverse()));
    expect(shuffled).toBe(one);
  });

  it.each([
    ["minSessions", { minSessions: 0 }],
    ["turns", { turns: 1.5 }],
    ["provider", { provider: "acme" as never }],
  ])("refuses a bad %s with INVALID_OPTION", (_name, options) => {
    expect(codeOf(() => usageReport(sessions, options))).toBe("INVALID_OPTION");
  });
});

describe("tools named in a prompt", () => {
  const names = ["list_pets", "create-pet", "deletePet", "pets"];
  it.each([
    ["the exact name", "Use list_pets to browse.", ["list_pets"]],
    // A one-word name is a plain word: "Pets" names the tool pets too (erring on keeping a tool).
    ["spaces for underscores, any case", "Call List Pets first.", ["list_pets", "pets"]],
    ["a hyphen for an underscore, an underscore for a hyphen", "list-pets and create_pet", ["create-pet", "list_pets"]],
    ["camel case only as written", "never deletepet; DELETEPET is fine", ["deletePet"]],
    ["not inside a longer name", "relist_pets, list_pets_full, pets_store", []],
    ["a name in code quotes", "`pets`", ["pets"]],
  ] as const)("%s", (_name, text, want) => {
    expect([...toolsNamedIn(text, names)].sort()).toEqual([...want].sort());
  });
});

describe("writing", () => {
  it("gathers changes and writes them within 200 ms, without being asked", async () => {
    const dir = join(project(), "store");
    const store = openUsageStore({ dir });
    const recorder = store.session("p");
    recorder.declared([tools[0]!.toJSON()]);
    for (let i = 0; i < 50; i++) recorder.invoked("issues_list");
    expect(store.read().records).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(store.read().records.map((record) => record.invoked)).toEqual([{ issues_list: 50 }]);
  });
});
