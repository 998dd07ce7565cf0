/**
 * The snapshot lock (diffSnapshot / diffBlocks), seeded fast-check:
 *  - identical snapshots (and a snapshot through its own text) give no diff;
 *  - an edit known to widen (a new property, a required member dropped, an enum value added
 *    or the enum removed, a bound relaxed, a pattern removed, an object opened, a type added)
 *    at a random place is always reported, at its pointer, and blocks;
 *  - soundness against a validator that is not sluice's (Ajv, 2020-12): for random edits of
 *    any kind that the diff calls not wider, no random instance is accepted by the live
 *    schema and refused by the committed one;
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
  v: fc.oneof({ depthSize: "small" }, scalar, fc.dictionary(fc.constantFrom("a", "b", "c", "d", "zz"), tie("v"), { maxKeys: 4 }), fc.array(tie("v"), { maxLength: 4 })),
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

  it("with the mcpSnapshotLock guard off, a widening no longer blocks (this test fails without the guard)", async () => {
    const committed = snapshotOf({ type: "object", properties: { mode: { enum: ["read"] } }, additionalProperties: false });
    const widened = snapshotOf({ type: "object", properties: { mode: { enum: ["read", "write"] } }, additionalProperties: false });
    const diff = diffSnapshot(committed, widened);
    expect(diffBlocks(diff)).toBe(true);
    expect(await withoutGuard("mcpSnapshotLock", () => diffBlocks(diff))).toBe(false);
  });
});
