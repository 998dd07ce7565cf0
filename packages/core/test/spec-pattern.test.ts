/**
 * Spec patterns run on a linear-time engine, with ECMA-262 meaning (issue 21, item 5).
 * - Inputs that a backtracking engine needs hours for complete: `pattern`,
 *   `patternProperties`, `propertyNames`, and the screening's own pattern matching.
 * - The translation to RE2 syntax keeps ECMA's meaning: a seeded property test against
 *   V8's RegExp on patterns whose backtracking is harmless.
 * - What the engine cannot run fails closed with a coded error, at call time as at derive.
 * - The `linearPatterns` guard is what keeps the backtracking engine out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSluiceError, specPatternTest, Tool, translateSpecPattern, type JsonSchemaObject } from "@sluice/core";
import { guards, withoutGuard } from "@sluice/core/guards";
import { patternMatches } from "../src/object-openness.ts";
import { specPattern } from "../src/spec-pattern.ts";

const binding = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;
const tool = (inputSchema: JsonSchemaObject) => Tool.create({ name: "patterned", description: "test tool", inputSchema, binding });

/** Hours for a backtracking engine: every split of the a's is tried before the b fails the match. */
const HOSTILE = "^(a+)+$";
const hostileText = "a".repeat(50_000) + "b";

describe("hostile input against a nested quantifier completes", () => {
  it("in pattern", () => {
    const issues = tool({ type: "object", properties: { s: { type: "string", pattern: HOSTILE } } }).check({ s: hostileText });
    expect(issues.map((i) => [i.code, i.path])).toEqual([["pattern", "/s"]]);
    expect(tool({ type: "object", properties: { s: { type: "string", pattern: HOSTILE } } }).check({ s: "a".repeat(50_000) })).toEqual([]);
  });

  it("in patternProperties, in validation and in screening", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      properties: { m: { type: "object", patternProperties: { [HOSTILE]: { type: "integer" } }, additionalProperties: { type: "string" } } },
    };
    // The hostile key does not match, so it falls to additionalProperties (a string): 1 is refused.
    const issues = tool(schema).check({ m: { [hostileText]: 1 } });
    expect(issues.length).toBeGreaterThan(0);
    expect(tool(schema).check({ m: { [hostileText]: "x", aaa: 2 } })).toEqual([]);
    expect(patternMatches(HOSTILE, hostileText)).toBe(false);
    expect(patternMatches(HOSTILE, "aaaa")).toBe(true);
  });

  it("in propertyNames", () => {
    const schema: JsonSchemaObject = { type: "object", properties: { m: { type: "object", propertyNames: { pattern: HOSTILE } } } };
    expect(tool(schema).check({ m: { [hostileText]: 1 } }).map((i) => i.code)).toContain("propertyNames");
    expect(tool(schema).check({ m: { aaaa: 1 } })).toEqual([]);
  });

  it("for other exponential shapes too", () => {
    for (const [pattern, text] of [
      ["^(a|aa)+$", "a".repeat(50_000) + "b"],
      ["^(\\w+\\s?)*$", "word ".repeat(20_000) + "!"],
      ["^([a-z0-9]+(-[a-z0-9]+)*\\.)+[a-z]{2,}$", "a-".repeat(30_000) + "!"],
      ["(x+x+)+y", "x".repeat(50_000)],
    ] as const) {
      expect(specPatternTest(pattern, text), pattern).toBe(false);
    }
  });
});

describe("translation keeps ECMA-262 meaning", () => {
  it.each([
    ["\\s is ECMA whitespace (\\v, NBSP, U+3000, BOM), not RE2's", "^\\s+$", ["\v\u00a0\u3000\ufeff\u2028"], ["a", "\u200b"]],
    [". stops at every line terminator", "^.$", ["a", "😀", "\u0085"], ["\n", "\r", "\u2028", "\u2029"]],
    ["$ is the end of the text, not before a last newline", "^a$", ["a"], ["a\n"]],
    ["[^] is anything, [] is nothing", "^[^][]?$", ["\n", "x"], ["", "xx"]],
    ["escaped surrogate pairs are one code point", "^\\uD83D\\uDE00$", ["😀"], ["\uD83D", "😃"]],
    ["\\u{...}", "^\\u{1F600}+$", ["😀😀"], ["😃"]],
    ["long category names and scripts", "^\\p{Letter}\\p{sc=Greek}\\P{Lu}$", ["xαb"], ["xαB", "1αb"]],
    ["cased letters", "^\\p{LC}+$", ["aB"], ["ǅ1", "ª"]],
    ["class escapes inside classes", "^[\\S\\d]+$", ["ab1"], ["a b", "\u00a0"]],
    ["[\\b] is backspace", "^[\\b]$", ["\b"], ["b"]],
    ["a [ inside a class is literal (RE2 would read [: as a POSIX class)", "^[[:a]+$", [":a[", "a"], ["b", "]"]],
    ["named groups just group", "^(?<year>\\d{4})-(?<m>\\d{2})$", ["2026-12"], ["26-12"]],
  ] as const)("%s", (_name, pattern, matching, other) => {
    const native = new RegExp(pattern, "u");
    for (const text of matching) expect([text, specPatternTest(pattern, text)]).toEqual([text, native.test(text) && true]);
    for (const text of other) expect([text, specPatternTest(pattern, text)]).toEqual([text, native.test(text) && false]);
  });

  it("agrees with V8 on seeded inputs, for patterns whose backtracking is harmless", () => {
    const patterns = [
      "^[a-zA-Z0-9_-]{1,64}$", "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2})?$", "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", "^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$",
      "\\bfoo\\b", "^\\S*$", "^[\\p{L}\\p{N} .'-]+$", "^$|^[A-Z]", "a{2,3}?b", "^\\w+(\\.\\w+)*$", "[\\u00C0-\\u024F]", "^\\x41\\cJ\\0?$", "^[^\\W_]+$",
      "\\/v1\\/[a-z]+", "^[\\s\\S]{0,5}$", "^(?:\\+|-)?\\d+(?:\\.\\d+)?$",
    ];
    const unit = fc.constantFrom("a", "Z", "f", "o", "0", "9", "-", "_", ".", "@", " ", "\n", "\r", "\u2028", "\v", "\u00a0", "α", "À", "😀", "\uD83D", "/", ":", "A", "\x0a", "\0", "+", "T", "v", "1");
    fc.assert(
      fc.property(fc.constantFrom(...patterns), fc.string({ unit, maxLength: 24 }), (pattern, text) => {
        expect([pattern, text, specPatternTest(pattern, text)]).toEqual([pattern, text, new RegExp(pattern, "u").test(text)]);
      }),
      { seed: 2026_12_01, numRuns: 4000 },
    );
  });
});

describe("look-aheads at the start anchor, decomposed into linear-time checks", () => {
  // The shapes specs use: Sentry's slugs, password rules, "not only digits", and one a backtracking engine stalls on.
  const DECOMPOSED = ["^(?![0-9]+$)[a-z0-9_\\-]+$", "^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d]{4,}$", "^(?!-)[a-z-]+$", "^(?!(a+)+$)a*b?$", "^(?=[ab])(?!ab)[abc]*$"];

  it("each is accepted as a pattern and agrees with ECMA's own RegExp on every string tried", () => {
    for (const pattern of DECOMPOSED) expect(translateSpecPattern(pattern).ok, pattern).toBe(true);
    fc.assert(
      fc.property(fc.constantFrom(...DECOMPOSED), fc.string({ unit: fc.constantFrom("a", "b", "c", "z", "A", "Q", "1", "9", "-", "_", " "), maxLength: 12 }), (pattern, text) => {
        expect([pattern, text, specPatternTest(pattern, text)]).toEqual([pattern, text, new RegExp(pattern, "u").test(text)]);
      }),
      { seed: 2026_12_06, numRuns: 3000 },
    );
  });

  it("a slug of digits only is refused where the spec forbids it, at call time", () => {
    const schema: JsonSchemaObject = { type: "object", properties: { slug: { type: "string", pattern: "^(?![0-9]+$)[a-z0-9_\\-]+$" } } };
    expect(tool(schema).check({ slug: "my-project" })).toEqual([]);
    expect(tool(schema).check({ slug: "12345" }).map((issue) => [issue.path, issue.code])).toEqual([["/slug", "pattern"]]);
    // A nested quantifier inside the look-ahead runs on the linear engine: this ends at once.
    expect(specPatternTest("^(?!(a+)+$)a*b?$", "a".repeat(5000) + "c")).toBe(false);
  });
});

describe("what the engine cannot run is refused with a code, never run with backtracking", () => {
  it.each([
    ["lookahead away from the start anchor", "\\w+(?=\\d)", "PATTERN_UNSUPPORTED", /lookahead/],
    ["negative lookahead away from the start anchor", "x(?!y)", "PATTERN_UNSUPPORTED", /lookahead/],
    ["anchored lookahead before a top-level alternation", "^(?!x)a|b", "PATTERN_UNSUPPORTED", /lookahead/],
    ["a lookahead inside an anchored lookahead", "^(?!(?=a)b)c", "PATTERN_UNSUPPORTED", /lookahead/],
    ["lookbehind", "(?<=a)b", "PATTERN_UNSUPPORTED", /lookbehind/],
    ["backreference", "(a)\\1", "PATTERN_UNSUPPORTED", /backreference/],
    ["named backreference", "(?<q>['\"]).*\\k<q>", "PATTERN_UNSUPPORTED", /backreference/],
    ["a count above 1000", "^.{1,2048}$", "PATTERN_UNSUPPORTED", /above 1000/],
    ["Script_Extensions", "\\p{scx=Greek}", "PATTERN_UNSUPPORTED", /Script_Extensions/],
    ["a binary property RE2 lacks", "\\p{Emoji}", "PATTERN_UNSUPPORTED", /binary/],
    ["not ECMA-262 with u", "^[a-z\\-\\:]+$", "PATTERN_INVALID", /ECMA-262/],
  ] as const)("%s", (_name, pattern, code, reason) => {
    const verdict = translateSpecPattern(pattern);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.code).toBe(code);
    expect(verdict.reason).toMatch(reason);
  });

  it("a hand-written schema with lookahead fails closed at call time with PATTERN_UNSUPPORTED", () => {
    // A lookahead over a nested quantifier: a backtracking engine would stall on this value.
    const schema: JsonSchemaObject = { type: "object", properties: { s: { type: "string", pattern: "^a(?=(a+)+$)" } } };
    let caught: unknown;
    try {
      tool(schema).check({ s: "a".repeat(28) + "b" });
    } catch (error) {
      caught = error;
    }
    expect(isSluiceError(caught, "PATTERN_UNSUPPORTED"), String(caught)).toBe(true);
    expect((caught as Error).message).toContain("^a(?=(a+)+$)");
  });

  it("in patternProperties, screening and projection refuse it too", () => {
    const lookahead = "x(?=y)";
    expect(() => patternMatches(lookahead, "xy")).toThrowError(expect.objectContaining({ code: "PATTERN_UNSUPPORTED", pointer: "/patternProperties/x(?=y)" }));
    const schema: JsonSchemaObject = { type: "object", properties: { m: { type: "object", properties: { xa: { type: "string" } }, patternProperties: { [lookahead]: { type: "string" } } } } };
    expect(() => tool(schema).derived({ drop: ["m.xa"] })).toThrowError(expect.objectContaining({ code: "PATTERN_UNSUPPORTED" }));
  });

  it("the compiled-pattern cache stays bounded", () => {
    for (let i = 0; i < 700; i++) specPattern(`^x${i}$`);
    expect(specPatternTest("^x699$", "x699")).toBe(true);
    expect(specPatternTest("^x0$", "x0")).toBe(true);
  });
});

describe("the linearPatterns guard", () => {
  const refusedAtCall = (): boolean => {
    // A new schema object each time: compiled validators are cached per schema.
    const schema: JsonSchemaObject = { type: "object", properties: { s: { type: "string", pattern: "^a(?=a)(a+)+$" } } };
    try {
      tool(schema).check({ s: "a".repeat(20) + "b" });
      return false;
    } catch (error) {
      return isSluiceError(error, "PATTERN_UNSUPPORTED");
    }
  };

  it("refuses lookaround with the guard on, and lets the backtracking engine run it with the guard off", async () => {
    expect(guards.linearPatterns).toBe(true);
    expect(refusedAtCall()).toBe(true);
    // Off, RegExp takes the pattern (2^20 steps here, so the test still ends): the refusal test fails.
    expect(await withoutGuard("linearPatterns", refusedAtCall)).toBe(false);
    expect(guards.linearPatterns).toBe(true);
    expect(refusedAtCall()).toBe(true);
  });
});
