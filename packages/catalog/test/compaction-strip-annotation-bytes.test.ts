import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stripAnnotationBytes, type RemovedSpan } from "../src/compaction/index.ts";

const annotated = readFileSync(new URL("./compaction-fixtures/annotated-catalog.json", import.meta.url), "utf8");

/** The input's bytes with the reported spans deleted. */
function cutSpans(input: string, spans: readonly RemovedSpan[]): string {
  const bytes = Buffer.from(input, "utf8");
  const kept: Buffer[] = [];
  let from = 0;
  for (const span of spans) {
    expect(span.start).toBeGreaterThanOrEqual(from);
    kept.push(bytes.subarray(from, span.start));
    from = span.end;
  }
  kept.push(bytes.subarray(from));
  return Buffer.concat(kept).toString("utf8");
}

/** Every guarantee of the byte strip, checked on one input. */
function expectByteStrip(input: string): string {
  const { text, report } = stripAnnotationBytes(input);
  expect(cutSpans(input, report.removed)).toBe(text);
  expect(() => JSON.parse(text)).not.toThrow();
  const again = stripAnnotationBytes(text);
  expect(again.text).toBe(text);
  expect(again.report).toMatchObject({ adopted: false, reason: "nothing-removed", removed: [] });
  return text;
}

const tool = (schema: string): string => `[{"name":"t","input_schema":${schema}}]`;

describe("stripAnnotationBytes", () => {
  it.each<[string, { given: string; want: string }]>([
    ["first member, with the comma after it", { given: tool('{"title":"T","type":"object"}'), want: tool('{"type":"object"}') }],
    ["last member, with the comma before it", { given: tool('{"type":"object", "title":"T"}'), want: tool('{"type":"object"}') }],
    ["a middle run of members", { given: tool('{"type":"object" , "title":"T" ,\n "examples":[{}] , "x":1}'), want: tool('{"type":"object" , "x":1}') }],
    ["a run at the end", { given: tool('{"type":"object","$schema":"s","deprecated":true}'), want: tool('{"type":"object"}') }],
    ["the only member (whitespace around it stays)", { given: tool('{ "title": "T" }'), want: tool("{  }") }],
    ["nested in properties, items, anyOf", {
      given: tool('{"properties":{"a":{"items":{"title":"I","type":"string"}},"b":{"anyOf":[{"deprecated":true},{"type":"null","title":"N"}]}}}'),
      want: tool('{"properties":{"a":{"items":{"type":"string"}},"b":{"anyOf":[{},{"type":"null"}]}}}'),
    }],
    ["through function.parameters and inputSchema", {
      given: '[{"type":"function","function":{"name":"a","parameters":{"title":"A"}}},{"name":"b","inputSchema":{"title":"B","type":"object"}}]',
      want: '[{"type":"function","function":{"name":"a","parameters":{}}},{"name":"b","inputSchema":{"type":"object"}}]',
    }],
  ])("removes %s", (_name, { given, want }) => {
    expect(expectByteStrip(given)).toBe(want);
  });

  it("copies every other byte: whitespace, number spelling, escapes, key order, cache_control", () => {
    const text = expectByteStrip(annotated);
    expect(text).toContain('"priority": { "type": "number", "minimum": 0.0, "maximum": 4.50, "default": 1.0, "multipleOf": 1e0 }');
    expect(text).toContain('"label": { "enum": [{ "title": "kept", "examples": [1] }, "\\u00e9t\\u00e9"] }');
    expect(text).toContain('"readOnly": { "type": "boolean", "readOnly": true, "default": false }');
    expect(text).toContain('"$comment": "generated"');
    expect(text).toContain('"additionalProperties": false\n    },\n    "cache_control": { "type": "ephemeral" }\n  },\n  {\n    "type": "function",');
    const parsed = JSON.parse(text) as { input_schema?: { properties: Record<string, unknown> } }[];
    expect(Object.keys(parsed[0]!.input_schema!.properties)).toEqual(["title", "examples", "readOnly", "$schema", "priority", "label", "meta"]);
  });

  it("reports byte offsets (not UTF-16 indexes) and the members of each span", () => {
    const input = tool('{"description":"é ☃ 😀","title":"T"}');
    const { text, report } = stripAnnotationBytes(input);
    expect(text).toBe(tool('{"description":"é ☃ 😀"}'));
    const start = Buffer.byteLength(input.slice(0, input.indexOf(',"title"')));
    expect(report.removed).toEqual([{ start, end: start + ',"title":"T"'.length, members: ["title"] }]);
  });

  it.each<[string, string, string]>([
    ["invalid JSON", '[{"name":"t","input_schema":{"title":"T"}}', "parse-error"],
    ["a second value after the array", '[{"name":"t","input_schema":{"title":"T"}}] {}', "parse-error"],
    ["a root object", '{"tools":[{"name":"t","input_schema":{"title":"T"}}]}', "not-a-tools-array"],
    ["nothing to remove", tool('{"type":"object"}'), "nothing-removed"],
    ["annotations outside schema positions", '[{"name":"t","title":"x","input_schema":{"properties":{"title":{}},"const":{"title":1},"default":{"examples":[]},"enum":[{"deprecated":1}],"x-a":{"title":2}}}]', "nothing-removed"],
    ["keywords it does not own ($id, readOnly, example)", tool('{"$id":"x","readOnly":true,"example":1}'), "nothing-removed"],
  ])("returns %s untouched", (_name, input, reason) => {
    const result = stripAnnotationBytes(input);
    expect(result.text).toBe(input);
    expect(result.report).toMatchObject({ adopted: false, reason, removed: [] });
  });
});
