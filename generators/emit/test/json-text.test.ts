/**
 * Data written as JSON text in a template literal (json-text.ts) must come back as the same data,
 * whatever the strings hold: backticks and `${` (which would end the template or open a
 * substitution), backslashes before them, line terminators, lone surrogates, `__proto__` keys.
 */
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { jsonTextExpression } from "../src/json-text.ts";

/** The expression run by the engine, as a generated module runs it. */
function run(expression: string): unknown {
  return new Function(`return ${expression};`)();
}

/** What TypeScript reads: one call whose argument is a single no-substitution template. */
function templateOf(expression: string): ts.NoSubstitutionTemplateLiteral | undefined {
  const source = ts.createSourceFile("data.ts", `const data = ${expression};`, ts.ScriptTarget.ES2022, true);
  const parsed = (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  expect(parsed).toEqual([]);
  const declaration = (source.statements[0] as ts.VariableStatement).declarationList.declarations[0]!;
  const call = declaration.initializer as ts.CallExpression;
  const template = call.arguments[0];
  return template !== undefined && ts.isNoSubstitutionTemplateLiteral(template) ? template : undefined;
}

/** Own-property structure, `__proto__` keys included, and nothing inherited. */
function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const HARD = ["`", "${", "\\`", "\\${", "\\\\`", "$", "{", "}", "\\", "\u2028", "\u2029", "\r\n", "\r", "\n", "\u0000", "\ud800", "\udfff", "😀", "</script>", "*/"];

describe("jsonTextExpression", () => {
  it.each(HARD.map((text) => [JSON.stringify(text), text] as const))("round-trips %s in a value and in a key", (_name, text) => {
    const value = { [text]: [text, `a${text}b`, { nested: text }] };
    const expression = jsonTextExpression(value);
    expect(templateOf(expression)).toBeDefined();
    expect(sameData(run(expression), value)).toBe(true);
  });

  it("keeps a `__proto__` key as data, not as the prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const back = run(jsonTextExpression(value)) as Record<string, unknown>;
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("writes one member per line, so a changed value is a one-line diff", () => {
    expect(jsonTextExpression({ a: 1, b: ["x"] })).toBe('JSON.parse(`{\n  "a": 1,\n  "b": [\n    "x"\n  ]\n}`)');
  });

  it("with `lines`, writes the members of that many levels one per line and the rest compact", () => {
    const value = { a: { b: [1, { c: "x" }], e: [] }, d: {}, u: undefined };
    expect(jsonTextExpression(value, { lines: 1 })).toBe('JSON.parse(`{\n  "a": {"b":[1,{"c":"x"}],"e":[]},\n  "d": {}\n}`)');
    expect(jsonTextExpression(value, { lines: 2 })).toBe('JSON.parse(`{\n  "a": {\n    "b": [1,{"c":"x"}],\n    "e": []\n  },\n  "d": {}\n}`)');
    expect(jsonTextExpression([{ name: "a" }, { name: "b" }], { lines: 1 })).toBe('JSON.parse(`[\n  {"name":"a"},\n  {"name":"b"}\n]`)');
    expect(jsonTextExpression([], { lines: 1 })).toBe("JSON.parse(`[]`)");
    expect(jsonTextExpression("top", { lines: 1 })).toBe('JSON.parse(`"top"`)');
    // As deep as the data, it is JSON.stringify's indented form.
    const deep = { a: [1, { b: [true, null] }], c: "x" };
    expect(jsonTextExpression(deep, { lines: 10 })).toBe(jsonTextExpression(deep));
  });

  it("writes ASCII only (V8 then holds the text as a one-byte string), escaping the rest for JSON", () => {
    const expression = jsonTextExpression({ text: "é 😀 \u2028 ` ${x} \\ \"" });
    expect(expression).toMatch(/^[\x00-\x7f]*$/);
    expect(expression).toBe('JSON.parse(`{\n  "text": "\\\\u00e9 \\\\ud83d\\\\ude00 \\\\u2028 \\\\u0060 \\\\u0024{x} \\\\\\\\ \\\\\""\n}`)');
  });

  it("property: any JSON data of any strings comes back the same, in one template, in every layout (seeded)", () => {
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom(...HARD, "a", " ", '"') }));
    const data = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 4 }),
      object: fc.dictionary(text, tie("value"), { maxKeys: 4 }),
    })).value;
    fc.assert(
      fc.property(data, fc.constantFrom(undefined, 0, 1, 2), (value, lines) => {
        const expression = jsonTextExpression(value, lines === undefined ? {} : { lines });
        expect(templateOf(expression)).toBeDefined();
        // -0 is JSON's 0; everything else is exact.
        return sameData(run(expression), value);
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });

  it("refuses what JSON would change instead of writing something else", () => {
    for (const value of [Number.NaN, Number.NEGATIVE_INFINITY, [undefined], [1, , 2], new Date(0), () => 1, Symbol("s"), 1n, { nested: { at: new Date(0) } }]) {
      expect(() => jsonTextExpression(value)).toThrow(TypeError);
    }
  });
});
