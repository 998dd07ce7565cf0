/**
 * The piece counter behind `paths({ byCost })`: a text cut at cut points counts exactly
 * as the whole text does, and a cut anywhere else can change the count (so the rule
 * that picks cut points is what keeps the pricing exact).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalJson } from "@sluice/schema";
import { textTokens, type Encoding } from "@sluice/core/tokens";
import * as linear from "@sluice/pack-linear";
import * as stripe from "@sluice/pack-stripe";
import { cutPoints, isCutPoint, PieceCounter, startsPiece } from "../../src/cost/chunk-tokens.ts";

const ENCODINGS: readonly Encoding[] = ["o200k_base", "cl100k_base"];
const toolTexts = [
  ...["issues_list_full", "custom_view_create_full"].map((name) => linear.allTools.find((t) => t.name === name)!),
  ...["post_issuing_cardholders_full", "post_checkout_sessions"].map((name) => stripe.allTools.find((t) => t.name === name)!),
].map((tool) => canonicalJson(tool.toJSON()));

describe("isCutPoint", () => {
  it.each([
    ["after ,\" before a letter", ',"name', 2, true],
    ["after {\" before a digit", '{"9lives', 2, true],
    ["before a non-Latin letter", ',"Überprüfung', 2, true],
    ["before $ (punctuation joins the run)", ',"$defs', 2, false],
    ["before _", ',"_id', 2, false],
    ["before a space", ',"  x', 2, false],
    ["before an emoji", ',"🔍x', 2, false],
    ["between } and ,", '},"a', 1, false],
    ["after an escaped quote", '\\"name', 2, false],
    ["after :\"", ':"name', 2, false],
    ["at the end", ',"', 2, false],
  ] as const)("%s", (_name, text, at, want) => {
    expect(isCutPoint(text, at)).toBe(want);
  });
});

describe("startsPiece", () => {
  it.each(["name", "Name", "9lives", "é", "Ωmega", "日本", "_links", "$defs", "@odata.type", "-x", " x", "", "\u{1F600}", '"q', "\u0301a"])(
    "%j: the same answer as isCutPoint of the key written after a comma and quote",
    (key) => {
      expect(startsPiece(key)).toBe(isCutPoint(`,"${key}`, 2));
    },
  );
  it("on any string", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (key) => startsPiece(key) === isCutPoint(`,"${key}`, 2)));
  });
});

describe.each(ENCODINGS)("PieceCounter (%s)", (encoding) => {
  it("counts real tool definitions exactly, cut at every cut point", () => {
    for (const text of toolTexts) {
      expect(cutPoints(text).length).toBeGreaterThan(100);
      expect(new PieceCounter(encoding).count(text)).toBe(textTokens(text, { encoding }));
    }
  });

  it("counts joined parts exactly, numbers standing for pieces already counted", () => {
    const counter = new PieceCounter(encoding);
    const entry = 'name":{"type":"string","description":"A name."},"';
    const known = counter.count(entry);
    const parts = ['{"description":"x","inputSchema":{"properties":{"', entry, known, 'other":{"type":"integer"}},"type":"object"},"name":"t"}'];
    const text = parts.map((part) => (typeof part === "number" ? entry : part)).join("");
    expect(counter.countJoined(parts)).toBe(textTokens(text, { encoding }));
  });

  it("matches the tokenizer on arbitrary canonical JSON (property, fixed seed)", () => {
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("$defs", "_x", "9a", "é", " a", "__proto__", "a'b", "<|endoftext|>"));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null), tie("object"), fc.array(tie("value"), { maxLength: 4 })),
      object: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
    })).object;
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        return new PieceCounter(encoding).count(text) === textTokens(text, { encoding });
      }),
      { seed: 20261130, numRuns: 400 },
    );
  });
});

describe("a wrong cut changes the count", () => {
  // Cutting between `}` and `,` splits the punctuation run `}},"` that the tokenizer keeps whole.
  const beforeCommas = (text: string): number[] => [...text.matchAll(/,/g)].map((m) => m.index);
  // Cutting before `"` and a key: `,"` then starts a new pre-token it would otherwise join.
  const beforeQuotes = (text: string): number[] => cutPoints(text).map((at) => at - 1);

  it.each([
    ["between } and ,", beforeCommas],
    ["one character early", beforeQuotes],
  ] as const)("cut %s: the sum differs from the whole on real tools", (_name, cuts) => {
    const wrong = toolTexts.filter((text) => new PieceCounter("o200k_base", cuts).count(text) !== textTokens(text));
    expect(wrong.length).toBeGreaterThan(0);
  });
});
