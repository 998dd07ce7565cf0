/**
 * Projections never widen (DESIGN.md, "Never wider, by proof"), edit by edit: what the
 * parent refuses stays refused for a oneOf branch drop, a keep beside
 * `patternProperties` / `additionalProperties`, and pins. The runtime guards
 * (`parentCheck`, `pinScreening`) each get a case that fails when they are switched off.
 */
import { describe, expect, it } from "vitest";
import { Tool, type JsonSchemaObject } from "@sluice/core";
import { guards, withoutGuard } from "@sluice/core/guards";
import { errorOf } from "../../../../test/support/error-of.ts";

const binding = { kind: "graphql", operationType: "query", field: "f", document: "query F { f }", variables: {} } as const;

function tool(inputSchema: JsonSchemaObject, name = "parent"): Tool {
  return Tool.create({ name, description: "test tool", inputSchema, binding });
}

const accepts = (t: Tool, args: unknown) => t.check(args).length === 0;

describe("dropping a oneOf branch", () => {
  // 3 matches both branches, so the parent refuses it; without branch 1 it matches one.
  const parent = tool({ type: "object", properties: { v: { oneOf: [{ type: "integer" }, { minimum: 2 }] } } });
  const child = parent.derived({ name: "child", drop: ["v.oneOf[1]"] });

  it("keeps the shown schema small: the branch is gone, not repeated as a `not`", () => {
    expect(child.inputSchema).toEqual({ type: "object", properties: { v: { oneOf: [{ type: "integer" }] } } });
  });

  it("refuses what the parent refused, through check(), request() and the issue list", async () => {
    expect(accepts(parent, { v: 3 })).toBe(false);
    expect(child.check({ v: 3 })).toEqual([{ code: "oneOf", path: "/v", message: "must match exactly one schema in oneOf (refused by parent, which this tool narrows)" }]);
    await expect(child.request({ v: 3 })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(accepts(child, { v: 1 })).toBe(true);
    expect(accepts(child, { v: 1.5 })).toBe(false);
  });

  it("admits 3 when parentCheck is off: the guard is what refuses it", async () => {
    expect(await withoutGuard("parentCheck", () => accepts(child, { v: 3 }))).toBe(true);
    expect(guards.parentCheck).toBe(true);
  });

  it("holds along a chain: a grandchild is checked against every ancestor", () => {
    const grandchild = child.derived({ name: "grandchild", description: "renamed only" }).derived({ name: "grandchild2", pin: { v: 1 } });
    // A derive that only renames keeps the schema, so it answers to the same ancestor as `child`.
    expect(grandchild.derivedFrom?.derivedFrom?.name).toBe("parent");
    expect(accepts(grandchild, {})).toBe(true);
    expect(errorOf(() => child.derived({ pin: { v: 3 } })).code).toBe("PIN_INVALID");
  });
});

describe("keep beside patternProperties and additionalProperties", () => {
  const cases: Array<[string, { schema: JsonSchemaObject; keep: string[]; refused: unknown; accepted: unknown }]> = [
    [
      "a pattern that also matched the kept member",
      {
        schema: { type: "object", properties: { v: { type: "object", properties: { foo: {}, bar: {} }, patternProperties: { "^f": { type: "integer" } } } } },
        keep: ["v.foo"],
        refused: { v: { foo: "x" } },
        accepted: { v: { foo: 1 } },
      },
    ],
    [
      "a pattern beside a declared, typed member (both apply)",
      {
        schema: { type: "object", properties: { v: { type: "object", properties: { foo: { type: "integer" }, bar: {} }, patternProperties: { "o$": { minimum: 10 } } } } },
        keep: ["v.foo"],
        refused: { v: { foo: 3 } },
        accepted: { v: { foo: 12 } },
      },
    ],
    [
      "an additionalProperties schema in a branch that does not declare the member",
      {
        schema: {
          type: "object",
          properties: {
            v: { anyOf: [{ properties: { foo: { type: "string", maxLength: 2 }, bar: {} }, additionalProperties: false }, { additionalProperties: { type: "string", minLength: 5 } }] },
          },
        },
        keep: ["v.foo"],
        refused: { v: { foo: "abc" } },
        accepted: { v: { foo: "ab" } },
      },
    ],
  ];

  it.each(cases)("%s: the projection alone (parentCheck off) refuses what the parent refused", async (_name, { schema, keep, refused, accepted }) => {
    const parent = tool(schema);
    const child = parent.derived({ keep });
    expect(accepts(parent, refused)).toBe(false);
    await withoutGuard("parentCheck", () => {
      expect(child.check(refused)).not.toEqual([]);
      expect(child.check(accepted)).toEqual([]);
    });
    expect(accepts(parent, accepted)).toBe(true);
  });

  it("does not invite the non-kept pattern keys", () => {
    const child = tool(cases[0]![1].schema).derived({ keep: ["v.foo"] });
    expect(child.inputSchema).toEqual({ type: "object", properties: { v: { type: "object", properties: { foo: { type: "integer" } } } } });
    expect(child.check({ v: { foo: 1, fizz: 2 } }).map((issue) => issue.path)).toEqual(["/v/fizz"]);
  });

  it("keeps propertyNames, dependentSchemas and dependentRequired beside the kept members", async () => {
    const parent = tool({
      type: "object",
      properties: {
        v: {
          type: "object",
          properties: { foo: { type: "string" }, bar: { type: "string" }, baz: {} },
          propertyNames: { maxLength: 3 },
          dependentSchemas: { foo: { properties: { bar: { minLength: 2 } } } },
          dependentRequired: { bar: ["foo"] },
        },
      },
    });
    const child = parent.derived({ keep: ["v.foo", "v.bar"] });
    await withoutGuard("parentCheck", () => {
      expect(accepts(child, { v: { foo: "a", bar: "x" } })).toBe(false); // dependentSchemas
      expect(accepts(child, { v: { bar: "xy" } })).toBe(false); // dependentRequired
      expect(accepts(child, { v: { foo: "a", bar: "xy" } })).toBe(true);
    });
  });
});

describe("pins are screened as a call carrying them would be", () => {
  const schema: JsonSchemaObject = {
    type: "object",
    properties: {
      nothing: false,
      free: { type: "object" },
      closed: { type: "object", properties: { x: { type: "integer" } } },
      count: { type: "integer", minimum: 1 },
      filter: { type: "object", properties: { secret: { type: "string" }, name: { type: "string" } } },
    },
    required: ["count"],
  };
  const parent = tool(schema);
  const narrowed = parent.derived({ name: "narrowed", drop: ["filter.secret"] });

  const refusedPins: Array<[string, { from: Tool; pin: Record<string, unknown>; why: RegExp; callRefused: boolean }]> = [
    ["an argument whose schema is false", { from: parent, pin: { nothing: 1 }, why: /schema is `false`/, callRefused: true }],
    ["an own __proto__ key inside the value", { from: parent, pin: JSON.parse('{"free": {"__proto__": {"isAdmin": true}}}') as Record<string, unknown>, why: /\/free\/__proto__: an own "__proto__" key/, callRefused: true }],
    ["a key a closed object does not declare (Ajv alone accepts it)", { from: parent, pin: { closed: { x: 1, y: 2 } }, why: /\/closed\/y: "y" is not a field/, callRefused: true }],
    ["a path the parent withholds", { from: narrowed, pin: { filter: { secret: "s" } }, why: /\/filter\/secret: "secret" is withheld/, callRefused: true }],
  ];

  it("a value the argument's schema refuses is PIN_INVALID, as before", () => {
    expect(errorOf(() => parent.derived({ pin: { count: 0 } })).message).toMatch(/must be >= 1/);
  });

  it.each(refusedPins)("%s: PIN_INVALID at derive time, naming why", (_name, { from, pin, why }) => {
    const error = errorOf(() => from.derived({ name: "pinned", pin }));
    expect(error.code).toBe("PIN_INVALID");
    expect(error.message).toMatch(why);
  });

  it.each(refusedPins.filter(([name]) => name !== "an argument whose schema is false"))(
    "%s: with pinScreening off the derive passes, and only the parent check stands between the pin and the wire",
    async (_name, { from, pin, callRefused }) => {
      const pinned = await withoutGuard("pinScreening", () => from.derived({ name: "pinned", pin }));
      const args = Object.hasOwn(pin, "count") ? {} : { count: 2 };
      expect(accepts(pinned, args)).toBe(!callRefused);
      if (callRefused) expect(await withoutGuard("parentCheck", () => accepts(pinned, args))).toBe(true);
      expect(guards.pinScreening && guards.parentCheck).toBe(true);
    },
  );

  it("accepts a pin a call would accept, while the call still needs its other required arguments", () => {
    const pinned = narrowed.derived({ name: "pinned", pin: { filter: { name: "n" }, closed: { x: 3 } } });
    expect(pinned.check({})).toEqual([{ code: "required", path: "/count", message: "is required" }]);
    expect(pinned.check({ count: 1 })).toEqual([]);
  });

  it("a root-level constraint that joins a pin to other arguments is checked at call time", () => {
    const joined = tool({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      dependentRequired: { a: ["b"] },
    });
    const pinned = joined.derived({ name: "pinned", pin: { a: "x" } });
    // The projection's own schema says it (a pinned `a` is always sent, so `b` is required);
    // the parent check, which carries the pin, says the same.
    expect(pinned.inputSchema.required).toEqual(["b"]);
    expect(pinned.check({}).map((issue) => issue.code)).toEqual(["required"]);
    expect(pinned.check({ b: "y" })).toEqual([]);
  });
});
