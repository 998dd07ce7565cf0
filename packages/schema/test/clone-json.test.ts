import { describe, expect, it } from "vitest";
import { canonicalJson, cloneJson } from "../src/index.ts";

describe("cloneJson", () => {
  it.each<[string, unknown]>([
    ["a schema", { type: "object", properties: { a: { type: "array", items: { $ref: "#/$defs/A" } } }, $defs: { A: { enum: [1, "x", null] } } }],
    ["an array root", [1, [2, [3, {}]], { a: [] }]],
    ["integer-like keys", { "10": 1, "2": 2, b: 3 }],
    ["scalars", "text"],
    ["null", null],
    ["undefined members and array holes", { a: undefined, b: [undefined, 1, , 2] }],
  ])("%s: equal bytes, no shared objects", (_name, value) => {
    const copy = cloneJson(value);
    expect(canonicalJson(copy)).toBe(canonicalJson(value));
    if (typeof value === "object" && value !== null) expect(copy).not.toBe(value);
  });

  it("copies an aliased subtree separately, so editing one place does not change the other", () => {
    const shared = { type: "string" };
    const copy = cloneJson({ properties: { a: shared, b: shared } });
    expect(copy.properties.a).not.toBe(copy.properties.b);
    (copy.properties.a as Record<string, unknown>).type = "number";
    expect(copy.properties.b.type).toBe("string");
    expect(shared.type).toBe("string");
  });
});
