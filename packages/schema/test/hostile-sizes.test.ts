import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  cloneJson,
  collectGarbage,
  cyclicComponents,
  deepFreeze,
  limitError,
  reachable,
  refGraph,
  refsFrom,
  resolvedDepth,
  SluiceError,
  walkSchema,
  withinLimits,
  type JsonSchemaObject,
} from "../src/index.ts";

/** Recurses until the stack overflows: the RangeError a deep enough schema caused before. */
function overflow(n: number): number {
  return n + overflow(n + 1);
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("withinLimits: a RangeError escaping an operation becomes INTERNAL_LIMIT naming it", () => {
  it.each<[string, () => unknown, RegExp]>([
    ["a stack overflow", () => overflow(0), /^derived\(\) of issues_list: the schema or the arguments nest past what this operation handles/],
    ["an invalid array length", () => new Array(-1), /^derived\(\) of issues_list: the input is larger than this operation handles/],
    ["too many arguments in a call", () => Math.max(...new Array<number>(2_000_000).fill(0)), /^derived\(\) of issues_list: /],
  ])("%s", (_, run, message) => {
    const error = thrown(() => withinLimits("derived() of issues_list", run));
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).code).toBe("INTERNAL_LIMIT");
    expect((error as SluiceError).message).toMatch(message);
    expect((error as SluiceError).cause).toBeInstanceOf(RangeError);
  });

  it("follows a promise: a rejection with a RangeError is converted too", async () => {
    const rejected = withinLimits("paths() of make", async () => overflow(0));
    await expect(rejected).rejects.toMatchObject({ code: "INTERNAL_LIMIT", message: expect.stringMatching(/^paths\(\) of make: /) });
  });

  it("passes results, SluiceErrors and other errors through unchanged", async () => {
    expect(withinLimits("op", () => 42)).toBe(42);
    await expect(withinLimits("op", async () => "done")).resolves.toBe("done");
    const coded = new SluiceError("UNKNOWN_SELECTOR", "no such path");
    expect(thrown(() => withinLimits("op", () => { throw coded; }))).toBe(coded);
    const typeError = new TypeError("not a function");
    expect(thrown(() => withinLimits("op", () => { throw typeError; }))).toBe(typeError);
    await expect(withinLimits("op", () => Promise.reject(coded))).rejects.toBe(coded);
  });

  it("limitError leaves anything but a RangeError as it is", () => {
    const other = new Error("x");
    expect(limitError("op", other)).toBe(other);
    expect(limitError("op", "text")).toBe("text");
    expect(limitError("op", new RangeError("Invalid string length"))).toMatchObject({ code: "INTERNAL_LIMIT" });
  });
});

const LEVELS = 20_000;

/** Defs D0 -> D1 -> ... -> D(n-1), each a property `next` referring to the following one; the last refers to D0 when `cyclic`. */
function refChain(n: number, cyclic: boolean): JsonSchemaObject {
  const defs: Record<string, JsonSchemaObject> = {};
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? `D${i + 1}` : cyclic ? "D0" : undefined;
    defs[`D${i}`] = { type: "object", properties: next === undefined ? { v: { type: "string" } } : { next: { $ref: `#/$defs/${next}` }, v: { type: "string" } } };
  }
  return { type: "object", properties: { start: { $ref: "#/$defs/D0" } }, $defs: defs };
}

describe(`a ${LEVELS.toLocaleString("en")}-definition $ref chain`, () => {
  const chain = refChain(LEVELS, false);

  it("refGraph and reachable follow every link", () => {
    const graph = refGraph(chain);
    expect(graph.get("D0")).toEqual(["D1"]);
    expect(reachable(graph).size).toBe(LEVELS + 1);
  });

  it("resolvedDepth measures it without recursion: the root, one level per definition, the last one's `v`", () => {
    // A ref node stands for its target: D(i) is one level above D(i+1); the last is an object above `v`.
    expect(resolvedDepth(chain)).toBe(LEVELS + 2);
  });

  it("closed into a cycle, it is one strongly connected component and its depth is unbounded", () => {
    const cycle = refChain(LEVELS, true);
    const components = cyclicComponents(refGraph(cycle));
    expect(components).toHaveLength(1);
    expect(components[0]).toHaveLength(LEVELS);
    expect(resolvedDepth(cycle)).toBe(Infinity);
  });

  it("collectGarbage keeps the whole chain and drops what it does not reach", () => {
    const withStray = { ...chain, $defs: { ...(chain.$defs as object), Stray: { type: "string" } } };
    expect(Object.keys(collectGarbage(withStray).$defs as object)).toHaveLength(LEVELS);
  });
});

describe("1,000,000 enum values and 200,000 properties", () => {
  const values = Array.from({ length: 1_000_000 }, (_, i) => `v${i}`);

  it("canonicalJson and cloneJson keep every value, in order", () => {
    const schema = { type: "string", enum: values };
    const text = canonicalJson(schema);
    expect(text.startsWith('{"enum":["v0","v1",')).toBe(true);
    expect(text.endsWith('"v999999"],"type":"string"}')).toBe(true);
    const copy = cloneJson(schema);
    expect(copy.enum).toHaveLength(values.length);
    expect(copy.enum[999_999]).toBe("v999999");
    expect(Object.isFrozen(deepFreeze(copy).enum)).toBe(true);
  });

  it("walkSchema and refsFrom handle a node with 200,000 properties, each a distinct ref", () => {
    const properties: Record<string, JsonSchemaObject> = {};
    for (let i = 0; i < 200_000; i++) properties[`p${i}`] = { $ref: `#/$defs/T${i}` };
    const wide = { type: "object", properties };
    let visited = 0;
    walkSchema(wide, () => void visited++);
    expect(visited).toBe(200_001);
    expect(refsFrom(wide, "", true)).toHaveLength(200_000);
  });
});
