/**
 * egressMap reuses what it worked out for one tool in the next (MapMemo: type sections,
 * refs and `$ref` sites per definition, the lines below an inline definition). The reuse must
 * never change the map: every case here compares it with the map walked afresh for every
 * tool (`egressMapWith(tools, undefined)`), on hand-made packs where a reused answer would be
 * wrong (a type sectioned in one tool and inline in the next, a split copy, a narrowed
 * definition under its old name, nesting cut at different depths, branches with one label),
 * on seeded random packs, and on a committed pack with curated projections.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { definePack, formatEgressMap, type JsonSchemaObject, type Tool, type ToolIR } from "@sluice/core";
import { LONG } from "../../../../test/support/tier.ts";
import { egressMapWith, MapMemo } from "../../src/egress-map/egress-map.ts";

const binding = { kind: "http", method: "post", path: "/x", server: "https://api.example.test", parameters: [], body: { arg: "body", contentType: "application/json" } } as unknown as ToolIR["binding"];

function tool(name: string, properties: Record<string, JsonSchemaObject>, required: string[] = []): ToolIR {
  return { name, description: name, parameters: { properties, required }, binding } as unknown as ToolIR;
}

function pack(defs: Record<string, JsonSchemaObject>, tools: ToolIR[]): Tool<object>[] {
  return [...definePack({ name: "t", defs, tools }).tools] as Tool<object>[];
}

/** Both maps, as text and as entries (the text leaves out `segments` and `continues`). */
function both(tools: readonly Tool<object>[]) {
  const reused = egressMapWith(tools, new MapMemo());
  const walked = egressMapWith(tools, undefined);
  return { reused, walked, reusedText: formatEgressMap(reused), walkedText: formatEgressMap(walked) };
}

function expectSame(tools: readonly Tool<object>[]): string {
  const { reused, walked, reusedText, walkedText } = both(tools);
  expect(reusedText).toBe(walkedText);
  expect(JSON.parse(JSON.stringify(reused))).toEqual(JSON.parse(JSON.stringify(walked)));
  return reusedText;
}

const ref = (name: string): JsonSchemaObject => ({ $ref: `#/$defs/${name}` });

describe("egressMap reuse between tools", () => {
  it.each<[string, { defs: Record<string, JsonSchemaObject>; tools: ToolIR[] }]>([
    [
      "a type sectioned in one tool (two sites) and inline in the next (one site)",
      {
        defs: {
          Outer: { type: "object", properties: { inner: ref("Inner"), label: { type: "string" } } },
          Inner: { type: "object", properties: { deep: { type: "object", properties: { leaf: { type: "integer" } } } } },
        },
        tools: [
          tool("a_twice", { one: ref("Outer"), two: ref("Inner") }),
          tool("b_once", { one: ref("Outer") }),
          tool("c_twice_again", { x: ref("Outer"), y: { type: "array", items: ref("Inner") } }),
          tool("d_once_again", { z: { type: "object", properties: { nested: ref("Outer") } } }),
        ],
      },
    ],
    [
      "a shared member whose branch labels name defined and undefined types",
      {
        defs: {
          Pet: { type: "object", properties: { kind: { oneOf: [ref("Cat"), ref("Dog"), { type: "object", properties: { other: { type: "string" } } }] } } },
          Cat: { type: "object", properties: { purr: { type: "boolean" } } },
          Dog: { type: "object", properties: { bark: { type: "boolean" } } },
        },
        tools: [tool("a", { pet: ref("Pet") }), tool("b", { pet: ref("Pet"), cat: ref("Cat") }), tool("c", { pets: { type: "array", items: ref("Pet") } })],
      },
    ],
    [
      "two branches naming one type (listed once, in its section)",
      {
        defs: {
          Twice: { type: "object", properties: { v: { anyOf: [ref("Same"), ref("Same")] } } },
          Same: { type: "object", properties: { s: { type: "string" }, t: { type: "integer" } } },
        },
        tools: [tool("a", { x: ref("Twice") }), tool("b", { x: ref("Twice") }), tool("c", { y: ref("Twice"), z: ref("Twice") })],
      },
    ],
    [
      "two branches naming one type, one with members of its own",
      {
        defs: {
          Twice: { type: "object", properties: { v: { anyOf: [ref("Same"), { $ref: "#/$defs/Same", properties: { s: { type: "integer" } } }] } } },
          Same: { type: "object", properties: { s: { type: "string" }, t: { type: "integer" } } },
        },
        tools: [tool("a", { x: ref("Twice") }), tool("b", { x: ref("Twice") }), tool("c", { y: ref("Twice"), z: { type: "array", items: ref("Twice") } })],
      },
    ],
    [
      "recursion and open objects",
      {
        defs: {
          Filter: { type: "object", properties: { and: { type: "array", items: ref("Filter") }, field: { type: "string" } }, additionalProperties: { type: "string" } },
          Wrap: { type: "object", properties: { filter: ref("Filter") }, patternProperties: { "^x-": { type: "integer" } } },
        },
        tools: [tool("a", { w: ref("Wrap") }), tool("b", { w: ref("Wrap"), f: ref("Filter") }), tool("c", { w: { allOf: [ref("Wrap"), { properties: { extra: { type: "boolean" } } }] } })],
      },
    ],
  ])("%s", (_name, { defs, tools }) => {
    expectSame(pack(defs, tools));
  });

  // The lines below a plain `$ref` to an inline definition are worked out once per body and
  // depth (MapMemo.below) and reused while what they read of the tool's definitions holds.
  it.each<[string, { defs: Record<string, JsonSchemaObject>; tools: ToolIR[] }]>([
    [
      "an inline definition whose nested type is inline in one tool and sectioned in the next",
      {
        defs: {
          Spec: { type: "object", properties: { template: ref("Template"), replicas: { type: "integer", minimum: 0 } } },
          Template: { type: "object", properties: { container: ref("Container") } },
          Container: { type: "object", properties: { image: { type: "string" } }, required: ["image"] },
        },
        tools: [
          tool("a", { spec: ref("Spec") }),
          tool("b", { spec: ref("Spec"), other: ref("Container") }),
          tool("c", { spec: ref("Spec") }),
          tool("d", { wrapped: { type: "object", properties: { spec: ref("Spec") } } }),
        ],
      },
    ],
    [
      "a section worked out over an inline definition, reused in a tool where a type below it is sectioned",
      {
        defs: {
          Holder: { type: "object", properties: { spec: ref("Spec") } },
          Spec: { type: "object", properties: { inner: ref("Inner") } },
          Inner: { type: "object", properties: { v: { type: "string", maxLength: 3 } } },
        },
        tools: [
          tool("a", { h1: ref("Holder"), h2: ref("Holder") }),
          tool("b", { h1: ref("Holder"), h2: ref("Holder"), i1: ref("Inner"), i2: ref("Inner") }),
          tool("c", { h1: ref("Holder"), h2: ref("Holder") }),
        ],
      },
    ],
    [
      "references with members or openness of their own beside plain ones to the same definition",
      {
        defs: {
          Base: { type: "object", properties: { id: { type: "string" }, nested: ref("Leaf") } },
          Leaf: { type: "object", properties: { x: { type: "integer" } } },
        },
        tools: [
          tool("a", { one: ref("Base") }),
          tool("b", { one: { $ref: "#/$defs/Base", properties: { extra: { type: "boolean" } } } }),
          tool("c", { one: { $ref: "#/$defs/Base", additionalProperties: { type: "string" } } }),
          tool("d", { one: ref("Base"), two: { type: "array", items: ref("Base") } }),
          tool("e", { one: { anyOf: [ref("Base"), ref("Leaf")] } }),
        ],
      },
    ],
  ])("%s", (_name, { defs, tools }) => {
    expectSame(pack(defs, tools));
  });

  it("one parameter object shared by tools, its type listed by value in some and sectioned in others", () => {
    // Generators hand the same schema object to every operation that shares a parameter: its
    // line is worked out once (MapMemo.lines) and must follow what the type is in each tool.
    const status = ref("Status");
    const filter: JsonSchemaObject = { type: "array", items: ref("Filter"), maxItems: 5 };
    const defs: Record<string, JsonSchemaObject> = {
      Status: { enum: ["open", "closed"] },
      Filter: { type: "object", properties: { field: { type: "string" }, status } },
    };
    const text = expectSame(
      pack(defs, [
        tool("a", { status, filters: filter }, ["status"]),
        tool("b", { status, other: ref("Status"), filters: filter }),
        tool("c", { status, filters: filter }),
        tool("d", { status }),
      ]),
    );
    // Reached twice in a, b and c (a section), once in d (by value, where a new value would show).
    expect(text).toContain("tool a\n  endpoint POST /x\n  + filters: Filter[]  {maxItems 5}\n  + filters.field: string\n  + filters.status: Status\n  + status: Status  {required}\n");
    expect(text).toContain("tool d\n  endpoint POST /x\n  + status: Status (enum: open | closed)\n");
  });

  it("nesting cut at 64 levels, reached at different depths in different tools", () => {
    // L0 -> L1 -> ... -> L79, each used once: inline, so the depth limit cuts the listing.
    const defs: Record<string, JsonSchemaObject> = {};
    for (let i = 0; i < 80; i++) defs[`L${i}`] = { type: "object", properties: { v: { type: "string" }, ...(i < 79 ? { next: ref(`L${i + 1}`) } : {}) } };
    let wrapped: JsonSchemaObject = ref("L0");
    const tools = [tool("a0", { start: ref("L0") })];
    for (let depth = 1; depth <= 6; depth++) {
      wrapped = { type: "object", properties: { down: wrapped } };
      tools.push(tool(`a${depth}`, { start: wrapped }), tool(`b${depth}`, { start: ref(`L${depth * 7}`) }));
    }
    const text = expectSame(pack(defs, tools));
    expect(text).toContain("nested deeper than 64 levels");
  });

  it("an inline definition listed once shallow, then reached where the depth limit cuts it", () => {
    // What tool a works out below M0 (61 levels, from depth 1) would pass 64 levels where b
    // reaches M0, four levels down: a reuse must cut it there, not copy a's lines.
    const defs: Record<string, JsonSchemaObject> = {};
    for (let i = 0; i < 61; i++) defs[`M${i}`] = { type: "object", properties: { v: { type: "string" }, ...(i < 60 ? { next: ref(`M${i + 1}`) } : {}) } };
    let wrapped: JsonSchemaObject = { type: "array", items: ref("M0") };
    for (let depth = 0; depth < 4; depth++) wrapped = { type: "object", properties: { down: wrapped } };
    const text = expectSame(pack(defs, [tool("a", { start: ref("M0") }), tool("b", { start: wrapped }), tool("c", { again: { type: "array", items: ref("M0") } })]));
    expect(text).toContain("nested deeper than 64 levels");
  });

  it("an inline definition reused below arrays and refs, and narrowed under its own name", () => {
    const defs: Record<string, JsonSchemaObject> = {
      Spec: { type: "object", properties: { template: ref("Template"), replicas: { type: "integer" } } },
      Template: { type: "object", properties: { containers: { type: "array", items: ref("Container") }, labels: { type: "object", additionalProperties: { type: "string" } } } },
      Container: { type: "object", properties: { image: { type: "string" }, env: { type: "array", items: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } } } } },
    };
    const [a, b, c] = pack(defs, [tool("a", { spec: ref("Spec") }), tool("b", { spec: ref("Spec"), name: { type: "string" } }), tool("c", { template: ref("Template") })]);
    expectSame([a!, b!, c!, b!.derived({ name: "b_no_env", drop: ["Container.env"] }), a!.derived({ name: "a_no_image", drop: ["spec.template.containers.image"] })]);
  });

  it("a projection's split copy and a narrowed definition under its old name", () => {
    const defs: Record<string, JsonSchemaObject> = {
      IssueFilter: { type: "object", properties: { and: { type: "array", items: ref("IssueFilter") }, title: { type: "string" }, owner: ref("User") } },
      User: { type: "object", properties: { id: { type: "string" }, email: { type: "string" } } },
      Holder: { type: "object", properties: { filter: ref("IssueFilter"), user: ref("User") } },
    };
    const [issues, other, holder] = pack(defs, [tool("issues", { filter: ref("IssueFilter"), user: ref("User") }), tool("other", { filter: ref("IssueFilter") }), tool("holder", { h: ref("Holder") })]);
    const tools = [
      issues!,
      other!,
      holder!,
      // Type selector: IssueFilter narrowed everywhere, under its own name.
      issues!.derived({ name: "issues_no_and", drop: ["IssueFilter.and"] }),
      // Path selector through a shared type: a split copy (another name standing for IssueFilter).
      holder!.derived({ name: "holder_split", drop: ["h.filter.title"] }),
      other!.derived({ name: "other_no_email", drop: ["User.email"] }),
    ];
    expectSame(tools);
  });

  // Loading the pack takes longer than the rest of the file (tier.ts: the long tier); the
  // committed packs' maps are also checked byte for byte by egress:check, with the reuse.
  it.runIf(LONG)("the committed Linear pack, curated projections and *_full twins included", async () => {
    const { allTools } = await import("@sluice/pack-linear");
    expectSame(allTools as readonly Tool<object>[]);
  }, 120_000);

  it("seeded random packs: the map with reuse is the map walked afresh", () => {
    const names = ["A", "B", "C", "D", "E"];
    const leaf = fc.constantFrom<JsonSchemaObject>({ type: "string" }, { type: "integer", format: "int32" }, { enum: ["a", "b"] }, {}, { type: "object" });
    const schema: fc.Arbitrary<JsonSchemaObject> = fc.letrec<{ node: JsonSchemaObject }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        { arbitrary: fc.constantFrom(...names).map(ref), weight: 3 },
        fc.dictionary(fc.constantFrom("p", "q", "r", "s.t", "*"), tie("node"), { maxKeys: 3 }).map((properties) => ({ type: "object", properties })),
        fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((branches) => ({ anyOf: branches })),
        fc.array(tie("node"), { minLength: 1, maxLength: 2 }).map((parts) => ({ allOf: parts })),
        tie("node").map((items) => ({ type: "array", items })),
        tie("node").map((additionalProperties) => ({ type: "object", additionalProperties })),
      ),
    })).node;
    const packArb = fc.record({
      defs: fc.tuple(...names.map(() => schema)),
      // Tools mostly made of references, so that a type is sectioned in some and inline in others.
      tools: fc.array(fc.dictionary(fc.constantFrom("a", "b", "c"), fc.oneof({ arbitrary: fc.constantFrom(...names).map(ref), weight: 2 }, schema), { minKeys: 1, maxKeys: 3 }), { minLength: 2, maxLength: 8 }),
    });
    fc.assert(
      fc.property(packArb, ({ defs, tools }) => {
        const table = Object.fromEntries(names.map((name, i) => [name, defs[i]!]));
        const built = pack(
          table,
          tools.map((properties, i) => tool(`t${i}`, properties)),
        );
        const { reusedText, walkedText } = both(built);
        expect(reusedText).toBe(walkedText);
      }),
      { seed: 24, numRuns: 200 },
    );
  });
});
