/**
 * The lossless label of fit(): a change called lossless keeps every property path (dotted,
 * from the root through properties, arrays, unions and refs, up to 6 segments). fit's
 * verification mode (`auditPaths`) measures the path set before and after every change;
 * this test holds each lossless change to "equal sets", and each fitted tool to "no path
 * lost or gained without a change that says so", over:
 *
 * - every pack in packs/*: every tool for the profiles that change schemas the most
 *   (gemini: no $ref, OpenAPI subset; openai-strict: strict mode, no allOf), and a seeded
 *   random sample of each pack's tools for every other profile (all of them would take
 *   minutes on two cores: the whole check stays well under a minute);
 * - the OpenAPI corpus in ../shared/specs: every tool of the specs whose request bodies use
 *   allOf (DigitalOcean, Asana), a seeded sample of three more (Stripe, GitHub REST, Twilio);
 * - synthetic shapes (allOf chains, allOf of refs with overlapping properties, allOf loops,
 *   unions inside allOf, recursive intersections) and a seeded fast-check fuzzer of such shapes,
 *   under every profile, where fit must also end with a result or a coded error.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { definePack, isSluiceError, Tool } from "@sluice/core";
import { fit, profile, PROFILE_IDS, type FitResult } from "@sluice/catalog";
import type { JsonSchemaObject } from "@sluice/schema";
import { tools as gdocs } from "@sluice/pack-gdocs";
import { tools as github } from "@sluice/pack-github";
import { tools as githubRest } from "@sluice/pack-github-rest";
import { tools as gmail } from "@sluice/pack-gmail";
import { tools as gsheets } from "@sluice/pack-gsheets";
import { tools as linear } from "@sluice/pack-linear";
import { tools as notion } from "@sluice/pack-notion";
import { tools as slack } from "@sluice/pack-slack";
import { tools as stripe } from "@sluice/pack-stripe";
import { buildOpenAPIPackIR } from "../generators/openapi/src/index.ts";
import { PropertyPathSets } from "../packages/catalog/src/profiles/property-paths.ts";
import { sweep } from "./support/tier.ts";
import { corpusDocument } from "./support/corpus-document.ts";

// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);

const PACKS: Record<string, readonly Tool<object>[]> = { gdocs, github, "github-rest": githubRest, gmail, gsheets, linear, notion, slack, stripe };
/** Profiles checked on every tool; the others on a sample. */
const FULL: readonly string[] = ["gemini", "openai-strict"];
const SAMPLE_PER_PACK = 16;
const SEED = 11;
/** Refusals that are answers, not failures: the tool cannot be fitted within the bounds asked for. */
const REFUSALS: ReadonlySet<string> = new Set(["INLINE_BUDGET_EXCEEDED", "RECURSIVE_SCHEMA"]);

/** A small seeded generator (mulberry32), so the sample is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

interface Tally {
  fitted: number;
  refused: number;
  lossless: number;
  failures: string[];
}

function tally(): Tally {
  return { fitted: 0, refused: 0, lossless: 0, failures: [] };
}

const sets = new PropertyPathSets();

/** Fits one tool in verification mode and records every broken promise, naming tool, provider and change. */
function audit(tool: Tool<object>, id: string, into: Tally): void {
  let result: FitResult;
  try {
    // unroll 1: a recursive tool is unrolled (a lossy change) rather than refused, so its other changes are checked too.
    result = fit([tool], profile(id), { allowLossy: true, unroll: 1, auditPaths: true });
  } catch (error) {
    if (isSluiceError(error) && REFUSALS.has(error.code)) {
      into.refused++;
      return;
    }
    into.failures.push(`${tool.name} / ${id}: fit threw ${isSluiceError(error) ? error.code : "an uncoded error"}: ${String(error).slice(0, 200)}`);
    return;
  }
  into.fitted++;
  let reported = false;
  for (const change of result.changes) {
    const a = change.audit;
    if (a === undefined) {
      into.failures.push(`${tool.name} / ${id} / ${change.action}: no audit`);
      continue;
    }
    if (a.lost.length > 0 || a.gained.length > 0) reported = true;
    if (change.kind !== "lossless") continue;
    into.lossless++;
    if (a.lost.length > 0 || a.gained.length > 0) {
      into.failures.push(`${tool.name} / ${id} / ${change.action} (${change.message}): labelled lossless but lost [${a.lost.join(", ")}] gained [${a.gained.join(", ")}]`);
    }
    if (a.places === 0 && change.action !== "rename") into.failures.push(`${tool.name} / ${id} / ${change.action}: a schema change with nothing compared`);
  }
  // End to end: paths may differ only where a change said so.
  if (!reported) {
    const before = sets.of(tool.inputSchema, tool.inputSchema);
    const fitted = result.tools[0]!.inputSchema;
    const after = sets.of(fitted, fitted);
    if (before !== after) {
      into.failures.push(`${tool.name} / ${id}: paths changed with no change reporting it: lost [${sets.missing(before, after).join(", ")}] gained [${sets.missing(after, before).join(", ")}]`);
    }
  }
}

describe("fit: every change labelled lossless keeps every property path, on every pack", () => {
  it.each(Object.entries(PACKS))("%s", (name, tools) => {
    const random = seeded(SEED + name.length);
    const result = tally();
    for (const id of PROFILE_IDS) {
      const chosen = FULL.includes(id) ? tools : sample(tools, SAMPLE_PER_PACK, random);
      for (const tool of chosen) audit(tool, id, result);
    }
    expect(result.failures).toEqual([]);
    expect(result.fitted).toBeGreaterThan(0);
    console.log(`${name}: ${result.fitted} fits, ${result.refused} refused, ${result.lossless} lossless changes checked`);
  });
});

describe("fit: the OpenAPI corpus", () => {
  // The workspace's stripe and github-rest packs (every profile, above) come from the same
  // generator and documents: the quick tier leaves out their corpus twins (each a 4 MB
  // document to build), the long tier (test/support/tier.ts) runs them.
  const CORPUS: ReadonlyArray<[string, { file: string; sample?: number }]> = sweep(
    [
      ["digitalocean (allOf in request bodies)", { file: "digitalocean/digitalocean-openapi.yaml" }],
      ["asana (allOf in request bodies)", { file: "asana/asana_oas.yaml" }],
      ["stripe", { file: "stripe/spec3.json", sample: 40 }],
      ["github-rest", { file: "github-rest/api.github.com.json", sample: 40 }],
      ["twilio", { file: "twilio/twilio_api_v2010.json", sample: 40 }],
    ],
    ([name]) => name !== "stripe" && name !== "github-rest",
  );

  it.each(CORPUS)("%s", (_name, { file, sample: count }) => {
    const document = corpusDocument(new URL(file, specsDir), file);
    const tools = definePack(buildOpenAPIPackIR(document, { name: "corpus", file, sha256: "0".repeat(64) })).tools;
    const chosen = count === undefined ? tools : sample(tools, count, seeded(SEED));
    const withAllOf = chosen.filter((t) => JSON.stringify(t.inputSchema).includes('"allOf"'));
    if (count === undefined) expect(withAllOf.length).toBeGreaterThan(10);
    const result = tally();
    for (const id of FULL) for (const tool of chosen) audit(tool, id, result);
    expect(result.failures).toEqual([]);
    // Every allOf is merged away where the profile does not take it.
    for (const tool of withAllOf) {
      for (const id of FULL) {
        const fitted = fit([tool], profile(id), { allowLossy: true, unroll: 1 });
        expect(JSON.stringify(fitted.tools[0]!.inputSchema), `${tool.name} / ${id}`).not.toContain('"allOf"');
      }
    }
  });

  it("keeps every property of a request body that is allOf of three component refs (issue 11, observation 4)", () => {
    const document = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: {
        "/tasks/{id}": {
          put: {
            operationId: "updateTask",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            requestBody: {
              required: true,
              content: { "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/Base" }, { $ref: "#/components/schemas/Schedule" }, { $ref: "#/components/schemas/Owner" }] } } },
            },
            responses: { "200": { description: "ok" } },
          },
        },
      },
      components: {
        schemas: {
          Base: { type: "object", required: ["name"], properties: { name: { type: "string" }, notes: { type: "string" } } },
          Schedule: { type: "object", properties: { due: { type: "object", properties: { on: { type: "string", format: "date" } } }, name: { type: "string", maxLength: 80 } } },
          Owner: { type: "object", properties: { owner: { type: "string" }, watchers: { type: "array", items: { $ref: "#/components/schemas/Base" } } } },
        },
      },
    };
    const [tool] = definePack(buildOpenAPIPackIR(document, { name: "t", file: "t.json", sha256: "0".repeat(64) })).tools;
    const result = fit([tool!], profile("gemini"), { allowLossy: true, auditPaths: true });
    const before = sets.of(tool!.inputSchema, tool!.inputSchema);
    const fitted = result.tools[0]!.inputSchema;
    const after = sets.of(fitted, fitted);
    expect(sets.missing(before, after)).toEqual([]);
    expect(sets.missing(after, before)).toEqual([]);
    for (const name of ["name", "notes", "due", "owner", "watchers"]) expect(JSON.stringify(fitted)).toContain(`"${name}"`);
    expect(result.changes.filter((c) => c.kind === "lossless" && (c.audit!.lost.length > 0 || c.audit!.gained.length > 0))).toEqual([]);
    expect(result.remaining).toEqual([]);
  });
});

const BINDING = { kind: "graphql", operationType: "mutation", field: "f", document: "mutation F { f }", variables: {} } as const;

function synthetic(name: string, inputSchema: JsonSchemaObject): Tool<object> {
  return Tool.create({ name, description: "A synthetic shape.", inputSchema, binding: BINDING });
}

const SHAPES: ReadonlyArray<[string, JsonSchemaObject]> = [
  ["allOf chain", { type: "object", properties: { body: { allOf: [{ allOf: [{ allOf: [{ properties: { deep: { type: "string" } } }] }, { $ref: "#/$defs/X" }] }, { properties: { top: { type: "boolean" } } }] } }, $defs: { X: { allOf: [{ $ref: "#/$defs/Y" }, { properties: { x: { type: "string" } } }] }, Y: { properties: { y: { type: "number" } } } } }],
  ["allOf of refs with overlapping properties", { type: "object", properties: { body: { allOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/B" }] } }, $defs: { A: { type: "object", properties: { id: { type: "string" }, meta: { type: "object", properties: { a: { type: "string" } } } }, required: ["id"] }, B: { type: "object", properties: { id: { type: "string", minLength: 1 }, meta: { type: "object", properties: { b: { type: "integer" } } } } } } }],
  ["allOf loop", { type: "object", properties: { body: { $ref: "#/$defs/A" } }, $defs: { A: { allOf: [{ $ref: "#/$defs/B" }, { properties: { a: { type: "string" } } }] }, B: { allOf: [{ $ref: "#/$defs/A" }, { properties: { b: { type: "string" } } }] } } }],
  ["unions inside allOf", { type: "object", properties: { body: { allOf: [{ $ref: "#/$defs/Base" }, { oneOf: [{ properties: { x: { type: "string" } } }, { properties: { y: { type: "string" } } }] }, { anyOf: [{ properties: { p: { type: "string" } } }, { properties: { q: { type: "string" } } }] }] } }, $defs: { Base: { type: "object", properties: { id: { type: "string" } } } } }],
  ["recursive intersection", { type: "object", properties: { body: { allOf: [{ $ref: "#/$defs/A" }, { $ref: "#/$defs/B" }] } }, $defs: { A: { type: "object", properties: { a: { type: "string" }, next: { $ref: "#/$defs/A" } } }, B: { type: "object", properties: { b: { type: "string" }, next: { $ref: "#/$defs/B" } } } } }],
  ["conflicting parts", { type: "object", properties: { body: { allOf: [{ properties: { k: { type: "string" } }, additionalProperties: false }, { properties: { k: { type: "integer" }, extra: {} }, additionalProperties: false }] } } }],
];

describe("fit: synthetic allOf shapes under every profile", () => {
  it.each(SHAPES)("%s", (name, shape) => {
    const result = tally();
    for (const id of PROFILE_IDS) audit(synthetic("shape", shape), id, result);
    expect(result.failures).toEqual([]);
  });

  it("fuzzer (fast-check, fixed seed): random allOf, union and ref shapes keep the promise or end with a coded refusal", () => {
    const names = ["D0", "D1", "D2"] as const;
    const leaf = fc.constantFrom<JsonSchemaObject>(
      { type: "string" }, { type: "integer" }, { type: ["string", "null"] }, { enum: ["a", "b"] }, { const: "a" }, { type: "string", maxLength: 5 }, {},
    );
    const { node } = fc.letrec<{ node: JsonSchemaObject; object: JsonSchemaObject }>((tie) => ({
      node: fc.oneof(
        { maxDepth: 4, depthIdentifier: "shape" },
        leaf,
        tie("object"),
        fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((parts) => ({ allOf: parts })),
        fc.tuple(fc.constantFrom("anyOf", "oneOf"), fc.array(tie("node"), { minLength: 1, maxLength: 3 })).map(([keyword, parts]) => ({ [keyword]: parts })),
        fc.constantFrom(...names).map((n) => ({ $ref: `#/$defs/${n}` })),
        tie("node").map((items) => ({ type: "array", items })),
      ),
      object: fc
        .record({
          properties: fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("node"), { maxKeys: 3 }),
          required: fc.subarray(["a", "b"]),
          closed: fc.constantFrom<unknown>(undefined, false, { type: "string" }),
        })
        .map(({ properties, required, closed }) => ({
          type: "object",
          properties,
          ...(required.length > 0 ? { required } : {}),
          ...(closed === undefined ? {} : { additionalProperties: closed }),
        })),
    }));
    const shape = fc.tuple(node, node, node, node).map(([body, d0, d1, d2]) => ({ type: "object", properties: { body }, $defs: { D0: d0, D1: d1, D2: d2 } }) as JsonSchemaObject);
    const profiles = ["gemini", "openai-strict", "anthropic-strict", "fireworks", "mcp"];
    const result = tally();
    fc.assert(
      fc.property(shape, (inputSchema) => {
        const before = result.failures.length;
        for (const id of profiles) audit(synthetic("fuzz", inputSchema), id, result);
        return result.failures.length === before;
      }),
      { seed: SEED, numRuns: 300, endOnFailure: true },
    );
    expect(result.failures).toEqual([]);
    expect(result.fitted).toBeGreaterThan(300);
    console.log(`fuzzer: ${result.fitted} fits, ${result.refused} refused, ${result.lossless} lossless changes checked`);
  });
});
