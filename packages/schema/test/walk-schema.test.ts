import { describe, expect, it } from "vitest";
import { collectRefs, subschemasOf, walkSchema, type JsonSchemaObject, type SchemaVisit } from "../src/index.ts";

function visitedPointers(schema: JsonSchemaObject, skipKeywords?: ReadonlySet<string>): string[] {
  const pointers: string[] = [];
  walkSchema(schema, ({ pointer }) => void pointers.push(pointer), skipKeywords ? { skipKeywords } : {});
  return pointers;
}

/** Looks exactly like a schema, with a ref and nested properties, so a walk that descends into it would notice. */
const DECOY = { type: "object", $ref: "#/$defs/Decoy", properties: { inner: { type: "string" } }, items: { type: "number" } };

describe("walkSchema: descends only into subschema positions", () => {
  it.each([
    ["title", "/properties/title"],
    ["$schema", "/properties/$schema"],
    ["properties", "/properties/properties"],
    ["__proto__", "/properties/__proto__"],
    ["constructor", "/properties/constructor"],
    ["enum", "/properties/enum"],
    ["$ref", "/properties/$ref"],
    ["a/b~c", "/properties/a~1b~0c"],
  ])("a property named %j is a subschema at %s", (name, pointer) => {
    // JSON.parse so that `__proto__` becomes an own key, as it does in a parsed spec.
    const schema = JSON.parse(`{"type":"object","properties":{${JSON.stringify(name)}:{"type":"object","properties":{"leaf":{"type":"string"}}}}}`);
    expect(visitedPointers(schema)).toEqual(["", pointer, `${pointer}/properties/leaf`]);
  });

  it.each(["enum", "const", "default", "examples", "x-foo", "x-nested", "required", "title", "description", "$comment", "dependentRequired"])(
    "a schema-looking value under %s is instance data, never visited",
    (keyword) => {
      const value = keyword === "enum" || keyword === "examples" ? [DECOY, { anyOf: [DECOY] }] : { wrapper: DECOY, ...DECOY };
      expect(visitedPointers({ type: "object", [keyword]: value })).toEqual([""]);
      expect(collectRefs({ [keyword]: value })).toEqual([]);
    },
  );

  it.each<[string, JsonSchemaObject, string[]]>([
    ["prefixItems", { prefixItems: [{ type: "string" }, { type: "number" }] }, ["/prefixItems/0", "/prefixItems/1"]],
    ["dependentSchemas", { dependentSchemas: { card: { required: ["billing"] } } }, ["/dependentSchemas/card"]],
    ["unevaluatedProperties", { unevaluatedProperties: { type: "string" } }, ["/unevaluatedProperties"]],
    ["unevaluatedItems", { unevaluatedItems: { type: "string" } }, ["/unevaluatedItems"]],
    ["contentSchema", { contentMediaType: "application/json", contentSchema: { type: "object" } }, ["/contentSchema"]],
    ["items (2020-12 single schema)", { items: { type: "string" } }, ["/items"]],
    ["items (pre-2020 tuple)", { items: [{ type: "string" }, { type: "number" }] }, ["/items/0", "/items/1"]],
    ["additionalItems", { additionalItems: { type: "string" } }, ["/additionalItems"]],
    ["additionalProperties", { additionalProperties: { type: "string" } }, ["/additionalProperties"]],
    ["patternProperties", { patternProperties: { "^x-": { type: "string" } } }, ["/patternProperties/^x-"]],
    ["propertyNames", { propertyNames: { pattern: "^[a-z]+$" } }, ["/propertyNames"]],
    ["contains", { contains: { type: "string" } }, ["/contains"]],
    ["not", { not: { type: "null" } }, ["/not"]],
    ["if/then/else", { if: { type: "string" }, then: { minLength: 1 }, else: { type: "number" } }, ["/if", "/then", "/else"]],
    ["allOf/anyOf/oneOf", { allOf: [{}], anyOf: [{}, {}], oneOf: [{}] }, ["/allOf/0", "/anyOf/0", "/anyOf/1", "/oneOf/0"]],
    ["$defs", { $defs: { A: { type: "string" } } }, ["/$defs/A"]],
    ["definitions", { definitions: { A: { type: "string" } } }, ["/definitions/A"]],
    ["dependencies (schema form only)", { dependencies: { a: { required: ["b"] }, c: ["d"] } }, ["/dependencies/a"]],
  ])("%s holds subschemas", (_name, schema, want) => {
    expect(visitedPointers(schema)).toEqual(["", ...want]);
  });

  it("skips boolean subschemas and non-object values in subschema positions", () => {
    const schema = { properties: { a: true, b: false, c: "nope", d: [{}] }, items: true, additionalProperties: false, not: null };
    expect(visitedPointers(schema)).toEqual([""]);
    expect(subschemasOf(schema)).toEqual([]);
  });

  it("reports keyword, key, depth and parent, pre-order in document order", () => {
    const leaf = { type: "string" };
    const list = { type: "array", items: leaf };
    const root = { properties: { list, flag: { type: "boolean" } }, anyOf: [{ required: ["list"] }] };
    const visits: SchemaVisit[] = [];
    walkSchema(root, (visit) => void visits.push(visit));
    expect(visits.map(({ pointer, depth, keyword, key }) => ({ pointer, depth, keyword, key }))).toEqual([
      { pointer: "", depth: 0, keyword: undefined, key: undefined },
      { pointer: "/properties/list", depth: 1, keyword: "properties", key: "list" },
      { pointer: "/properties/list/items", depth: 2, keyword: "items", key: undefined },
      { pointer: "/properties/flag", depth: 1, keyword: "properties", key: "flag" },
      { pointer: "/anyOf/0", depth: 1, keyword: "anyOf", key: 0 },
    ]);
    expect(visits[2]!.node).toBe(leaf);
    expect(visits[2]!.parent).toBe(list);
    expect(visits[0]!.parent).toBeUndefined();
  });

  it("does not descend below a node whose visit returns false", () => {
    const schema = { properties: { stop: { properties: { hidden: {} } }, go: { properties: { seen: {} } } } };
    const pointers: string[] = [];
    walkSchema(schema, ({ pointer }) => {
      pointers.push(pointer);
      return pointer !== "/properties/stop";
    });
    expect(pointers).toEqual(["", "/properties/stop", "/properties/go", "/properties/go/properties/seen"]);
  });

  it("skipKeywords prunes that keyword at every level, but not a property of that name", () => {
    const schema = {
      $defs: { A: {} },
      properties: { $defs: { properties: { x: {} } }, nested: { $defs: { B: {} }, items: {} } },
    };
    expect(visitedPointers(schema, new Set(["$defs"]))).toEqual([
      "",
      "/properties/$defs",
      "/properties/$defs/properties/x",
      "/properties/nested",
      "/properties/nested/items",
    ]);
  });

  it("visits a shared node once and terminates on an object graph that contains itself", () => {
    const shared = { type: "string" };
    expect(visitedPointers({ properties: { a: shared, b: shared } })).toEqual(["", "/properties/a"]);

    const looping: JsonSchemaObject = { type: "object", properties: {} };
    (looping.properties as Record<string, unknown>).self = looping;
    (looping.properties as Record<string, unknown>).other = { items: looping };
    expect(visitedPointers(looping)).toEqual(["", "/properties/other"]);
  });
});

describe("collectRefs", () => {
  it("lists $ref strings in schema positions with their pointers, ignoring refs in data", () => {
    const schema = {
      properties: { a: { $ref: "#/$defs/A" }, b: { items: { $ref: "#/$defs/B" } }, c: { $ref: 42 } },
      default: { $ref: "#/$defs/NotARef" },
      $defs: { A: { $ref: "#/$defs/B" }, B: {} },
    };
    expect(collectRefs(schema)).toEqual([
      { ref: "#/$defs/A", pointer: "/properties/a" },
      { ref: "#/$defs/B", pointer: "/properties/b/items" },
      { ref: "#/$defs/B", pointer: "/$defs/A" },
    ]);
    expect(collectRefs(schema, { skipKeywords: new Set(["$defs"]) }).map((r) => r.ref)).toEqual(["#/$defs/A", "#/$defs/B"]);
  });
});
