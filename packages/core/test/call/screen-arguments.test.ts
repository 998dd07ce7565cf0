/** The screening walk on its own: which keys a schema lets through, and why a key is refused. */
import { describe, expect, it } from "vitest";
import type { JsonSchemaObject } from "@sluice/schema";
import { screenArguments } from "../../src/call/screen-arguments.ts";

const options = (withheld: Record<string, string> = {}) => ({ withheld: new Map(Object.entries(withheld)), pins: {}, origins: new Map<string, string>(), maxBytes: 1 << 20 });
const screen = (schema: JsonSchemaObject, args: unknown, withheld?: Record<string, string>) => screenArguments(schema, args, options(withheld));

describe("screenArguments", () => {
  it("lets a key through when any union branch declares it, and refuses one no branch has", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      properties: { target: { anyOf: [{ type: "object", properties: { user: { type: "string" } } }, { $ref: "#/$defs/Team" }, { type: "null" }] } },
      $defs: { Team: { type: "object", properties: { team: { type: "string" } } } },
    };
    const result = screen(schema, { target: { user: "u", team: "t", other: 1 } });
    expect(result.allowed).toEqual({ target: { user: "u", team: "t" } });
    expect(result.issues).toEqual([expect.objectContaining({ code: "unknown", path: "/target/other" })]);
  });

  it("opens objects only where the schema does: additionalProperties, patternProperties, free-form", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      properties: {
        metadata: { type: "object", additionalProperties: { type: "string" } },
        headers: { type: "object", properties: { a: {} }, patternProperties: { "^x-": { type: "string" } } },
        anything: { type: "object" },
        closed: { type: "object", properties: { a: {} }, additionalProperties: false },
      },
    };
    const result = screen(schema, { metadata: { k: "v" }, headers: { a: 1, "x-id": "1", b: 2 }, anything: { deep: { er: 1 } }, closed: { a: 1, b: 2 } });
    expect(result.allowed).toEqual({ metadata: { k: "v" }, headers: { a: 1, "x-id": "1" }, anything: { deep: { er: 1 } }, closed: { a: 1 } });
    expect(result.issues.map((i) => i.path)).toEqual(["/headers/b", "/closed/b"]);
  });

  it("follows prefixItems and items: false, and reports a withheld key by its type path", () => {
    const schema: JsonSchemaObject = {
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/Filter" }], items: false } },
      $defs: { Filter: { type: "object", properties: { name: { type: "string" } } } },
    };
    const result = screen(schema, { pair: ["a", { name: "n", secret: "s" }, "extra"] }, { "Filter.secret": "projection" });
    expect(result.allowed).toEqual({ pair: ["a", { name: "n" }] });
    expect(result.issues.map((i) => `${i.code} ${i.path}`)).toEqual(["withheld /pair/1/secret", "unknown /pair/2"]);
  });

  it("survives a reference cycle with no properties and a self-referencing value", () => {
    const schema: JsonSchemaObject = { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } } };
    const value: Record<string, unknown> = {};
    value.self = value;
    const result = screen(schema, { a: value });
    // Refs that only point at each other describe no object: the value is refused, not walked forever.
    expect(result.allowed).toEqual({});
    expect(result.issues.length).toBeGreaterThan(0);
    const free: JsonSchemaObject = { type: "object", properties: { a: { type: "object" } } };
    expect(screen(free, { a: value }).issues).toEqual([expect.objectContaining({ code: "too_deep" })]);
  });

  it("drops a value of the wrong shape and says so", () => {
    const schema: JsonSchemaObject = { type: "object", properties: { n: { type: "integer" } } };
    const result = screen(schema, { n: { sneaky: 1 } });
    expect(result.allowed).toEqual({});
    expect(result.issues).toEqual([expect.objectContaining({ code: "type", path: "/n" })]);
  });
});
