import { describe, expect, it } from "vitest";
import { isSluiceError } from "@sluice/core";
import { check, fit, profile, PROFILE_IDS } from "../src/profiles/index.ts";
import { tools as gmail } from "@sluice/pack-gmail";

describe("profiles", () => {
  it.each(PROFILE_IDS.map((id) => [id]))("%s resolves to a labelled limit set", (id) => {
    const p = profile(id);
    expect(p.id).toBe(id);
    expect(p.label.length).toBeGreaterThan(3);
    expect(p.limits.nameMaxLength).toBeGreaterThan(0);
  });

  it.each([
    ["anthropic", { nameMaxLength: 128, rootUnionForbidden: true, cacheBreakpoints: 4 }],
    ["gemini", { nameMaxLength: 64, maxTools: 128, refs: false, typeArrays: false, arrayNeedsItems: true }],
    ["fireworks", { maxResolvedDepth: 50, recursion: false }],
    ["cursor", { maxTools: 40, nameMaxLength: 59 }],
    ["vscode", { maxTools: 128 }],
    ["windsurf", { maxTools: 100 }],
    ["claude-code", { nameMaxLength: 64 }],
    ["mcp", { nameMaxLength: 128, refs: true, recursion: true }],
  ] as const)("%s has its documented limits", (id, want) => {
    expect(profile(id).limits).toMatchObject(want);
  });

  it("client profiles count the server prefix the model sees", () => {
    expect(profile("claude-code").limits.qualifiedName?.("linear", "issues_list")).toBe("mcp__linear__issues_list");
    expect(profile("cursor").limits.qualifiedName?.("linear", "issues_list")).toBe("linearissues_list");
  });

  it("OpenAI strict and Responses share dated limit sets: 5/100/500 at launch, 10/5,000/1,000 later", () => {
    for (const id of ["openai-strict", "openai-responses"]) {
      expect(profile(id, { asOf: "2024-08-06" }).limits.strict).toMatchObject({ maxNesting: 5, maxProperties: 100, maxEnumValues: 500, maxTotalStringLength: 15_000 });
      expect(profile(id).limits.strict).toMatchObject({ maxNesting: 10, maxProperties: 5_000, maxEnumValues: 1_000, maxTotalStringLength: 120_000 });
    }
    expect(profile("openai-chat").limits.strict).toBeUndefined();
  });

  it("refuses an unknown id with the known ones, and a date before strict mode existed", () => {
    const unknown = (() => {
      try {
        profile("openai-strcit");
      } catch (error) {
        return error;
      }
    })();
    expect(isSluiceError(unknown, "INVALID_OPTION")).toBe(true);
    expect((unknown as { candidates: string[] }).candidates).toEqual(["openai-strict"]);
    expect((unknown as Error).message).toContain('did you mean "openai-strict"?');
    expect(() => profile("openai-strict", { asOf: "2023-01-01" })).toThrow(/did not exist/);
    expect(() => profile("openai-strict", { asOf: "yesterday" })).toThrow(/ISO date/);
  });

  it.each([
    ["check", "the id of a profile", () => check(gmail, "openai-strict" as never), /^check\(\) takes a provider profile object, not the string "openai-strict": call check\(tools, profile\("openai-strict"\)\)/],
    ["fit", "a misspelt id", () => fit(gmail, "antropic" as never), /^fit\(\) takes a provider profile object, not the string "antropic": call fit\(tools, profile\("anthropic"\)\)/],
    ["check", "nothing", () => check(gmail, undefined as never), /^check\(\) takes a provider profile object, not undefined/],
  ] as const)("%s given %s instead of a profile is INVALID_OPTION naming the right call, not a TypeError", (_call, _what, run, message) => {
    expect(run).toThrow(expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringMatching(message) }));
  });
});
