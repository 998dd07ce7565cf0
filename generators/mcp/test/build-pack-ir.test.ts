/**
 * Input schemas as MCP servers write them (draft-07 from zod-to-json-schema with
 * `definitions` and `#/properties/...` refs, 2020-12 with `$defs`) normalised into sluice's
 * 2020-12 form; what the converter cannot take refuses that tool, with a code and a pointer
 * into the snapshot, never the server.
 */
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import type { JsonSchemaObject } from "@sluice/schema";
import { definePack } from "@sluice/core";
import { buildMcpPackIR, mcpToolNames } from "../src/index.ts";
import { makeSnapshot } from "@sluice/mcp-client";
import { hoistPropertyRefs } from "../src/hoist-property-refs.ts";

const source = { name: "t", file: "tools.snapshot.json", sha256: "0" };
const build = (tools: unknown[]) => buildMcpPackIR(makeSnapshot({ name: "s", version: "1" }, "2025-06-18", tools), source);

describe("buildMcpPackIR", () => {
  it("reads draft-07: definitions, refs into properties, tuple items, dependencies", () => {
    const ir = build([
      {
        name: "draft7",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: {
            owner: { $ref: "#/definitions/User" },
            reviewer: { $ref: "#/properties/owner" },
            point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
            card: { type: "string" },
            cvc: { type: "string" },
          },
          required: ["owner"],
          additionalProperties: false,
          definitions: { User: { type: "object", properties: { login: { type: "string" } }, required: ["login"], additionalProperties: false } },
        },
      },
    ]);
    expect(ir.skipped).toEqual([]);
    const tool = ir.tools[0]!;
    expect(tool.parameters.properties["owner"]).toEqual({ $ref: "#/$defs/User" });
    expect(tool.parameters.properties["point"]).toEqual({ type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false });
    expect(ir.defs["User"]).toEqual({ type: "object", properties: { login: { type: "string" } }, required: ["login"], additionalProperties: false });
    // A ref into a property is that property's schema: written out in place, no definition named after its path.
    expect(tool.parameters.properties["reviewer"]).toEqual({ $ref: "#/$defs/User" });
    expect(Object.keys(ir.defs)).toEqual(["User"]);
    expect(tool.binding).toEqual({ kind: "mcp", tool: "draft7", arguments: ["owner", "reviewer", "point", "card", "cvc"] });
  });

  it("refs into properties: a chain beside annotations written out in place, a recursive one a definition named after the property; both accept what the original accepts", () => {
    const input = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        next: { description: "Another step?", type: ["boolean", "string"] },
        isRevision: { $ref: "#/properties/next", description: "A revision?" },
        needsMore: { $ref: "#/properties/isRevision", description: "More?" },
        node: { type: "object", properties: { label: { type: "string" }, child: { $ref: "#/properties/node" } }, additionalProperties: false },
        limited: { $ref: "#/properties/next", maxLength: 3 },
      },
      additionalProperties: false,
    };
    const hoisted = hoistPropertyRefs(input as JsonSchemaObject) as Record<string, Record<string, unknown>>;
    expect(hoisted["properties"]!["isRevision"]).toEqual({ description: "A revision?", type: ["boolean", "string"] });
    expect(hoisted["properties"]!["needsMore"]).toEqual({ description: "More?", type: ["boolean", "string"] });
    expect(hoisted["properties"]!["limited"]).toEqual({ $ref: "#/$defs/next", maxLength: 3 });
    expect(Object.keys(hoisted["$defs"]!).sort()).toEqual(["next", "node"]);
    expect(JSON.stringify(hoisted)).not.toContain("#/properties/");
    // The oracle: Ajv (draft-07 reads $defs refs by pointer alike) gives the same verdicts on both.
    const ajv = new Ajv({ strict: false });
    const before = ajv.compile(input);
    const { $schema: _schema, ...draftless } = hoisted as Record<string, unknown>;
    const after = ajv.compile(draftless);
    const samples = [
      { next: true },
      { next: 3 },
      { isRevision: "x", needsMore: false },
      { needsMore: 1 },
      { limited: "abcd" },
      { limited: "ab" },
      { node: { label: "a", child: { label: "b", child: {} } } },
      { node: { label: "a", child: { label: 2 } } },
      { node: { child: { extra: 1 } } },
      { other: 1 },
    ];
    expect(samples.map((sample) => after(sample))).toEqual(samples.map((sample) => before(sample)));
    expect(samples.map((sample) => before(sample))).toContain(false);
  });

  it("gives a definition one name when every tool defines it alike, and qualifies it where they differ", () => {
    const same = { type: "object", properties: { id: { type: "string" } } };
    const ir = build([
      { name: "a", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/Ref" }, y: { $ref: "#/$defs/Own" } }, $defs: { Ref: same, Own: { type: "string" } } } },
      { name: "b", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/Ref" }, y: { $ref: "#/$defs/Own" } }, $defs: { Ref: same, Own: { type: "integer" } } } },
    ]);
    expect(Object.keys(ir.defs).sort()).toEqual(["Ref", "a_Own", "b_Own"]);
  });

  it("refuses one tool with a code and a pointer into the snapshot, and generates the others", () => {
    const ir = build([
      { name: "ok", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
      { name: "dynamic", inputSchema: { type: "object", properties: { q: { $dynamicRef: "#meta" } } } },
      { name: "remote", inputSchema: { type: "object", properties: { q: { $ref: "https://example.com/schema.json" } } } },
    ]);
    expect(ir.tools.map((tool) => tool.name)).toEqual(["ok"]);
    const byTool = Object.fromEntries(ir.skipped.map((skip) => [skip.operation, skip]));
    expect(byTool["tools/call dynamic"]).toMatchObject({ code: "KEYWORD_UNSUPPORTED" });
    expect(byTool["tools/call dynamic"]!.reason).toContain("/tools/0/inputSchema/properties/q/$dynamicRef");
    expect(byTool["tools/call remote"]).toMatchObject({ code: "EXTERNAL_REF" });
  });

  it("points a refusal at the tool's own place in the snapshot, by whole segments, whatever other tools define", () => {
    const ir = build([
      // `item` is defined by this tool only: another tool's dangling `#/$defs/item` is that tool's, not this one's.
      { name: "a", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/item" } }, $defs: { item: { type: "string" }, itemized: { type: "integer" } } } },
      { name: "b", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/item" } } } },
      { name: "c", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/Deep" } }, $defs: { Deep: { type: "object", properties: { y: { type: "string", pattern: "(a+)+\\1" } } } } } },
      { name: "d", inputSchema: { type: "object", properties: { "a.b": { type: "string" } } } },
    ]);
    expect(ir.tools.map((tool) => tool.name)).toEqual(["a", "c"]);
    expect(ir.skipped.map((skip) => [skip.operation, skip.code, skip.pointer])).toEqual([
      ["tools/call b", "UNRESOLVED_REF", "/tools/1/inputSchema/$defs/item"],
      ["tools/call d", "INPUT_SCHEMA_UNSUPPORTED", "/tools/3/inputSchema"],
    ]);
    expect(ir.skipped[0]!.reason).toBe("UNRESOLVED_REF: $ref #/tools/1/inputSchema/$defs/item points to nothing: /tools/1/inputSchema/$defs/item does not exist.");
    expect(ir.skipped[1]!.reason).toContain('its property "a.b" is no argument name');
    // A pattern the linear engine cannot run is removed and recorded where the snapshot has it.
    expect(ir.refusedPatterns?.map((refused) => [refused.operation, refused.pointer])).toEqual([["tools/call c", "/tools/2/inputSchema/$defs/Deep/properties/y/pattern"]]);
  });

  // `discriminator` is OpenAPI's keyword; in an MCP input schema (plain JSON Schema) it is no
  // validation keyword, so it must not make the tool refuse what the schema accepts.
  const cat = { type: "object", properties: { kind: { const: "cat" }, lives: { type: "integer" } }, required: ["kind"] };
  const dog = { type: "object", properties: { kind: { const: "dog" }, good: { type: "boolean" } }, required: ["kind"] };
  const unionCases: Array<[string, { inputSchema: Record<string, unknown>; samples: unknown[] }]> = [
    ["oneOf of refs, a mapping whose tags are not the values of the property", {
      inputSchema: { type: "object", properties: { pet: { oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }], discriminator: { propertyName: "kind", mapping: { feline: "#/$defs/Cat", canine: "#/$defs/Dog" } } } }, $defs: { Cat: cat, Dog: dog } },
      samples: [{ pet: { kind: "cat", lives: 9 } }, { pet: { kind: "dog" } }, { pet: { kind: "feline" } }, { pet: { kind: "cat", lives: "nine" } }, { pet: {} }],
    }],
    ["anyOf of refs, a discriminator without a mapping (OpenAPI would require the $defs names)", {
      inputSchema: { type: "object", properties: { pet: { anyOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }], discriminator: { propertyName: "kind" } } }, $defs: { Cat: cat, Dog: dog } },
      samples: [{ pet: { kind: "cat" } }, { pet: { kind: "Cat" } }, { pet: { kind: "Dog" } }, { pet: { kind: "dog", good: 1 } }],
    }],
    ["an annotation of another shape (a bare property name, as Swagger 2.0 writes it)", {
      inputSchema: { type: "object", properties: { pet: { oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }], discriminator: "kind" } }, $defs: { Cat: cat, Dog: dog } },
      samples: [{ pet: { kind: "cat" } }, { pet: { kind: "Cat" } }, { pet: { kind: "bird" } }],
    }],
    ["a base with a discriminator that another definition extends with allOf (OpenAPI would make it a union)", {
      inputSchema: {
        type: "object",
        properties: { shape: { $ref: "#/$defs/Shape" } },
        $defs: {
          Shape: { type: "object", properties: { form: { type: "string" }, size: { type: "number" } }, required: ["form"], discriminator: { propertyName: "form" } },
          Circle: { allOf: [{ $ref: "#/$defs/Shape" }, { type: "object", properties: { radius: { type: "number" } } }] },
          holder: { type: "object", properties: { c: { $ref: "#/$defs/Circle" } } },
        },
      },
      samples: [{ shape: { form: "round", size: 2 } }, { shape: { form: "Shape" } }, { shape: { form: "Circle", size: 1 } }, { shape: { size: 2 } }],
    }],
    ["inline branches beside a discriminator", {
      inputSchema: { type: "object", properties: { pet: { oneOf: [cat, dog], discriminator: { propertyName: "kind" } } } },
      samples: [{ pet: { kind: "cat" } }, { pet: { kind: "dog", good: true } }, { pet: { kind: "cow" } }],
    }],
  ];

  it.each(unionCases)("a discriminator in an MCP input schema changes nothing: %s", (_name, { inputSchema, samples }) => {
    const ir = build([{ name: "pets", inputSchema }]);
    expect(ir.skipped).toEqual([]);
    const tool = definePack(ir).tools[0]!;
    // The oracle: Ajv on the schema the MCP server declared.
    const accepts = new Ajv({ strict: false }).compile(inputSchema);
    const verdicts = samples.map((sample) => accepts(sample));
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
    expect(samples.map((sample) => tool.check(sample).length === 0)).toEqual(verdicts);
    expect(JSON.stringify(tool.inputSchema)).not.toContain("discriminator");
  });

  it("follows a union's refs through the hoisted definitions when another tool defines a name otherwise", () => {
    const ir = build([
      { name: "pets", inputSchema: unionCases[0]![1].inputSchema },
      // Another tool defines Cat otherwise, so this tool's Cat is qualified (`pets_Cat`).
      { name: "zoo", inputSchema: { type: "object", properties: { c: { $ref: "#/$defs/Cat" } }, $defs: { Cat: { type: "string" } } } },
    ]);
    const pet = ir.tools.find((tool) => tool.name === "pets")!.parameters.properties["pet"];
    expect(pet).toEqual({ oneOf: [{ $ref: "#/$defs/pets_Cat" }, { $ref: "#/$defs/Dog" }] });
  });

  it("refuses an input schema that is not an object of named arguments; a bare object takes none", () => {
    const ir = build([
      { name: "ok", inputSchema: { type: "object" } },
      { name: "scalar", inputSchema: { type: "string" } },
      { name: "union", inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, oneOf: [{ required: ["a"] }, { required: ["b"] }] } },
    ]);
    expect(ir.tools.map((tool) => [tool.name, tool.parameters])).toEqual([["ok", { properties: {}, required: [] }]]);
    expect(ir.skipped.map((skip) => [skip.operation, skip.code, skip.pointer])).toEqual([
      ["tools/call scalar", "INPUT_SCHEMA_UNSUPPORTED", "/tools/1/inputSchema"],
      ["tools/call union", "INPUT_SCHEMA_UNSUPPORTED", "/tools/2/inputSchema"],
    ]);
    expect(ir.skipped[1]!.reason).toContain("its root has oneOf");
  });

  it("lists the tools in the code-unit order of their pack names, as the other generators list theirs", () => {
    const names = ["getUser", "get-user", "get_user", "aB", "a-c", "notes.search"];
    const ir = build(names.map((name) => ({ name, inputSchema: { type: "object" } })));
    expect(ir.tools.map((tool) => tool.name)).toEqual(["a-c", "aB", "get-user", "getUser", "get_user", "notes_search"]);
  });

  it("keeps valid names, and sanitises the others without clashes", () => {
    const names = mcpToolNames([
      { name: "files.read", inputSchema: {} },
      { name: "files_read", inputSchema: {} },
      { name: "files/read", inputSchema: {} },
      { name: "x".repeat(80), inputSchema: {} },
    ]);
    expect([...names.values()]).toEqual(["files_read_2", "files_read", "files_read_3", "x".repeat(64)]);
  });
});
