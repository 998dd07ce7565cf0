/**
 * Tool data written as one single-quoted JSON text per record (json-strings.ts) must come back
 * as the same data whatever the strings hold (quotes, backslashes before them, line
 * terminators, lone surrogates, `__proto__` keys), and TypeScript must read it as an array of
 * plain string literals, one a line, ASCII only.
 */
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { writeJsonStringsArray } from "../src/json-strings.ts";

function expression(records: readonly unknown[]): string {
  const out: string[] = [];
  writeJsonStringsArray(out, records);
  return out.join("");
}

/** The array run by the engine and each text parsed, as pack-data.gen.ts and the modules that import it do. */
function run(text: string): unknown {
  return (new Function(`return ${text};`)() as string[]).map((json) => JSON.parse(json) as unknown);
}

/** The string literals TypeScript reads in the array, or undefined when the text is not that shape. */
function literalsOf(text: string): ts.StringLiteral[] | undefined {
  const source = ts.createSourceFile("data.ts", `const data = ${text};`, ts.ScriptTarget.ES2022, true);
  expect((source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics).toEqual([]);
  const initializer = (source.statements[0] as ts.VariableStatement).declarationList.declarations[0]!.initializer!;
  if (!ts.isArrayLiteralExpression(initializer)) return undefined;
  return initializer.elements.every(ts.isStringLiteral) ? [...initializer.elements] : undefined;
}

const HARD = ["'", "\\'", "\\\\'", "\\", '"', "`", "${", "\u2028", "\u2029", "\r\n", "\r", "\n", "\u0000", "\ud800", "\udfff", "😀", "é", "</script>", "*/"];

describe("writeJsonStringsArray", () => {
  it.each(HARD.map((text) => [JSON.stringify(text), text] as const))("round-trips %s in a value and in a key", (_name, text) => {
    const records = [{ [text]: [text, `a${text}b`, { nested: text }] }, { name: text }];
    const written = expression(records);
    const literals = literalsOf(written);
    expect(literals).toHaveLength(2);
    // Each literal's value is the record's JSON text, with non-ASCII as JSON escapes.
    expect(literals!.map((literal) => JSON.parse(literal.text))).toEqual(records);
    expect(JSON.stringify(run(written))).toBe(JSON.stringify(records));
    expect(/^[\x00-\x7f]*$/.test(written)).toBe(true);
  });

  it("writes one record per line and an empty table as []", () => {
    expect(expression([{ a: 1 }, { b: "x" }])).toBe("[\n  '{\"a\":1}',\n  '{\"b\":\"x\"}'\n]");
    expect(expression([])).toBe("[]");
  });

  it("keeps a __proto__ key as an own data property, never the prototype", () => {
    const records = JSON.parse('[{"__proto__":{"polluted":true},"name":"t"}]') as unknown[];
    const back = run(expression(records)) as Record<string, unknown>[];
    expect(Object.hasOwn(back[0]!, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(back[0])).toBe(Object.prototype);
  });

  it("property: any JSON records come back the same (seeded)", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 10 }), fc.string({ unit: fc.constantFrom(...HARD), maxLength: 10 }));
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 3 }),
      object: fc.dictionary(text, tie("value"), { maxKeys: 3 }),
    })).value;
    fc.assert(
      fc.property(fc.array(value, { maxLength: 4 }), (records) => {
        const written = expression(records);
        expect(literalsOf(written)).toHaveLength(records.length);
        expect(JSON.stringify(run(written))).toBe(JSON.stringify(records));
      }),
      { seed: 20261207, numRuns: 300 },
    );
  });

  it("refuses what JSON would change, as the template form does", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, new Date(0), () => 1, Symbol("s"), 1n, { toJSON: () => 1 }]) {
      expect(() => expression([{ a: bad }])).toThrow(TypeError);
      expect(() => expression([{ ok: 1 }, [bad]])).toThrow(TypeError);
    }
    expect(() => expression([1, undefined])).toThrow(TypeError);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => expression([1, , 2])).toThrow(TypeError);
  });
});
