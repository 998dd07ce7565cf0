/**
 * The pieces the emitters were rewritten with for speed (JSON text escaped member by member,
 * files joined from parts, a split at `\n` in place of `/\r?\n/`) against the code they
 * replaced (test/support/reference-emit, the emitter as it was), byte for byte, on data and
 * text chosen to break them: the escapes at a member's edge, `${` across pieces, lone `\r`
 * and `\r\n` in doc comments, statements whose `}` is followed by whitespace.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextExpression } from "../src/json-text.ts";
import { jsDoc, printSourceFile, SourceText } from "../src/source-file.ts";
import { jsonTextExpression as jsonTextBefore } from "./support/reference-emit/json-text.ts";
import { jsDoc as jsDocBefore, printSourceFile as printBefore } from "./support/reference-emit/source-file.ts";

const HARD = ["`", "${", "$", "{", "}", "\\", "\\`", "\\${", "$\\{", "\u2028", "\u00e9", "\ud800", "\udfff", "😀", "\r\n", "\r", "\n", '"', "*/", "a", " "];
const text = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.string({ unit: fc.constantFrom(...HARD), maxLength: 12 }));

/** The outcome of a call: its text, or the kind of error it threw. */
function outcome(run: () => string): string {
  try {
    return run();
  } catch (error) {
    return `threw ${(error as Error).constructor.name}`;
  }
}

describe("jsonTextExpression, member by member", () => {
  it("property: the same bytes as the whole-text escape it replaced, in every layout (seeded)", () => {
    const data = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 4 }),
      object: fc.dictionary(text, fc.option(tie("value"), { nil: undefined }), { maxKeys: 4 }),
    })).value;
    fc.assert(
      fc.property(data, fc.constantFrom(undefined, 0, 1, 2, 3), (value, lines) => {
        const options = lines === undefined ? {} : { lines };
        expect(jsonTextExpression(value, options)).toBe(jsonTextBefore(value, options));
      }),
      { seed: 20261201, numRuns: 400 },
    );
  });

  it("a `$` ending one member and a `{` starting the next, and escapes at every edge, as before", () => {
    for (const value of [["$", "{"], { "$": "{" }, { a: "$" }, ["`", "${", "\\"], { "`${\\": ["\u2028", { "\\": "$" }] }, "é$", ["\\\\", "\\u0060"]]) {
      for (const lines of [undefined, 0, 1, 2]) expect(jsonTextExpression(value, lines === undefined ? {} : { lines })).toBe(jsonTextBefore(value, lines === undefined ? {} : { lines }));
    }
  });

  it("refuses what the whole-data check refused, at any depth and in any layout, and nothing else", () => {
    const bad: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, undefined, new Date(0), () => 1, Symbol("s"), 1n, { toJSON: () => 1 }];
    const wrappers: ((inner: unknown) => unknown)[] = [
      (inner) => inner,
      (inner) => [inner],
      (inner) => [1, [inner]],
      (inner) => ({ a: inner }),
      (inner) => ({ a: { b: [inner] } }),
      (inner) => [{ ok: 1 }, { a: [{ b: inner }] }],
    ];
    for (const value of bad) {
      for (const wrap of wrappers) {
        for (const lines of [undefined, 0, 1, 2, 3]) {
          const options = lines === undefined ? {} : { lines };
          const data = wrap(value);
          expect(outcome(() => jsonTextExpression(data, options))).toBe(outcome(() => jsonTextBefore(data, options)));
        }
      }
    }
    // A hole is undefined in an array; an undefined object member is left out, in both.
    for (const data of [[1, , 2], { a: undefined, b: [1] }, [{ a: undefined }]]) {
      for (const lines of [undefined, 0, 1, 2]) {
        const options = lines === undefined ? {} : { lines };
        expect(outcome(() => jsonTextExpression(data, options))).toBe(outcome(() => jsonTextBefore(data, options)));
      }
    }
  });
});

describe("jsDoc without a regular-expression split", () => {
  it("property: the same comment as the /\\r?\\n/ split, at any indentation (seeded)", () => {
    const comment = fc.string({ unit: fc.constantFrom("\r", "\n", "\r\n", " ", "a", "*", "/", "\u2028", "\t"), maxLength: 16 });
    fc.assert(
      fc.property(comment, fc.constantFrom("", "  ", "    "), (doc, indent) => {
        expect(jsDoc(doc, indent)).toBe(jsDocBefore(doc, indent));
      }),
      { seed: 20261201, numRuns: 1000 },
    );
  });
});

describe("files joined from parts", () => {
  it("property: a statement pushed in pieces lays out as the joined statement did (seeded)", () => {
    const piece = fc.string({ unit: fc.constantFrom("}", "{", ";", " ", "\n", "\t", "a", "\u00a0"), maxLength: 6 });
    const statement = fc.record({ pieces: fc.array(piece, { maxLength: 4 }), block: fc.boolean() });
    fc.assert(
      fc.property(piece, fc.array(statement, { maxLength: 6 }), (header, statements) => {
        const file = new SourceText(header);
        for (const { pieces, block } of statements) {
          file.begin(block).push(...pieces);
          file.end();
        }
        const joined = statements.map(({ pieces, block }) => ({ text: pieces.join(""), block }));
        const expected = printBefore(header, joined);
        expect(file.finish()).toBe(expected);
        expect(printSourceFile(header, joined)).toBe(expected);
      }),
      { seed: 20261201, numRuns: 500 },
    );
  });
});
