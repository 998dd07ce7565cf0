/**
 * definePack assembles each tool's input schema with exactly the `$defs` it reaches. The
 * refs walk is skipped for a tool whose own part holds no `$ref` key (one walk both freezes
 * and looks): these tests hold the assembly to an oracle that always walks (`refsFrom` from
 * the root, then through the definitions), on seeded random packs with refs in schema
 * positions, `$ref` keys in data positions (enum, default, const, a property named `$ref`),
 * shared and pre-frozen parts, and external refs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refsFrom, ROOT, type JsonSchemaObject } from "@sluice/schema";
import { definePack, type ToolIR } from "../../src/pack/pack.ts";

const DEF_NAMES = ["A", "B", "C", "D", "E"] as const;

/** The schema the assembly must give: the root and, sorted, every definition reachable from it. */
function oracle(ir: ToolIR, defs: Record<string, JsonSchemaObject>): JsonSchemaObject {
  const root: JsonSchemaObject = { type: "object", properties: ir.parameters.properties };
  if (ir.parameters.required.length > 0) root.required = ir.parameters.required;
  const reached = new Set<string>();
  const queue = refsFrom(root, "", true).filter((r) => r !== ROOT);
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    queue.push(...refsFrom(defs[name]!, "/$defs/" + name, false).filter((r) => r !== ROOT));
  }
  if (reached.size > 0) root.$defs = Object.fromEntries([...reached].sort().map((name) => [name, defs[name]!]));
  return root;
}

const ref = fc.tuple(fc.constantFrom(...DEF_NAMES), fc.boolean()).map(([name, sibling]) => (sibling ? { description: "beside the ref", $ref: `#/$defs/${name}` } : { $ref: `#/$defs/${name}` }));
/** Values where a `$ref` key is data, not a reference: never followed. */
const dataWithRefKey = fc.constantFrom(...DEF_NAMES).map((name) => ({ $ref: `#/$defs/${name}`, note: "data" }));
const schema: fc.Arbitrary<JsonSchemaObject> = fc.letrec<{ node: JsonSchemaObject }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant({ type: "string" }),
    ref,
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.constantFrom("a", "b", "$ref", "__proto__x"), tie("node"), { maxKeys: 3 }) }),
    fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant("object"), default: dataWithRefKey }),
    fc.record({ enum: fc.array(dataWithRefKey, { minLength: 1, maxLength: 2 }) }),
    fc.record({ const: dataWithRefKey }),
  ) as fc.Arbitrary<JsonSchemaObject>,
})).node;

const packArb = fc.record({
  defs: fc.record(Object.fromEntries(DEF_NAMES.map((name) => [name, schema])) as Record<(typeof DEF_NAMES)[number], fc.Arbitrary<JsonSchemaObject>>),
  tools: fc.array(fc.record({ properties: fc.dictionary(fc.constantFrom("x", "y", "z"), schema, { maxKeys: 3 }), freezeFirst: fc.boolean() }), { minLength: 1, maxLength: 6 }),
});

function ir(name: string, properties: Record<string, JsonSchemaObject>): ToolIR {
  return {
    name,
    description: `Tool ${name}.`,
    parameters: { properties, required: Object.keys(properties).slice(0, 1) },
    binding: { kind: "http", method: "POST", path: `/${name}`, parameters: [], body: { mediaType: "application/json", encoding: "json", fields: Object.fromEntries(Object.keys(properties).map((key) => [key, key])) } },
    annotations: {},
  } as unknown as ToolIR;
}

describe("definePack's input schemas", () => {
  it("seeded random packs: each tool's schema is the oracle's, byte for byte, and frozen", () => {
    fc.assert(
      fc.property(packArb, ({ defs, tools }) => {
        const expected = tools.map((tool, i) => JSON.stringify(oracle(ir(`t${i}`, structuredClone(tool.properties)), structuredClone(defs))));
        const irs = tools.map((tool, i) => {
          const properties = structuredClone(tool.properties);
          // A part frozen before the assembly sees it: the shortcut must not trust it.
          if (tool.freezeFirst) Object.freeze(properties);
          return ir(`t${i}`, properties);
        });
        const pack = definePack({ name: "random", defs: structuredClone(defs), tools: irs });
        for (const [i, tool] of pack.tools.entries()) {
          expect(JSON.stringify(tool.inputSchema)).toBe(expected[i]);
          expect(Object.isFrozen(tool.inputSchema)).toBe(true);
          expect(Object.isFrozen(tool.inputSchema.properties)).toBe(true);
        }
      }),
      { seed: 1324, numRuns: 300 },
    );
  });

  it("a ref under an already frozen part (shared with another tool) still brings its definition", () => {
    const shared = Object.freeze({ type: "object", properties: Object.freeze({ who: Object.freeze({ $ref: "#/$defs/User" }) }) }) as JsonSchemaObject;
    const pack = definePack({
      name: "shared",
      defs: { User: { type: "object", properties: { login: { type: "string" } } } },
      tools: [ir("one", { body: shared }), ir("two", { body: shared })],
    });
    for (const tool of pack.tools) expect(Object.keys(tool.inputSchema.$defs ?? {})).toEqual(["User"]);
  });

  it("a property named $ref is an argument, not a reference; an external ref is still refused", () => {
    const plain = definePack({ name: "p", defs: { A: { type: "string" } }, tools: [ir("t", { $ref: { type: "string" } })] });
    expect(plain.tools[0]!.inputSchema.$defs).toBeUndefined();
    const external = definePack({ name: "p", defs: {}, tools: [ir("t", { x: { $ref: "https://example.com/schema.json" } })] });
    expect(() => external.tools[0]!.inputSchema).toThrow(expect.objectContaining({ code: "EXTERNAL_REF" }));
    const missing = definePack({ name: "p", defs: {}, tools: [ir("t", { x: { items: { $ref: "#/$defs/Gone" } } })] });
    expect(() => missing.tools[0]!.inputSchema).toThrow(expect.objectContaining({ code: "UNRESOLVED_REF" }));
  });
});
