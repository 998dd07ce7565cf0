import { describe, expect, it } from "vitest";
import { defRef, escapePointerSegment, parseLocalRef, pointerFrom, refGraph, refTarget, resolveRef, ROOT, unescapePointerSegment } from "../src/index.ts";
import { sluiceErrorOf } from "./sluice-error-of.ts";

describe("parseLocalRef", () => {
  it.each<[string, string[] | undefined]>([
    ["#", []],
    ["#/$defs/A", ["$defs", "A"]],
    ["#/$defs/A/properties/x", ["$defs", "A", "properties", "x"]],
    ["#/$defs/a~1b", ["$defs", "a/b"]],
    ["#/$defs/a~0b", ["$defs", "a~b"]],
    ["#/$defs/~01", ["$defs", "~1"]],
    ["#/$defs/A%20B", ["$defs", "A B"]],
    ["#/$defs/%7Bx%7D", ["$defs", "{x}"]],
    ["#/$defs/", ["$defs", ""]],
    // RFC 6901 §6: percent-decoding comes first, so an encoded slash is still a separator.
    ["#/$defs/a%2Fb", ["$defs", "a", "b"]],
    ["#anchor", undefined],
    ["#/$defs/%ZZ", undefined],
    ["other.json#/x", undefined],
    ["https://example.com/schema.json#/$defs/A", undefined],
    ["", undefined],
  ])("%j -> %j", (ref, want) => {
    expect(parseLocalRef(ref)).toEqual(want);
  });
});

describe("defRef and parseLocalRef round-trip every name", () => {
  it.each([
    ["plain", "IssueFilter", "#/$defs/IssueFilter"],
    ["slash", "a/b", "#/$defs/a~1b"],
    ["tilde", "a~b", "#/$defs/a~0b"],
    ["tilde then one", "~1", "#/$defs/~01"],
    ["tilde then zero", "~0", "#/$defs/~00"],
    ["slash and tilde", "/~", "#/$defs/~1~0"],
    ["space", "A B", "#/$defs/A%20B"],
    ["percent", "100%", "#/$defs/100%25"],
    ["encoded-looking", "a%2Fb", "#/$defs/a%252Fb"],
    ["hash", "a#b", "#/$defs/a%23b"],
    ["quote and braces", 'x"{y}', "#/$defs/x%22%7By%7D"],
    ["non-ASCII", "Größe", "#/$defs/Größe"],
    ["empty", "", "#/$defs/"],
    ["prototype key", "__proto__", "#/$defs/__proto__"],
  ])("%s: %j -> %s", (_label, name, ref) => {
    expect(defRef(name)).toBe(ref);
    expect(parseLocalRef(defRef(name))).toEqual(["$defs", name]);
    expect(refTarget(defRef(name))).toBe(name);
    const root = JSON.parse(`{"$defs":{${JSON.stringify(name)}:{"title":"target"}}}`);
    expect(resolveRef(root, defRef(name))).toEqual({ title: "target" });
  });

  it("escapePointerSegment and unescapePointerSegment are inverse, and pointerFrom joins escaped segments", () => {
    for (const segment of ["", "a", "~", "/", "~1", "~0", "~/~/", "a~01b"]) {
      expect(unescapePointerSegment(escapePointerSegment(segment))).toBe(segment);
    }
    expect(pointerFrom(["$defs", "a/b", "items", 0])).toBe("/$defs/a~1b/items/0");
  });
});

describe("refTarget", () => {
  it.each([
    ["#/$defs/A", "A"],
    ["#/$defs/A/properties/x", "A"],
    ["#/properties/x", ROOT],
    ["#", ROOT],
    ["#/$defs", ROOT],
  ])("%s lands in %s", (ref, want) => {
    expect(refTarget(ref)).toBe(want);
  });

  it.each(["other.json#/x", "other.json", "https://example.com/schema.json", "https://example.com/s.json#/$defs/A", "#plainAnchor"])(
    "%s is EXTERNAL_REF, with the pointer of the referring place",
    (ref) => {
      const error = sluiceErrorOf(() => refTarget(ref, "/properties/a"));
      expect(error.code).toBe("EXTERNAL_REF");
      expect(error.pointer).toBe("/properties/a");
    },
  );
});

describe("resolveRef", () => {
  const root = JSON.parse(`{
    "properties": { "list": { "items": [ { "type": "string" } ] } },
    "$defs": { "A": { "properties": { "x": { "type": "integer" } } }, "a/b": { "const": 1 } }
  }`);

  it.each([
    ["#", root],
    ["#/$defs/A/properties/x", { type: "integer" }],
    ["#/properties/list/items/0", { type: "string" }],
    ["#/$defs/a~1b", { const: 1 }],
  ])("%s resolves", (ref, want) => {
    expect(resolveRef(root, ref)).toEqual(want);
  });

  it.each(["#/$defs/Missing", "#/$defs/A/properties/y", "#/properties/list/items/1", "#/$defs/toString", "#/$defs/constructor", "#/$defs/__proto__"])(
    "%s is UNRESOLVED_REF (inherited members are not definitions)",
    (ref) => {
      expect(sluiceErrorOf(() => resolveRef(root, ref)).code).toBe("UNRESOLVED_REF");
    },
  );

  it.each(["other.json#/x", "https://example.com/schema.json#/$defs/A"])("%s is EXTERNAL_REF", (ref) => {
    expect(sluiceErrorOf(() => resolveRef(root, ref)).code).toBe("EXTERNAL_REF");
  });
});

describe("refGraph", () => {
  it("maps the root and every def to the defs it refers to from schema positions", () => {
    const graph = refGraph({
      properties: { a: { $ref: "#/$defs/A" }, b: { items: { $ref: "#/$defs/B/properties/x" } } },
      default: { $ref: "#/$defs/C" },
      $defs: { A: { $ref: "#/$defs/A" }, B: { properties: { x: { $ref: "#" } } }, C: {} },
    });
    expect(Object.fromEntries(graph)).toEqual({ [ROOT]: ["A", "B"], A: ["A"], B: [ROOT], C: [] });
  });

  it("a ref to a missing def is UNRESOLVED_REF pointing at the missing def", () => {
    const error = sluiceErrorOf(() => refGraph({ properties: { a: { $ref: "#/$defs/Missing" } }, $defs: { A: {} } }));
    expect(error.code).toBe("UNRESOLVED_REF");
    expect(error.pointer).toBe("/$defs/Missing");
  });

  it("a ref to a name only inherited from Object.prototype is UNRESOLVED_REF", () => {
    expect(sluiceErrorOf(() => refGraph({ properties: { a: { $ref: "#/$defs/toString" } }, $defs: {} })).code).toBe("UNRESOLVED_REF");
  });

  it.each(["other.json#/x", "https://example.com/schema.json"])("an external ref %s is EXTERNAL_REF with the pointer where it sits", (ref) => {
    const error = sluiceErrorOf(() => refGraph({ $defs: { A: { properties: { x: { $ref: ref } } } } }));
    expect(error.code).toBe("EXTERNAL_REF");
    expect(error.pointer).toBe("/$defs/A/properties/x");
  });
});
