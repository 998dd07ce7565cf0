import { defaultServedSet, type PackToolSets, type Tool } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { canonicalJson } from "@sluice/schema";
import * as gdocs from "@sluice/pack-gdocs";
import * as github from "@sluice/pack-github";
import * as githubRest from "@sluice/pack-github-rest";
import * as gmail from "@sluice/pack-gmail";
import * as gsheets from "@sluice/pack-gsheets";
import * as linear from "@sluice/pack-linear";
import * as notion from "@sluice/pack-notion";
import * as slack from "@sluice/pack-slack";
import * as stripe from "@sluice/pack-stripe";
import { beforeAll, describe, expect, it } from "vitest";
import { ToolSession } from "../src/session/index.ts";

/**
 * ToolSession over the nine shipped packs together (issue 5, "Done means").
 *
 * The catalog is each pack's default served set (its `tools` export): 2,287 of the 2,438
 * tools of the packs' `allTools`, the 151 `*_full` twins left out (they alone weigh
 * 1,122,265 of the 1,816,986 tokens of every tool).
 * Measured (o200k_base):
 * - sending every served tool:                    694,721 tokens
 * - first turn, the search tool alone:                893 tokens (0.13%, 1 : 778)
 *   (description 823 tokens: five large packs as word summaries; gmail, gdocs, gsheets
 *   and notion, smaller without their twins, listed by name)
 * - a search tool listing every name instead:      10,233 tokens (1.5%), 11x the
 *   summarized first turn
 * - after three keyword/select searches: 11 tools loaded, 7,281 tokens
 * (With includeFull, all 2,438 tools: 835 tokens first turn against 1,816,986.)
 * The best published figure is 82 tools, 36,710 -> 893 tokens (2.4%).
 * The bounds below are chosen from these numbers with a little room for pack changes.
 */
const modules: Record<string, PackToolSets> = {
  linear,
  github,
  stripe,
  "github-rest": githubRest,
  slack,
  gmail,
  gdocs,
  gsheets,
  notion,
};
/** Each pack's `tools` export, as `fromPacks({ linear: linear.tools, ... })` is given them. */
const packs: Record<string, readonly Tool<object>[]> = Object.fromEntries(Object.entries(modules).map(([label, pack]) => [label, pack.tools]));
const all = Object.values(modules).flatMap((pack) => pack.allTools ?? pack.tools);
/** What the session's catalog holds: each pack's default served set, no *_full twins. */
const served = Object.values(packs).flat();

describe("ToolSession over all packs together", () => {
  let session: ToolSession;
  let everything: number;
  beforeAll(() => {
    session = ToolSession.fromPacks(packs, { collisions: "prefix" });
    everything = schemaTokens(served);
  });

  it("refuses the union as is: six names are shipped by more than one pack", () => {
    expect(() => ToolSession.fromPacks(packs)).toThrow(/6 tool names are shipped by more than one pack: issues_list \(linear, github-rest\)/);
  });

  it("first-turn tool tokens: the search tool alone, against sending everything", () => {
    const firstTurn = schemaTokens(session.visibleTools());
    expect(session.visibleTools()).toHaveLength(1);
    expect(all).toHaveLength(2438);
    expect(served).toHaveLength(2287); // 151 *_full twins left out
    expect(served).toEqual(Object.values(modules).flatMap((pack) => defaultServedSet(pack.allTools ?? pack.tools)));
    expect(session.catalog).toHaveLength(served.length);
    expect(session.catalog.some((tool) => session.origin(tool.name)!.name.endsWith("_full"))).toBe(false);
    expect(everything).toBeGreaterThan(650_000); // measured 694,721
    expect(firstTurn).toBeLessThanOrEqual(1_000); // measured 893
    expect(firstTurn / everything).toBeLessThan(0.002); // measured 0.13%
    expect(session.descriptionTokens).toBeLessThanOrEqual(1_000); // the default budget
    console.log(`ToolSession, 9 packs, ${served.length} tools: first turn ${firstTurn} tokens vs ${everything} for everything (${((100 * firstTurn) / everything).toFixed(3)}%)`);
  });

  it("given the pack modules, the same catalog; includeFull takes their allTools, the twins included", () => {
    const fromModules = ToolSession.fromPacks(modules, { collisions: "prefix" });
    expect(fromModules.catalog.map((t) => t.name)).toEqual(session.catalog.map((t) => t.name));
    expect(canonicalJson(fromModules.searchTool.toJSON())).toBe(canonicalJson(session.searchTool.toJSON()));
    const full = ToolSession.fromPacks(modules, { collisions: "prefix", includeFull: true });
    expect(full.catalog).toHaveLength(all.length);
    expect(full.catalog.filter((tool) => full.origin(tool.name)!.name.endsWith("_full"))).toHaveLength(151);
    expect(full.search("select:issues_list_full").loaded).toEqual(["issues_list_full"]);
    // The tools arrays carry no twin, so includeFull on them cannot widen the catalog.
    expect(ToolSession.fromPacks(packs, { collisions: "prefix", includeFull: true }).catalog).toHaveLength(served.length);
  });

  it("listing every name would cost about 11x more: why large packs are summarized", () => {
    const listing = ToolSession.fromPacks(packs, { collisions: "prefix", descriptionBudget: 1_000_000 });
    expect([...listing.descriptionLevels.values()].every((level) => level === "names")).toBe(true);
    const tokens = schemaTokens(listing.searchTool);
    expect(tokens).toBeGreaterThan(9_000); // measured 10,233
    expect(tokens / everything).toBeLessThan(0.02); // measured 1.5%
    for (const tool of [...linear.tools, ...githubRest.tools].slice(0, 50)) expect(listing.searchTool.description).toMatch(tool.name.split("_").at(-1)!);
  });

  it("the description covers every pack, large ones summarized and small ones by name, deterministically", () => {
    const description = session.searchTool.description;
    for (const [pack, tools] of Object.entries(packs)) {
      const level = session.descriptionLevels.get(pack);
      if (level === "words") expect(description).toContain(`${pack}: ${tools.length} tools; names mention `);
      else expect(description).toContain(`${pack}: `);
    }
    expect(session.descriptionLevels.get("linear")).toBe("words");
    expect(session.descriptionLevels.get("gdocs")).toBe("names");
    expect(description).toContain("gdocs: docs_documents_{batch_update,create,get}");
    expect(description).not.toContain("_full");
    const again = ToolSession.fromPacks(packs, { collisions: "prefix" });
    expect(canonicalJson(again.searchTool.toJSON())).toBe(canonicalJson(session.searchTool.toJSON()));
  });

  it("search reveals the names the description summarizes", () => {
    expect(session.search("+stripe refund").loaded).toContain("get_refunds");
    expect(session.search("slack post message").loaded[0]).toBe("chat_post_message");
    expect(session.search("list issues").loaded.slice(0, 2)).toEqual(["linear_issues_list", "github-rest_issues_list"]);
    expect(session.origin("github-rest_issues_list")).toEqual({ pack: "github-rest", name: "issues_list" });
    expect(session.search("gmail send message").loaded[0]).toBe("gmail_users_messages_send");
    // Curated Linear tools are loaded, their *_full twins are not.
    expect(session.loaded.some((name) => name.endsWith("_full"))).toBe(false);
  });

  it("the first turn and each load extend the tool list append-only", () => {
    const fresh = ToolSession.fromPacks(packs, { collisions: "prefix" });
    let before = canonicalJson(fresh.visibleTools().map((t) => t.toJSON()));
    for (const query of ["create issue", "+stripe customer", "select:issue_create,chat_post_message"]) {
      fresh.search(query);
      const after = canonicalJson(fresh.visibleTools().map((t) => t.toJSON()));
      expect(after.startsWith(before.slice(0, -1))).toBe(true);
      before = after;
    }
    const loadedTokens = schemaTokens(fresh.visibleTools());
    console.log(`after 3 searches: ${fresh.loaded.length} tools loaded, ${loadedTokens} tokens`);
    expect(loadedTokens / everything).toBeLessThan(0.02);
  });
});
