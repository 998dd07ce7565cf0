/**
 * The snapshot lock (diffSnapshot / diffBlocks), seeded fast-check:
 *  - identical snapshots (and a snapshot through its own text) give no diff;
 *  - an edit known to widen (a new property, a required member dropped, an enum value added
 *    or the enum removed, a bound relaxed, a pattern removed, an object opened, a type added)
 *    at a random place is always reported, at its pointer, and blocks;
 *  - soundness against a validator that is not sluice's (Ajv, 2020-12): for random edits of
 *    any kind that the diff calls not wider, no random instance is accepted by the live
 *    schema and refused by the committed one;
 *  - the same with the 2020-12 keywords that widen through evaluation: a branch added to
 *    anyOf / allOf / dependentSchemas / if-then beside `unevaluatedProperties: false`, a
 *    `contains` added or widened beside `unevaluatedItems: false`, is reported there; and the
 *    Ajv soundness property over schemas built with them and instances built near each one;
 *  - with the guard `mcpSnapshotLock` off, a widening no longer blocks (the mutation check).
 *
 * Quick tier: 150 runs per property (40 for soundness); `pnpm test:long` (support/tier.ts) runs 3,000.
 * SLUICE_FUZZ_SEED replays a seed.
 */
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { diffBlocks, diffSnapshot, formatSnapshot, makeSnapshot, parseSnapshot } from "@sluice/mcp-client";
import { LONG } from "./support/tier.ts";

const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_201);
const RUNS = LONG ? 3_000 : 150;
// Each run compiles two schemas with Ajv: fewer in the quick tier.
const SOUND_RUNS = LONG ? 3_000 : 40;

type Schema = Record<string, unknown>;
type Validate = (data: unknown) => boolean;
const require = createRequire(import.meta.url);
const { default: Ajv2020 } = require("ajv/dist/2020") as { default: new (options: object) => { compile: (schema: unknown) => Validate } };
const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false });

const names = fc.constantFrom("a", "b", "c", "d");
const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.record({ type: fc.constant("string"), maxLength: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ["type"] }),
  fc.record({ type: fc.constant("string"), pattern: fc.constantFrom("^a", "b$", "^[ab]*$") }),
  fc.record({ type: fc.constant("integer"), minimum: fc.integer({ min: -2, max: 0 }), maximum: fc.integer({ min: 1, max: 3 }) }, { requiredKeys: ["type"] }),
  fc.record({ enum: fc.uniqueArray(fc.constantFrom("x", "y", "z", 1, 2, true, null), { minLength: 1, maxLength: 3 }) }),
  fc.constant<Schema>({ type: "boolean" }),
);
const object: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema; obj: Schema }>((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("obj"), fc.record({ type: fc.constant("array"), items: tie("node"), maxItems: fc.integer({ min: 1, max: 3 }) })),
  obj: fc
    .dictionary(names, tie("node"), { minKeys: 1, maxKeys: 3 })
    .chain((properties) =>
      fc.record({
        type: fc.constant("object"),
        properties: fc.constant(properties),
        required: fc.subarray(Object.keys(properties)),
        additionalProperties: fc.constant(false),
      }),
    ),
})).obj;

/**
 * Schemas with the 2020-12 keywords that widen through what they let others evaluate: an
 * object closed by `unevaluatedProperties: false` beside `anyOf` / `allOf` /
 * `dependentSchemas` branches that name properties, and a tuple closed by
 * `unevaluatedItems: false` beside `prefixItems` and `contains`.
 */
const branch: fc.Arbitrary<Schema> = fc.dictionary(names, leaf, { minKeys: 1, maxKeys: 2 }).map((properties) => ({ properties }));
const tuple: fc.Arbitrary<Schema> = fc.record(
  { type: fc.constant("array"), prefixItems: fc.array(leaf, { minLength: 1, maxLength: 2 }), unevaluatedItems: fc.constant(false), contains: leaf },
  { requiredKeys: ["type", "prefixItems", "unevaluatedItems"] },
);
const evaluating: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema; obj: Schema }>((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("obj"), tuple),
  obj: fc.dictionary(names, tie("node"), { minKeys: 1, maxKeys: 2 }).chain((properties) =>
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.constant(properties),
        required: fc.subarray(Object.keys(properties)),
        unevaluatedProperties: fc.constant(false),
        anyOf: fc.array(branch, { minLength: 1, maxLength: 2 }),
        allOf: fc.array(branch, { minLength: 1, maxLength: 2 }),
        dependentSchemas: fc.dictionary(names, branch, { minKeys: 1, maxKeys: 1 }),
      },
      { requiredKeys: ["type", "properties", "required", "unevaluatedProperties"] },
    ),
  ),
})).obj;

/** Every subschema of a generated schema, in-place applicators and item keywords included. */
function everyLocation(schema: Schema): Schema[] {
  const out = [schema];
  const children: unknown[] = [
    ...Object.values((schema["properties"] as Record<string, Schema> | undefined) ?? {}),
    ...Object.values((schema["dependentSchemas"] as Record<string, Schema> | undefined) ?? {}),
    ...((schema["anyOf"] as Schema[] | undefined) ?? []),
    ...((schema["allOf"] as Schema[] | undefined) ?? []),
    ...((schema["prefixItems"] as Schema[] | undefined) ?? []),
    schema["items"],
    schema["contains"],
  ];
  for (const child of children) if (typeof child === "object" && child !== null) out.push(...everyLocation(child as Schema));
  return out;
}

/** Edits of the evaluating keywords, widening or not (each alone is a new constraint or an unproven change). */
const EVALUATION_EDITS: Record<string, (node: Schema) => void> = {
  addAnyOfBranch: (node) => node["type"] === "object" && ((node["anyOf"] = [...((node["anyOf"] as Schema[]) ?? []), { properties: { zz: {} } }])),
  addAllOfMember: (node) => node["type"] === "object" && ((node["allOf"] = [...((node["allOf"] as Schema[]) ?? []), { properties: { zz: { type: "string" } } }])),
  addDependentSchema: (node) => node["type"] === "object" && ((node["dependentSchemas"] = { ...((node["dependentSchemas"] as Schema) ?? {}), a: { properties: { zz: {} } } })),
  addPatternBranch: (node) => node["type"] === "object" && ((node["anyOf"] = [{ patternProperties: { "^z": {} } }])),
  addIfThen: (node) => node["type"] === "object" && ((node["if"] = { required: ["a"] }), (node["then"] = { properties: { zz: {} } })),
  addContains: (node) => node["type"] === "array" && ((node["contains"] = { type: "string" })),
  widenContains: (node) => typeof node["contains"] === "object" && ((node["contains"] = {})),
  minContainsZero: (node) => typeof node["contains"] === "object" && ((node["minContains"] = 0)),
  addPrefixItem: (node) => Array.isArray(node["prefixItems"]) && (node["prefixItems"] as Schema[]).push({}),
  dropPrefixItem: (node) => Array.isArray(node["prefixItems"]) && (node["prefixItems"] as Schema[]).length > 1 && (node["prefixItems"] as Schema[]).pop(),
  openUnevaluated: (node) => node["unevaluatedProperties"] === false && ((node["unevaluatedProperties"] = { type: "string" })),
  removeUnevaluatedItems: (node) => node["unevaluatedItems"] === false && delete node["unevaluatedItems"],
  dropBranch: (node) => Array.isArray(node["anyOf"]) && (node["anyOf"] as Schema[]).length > 1 && (node["anyOf"] as Schema[]).pop(),
};

/**
 * Instances built from a schema that it (nearly) accepts, then varied one place at a time
 * (an extra property `zz` or one a branch names, an extra item): the values where an
 * evaluation widening shows, which random instances almost never hit.
 */
function near(schema: unknown, depth = 0): unknown[] {
  if (typeof schema !== "object" || schema === null || depth > 4) return [1];
  const s = schema as Schema;
  if (Array.isArray(s["enum"])) return (s["enum"] as unknown[]).slice(0, 2);
  // "ab" meets every pattern generated (^a, b$, ^[ab]*$); "a" every maxLength.
  if (s["type"] === "string") return typeof s["pattern"] === "string" ? ["ab", "a"] : ["a", "ab"];
  if (s["type"] === "integer") return [0, 1];
  if (s["type"] === "boolean") return [true];
  if (s["type"] === "array") {
    const prefix = ((s["prefixItems"] as unknown[] | undefined) ?? []).map((item) => near(item, depth + 1)[0]);
    return [prefix, [...prefix, 1], [...prefix, "a"], [...prefix, 1, "ab"], []];
  }
  if (s["type"] !== "object") return [1];
  const properties = (s["properties"] as Record<string, unknown> | undefined) ?? {};
  const base: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(properties)) base[name] = near(child, depth + 1)[0];
  const out: unknown[] = [base];
  for (const [name, child] of Object.entries(properties)) for (const other of near(child, depth + 1).slice(1)) out.push({ ...base, [name]: other });
  const named = new Set(["zz", "zq", "a", "b", "c", "d"]);
  for (const extra of named) for (const value of [1, "a"]) out.push({ ...base, [extra]: value });
  return out;
}

/** Every schema location of a generated schema, as a JSON pointer and the node. */
function locations(schema: Schema, pointer = ""): Array<{ pointer: string; node: Schema }> {
  const out = [{ pointer, node: schema }];
  for (const [name, child] of Object.entries((schema["properties"] as Record<string, Schema> | undefined) ?? {})) out.push(...locations(child, `${pointer}/properties/${name}`));
  if (typeof schema["items"] === "object") out.push(...locations(schema["items"] as Schema, `${pointer}/items`));
  return out;
}

/** Edits that accept more; each returns the pointer it widened at, or undefined where it does not apply. */
const WIDENINGS: Record<string, (node: Schema, at: string) => string | undefined> = {
  newProperty: (node, at) => (node["type"] === "object" ? ((node["properties"] as Schema)["zz"] = { type: "string" }, `${at}/properties/zz`) : undefined),
  dropRequired: (node, at) => {
    const required = node["required"] as string[] | undefined;
    if (required === undefined || required.length === 0) return undefined;
    const name = required.pop()!;
    return `${at}/required/${name}`;
  },
  addEnumValue: (node, at) => (Array.isArray(node["enum"]) ? ((node["enum"] as unknown[]).push("new-value"), `${at}/enum`) : undefined),
  removeEnum: (node, at) => (Array.isArray(node["enum"]) ? (delete node["enum"], `${at}/enum`) : undefined),
  raiseMax: (node, at) => {
    for (const key of ["maxLength", "maximum", "maxItems"]) if (typeof node[key] === "number") return (node[key] = (node[key] as number) + 10), `${at}/${key}`;
    return undefined;
  },
  lowerMin: (node, at) => (typeof node["minimum"] === "number" ? ((node["minimum"] = (node["minimum"] as number) - 10), `${at}/minimum`) : undefined),
  removePattern: (node, at) => (typeof node["pattern"] === "string" ? (delete node["pattern"], `${at}/pattern`) : undefined),
  openObject: (node, at) => (node["additionalProperties"] === false ? (delete node["additionalProperties"], `${at}/additionalProperties`) : undefined),
  addType: (node, at) => (typeof node["type"] === "string" && node["type"] !== "object" ? ((node["type"] = [node["type"], "null"]), `${at}/type`) : undefined),
};

/** Any edit, widening or not: what the soundness property feeds the diff. */
const ANY_EDITS: Record<string, (node: Schema) => void> = {
  ...Object.fromEntries(Object.entries(WIDENINGS).map(([name, edit]) => [name, (node: Schema) => void edit(node, "")])),
  addRequired: (node) => {
    const props = Object.keys((node["properties"] as Schema | undefined) ?? {});
    if (props.length > 0) node["required"] = [...new Set([...((node["required"] as string[]) ?? []), props[0]!])];
  },
  lowerMax: (node) => {
    for (const key of ["maxLength", "maximum", "maxItems"]) if (typeof node[key] === "number" && (node[key] as number) > 1) node[key] = (node[key] as number) - 1;
  },
  removeEnumValue: (node) => Array.isArray(node["enum"]) && (node["enum"] as unknown[]).length > 1 && (node["enum"] as unknown[]).pop(),
  addPattern: (node) => node["type"] === "string" && (node["pattern"] = "^x"),
  removeProperty: (node) => {
    const props = (node["properties"] as Schema | undefined) ?? {};
    const first = Object.keys(props)[0];
    if (first !== undefined) {
      delete props[first];
      if (Array.isArray(node["required"])) node["required"] = (node["required"] as string[]).filter((name) => name !== first);
    }
  },
  retype: (node) => node["type"] === "integer" && (node["type"] = "number"),
  description: (node) => (node["description"] = "changed"),
};

// Long sweeps give vitest's worker RPC a turn now and then.
let turns = 0;
const breathe = () => (++turns % 25 === 0 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve());

const snapshotOf = (inputSchema: Schema) => makeSnapshot({ name: "s", version: "1" }, "2025-06-18", [{ name: "t", description: "d", inputSchema }]);

/** Instances near the schemas: scalars, and objects / arrays of them over the names used. */
const scalar = fc.constantFrom<unknown>(null, true, false, 0, 1, 2, 3, 5, 13, -5, -12, 2.5, "", "a", "ab", "b", "x", "y", "z", "new-value", "aaaaaaaaaaaa");
const instance: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: "small" }, scalar, fc.dictionary(fc.constantFrom("a", "b", "c", "d", "zz", "zq"), tie("v"), { maxKeys: 4 }), fc.array(tie("v"), { maxLength: 4 })),
})).v;

describe("diffSnapshot as a lock", () => {
  it("identical snapshots, and a snapshot through its own text, give no diff", async () => {
    await fc.assert(
      fc.asyncProperty(object, async (schema) => {
        await breathe();
        const committed = snapshotOf(schema);
        const same = diffSnapshot(committed, snapshotOf(structuredClone(schema)));
        const reread = diffSnapshot(committed, parseSnapshot(formatSnapshot(committed)));
        for (const diff of [same, reread]) expect(diff).toEqual({ added: [], removed: [], changed: [] });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("every edit known to widen is reported at its pointer and blocks", async () => {
    const edits = Object.keys(WIDENINGS);
    await fc.assert(
      fc.asyncProperty(object, fc.nat(), fc.constantFrom(...edits), async (schema, pick, edit) => {
        await breathe();
        const live = structuredClone(schema);
        const places = locations(live);
        const place = places[pick % places.length]!;
        const pointer = WIDENINGS[edit]!(place.node, `/inputSchema${place.pointer}`);
        fc.pre(pointer !== undefined);
        const diff = diffSnapshot(snapshotOf(schema), snapshotOf(live));
        expect(diff.changed[0]?.widenings).toContain(pointer);
        expect(diffBlocks(diff)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("is sound: where it finds nothing wider, the live schema accepts nothing the committed one refuses (Ajv)", async () => {
    const edits = Object.keys(ANY_EDITS);
    await fc.assert(
      fc.asyncProperty(object, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...edits)), { minLength: 1, maxLength: 3 }), fc.array(instance, { minLength: 20, maxLength: 20 }), async (schema, changes, instances) => {
        await breathe();
        const live = structuredClone(schema);
        for (const [pick, edit] of changes) {
          const places = locations(live);
          ANY_EDITS[edit]!(places[pick % places.length]!.node);
        }
        const diff = diffSnapshot(snapshotOf(schema), snapshotOf(live));
        if ((diff.changed[0]?.widenings.length ?? 0) > 0) return;
        const before = ajv.compile(schema);
        const after = ajv.compile(live);
        for (const value of instances) if (after(value)) expect(before(value), JSON.stringify({ schema, live, value })).toBe(true);
      }),
      { seed: SEED, numRuns: SOUND_RUNS },
    );
  });

  it("every branch, dependent schema or contains added (or widened) beside unevaluated* is reported there and blocks", async () => {
    // [edit, what it applies to, the keyword the widening is reported at]
    const evaluationWidenings: Array<[string, (node: Schema) => boolean, string]> = [
      ["addAnyOfBranch", (node) => node["unevaluatedProperties"] === false, "unevaluatedProperties"],
      ["addAllOfMember", (node) => node["unevaluatedProperties"] === false, "unevaluatedProperties"],
      ["addDependentSchema", (node) => node["unevaluatedProperties"] === false, "unevaluatedProperties"],
      ["addIfThen", (node) => node["unevaluatedProperties"] === false && !("if" in node), "unevaluatedProperties"],
      ["addContains", (node) => node["unevaluatedItems"] === false && !("contains" in node), "unevaluatedItems"],
      ["widenContains", (node) => node["unevaluatedItems"] === false && typeof node["contains"] === "object" && Object.keys(node["contains"] as Schema).length > 0, "unevaluatedItems"],
    ];
    await fc.assert(
      fc.asyncProperty(evaluating, fc.nat(), fc.constantFrom(...evaluationWidenings), async (schema, pick, [edit, applies, keyword]) => {
        await breathe();
        const live = structuredClone(schema);
        const places = locations(live).filter(({ node }) => applies(node));
        fc.pre(places.length > 0);
        const place = places[pick % places.length]!;
        EVALUATION_EDITS[edit]!(place.node);
        const diff = diffSnapshot(snapshotOf(schema), snapshotOf(live));
        expect(diff.changed[0]?.widenings).toContain(`/inputSchema${place.pointer}/${keyword}`);
        expect(diffBlocks(diff)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("is sound for unevaluatedProperties / unevaluatedItems beside anyOf, allOf, dependentSchemas, if/then, prefixItems and contains (Ajv)", async () => {
    const edits = { ...ANY_EDITS, ...EVALUATION_EDITS };
    const names = Object.keys(edits);
    const bias = Object.keys(EVALUATION_EDITS);
    // Edits the diff may prove narrower, inside branches too: the runs that test soundness.
    const narrowing = ["addRequired", "lowerMax", "removeEnumValue", "addPattern", "description", "dropPrefixItem"];
    // Runs that reach Ajv (the diff found nothing wider): a property where every run stops
    // at the diff would prove nothing.
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(evaluating, fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...narrowing), fc.constantFrom(...narrowing), fc.constantFrom(...bias), fc.constantFrom(...names))), { minLength: 1, maxLength: 3 }), fc.array(instance, { minLength: 30, maxLength: 30 }), async (schema, changes, instances) => {
        await breathe();
        const live = structuredClone(schema);
        for (const [pick, edit] of changes) {
          // The first place, from the picked one on, where the edit does something.
          const places = everyLocation(live);
          for (let i = 0; i < places.length; i++) {
            const place = places[(pick + i) % places.length]!;
            const was = JSON.stringify(place);
            edits[edit]!(place);
            if (JSON.stringify(place) !== was) break;
          }
        }
        const diff = diffSnapshot(snapshotOf(schema), snapshotOf(live));
        if ((diff.changed[0]?.widenings.length ?? 0) > 0) return;
        checked += 1;
        const before = ajv.compile(schema);
        const after = ajv.compile(live);
        for (const value of [...near(live), ...instances]) if (after(value)) expect(before(value), JSON.stringify({ schema, live, value })).toBe(true);
      }),
      { seed: SEED, numRuns: SOUND_RUNS },
    );
    expect(checked).toBeGreaterThan(SOUND_RUNS / 10);
  });

  it("with the mcpSnapshotLock guard off, a widening no longer blocks (this test fails without the guard)", async () => {
    const committed = snapshotOf({ type: "object", properties: { mode: { enum: ["read"] } }, additionalProperties: false });
    const widened = snapshotOf({ type: "object", properties: { mode: { enum: ["read", "write"] } }, additionalProperties: false });
    const diff = diffSnapshot(committed, widened);
    expect(diffBlocks(diff)).toBe(true);
    expect(await withoutGuard("mcpSnapshotLock", () => diffBlocks(diff))).toBe(false);
  });
});
