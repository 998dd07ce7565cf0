import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson, cloneJson, collectGarbage, refGraph, resolveRef, walkSchema, type JsonSchemaObject } from "../src/index.ts";

/** A parsed spec whose property and def names are Object.prototype members; JSON.parse makes `__proto__` an own key. */
const SPEC = `{
  "type": "object",
  "properties": {
    "__proto__": { "type": "object", "properties": { "polluted": { "const": "yes" } }, "$ref": "#/$defs/__proto__" },
    "constructor": { "properties": { "prototype": { "properties": { "polluted": { "const": "yes" } } } } },
    "toString": { "type": "string" },
    "hasOwnProperty": { "$ref": "#/$defs/constructor" }
  },
  "$defs": {
    "__proto__": { "properties": { "polluted": { "default": "yes" } } },
    "constructor": { "type": "object" },
    "valueOf": { "type": "string" }
  }
}`;

function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).type).toBeUndefined();
  expect(({} as Record<string, unknown>).properties).toBeUndefined();
}

function expectPlainWithOwnProto(container: unknown, wantProtoValue: unknown): void {
  expect(Object.getPrototypeOf(container)).toBe(Object.prototype);
  expect(Object.hasOwn(container as object, "__proto__")).toBe(true);
  expect(Object.getOwnPropertyDescriptor(container, "__proto__")!.value).toEqual(wantProtoValue);
}

describe("__proto__ and other Object.prototype names are data", () => {
  afterEach(expectNoPollution);

  it("cloneJson keeps __proto__ as an own property and leaves prototypes alone", () => {
    const spec = JSON.parse(SPEC) as JsonSchemaObject;
    const clone = cloneJson(spec);
    const original = Object.getOwnPropertyDescriptor(spec.properties, "__proto__")!.value;
    expectPlainWithOwnProto(clone.properties, original);
    expectPlainWithOwnProto(clone.$defs, { properties: { polluted: { default: "yes" } } });
    expect(Object.keys(clone.properties as object)).toEqual(["__proto__", "constructor", "toString", "hasOwnProperty"]);
    expect(canonicalJson(clone)).toBe(canonicalJson(spec));
  });

  it("cloneJson copies keys Object.prototype holds when that prototype is frozen (a hardened runtime)", () => {
    // In a process of its own: freezing Object.prototype here would change this worker for every later file.
    const script = `
      Object.freeze(Object.prototype);
      const { cloneJson } = await import(${JSON.stringify(new URL("../src/clone-json.ts", import.meta.url).href)});
      process.stdout.write(JSON.stringify(cloneJson(JSON.parse(process.argv[1]))));
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, SPEC], { encoding: "utf8", timeout: 60_000 });
    expect(run.stderr).not.toMatch(/TypeError/);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(JSON.stringify(JSON.parse(SPEC)));
  });

  it("canonicalJson writes __proto__ as a key, and parsing it back gives the same bytes", () => {
    const spec = JSON.parse(SPEC) as JsonSchemaObject;
    const text = canonicalJson(spec);
    expect(text).toContain('"__proto__":{"$ref":"#/$defs/__proto__","properties":{"polluted":{"const":"yes"}},"type":"object"}');
    expect(text).toContain('"$defs":{"__proto__":{"properties":{"polluted":{"default":"yes"}}},"constructor":');
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });

  it("collectGarbage keeps a def named __proto__ as data and drops unreachable prototype-named defs", () => {
    const spec = JSON.parse(SPEC) as JsonSchemaObject;
    const result = collectGarbage(spec);
    expect(Object.keys(result.$defs as object)).toEqual(["__proto__", "constructor"]);
    expectPlainWithOwnProto(result.$defs, { properties: { polluted: { default: "yes" } } });
    expectPlainWithOwnProto(result.properties, Object.getOwnPropertyDescriptor(spec.properties, "__proto__")!.value);
    expect(canonicalJson(result)).toBe(canonicalJson({ ...spec, $defs: { ...(spec.$defs as object), valueOf: undefined } }));
  });

  it("a schema root with an own __proto__ key survives collectGarbage", () => {
    const root = JSON.parse('{"__proto__":{"type":"string"},"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{},"B":{}}}') as JsonSchemaObject;
    const result = collectGarbage(root);
    expectPlainWithOwnProto(result, { type: "string" });
    expect(Object.keys(result.$defs as object)).toEqual(["A"]);
  });

  it("refGraph and resolveRef find defs named like prototype members only when they are own", () => {
    const spec = JSON.parse(SPEC) as JsonSchemaObject;
    expect(refGraph(spec).get("#")).toEqual(["__proto__", "constructor"]);
    expect(resolveRef(spec, "#/$defs/__proto__")).toEqual({ properties: { polluted: { default: "yes" } } });
    expect(resolveRef(spec, "#/properties/__proto__/properties/polluted")).toEqual({ const: "yes" });
  });

  it("walkSchema visits the __proto__ property's subschemas", () => {
    const pointers: string[] = [];
    walkSchema(JSON.parse(SPEC) as JsonSchemaObject, ({ pointer }) => void pointers.push(pointer));
    expect(pointers).toContain("/properties/__proto__/properties/polluted");
    expect(pointers).toContain("/properties/constructor/properties/prototype/properties/polluted");
    expect(pointers).toContain("/$defs/__proto__/properties/polluted");
  });
});
