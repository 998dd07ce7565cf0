/**
 * Bad input to the Tool model: property names that are JavaScript's own, deep nesting,
 * cycles. Every operation either works on them as data or fails with a coded error;
 * none overflows the stack, hangs, or pollutes a prototype.
 */
import { describe, expect, it } from "vitest";
import { egressMap, formatEgressMap, isSluiceError, Tool, type JsonSchemaObject } from "@sluice/core";
import { schemaTokens } from "@sluice/core/tokens";
import { canonicalJson, cyclicComponents, refGraph, resolvedDepth, sameValueCycles } from "@sluice/schema";

const binding = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;

function tool(inputSchema: JsonSchemaObject, name = "hostile"): Tool {
  return Tool.create({ name, description: "test tool", inputSchema, binding });
}

function properties(entries: Array<[string, unknown]>): Record<string, unknown> {
  return Object.fromEntries(entries); // own data properties, even for "__proto__"
}

describe("JavaScript's own names are plain data", () => {
  const schema = JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"string"}}},"constructor":{"type":"string"},"title":{"type":"string"},"$schema":{"type":"string"},"toString":{"type":"integer"}},"required":["title"]}',
  ) as JsonSchemaObject;
  const hostile = tool(schema);

  it("survive derive, paths, tokens and egress maps, and pollute nothing", async () => {
    const paths = (await hostile.paths({ depth: 2 })).map((p) => p.path);
    expect(paths).toEqual(["$schema", "__proto__", "__proto__.polluted", "constructor", "title", "toString"]);
    const narrowed = hostile.derived({ drop: ["__proto__.polluted", "constructor"] });
    expect(Object.keys(narrowed.inputSchema.properties as object)).toEqual(["__proto__", "title", "$schema", "toString"]);
    expect(Object.getPrototypeOf(narrowed.inputSchema.properties)).toBe(Object.prototype);
    const kept = hostile.derived({ keep: ["title", "__proto__"] });
    expect(Object.keys(kept.inputSchema.properties as object).sort()).toEqual(["__proto__", "title"]);
    // Declared or not, screening refuses a `__proto__` key (issue 21): the map says so rather than listing it as sendable.
    expect(formatEgressMap(egressMap([narrowed]))).toContain("  - __proto__: prototype key\n");
    expect(formatEgressMap(egressMap([narrowed]))).not.toContain("+ __proto__");
    expect(narrowed.check(JSON.parse('{"title": "t", "__proto__": {}}'))).toEqual([expect.objectContaining({ code: "prototype_key", path: "/__proto__" })]);
    expect(schemaTokens(narrowed)).toBeGreaterThan(0);
    // A pin is screened as a call carrying it: `__proto__` is refused there, so it cannot be pinned either.
    expect(() => hostile.derived({ pin: properties([["constructor", "x"], ["__proto__", { polluted: "no" }]]) as never })).toThrow(expect.objectContaining({ code: "PIN_INVALID" }));
    const pinned = hostile.derived({ pin: properties([["constructor", "x"]]) as never });
    expect(pinned.pins).toEqual(properties([["constructor", "x"]]));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
  });

  it("a selector that only exists on Object.prototype is unknown, not a match", () => {
    for (const selector of ["hasOwnProperty", "title.constructor", "__proto__.toString", "valueOf"]) {
      let code: string | undefined;
      try {
        hostile.derived({ drop: [selector] });
      } catch (error) {
        code = isSluiceError(error) ? error.code : "not a SluiceError";
      }
      expect(code, selector).toBe("UNKNOWN_SELECTOR");
    }
  });
});

describe("20,000 levels of nesting", () => {
  const DEPTH = 20_000;
  function nested(kind: "properties" | "items"): JsonSchemaObject {
    let node: JsonSchemaObject = { type: "string" };
    for (let i = 0; i < DEPTH; i++) {
      node = kind === "properties" ? { type: "object", properties: { a: node } } : { type: "array", items: node };
    }
    return { type: "object", properties: { a: node } };
  }

  it.each(["properties", "items"] as const)("through %s: tokens, depth, paths, derive and egress maps complete", async (kind) => {
    const deep = tool(nested(kind));
    expect(resolvedDepth(deep.inputSchema)).toBeGreaterThan(DEPTH);
    expect(schemaTokens(deep)).toBeGreaterThan(DEPTH);
    expect(canonicalJson(deep.inputSchema).length).toBeGreaterThan(DEPTH * 10);
    if (kind === "properties") {
      const selector = Array.from({ length: 200 }, () => "a").join(".");
      const narrowed = deep.derived({ drop: [selector] });
      expect(resolvedDepth(narrowed.inputSchema)).toBeLessThan(500);
      expect((await deep.paths(selector, { depth: 3 })).map((p) => p.path)).toEqual([`${selector}.a`, `${selector}.a.a`, `${selector}.a.a.a`]);
    }
    const text = formatEgressMap(egressMap([deep]));
    if (kind === "properties") expect(text).toMatch(/^ {2}\+ (a\.){64}a: nested deeper than 64 levels; members below are not listed$/m);
    expect(text.length).toBeLessThan(100_000); // not quadratic in the nesting
  });
});

describe("cycles", () => {
  const cyclic: JsonSchemaObject = {
    type: "object",
    properties: { node: { $ref: "#/$defs/Node" } },
    $defs: {
      Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" }, children: { type: "array", items: { $ref: "#/$defs/Node" } }, value: { type: "string" } } },
    },
  };
  const looped = tool(cyclic);

  it("are listed once in egress maps and priced without unrolling", async () => {
    const text = formatEgressMap(egressMap([looped]));
    expect(text).toContain("type Node (recursive)\n  + Node.children: Node[]\n  + Node.next: Node\n  + Node.value: string\n");
    const costs = await looped.paths({ byCost: true, depth: 3 });
    expect(costs.map((c) => c.path).sort()).toEqual(["node", "node.children", "node.next", "node.value"]);
  });

  it("cutting every edge of a cycle leaves an acyclic schema", () => {
    const cut = looped.derived({ drop: ["Node.next", "Node.children"] });
    expect(cyclicComponents(refGraph(cut.inputSchema))).toEqual([]);
    expect(resolvedDepth(cut.inputSchema)).toBe(3); // root, Node, value
  });

  it("an unresolved or external ref is a coded error, never a fetch", () => {
    for (const [ref, code] of [
      ["#/$defs/Missing", "UNRESOLVED_REF"],
      ["https://example.invalid/schema.json", "EXTERNAL_REF"],
      ["other.json#/Node", "EXTERNAL_REF"],
    ] as const) {
      const broken = tool({ type: "object", properties: { x: { $ref: ref } } });
      let got: string | undefined;
      try {
        broken.derived({ drop: ["x.y"] });
      } catch (error) {
        got = isSluiceError(error) ? error.code : String(error);
      }
      expect(got, ref).toBe(code);
    }
  });
});

describe("schemas are frozen", () => {
  it("a caller cannot widen a tool (or its siblings sharing definitions) by writing into its schema", () => {
    const base = tool({ type: "object", properties: { a: { type: "string" } }, $defs: {} });
    const derived = base.derived({ drop: ["a"] });
    expect(() => {
      (base.inputSchema.properties as Record<string, unknown>).b = { type: "string" };
    }).toThrow(TypeError);
    expect(() => {
      (derived.inputSchema as Record<string, unknown>).additionalProperties = true;
    }).toThrow(TypeError);
    expect(Object.keys(base.inputSchema.properties as object)).toEqual(["a"]);
  });
});

describe("definitions that apply each other to the same value", () => {
  const schema: JsonSchemaObject = {
    type: "object",
    properties: { plain: { type: "string" }, loop: { $ref: "#/$defs/A" }, tree: { $ref: "#/$defs/Node" } },
    $defs: {
      A: { allOf: [{ $ref: "#/$defs/B" }, { type: "object", properties: { a: { type: "string" } } }] },
      B: { anyOf: [{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "string" } } }] },
      // Recursion through a property descends into the value: not a same-value cycle.
      Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } },
    },
  };
  const looped = tool(schema, "looped");

  it("are named: only A and B, not a recursion that descends", () => {
    expect(sameValueCycles(schema)).toEqual([["A", "B"]]);
  });

  it("a value that never reaches them is checked as usual; one that does is SPEC_INVALID naming the cycle", () => {
    expect(looped.check({ plain: "x", tree: { child: { child: {} } } })).toEqual([]);
    let error: unknown;
    try {
      looped.check({ loop: { a: "x" } });
    } catch (caught) {
      error = caught;
    }
    expect(isSluiceError(error) && error.code).toBe("SPEC_INVALID");
    expect((error as Error).message).toContain("(A -> B)");
  });

  it("projections, paths and the egress map finish on them", async () => {
    const narrowed = looped.derived({ drop: ["A.a"] });
    expect(JSON.stringify(narrowed.inputSchema)).not.toContain('"a":{');
    expect((await looped.paths({ depth: 3 })).map((p) => p.path)).toContain("loop.a");
    expect(formatEgressMap(egressMap([looped]))).toContain("type A (recursive)");
  });
});
