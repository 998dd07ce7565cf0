/**
 * fit() and allOf: a profile that does not accept allOf (Gemini's OpenAPI subset, OpenAI
 * strict mode) gets the parts merged into one schema, exactly where one schema can say it
 * and with a lossy, refusable change where it cannot; never an emptied object labelled
 * lossless (issue 11, observation 4). Loops and recursive intersections end with a
 * bounded result or a coded error.
 */
import { describe, expect, it } from "vitest";
import { isSluiceError, Tool } from "@sluice/core";
import { canonicalJson, cloneJson, getOwn, isSchemaObject, parseLocalRef, type JsonSchemaObject } from "@sluice/schema";
import { check, fit, profile, PROFILE_IDS, type FitChange, type FitResult } from "../src/profiles/index.ts";
import { mergeAllOf } from "../src/profiles/merge-all-of.ts";
import { PropertyPathSets } from "../src/profiles/property-paths.ts";

const BINDING = { kind: "graphql", operationType: "mutation", field: "f", document: "mutation F { f }", variables: {} } as const;

function tool(inputSchema: JsonSchemaObject, name = "update_thing"): Tool<object> {
  return Tool.create({ name, description: "A tool.", inputSchema, binding: BINDING });
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/**
 * Dotted property paths of a schema, up to `depth` segments, through properties, arrays,
 * unions and refs: written here independently of the production PropertyPathSets, as the
 * oracle the tests compare against. Test shapes are small, so plain recursion is fine.
 */
function pathSet(root: JsonSchemaObject, depth = 6): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, prefix: string, left: number, loop: Set<unknown>) => {
    if (!isSchemaObject(node) || loop.has(node)) return;
    loop.add(node);
    const ref = getOwn(node, "$ref");
    if (typeof ref === "string") {
      let target: unknown = root;
      for (const segment of parseLocalRef(ref) ?? []) target = getOwn(target, segment);
      visit(target, prefix, left, loop);
    }
    for (const keyword of ["items", "prefixItems", "anyOf", "oneOf", "allOf"]) {
      const value = getOwn(node, keyword);
      for (const child of Array.isArray(value) ? value : [value]) visit(child, prefix, left, loop);
    }
    const properties = getOwn(node, "properties");
    if (left > 0 && isSchemaObject(properties)) {
      for (const name of Object.keys(properties)) {
        const path = prefix === "" ? name : `${prefix}.${name}`;
        out.add(path);
        visit(properties[name], path, left - 1, new Set());
      }
    }
  };
  visit(root, "", depth, new Set());
  return out;
}

function text(schema: JsonSchemaObject): string {
  return canonicalJson(schema);
}

/** The lossless changes that removed or added a property path (must be none). */
function dishonest(result: FitResult): FitChange[] {
  return result.changes.filter((c) => c.kind === "lossless" && (c.audit === undefined || c.audit.lost.length > 0 || c.audit.gained.length > 0));
}

// A request body that is allOf of three $refs, as OpenAPI specs write "a base type plus
// two mixins": overlapping properties, required in more than one part, nested objects.
const threeRefs = {
  type: "object",
  properties: {
    project_id: { type: "string" },
    body: { allOf: [{ $ref: "#/$defs/Base" }, { $ref: "#/$defs/Schedule" }, { $ref: "#/$defs/Owner" }], description: "The new state." },
  },
  required: ["project_id", "body"],
  $defs: {
    Base: {
      type: "object",
      properties: { name: { type: "string", maxLength: 80 }, notes: { type: "string" }, color: { type: "string", enum: ["red", "green", "blue"] } },
      required: ["name"],
    },
    Schedule: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1 },
        due: { type: "object", properties: { on: { type: "string", format: "date" }, at: { type: "string" } } },
        repeat: { type: "array", items: { $ref: "#/$defs/Rule" } },
      },
      required: ["due"],
    },
    Owner: {
      type: "object",
      properties: { owner: { type: "object", properties: { id: { type: "string" }, team: { type: "string" } } }, color: { type: "string", enum: ["green", "blue", "black"] } },
    },
    Rule: { type: "object", properties: { every: { type: "integer" }, unit: { type: "string", enum: ["day", "week"] } } },
  },
} satisfies JsonSchemaObject;

describe("fit: a body that is allOf of three $refs (issue 11, observation 4)", () => {
  const original = tool(threeRefs);
  const partPaths = [
    "body.name", "body.notes", "body.color", "body.due", "body.due.on", "body.due.at",
    "body.repeat", "body.repeat.every", "body.repeat.unit", "body.owner", "body.owner.id", "body.owner.team",
  ];

  it("keeps every property of the three parts under gemini with allowLossy, and labels nothing lossless that removes one", () => {
    const result = fit([original], profile("gemini"), { allowLossy: true, auditPaths: true });
    const schema = result.tools[0]!.inputSchema;
    const kept = pathSet(schema);
    for (const path of partPaths) expect(kept, path).toContain(path);
    expect(kept).toEqual(pathSet(original.inputSchema));
    expect(text(schema)).not.toContain("allOf");
    expect(text(schema)).not.toContain("$ref");
    expect(dishonest(result)).toEqual([]);
    expect(result.remaining).toEqual([]);
    const body = (schema.properties as Record<string, JsonSchemaObject>).body!;
    // required unioned, enums intersected, bounds of the shared property combined.
    expect(body.required).toEqual(["name", "due"]);
    expect((body.properties as Record<string, JsonSchemaObject>).color).toEqual({ type: "string", enum: ["green", "blue"] });
    expect((body.properties as Record<string, JsonSchemaObject>).name).toEqual({ type: "string", maxLength: 80, minLength: 1 });
    expect(body.description).toBe("The new state.");
  });

  it("is a lossless merge: it needs no allowLossy, and the log says allOf was merged where it was", () => {
    const result = fit([original], profile("gemini"), { auditPaths: true });
    const merge = result.changes.find((c) => c.action === "merge-all-of")!;
    expect(merge.kind).toBe("lossless");
    expect(merge.pointers).toEqual(["/properties/body"]);
    expect(merge.audit).toMatchObject({ places: 1, lost: [], gained: [] });
    expect(merge.audit!.before).toBe(merge.audit!.after);
    const inline = result.changes.find((c) => c.action === "inline-refs")!;
    // The figures describe the inlining itself, not what earlier steps did.
    expect(inline.message).toMatch(/^Inlined every \$ref \((\d+) -> (\d+) bytes/);
    const [, before, after] = /\((\d+) -> (\d+) bytes/.exec(inline.message)!;
    expect(Number(after)).toBeGreaterThan(Number(before) / 2);
  });

  it("keeps every property under openai-strict too (where strict mode's own changes are lossy and listed)", () => {
    const result = fit([original], profile("openai-strict"), { allowLossy: true, auditPaths: true });
    const kept = pathSet(result.tools[0]!.inputSchema);
    for (const path of partPaths) expect(kept, path).toContain(path);
    expect(text(result.tools[0]!.inputSchema)).not.toContain("allOf");
    expect(dishonest(result)).toEqual([]);
    expect(result.remaining).toEqual([]);
  });

  it("leaves allOf alone where the profile accepts it: the same tool comes back", () => {
    for (const id of ["mcp", "anthropic", "openai-chat"] as const) {
      const result = fit([original], profile(id));
      expect(result.tools[0]).toBe(original);
      expect(result.changes).toEqual([]);
    }
  });
});

/** mergeAllOf on one node `{ allOf: parts }` under properties.x; returns the merged x and the conflicts. */
function mergeOne(parts: unknown[], defs: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const schema = cloneJson({ type: "object", properties: { x: { ...extra, allOf: parts } }, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) }) as JsonSchemaObject;
  const result = mergeAllOf(schema, { refSiblings: false, maxCopiedNodes: 10_000, tool: "t" });
  return { x: (schema.properties as Record<string, unknown>).x, conflicts: result.conflicts.map((c) => c.message), result, schema };
}

describe("mergeAllOf: what one schema says for all the parts", () => {
  it.each([
    ["properties and required unioned", { given: [{ properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "integer" } }, required: ["b", "a"] }], want: { properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a", "b"] } }],
    ["a property in several parts merged recursively", { given: [{ properties: { a: { type: "object", properties: { p: { type: "string", maxLength: 9 } } } } }, { properties: { a: { properties: { p: { minLength: 2 }, q: { type: "boolean" } } } } }], want: { properties: { a: { type: "object", properties: { p: { type: "string", maxLength: 9, minLength: 2 }, q: { type: "boolean" } } } } } }],
    ["types intersected (integer is a number; null dropped where one part forbids it)", { given: [{ type: ["number", "null"] }, { type: ["integer", "string"] }], want: { type: "integer" } }],
    ["enums intersected, bounds combined", { given: [{ enum: [1, 2, 3], minimum: 0, maximum: 10 }, { enum: [3, 2, 9], minimum: 1, maximum: 20 }], want: { enum: [2, 3], minimum: 1, maximum: 10 } }],
    ["an additionalProperties schema also applies to names another part declares", { given: [{ properties: { a: { type: "string" } } }, { additionalProperties: { maxLength: 5 } }], want: { properties: { a: { type: "string", maxLength: 5 } }, additionalProperties: { maxLength: 5 } } }],
    ["closures listing the same properties stay closed", { given: [{ properties: { a: { type: "string" } }, additionalProperties: false }, { properties: { a: { minLength: 1 } }, additionalProperties: false }], want: { properties: { a: { type: "string", minLength: 1 } }, additionalProperties: false } }],
    ["one part's union kept beside the other's properties", { given: [{ properties: { id: { type: "string" } } }, { oneOf: [{ required: ["id"] }, { properties: { alt: { type: "string" } } }] }], want: { properties: { id: { type: "string" } }, oneOf: [{ required: ["id"] }, { properties: { alt: { type: "string" } } }] } }],
    ["two parts' anyOf distributed into one", { given: [{ anyOf: [{ required: ["a"] }, { required: ["b"] }] }, { anyOf: [{ required: ["c"] }, { maxProperties: 3 }] }], want: { anyOf: [{ required: ["a", "c"] }, { required: ["a"], maxProperties: 3 }, { required: ["b", "c"] }, { required: ["b"], maxProperties: 3 }] } }],
    ["not a and not b is not (a or b)", { given: [{ not: { required: ["a"] } }, { not: { required: ["b"] } }], want: { not: { anyOf: [{ required: ["a"] }, { required: ["b"] }] } } }],
    ["items of both parts conjoined", { given: [{ type: "array", items: { type: "string" } }, { items: { maxLength: 3 }, maxItems: 4 }], want: { type: "array", items: { type: "string", maxLength: 3 }, maxItems: 4 } }],
    ["a chain of allOf flattened", { given: [{ allOf: [{ allOf: [{ properties: { deep: { type: "string" } } }] }, { properties: { mid: { type: "string" } } }] }, { properties: { top: { type: "string" } } }], want: { properties: { deep: { type: "string" }, mid: { type: "string" }, top: { type: "string" } } } }],
  ] as const)("%s", (_name, { given, want }) => {
    const { x, conflicts } = mergeOne([...given]);
    expect(conflicts).toEqual([]);
    expect(x).toEqual(want);
  });

  it("keeps a single $ref with only annotations beside it as a ref (nothing to copy)", () => {
    const { x, conflicts } = mergeOne([{ $ref: "#/$defs/A" }], { A: { type: "object", properties: { a: { type: "string" } } } }, { description: "Here." });
    expect(conflicts).toEqual([]);
    expect(x).toEqual({ description: "Here.", $ref: "#/$defs/A" });
  });

  it("lets the node's own annotations win over its parts'", () => {
    const { x } = mergeOne([{ $ref: "#/$defs/A" }, { properties: { b: { type: "string" } } }], { A: { description: "A thing.", title: "A", properties: { a: { type: "string" } } } }, { description: "This use of it." });
    expect(x).toMatchObject({ description: "This use of it.", title: "A", properties: { a: { type: "string" }, b: { type: "string" } } });
  });

  it.each([
    ["incompatible types", [{ type: "string" }, { type: "integer" }], /types that cannot both hold/, { type: "string" }],
    ["enums with nothing in common", [{ enum: ["a"] }, { enum: ["b"] }], /enum values with none in common/, { enum: ["a"] }],
    ["different consts", [{ const: "a" }, { const: "b" }], /disagree on "const"/, { const: "a" }],
    ["two closures listing different properties", [{ properties: { a: {} }, additionalProperties: false }, { properties: { b: {} }, additionalProperties: false }], /close the object to different properties .* does not list (a|b)/, { properties: { a: {}, b: {} }, additionalProperties: false }],
    ["different patterns", [{ pattern: "^a" }, { pattern: "b$" }], /disagree on "pattern"/, { pattern: "^a" }],
    ["a part that is false", [false, { type: "string" }], /is `false`/, { type: "string" }],
  ] as const)("reports a conflict (%s), says what it kept, and never drops a property", (_name, given, message, kept) => {
    const { x, conflicts } = mergeOne([...given]);
    expect(conflicts.some((c) => message.test(c)), conflicts.join("\n")).toBe(true);
    expect(x).toEqual(kept);
  });

  it("refuses a conflicting merge unless lossy changes are allowed, naming it", () => {
    const conflicting = tool({ type: "object", properties: { x: { allOf: [{ properties: { a: { type: "string" } } }, { properties: { a: { type: "integer" } } }] } } });
    const error = thrown(() => fit([conflicting], profile("gemini")));
    expect(isSluiceError(error, "LOSSY_FIT_REFUSED")).toBe(true);
    expect((error as Error).message).toContain("update_thing: merge-all-of");
    expect((error as Error).message).toContain("types that cannot both hold");
    const allowed = fit([conflicting], profile("gemini"), { allowLossy: true, auditPaths: true });
    const lossy = allowed.changes.find((c) => c.action === "merge-all-of" && c.kind === "lossy")!;
    expect(lossy.pointers).toEqual(["/properties/x/properties/a"]);
    expect(pathSet(allowed.tools[0]!.inputSchema)).toEqual(new Set(["x", "x.a"]));
  });

  it("merges a $ref that has validation keywords beside it where the profile has no $ref (the inliner would write an allOf)", () => {
    const sibling = tool({ type: "object", properties: { x: { $ref: "#/$defs/A", properties: { extra: { type: "string" } }, required: ["extra"] } }, $defs: { A: { type: "object", properties: { a: { type: "string" } } } } });
    const result = fit([sibling], profile("gemini"), { auditPaths: true });
    expect(text(result.tools[0]!.inputSchema)).not.toContain("allOf");
    expect(pathSet(result.tools[0]!.inputSchema)).toEqual(new Set(["x", "x.a", "x.extra"]));
    expect(result.changes.find((c) => c.action === "merge-all-of")).toMatchObject({ kind: "lossless", pointers: ["/properties/x"] });
    expect(result.remaining).toEqual([]);
    expect(dishonest(result)).toEqual([]);
  });
});

// A allOf [B, ...], B allOf [A, ...]: what the parts say is A and B and their own keywords,
// once (a repeated conjunct adds nothing); validators that follow it never stop.
const allOfLoop = {
  type: "object",
  properties: { body: { $ref: "#/$defs/A" } },
  $defs: {
    A: { allOf: [{ $ref: "#/$defs/B" }, { type: "object", properties: { a: { type: "string" } } }] },
    B: { allOf: [{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "string" } } }] },
  },
} satisfies JsonSchemaObject;

// Mutually recursive unions: A anyOf [B, ...], B oneOf [A, ...].
const unionLoop = {
  type: "object",
  properties: { body: { $ref: "#/$defs/A" } },
  $defs: {
    A: { anyOf: [{ $ref: "#/$defs/B" }, { type: "object", properties: { a: { type: "string" } } }] },
    B: { oneOf: [{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "string" } } }] },
  },
} satisfies JsonSchemaObject;

// Two recursive types intersected: (A & B).next is A.next & B.next = (A & B) again.
const recursiveIntersection = {
  type: "object",
  properties: { body: { allOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/B" }] } },
  $defs: {
    A: { type: "object", properties: { a: { type: "string" }, next: { $ref: "#/$defs/A" } } },
    B: { type: "object", properties: { b: { type: "string" }, next: { $ref: "#/$defs/B" } } },
  },
} satisfies JsonSchemaObject;

describe("loops and recursion end with a result or a coded error", () => {
  it("merges an allOf loop into one bounded object, reporting the loop", () => {
    for (const id of ["gemini", "openai-strict"] as const) {
      const result = fit([tool(allOfLoop)], profile(id), { allowLossy: true, auditPaths: true });
      expect(pathSet(result.tools[0]!.inputSchema)).toEqual(new Set(["body", "body.a", "body.b"]));
      expect(text(result.tools[0]!.inputSchema)).not.toContain("allOf");
      const loop = result.changes.find((c) => c.message.startsWith("allOf loop through"))!;
      expect(loop.message).toContain("A, B");
      expect(dishonest(result)).toEqual([]);
    }
  });

  it("keeps a recursive intersection once, under a new definition, where refs are accepted", () => {
    const result = fit([tool(recursiveIntersection)], profile("openai-strict"), { allowLossy: true, auditPaths: true });
    const schema = result.tools[0]!.inputSchema;
    expect(text(schema)).not.toContain("allOf");
    expect(Object.keys(schema.$defs as object)).toEqual(["A_merged"]);
    expect(pathSet(schema)).toEqual(pathSet(recursiveIntersection));
    expect(result.changes.find((c) => c.message.includes("refers to itself"))?.message).toContain("allOf of A and B");
    expect(dishonest(result)).toEqual([]);
  });

  it("refuses it where the profile needs a bounded schema, naming what the new definition merges; unrolls it on request", () => {
    const error = thrown(() => fit([tool(recursiveIntersection)], profile("gemini"), { allowLossy: true }));
    expect(isSluiceError(error, "RECURSIVE_SCHEMA")).toBe(true);
    expect((error as Error).message).toContain("A_merged (the merged allOf of A and B)");
    const unrolled = fit([tool(recursiveIntersection)], profile("gemini"), { allowLossy: true, unroll: 1, auditPaths: true });
    expect(pathSet(unrolled.tools[0]!.inputSchema)).toEqual(new Set(["body", "body.a", "body.b", "body.next", "body.next.a", "body.next.b"]));
    // Unrolling is lossy, and its audit says which paths went.
    const unroll = unrolled.changes.find((c) => c.action === "unroll-cycle")!;
    expect(unroll.kind).toBe("lossy");
    expect(unroll.audit!.lost).toContain("body.next.next");
    expect(dishonest(unrolled)).toEqual([]);
  });

  it("names a projection that really removes a cycle left after merging an allOf loop (A allOf [B, {child: A}], B allOf [A])", () => {
    const loopWithChild = tool({
      type: "object",
      properties: { body: { $ref: "#/$defs/A" } },
      required: ["body"],
      $defs: {
        A: { allOf: [{ $ref: "#/$defs/B" }, { type: "object", properties: { a: { type: "string" }, child: { $ref: "#/$defs/A" } } }] },
        B: { allOf: [{ $ref: "#/$defs/A" }, { type: "object", properties: { b: { type: "string" } } }] },
      },
    });
    const error = thrown(() => fit([loopWithChild], profile("gemini"), { allowLossy: true }));
    expect(isSluiceError(error, "RECURSIVE_SCHEMA")).toBe(true);
    expect((error as { candidates: string[] }).candidates).toEqual(["A.child"]);
    const projected = fit([loopWithChild.derived({ drop: ["A.child"] })], profile("gemini"), { auditPaths: true });
    expect(pathSet(projected.tools[0]!.inputSchema)).toEqual(new Set(["body", "body.a", "body.b"]));
    const unrolled = fit([loopWithChild], profile("gemini"), { allowLossy: true, unroll: 1 });
    expect(pathSet(unrolled.tools[0]!.inputSchema)).toEqual(new Set(["body", "body.a", "body.b", "body.child", "body.child.a", "body.child.b"]));
  });

  it("refuses an allOf part that is the whole schema (\"$ref\": \"#\") with a code", () => {
    const error = thrown(() => fit([tool({ type: "object", properties: { x: { allOf: [{ $ref: "#" }, { properties: { a: {} } }] } } })], profile("gemini")));
    expect(isSluiceError(error)).toBe(true);
    expect((error as { code: string }).code).toMatch(/^(RECURSIVE_SCHEMA|INTERNAL_LIMIT)$/);
  });

  it.each([
    ["circular allOf", allOfLoop],
    ["mutually recursive unions", unionLoop],
    ["a recursive intersection", recursiveIntersection],
  ] as const)("%s: check and fit terminate under every profile, with a result or a coded error", (_name, shape) => {
    const subject = tool(shape);
    for (const id of PROFILE_IDS) {
      for (const options of [{}, { allowLossy: true }, { allowLossy: true, unroll: 2 }]) {
        for (const run of [() => check([subject], profile(id)), () => fit([subject], profile(id), options)]) {
          try {
            run();
          } catch (error) {
            expect(isSluiceError(error), `${id} ${JSON.stringify(options)}: ${String(error)}`).toBe(true);
          }
        }
      }
    }
  });

  it("merges a 20,000-level allOf chain without overflowing the stack", async () => {
    let chain: JsonSchemaObject = { properties: { leaf: { type: "string" } } };
    for (let i = 0; i < 20_000; i++) chain = { allOf: [chain, { properties: { [`p${i % 5}`]: { type: "string" } } }] };
    const deep = tool({ type: "object", properties: { body: chain } });
    for (const id of ["gemini", "openai-strict"] as const) {
      // Seconds per profile: vitest's RPC gets a turn between them.
      await new Promise((resolve) => setImmediate(resolve));
      const result = fit([deep], profile(id), { allowLossy: true });
      expect(pathSet(result.tools[0]!.inputSchema)).toEqual(new Set(["body", "body.leaf", "body.p0", "body.p1", "body.p2", "body.p3", "body.p4"]));
      const merge = result.changes.find((c) => c.action === "merge-all-of")!;
      expect(merge.pointers.length).toBeLessThanOrEqual(50);
      expect(merge.message).toContain("20000 places");
    }
  });
});

describe("PropertyPathSets: the semantic set fit's audit compares", () => {
  const sets = new PropertyPathSets();
  const of = (schema: JsonSchemaObject, depth?: number) => sets.of(schema, schema, depth);

  it("gives the same set however the schema is written (ref or inline, allOf or merged)", () => {
    const viaRef = { type: "object", properties: { a: { $ref: "#/$defs/T" } }, $defs: { T: { properties: { b: { type: "string" } } } } };
    const inline = { type: "object", properties: { a: { properties: { b: { type: "string" } } } } };
    const viaAllOf = { type: "object", properties: { a: { allOf: [{ properties: { b: {} } }] } } };
    expect(of(viaRef)).toBe(of(inline));
    expect(of(viaAllOf)).toBe(of(inline));
    expect(sets.count(of(inline))).toBe(2);
  });

  it("tells a lost path from a kept one", () => {
    const before = of({ properties: { body: { allOf: [{ properties: { name: {} } }, { properties: { due: { properties: { on: {} } } } }] } } });
    const after = of({ properties: { body: {} } });
    expect(sets.missing(before, after)).toEqual(["body.due", "body.name"]);
    expect(sets.missing(after, before)).toEqual([]);
  });

  it("bounds recursion by depth and walks a loop that adds no segment once", () => {
    const recursive = of(recursiveIntersection, 3);
    expect(sets.count(recursive)).toBe(1 + 3 + 3); // body; body.{a,b,next}; body.next.{a,b,next}
    expect(sets.count(of(allOfLoop))).toBe(3); // body, body.a, body.b
    expect(sets.missing(of(allOfLoop), sets.of(allOfLoop, allOfLoop, 0))).toEqual(["body"]);
  });
});
