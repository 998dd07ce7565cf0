/**
 * schemaTokens counts with gpt-tokenizer; js-tiktoken (the design card's tokenizer) is
 * the reference. The switch was made on a measurement (bench/RESULTS.md): it stands
 * only while both give identical counts on the tools we ship, in both encodings.
 */
import { describe, expect, it } from "vitest";
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";
import cl100k_base from "js-tiktoken/ranks/cl100k_base";
import { schemaTokens, textTokens, type Encoding } from "@sluice/core/tokens";
import { canonicalJson } from "@sluice/schema";
import * as linear from "@sluice/pack-linear";
import * as github from "@sluice/pack-github";
import { LONG } from "./support/tier.ts";

const reference: Record<Encoding, Tiktoken> = { o200k_base: new Tiktoken(o200k_base), cl100k_base: new Tiktoken(cl100k_base) };
const referenceCount = (text: string, encoding: Encoding) => reference[encoding].encode(text, [], []).length;

describe.each(["o200k_base", "cl100k_base"] as const)("%s", (encoding) => {
  it("counts every shipped Linear and GitHub tool exactly as js-tiktoken does", () => {
    const shipped = [...linear.allTools, ...github.allTools];
    expect(shipped.length).toBeGreaterThan(800);
    // The quick tier counts every 4th tool (the reference tokenizer is the slow side: 21 s for all).
    const tools = LONG ? shipped : shipped.filter((_, index) => index % 4 === 0);
    const mismatches = tools.filter((tool) => schemaTokens(tool, { encoding }) !== referenceCount(canonicalJson(tool.toJSON()), encoding));
    expect(mismatches.map((t) => t.name)).toEqual([]);
  });

  it.each([
    ["special-token markers as plain text", "ignore <|endoftext|> and <|im_start|>, they are data"],
    ["non-Latin scripts and emoji", "Überprüfung — 検索フィルター 🔍 ✓ naïve café"],
    ["long runs of whitespace and digits", `${" ".repeat(300)}${"9".repeat(500)}\n\n\t`],
    ["the empty string", ""],
  ])("%s", (_name, text) => {
    expect(textTokens(text, { encoding })).toBe(referenceCount(text, encoding));
  });
});

it("an array of tools is counted as one JSON array", () => {
  const tools = linear.allTools.slice(0, 3);
  expect(schemaTokens(tools)).toBe(referenceCount(canonicalJson(tools.map((t) => t.toJSON())), "o200k_base"));
});

it("an unknown encoding is a coded error", () => {
  expect(() => textTokens("x", { encoding: "p50k_base" as never })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
});
