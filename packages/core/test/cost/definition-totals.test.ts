/**
 * DefinitionTotals: `schemaTokens` of many tools, each shared `$defs` entry tokenized once.
 * Its sum is exact only because every part starts and ends at a cut point; held here
 * against `schemaTokens` on the tools of every committed pack (the long tier: every tool,
 * both encodings; the quick tier: the tools carrying the most definitions in Linear and
 * GitHub REST),
 * on hand-made edges (names that make no cut point, a lone definition, boolean bodies,
 * keys sorting before `$defs`) and on random definition tables.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@sluice/schema";
import { schemaTokens, textTokens, type Encoding } from "@sluice/core/tokens";
import { LONG, sweep } from "../../../../test/support/tier.ts";
import { PieceCounter } from "../../src/cost/chunk-tokens.ts";
import { DefinitionTotals, type SentDefinition } from "../../src/cost/definition-totals.ts";
import type { Tool } from "../../src/index.ts";

const PACKS = fileURLToPath(new URL("../../../../packs/", import.meta.url));
const ENCODINGS: readonly Encoding[] = LONG ? ["o200k_base", "cl100k_base"] : ["o200k_base"];
const SLOW = 300_000;

function defCount(tool: Tool<object>): number {
  const defs = tool.inputSchema.$defs;
  return typeof defs === "object" && defs !== null ? Object.keys(defs).length : 0;
}

const allPacks = readdirSync(PACKS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
// Quick tier: the two packs sharing the most definitions between tools (loading a pack is most of the cost).
const packNames = sweep(allPacks, (pack) => pack === "linear" || pack === "github-rest");

describe.each(packNames)("every committed pack: %s", (pack) => {
  it.each(ENCODINGS)("counts its tools as schemaTokens does (%s)", async (encoding) => {
    const module = (await import(pathToFileURL(`${PACKS}${pack}/src/index.ts`).href)) as { allTools?: Tool<object>[]; tools: Tool<object>[] };
    const all = module.allTools ?? module.tools;
    // Quick tier: the six tools carrying the most definitions (where the parts are), in one counter.
    const tools = LONG ? all : [...all].sort((a, b) => defCount(b) - defCount(a) || (a.name < b.name ? -1 : 1)).slice(0, 6);
    const counter = new PieceCounter(encoding);
    const totals = new DefinitionTotals(encoding, counter);
    let sent = 0;
    for (const tool of tools) {
      expect(totals.total(tool), tool.name).toBe(schemaTokens(tool, { encoding }));
      sent += canonicalJson(tool.toJSON()).length;
    }
    // A pack whose tools share definitions is tokenized less than it sends.
    if (tools.some((tool) => defCount(tool) > 2)) expect(counter.tokenizedChars).toBeLessThan(sent);
  }, SLOW);
});

/** A definition whose `$defs` holds these entries (in this order; the text sorts them). */
function withDefs(defs: Record<string, unknown>, extra: Record<string, unknown> = {}): SentDefinition {
  return { name: "t", description: "A tool.", inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/x" } }, ...extra, $defs: defs } };
}

const STRING = { type: "string", description: "A name." };
const INTEGER = { type: "integer", minimum: 0 };

describe.each(["o200k_base", "cl100k_base"] as const)("edges (%s)", (encoding) => {
  const exact = (definition: SentDefinition) => textTokens(canonicalJson(definition), { encoding });

  it.each([
    ["names that start with a letter or digit", withDefs({ b: STRING, a: INTEGER, "9c": STRING, Über: INTEGER })],
    ["names starting with _ or $ (no cut point before them)", withDefs({ _a: STRING, _b: INTEGER, $c: STRING, d: INTEGER })],
    ["names starting with a space, - or an emoji", withDefs({ " a": STRING, "-b": INTEGER, "🔍c": STRING, d: STRING })],
    ["one entry", withDefs({ only: STRING })],
    ["boolean and array bodies", withDefs({ a: true, b: false, c: [1, 2], d: STRING })],
    ["an entry whose value is undefined (left out, as canonicalJson does)", withDefs({ a: STRING, b: undefined, c: INTEGER })],
    ["keys sorting before $defs", withDefs({ a: STRING, b: INTEGER }, { $comment: "c", "!x": 1, "": 2 })],
    ["no description", { name: "t", inputSchema: { type: "object", $defs: { a: STRING, b: INTEGER } } }],
    ["no $defs", { name: "t", description: "d", inputSchema: { type: "object", properties: { a: STRING } } }],
    ["$defs that is not an object", { name: "t", description: "d", inputSchema: { type: "object", $defs: [STRING, INTEGER] } }],
  ] as const)("%s", (_name, definition) => {
    const totals = new DefinitionTotals(encoding);
    expect(totals.total(definition as SentDefinition)).toBe(exact(definition as SentDefinition));
    // Again, from what it remembered.
    expect(totals.total(definition as SentDefinition)).toBe(exact(definition as SentDefinition));
  });

  it("keeps names without a cut point in the surrounding text: cutting there would change the count", () => {
    const definition = withDefs({ _a: STRING, _b: INTEGER });
    const text = canonicalJson(definition);
    const at = text.indexOf('"_a"') + 1;
    const next = text.indexOf('"_b"') + 1;
    const naive = textTokens(text.slice(0, at), { encoding }) + textTokens(text.slice(at, next), { encoding }) + textTokens(text.slice(next), { encoding });
    expect(naive).not.toBe(exact(definition));
    expect(new DefinitionTotals(encoding).total(definition)).toBe(exact(definition));
  });

  it("counts one body under two names, and a body shared by many tools, exactly", () => {
    const totals = new DefinitionTotals(encoding);
    const shared = { type: "object", properties: { id: STRING, n: INTEGER }, required: ["id"] };
    for (const definition of [withDefs({ a: shared, b: shared }), withDefs({ a: shared, c: STRING }), withDefs({ _z: shared, a: shared, b: STRING })]) {
      expect(totals.total(definition)).toBe(exact(definition));
    }
  });

  it("matches the tokenizer on random definition tables (property, fixed seed)", () => {
    const name = fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom("a", "B", "9", "_x", "$y", " z", "é", "a'b", "<|endoftext|>", "io.k8s.api.core.v1.Pod"));
    const body = fc.oneof(
      fc.constant(STRING),
      fc.constant(INTEGER),
      fc.boolean(),
      fc.record({ type: fc.constant("object"), description: fc.string({ maxLength: 20 }), properties: fc.dictionary(name, fc.constantFrom(STRING, INTEGER), { maxKeys: 3 }) }),
    );
    const totals = new DefinitionTotals(encoding);
    fc.assert(
      fc.property(fc.dictionary(name, body, { minKeys: 0, maxKeys: 6 }), fc.string({ maxLength: 10 }), (defs, description) => {
        const definition: SentDefinition = { name: "t", description, inputSchema: { type: "object", $defs: defs } };
        expect(totals.total(definition)).toBe(exact(definition));
      }),
      { seed: 20261206, numRuns: LONG ? 1000 : 100 },
    );
  });
});
