/**
 * Limits are part of what the model can send: seeded random loosenings of every constraint
 * keyword, on schemas of real specs (../shared/specs), are named by the egress check as
 * widenings and nothing else, and the same edit read backwards (a tightening) as
 * narrowings and nothing else; a changed default is a change, neither. GraphQL: a non-null
 * argument or input field made nullable, a default given to a required one, a default
 * changed, on the Linear schema through the generator.
 *
 * Each run edits one value of one tool (in its inline schema or a definition it reaches),
 * regenerates the tool's map and checks both directions. A map that does not change for
 * an edit is a miss (the map does not show the limit), counted and required to be none.
 *
 * Quick tier: each edit once on Google Calendar, a dozen GraphQL edits; long tier
 * (SLUICE_LONG=1): seven corpus specs, each edit ten times, 120 GraphQL edits.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { getNullableType, GraphQLNonNull, isInputObjectType, isNonNullType, type GraphQLArgument, type GraphQLInputField, type GraphQLSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { checkEgressMap, definePack, egressMap, formatEgressMap, type JsonSchemaObject, type PackDefinition, type ToolIR } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import { buildGraphQLPackIR, loadGraphQLSchema } from "@sluice/generator-graphql";
import { LONG, sweep } from "./support/tier.ts";
import { corpusDocument } from "./support/corpus-document.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SPECS = join(ROOT, "../shared/specs");
const SEED = 39_1;
/** Runs per spec: each edit in turn, once in the quick tier, ten times in the long one. */
const ROUNDS = LONG ? 10 : 1;

type Schema = Record<string, unknown>;

/** An edit of one value's schema that lets the model send more; `kinds`: how the check may name it. */
interface Loosening {
  name: string;
  kinds: readonly string[];
  /** Edits `node` (and `parent`, for `required`); false when it does not apply to this node. */
  apply: (node: Schema, parent: { node: Schema; key: string } | undefined) => boolean;
}

const num = (value: unknown): value is number => typeof value === "number";
const isString = (node: Schema) => node.type === "string" && node.enum === undefined;
const isNumber = (node: Schema) => node.type === "integer" || node.type === "number";
const isArray = (node: Schema) => node.type === "array";
const isObject = (node: Schema) => node.type === "object" || node.properties !== undefined;
const remove = (keyword: string) => (node: Schema) => keyword in node && (delete node[keyword], true);
const LIMIT = ["limit"];

/**
 * Loosenings of every constraint keyword: each removes a limit, moves a bound outwards, or
 * (for a node without it) is read the other way round: add the limit to the loose copy is a
 * tightening, so `tighten-*` edits add one and the run swaps the sides.
 */
const LOOSENINGS: Loosening[] = [
  { name: "maxLength removed", kinds: LIMIT, apply: (n) => num(n.maxLength) && remove("maxLength")(n) },
  { name: "maxLength raised", kinds: LIMIT, apply: (n) => num(n.maxLength) && ((n.maxLength = n.maxLength + 7), true) },
  { name: "minLength removed", kinds: LIMIT, apply: (n) => num(n.minLength) && remove("minLength")(n) },
  { name: "pattern removed", kinds: LIMIT, apply: (n) => typeof n.pattern === "string" && remove("pattern")(n) },
  { name: "format removed", kinds: ["type"], apply: (n) => typeof n.format === "string" && isString(n) && remove("format")(n) },
  { name: "maximum raised", kinds: LIMIT, apply: (n) => num(n.maximum) && ((n.maximum = n.maximum + 10), true) },
  { name: "minimum removed", kinds: LIMIT, apply: (n) => num(n.minimum) && remove("minimum")(n) },
  { name: "exclusiveMaximum made inclusive", kinds: LIMIT, apply: (n) => num(n.exclusiveMaximum) && ((n.maximum = n.exclusiveMaximum), delete n.exclusiveMaximum, true) },
  { name: "multipleOf removed", kinds: LIMIT, apply: (n) => num(n.multipleOf) && remove("multipleOf")(n) },
  { name: "integer made number", kinds: ["type"], apply: (n) => n.type === "integer" && ((n.type = "number"), delete n.format, true) },
  { name: "maxItems removed", kinds: LIMIT, apply: (n) => num(n.maxItems) && remove("maxItems")(n) },
  { name: "minItems lowered", kinds: LIMIT, apply: (n) => num(n.minItems) && n.minItems > 0 && ((n.minItems = n.minItems - 1), true) },
  { name: "uniqueItems removed", kinds: LIMIT, apply: (n) => n.uniqueItems === true && remove("uniqueItems")(n) },
  { name: "maxProperties removed", kinds: LIMIT, apply: (n) => num(n.maxProperties) && remove("maxProperties")(n) },
  // Named as an enum value where the label is the enum; inside an array or a union label (`(enum: a | b)[]`), as a wider type.
  { name: "enum value added", kinds: ["enum", "type"], apply: (n) => Array.isArray(n.enum) && n.enum.every((v) => typeof v === "string") && (n.enum.push("sluice_added_value"), true) },
  // Not on an enum or const: their values decide, and null is not among them.
  { name: "null admitted", kinds: ["type"], apply: (n) => typeof n.type === "string" && n.type !== "null" && n.enum === undefined && n.const === undefined && ((n.type = [n.type, "null"]), true) },
  { name: "propertyNames removed", kinds: LIMIT, apply: (n) => n.propertyNames !== undefined && remove("propertyNames")(n) },
  {
    name: "required member made optional",
    kinds: ["required"],
    apply: (_n, parent) => {
      const required = parent?.node.required;
      if (!Array.isArray(required) || !required.includes(parent!.key)) return false;
      parent!.node.required = required.filter((key) => key !== parent!.key);
      return true;
    },
  },
];

/** Tightenings of nodes without the limit: applied to one copy, read as the loosening from it back to the original. */
const TIGHTENINGS: Loosening[] = [
  { name: "maxLength added", kinds: LIMIT, apply: (n) => isString(n) && n.maxLength === undefined && ((n.maxLength = 40), true) },
  { name: "minLength added", kinds: LIMIT, apply: (n) => isString(n) && n.minLength === undefined && ((n.minLength = 2), true) },
  { name: "pattern added", kinds: LIMIT, apply: (n) => isString(n) && n.pattern === undefined && ((n.pattern = "^[a-z]+$"), true) },
  { name: "maximum added", kinds: LIMIT, apply: (n) => isNumber(n) && n.maximum === undefined && n.exclusiveMaximum === undefined && ((n.maximum = 1000), true) },
  { name: "exclusiveMinimum added", kinds: LIMIT, apply: (n) => isNumber(n) && n.minimum === undefined && n.exclusiveMinimum === undefined && ((n.exclusiveMinimum = 0), true) },
  { name: "multipleOf added", kinds: LIMIT, apply: (n) => isNumber(n) && n.multipleOf === undefined && ((n.multipleOf = 5), true) },
  { name: "maxItems added", kinds: LIMIT, apply: (n) => isArray(n) && n.maxItems === undefined && ((n.maxItems = 3), true) },
  { name: "minItems added", kinds: LIMIT, apply: (n) => isArray(n) && n.minItems === undefined && ((n.minItems = 1), true) },
  { name: "uniqueItems added", kinds: LIMIT, apply: (n) => isArray(n) && n.uniqueItems === undefined && ((n.uniqueItems = true), true) },
  { name: "minProperties added", kinds: LIMIT, apply: (n) => isObject(n) && n.minProperties === undefined && ((n.minProperties = 1), true) },
  { name: "maxProperties added", kinds: LIMIT, apply: (n) => isObject(n) && n.maxProperties === undefined && ((n.maxProperties = 9), true) },
  { name: "propertyNames added", kinds: LIMIT, apply: (n) => isObject(n) && n.additionalProperties !== undefined && n.additionalProperties !== false && n.propertyNames === undefined && ((n.propertyNames = { maxLength: 20 }), true) },
  {
    name: "member made required",
    kinds: ["required"],
    apply: (_n, parent) => {
      if (parent === undefined) return false;
      const required = Array.isArray(parent.node.required) ? (parent.node.required as string[]) : [];
      if (required.includes(parent.key)) return false;
      parent.node.required = [...required, parent.key];
      return true;
    },
  },
];

interface Site {
  /** How to find the node again in a copy: a def name or the tool's parameters, then keys. */
  root: string;
  steps: string[];
}

/** The value schemas a tool's arguments reach (properties, items, branches, refs), each with the path to find it in a copy. */
function sitesOf(tool: ToolIR, defs: Record<string, JsonSchemaObject>): Site[] {
  const out: Site[] = [];
  const seenDefs = new Set<string>();
  const walk = (node: unknown, site: Site, depth: number) => {
    if (depth > 12 || node === null || typeof node !== "object" || Array.isArray(node)) return;
    const schema = node as Schema;
    if (site.steps.length > 0) out.push(site);
    const ref = schema.$ref;
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
      const name = decodeURIComponent(ref.slice(8)).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!seenDefs.has(name) && defs[name] !== undefined) {
        seenDefs.add(name);
        walk(defs[name], { root: name, steps: [] }, depth + 1);
      }
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === "object") for (const key of Object.keys(properties)) walk((properties as Schema)[key], { root: site.root, steps: [...site.steps, "properties", key] }, depth + 1);
    if (schema.items !== undefined) walk(schema.items, { root: site.root, steps: [...site.steps, "items"] }, depth + 1);
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      const parts = schema[keyword];
      if (Array.isArray(parts)) parts.forEach((part, i) => walk(part, { root: site.root, steps: [...site.steps, keyword, String(i)] }, depth + 1));
    }
    if (schema.additionalProperties !== undefined) walk(schema.additionalProperties, { root: site.root, steps: [...site.steps, "additionalProperties"] }, depth + 1);
  };
  walk(tool.parameters, { root: "", steps: [] }, 0);
  return out;
}

function locate(tool: ToolIR, defs: Record<string, JsonSchemaObject>, site: Site): { node: Schema; parent: { node: Schema; key: string } | undefined } {
  let node = (site.root === "" ? tool.parameters : defs[site.root]) as unknown as Schema;
  let parent: { node: Schema; key: string } | undefined;
  for (let i = 0; i < site.steps.length; i++) {
    const step = site.steps[i]!;
    if (step === "properties") {
      parent = { node, key: site.steps[i + 1]! };
      node = (node.properties as Schema)[site.steps[++i]!] as Schema;
    } else {
      parent = undefined;
      node = (node[step] as Schema) ?? (node as unknown as Schema[])[Number(step)]!;
    }
  }
  return { node, parent };
}

/** The defs a tool reaches, by name (a copy of each for editing). */
function reachedDefs(tool: ToolIR, defs: Record<string, JsonSchemaObject>): Record<string, JsonSchemaObject> {
  const out: Record<string, JsonSchemaObject> = {};
  const queue = [JSON.stringify(tool.parameters)];
  for (let head = 0; head < queue.length; head++) {
    for (const match of queue[head]!.matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) {
      const name = decodeURIComponent(match[1]!).replace(/~1/g, "/").replace(/~0/g, "~");
      if (out[name] !== undefined || defs[name] === undefined) continue;
      out[name] = defs[name]!;
      queue.push(JSON.stringify(defs[name]));
    }
  }
  return out;
}

function mapOf(name: string, tool: ToolIR, defs: Record<string, JsonSchemaObject>, withheldMembers: PackDefinition["withheldMembers"]): string {
  const pack = definePack({ name, defs, tools: [tool], ...(withheldMembers === undefined ? {} : { withheldMembers }) } as unknown as PackDefinition);
  return formatEgressMap(egressMap(pack.tools));
}

interface Tally {
  runs: number;
  edits: Map<string, number>;
  missed: string[];
  wrong: string[];
  /** Edits that found no node to apply to in the tools searched (a keyword the spec does not use). */
  inapplicable: Set<string>;
}

/** Checks one loose/tight pair both ways; records what was wrong. */
function judge(label: string, tight: string, loose: string, kinds: readonly string[], tally: Tally): void {
  if (tight === loose) {
    tally.missed.push(label);
    return;
  }
  const widening = checkEgressMap(tight, loose);
  const narrowing = checkEgressMap(loose, tight);
  const bad = (what: string) => tally.wrong.push(`${label}: ${what}`);
  if (widening.widened.length === 0) bad("no widening named");
  if (widening.narrowed.length > 0) bad(`narrowings named for a loosening: ${widening.narrowed.map((d) => d.subject).join("; ")}`);
  for (const d of widening.widened) if (!kinds.includes(d.kind)) bad(`widening of kind ${d.kind}: ${d.subject}`);
  if (narrowing.narrowed.length === 0) bad("no narrowing named for the tightening");
  if (narrowing.widened.length > 0) bad(`widenings named for a tightening: ${narrowing.widened.map((d) => d.subject).join("; ")}`);
  if (widening.changed.length + narrowing.changed.length > 0) bad(`other changes: ${[...widening.changed, ...narrowing.changed].map((d) => d.subject).join("; ")}`);
}

const OPENAPI = sweep(
  [
    { file: "google/calendar-v3.yaml", name: "calendar" },
    { file: "jira/jira-openapi.yaml", name: "jira" },
    { file: "github-rest/api.github.com.json", name: "github" },
    { file: "stripe/spec3.json", name: "stripe" },
    { file: "kubernetes/swagger.json", name: "kubernetes" },
    { file: "asana/asana_oas.yaml", name: "asana" },
    { file: "twilio/twilio_api_v2010.json", name: "twilio" },
  ],
  (spec) => spec.name === "calendar",
);

const irs = new Map<string, ReturnType<typeof buildOpenAPIPackIR>>();

/** A spec's pack IR, generated once per file (the guard test reuses the quick tier's). */
function packIR(file: string, name: string): ReturnType<typeof buildOpenAPIPackIR> {
  let ir = irs.get(file);
  if (ir === undefined) {
    ir = buildOpenAPIPackIR(corpusDocument(join(SPECS, file), file), { name, file, sha256: "0".repeat(64) });
    irs.set(file, ir);
  }
  return ir;
}

/** Each edit in turn, `rounds` times, on random tools of one spec: what the check named, missed or got wrong. */
async function sweepSpec(file: string, name: string, rounds: number): Promise<Tally> {
    const ir = packIR(file, name);
    const tally: Tally = { runs: 0, edits: new Map(), missed: [], wrong: [], inapplicable: new Set() };
    const edits = [...LOOSENINGS.map((e) => ({ e, tighten: false })), ...TIGHTENINGS.map((e) => ({ e, tighten: true }))];
    const RUNS = edits.length * rounds;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.noBias(fc.nat(ir.tools.length - 1)), fc.noBias(fc.nat(1_000_000)), async (toolIndex, pick) => {
        // A macrotask between edits: a whole spec's sweep held the worker's event loop past
        // vitest's 60 s RPC deadline in the long tier (Kubernetes alone takes about a minute).
        await new Promise((resolve) => setImmediate(resolve));
        // The edit first, each in turn, then the first node (from `pick` on, in this tool or the next ones) it applies to.
        const { e, tighten } = edits[run++ % edits.length]!;
        for (let t = 0; t < Math.min(ir.tools.length, 300); t++) {
          const tool = ir.tools[(toolIndex + t) % ir.tools.length]!;
          const defs = reachedDefs(tool, ir.defs);
          const sites = sitesOf(tool, defs);
          for (let k = 0; k < sites.length; k++) {
            const site = sites[(pick + k) % sites.length]!;
            // Whether the edit applies, tried on a copy of the node alone (copying the tool for each try is what takes time).
            const found = locate(tool, defs, site);
            if (found.node === undefined || typeof found.node !== "object") continue;
            const probe = structuredClone(found);
            if (!e.apply(probe.node, probe.parent)) continue;
            const copy = structuredClone({ tool, defs });
            const at = locate(copy.tool, copy.defs, site);
            e.apply(at.node, at.parent);
            const original = mapOf(name, tool, defs, ir.withheldMembers);
            const edited = mapOf(name, copy.tool, copy.defs, ir.withheldMembers);
            tally.runs++;
            tally.edits.set(e.name, (tally.edits.get(e.name) ?? 0) + 1);
            const label = `${tool.name} ${site.root}/${site.steps.join("/")} ${e.name}`;
            if (tighten) judge(label, edited, original, e.kinds, tally);
            else judge(label, original, edited, e.kinds, tally);
            return;
          }
        }
        tally.inapplicable.add(e.name);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    return tally;
}

describe("every loosened limit is a named widening, every tightened one a named narrowing (corpus specs)", () => {
  it.each(OPENAPI)("$name", async ({ file, name }) => {
    const tally = await sweepSpec(file, name, ROUNDS);
    console.log(`  ${name}: ${tally.runs} edits (${[...tally.edits].map(([k, n]) => `${k} ${n}`).join(", ")}), missed ${tally.missed.length}, wrong ${tally.wrong.length}; not in the spec: ${[...tally.inapplicable].sort().join(", ") || "none"}`);
    expect(tally.missed).toEqual([]);
    expect(tally.wrong).toEqual([]);
    expect(tally.runs + tally.inapplicable.size).toBeGreaterThan(tally.edits.size);
  });
});

describe("the limits are what the property catches going wrong (guard egressLimitChanges)", () => {
  it("with the check of limits off, loosened limits go unnamed and the property fails", async () => {
    await withoutGuard("egressLimitChanges", async () => {
      const tally = await sweepSpec("google/calendar-v3.yaml", "calendar", 1);
      expect(tally.wrong.filter((w) => w.includes("no widening named")).length).toBeGreaterThan(3);
    });
  });
});

/** A GraphQL input value edit: what it does to the argument or input field, and how the check may name it. */
interface InputEdit {
  name: string;
  widens: boolean;
  kinds: readonly string[];
  /** The change the check must also name as neither wider nor narrower (a default). */
  changes: boolean;
  apply: (value: GraphQLArgument | GraphQLInputField) => Partial<GraphQLArgument> | undefined;
}

const INPUT_EDITS: InputEdit[] = [
  { name: "non-null made nullable", widens: true, kinds: ["required"], changes: false, apply: (v) => (isNonNullType(v.type) && v.defaultValue === undefined ? { type: getNullableType(v.type) } : undefined) },
  // A default makes a non-null input optional: the server fills it in when the model leaves it out.
  { name: "default given to a required input", widens: true, kinds: ["required"], changes: true, apply: (v) => (isNonNullType(v.type) && v.defaultValue === undefined && String(getNullableType(v.type)) === "String" ? { defaultValue: "sluice", astNode: undefined } : undefined) },
  { name: "default changed", widens: false, kinds: [], changes: true, apply: (v) => (v.defaultValue !== undefined && typeof v.defaultValue !== "object" && String(getNullableType(v.type)) !== "Boolean" ? { defaultValue: typeof v.defaultValue === "number" ? v.defaultValue + 1 : `${String(v.defaultValue)}_other`, astNode: undefined } : undefined) },
  // Not on an `[INTERNAL]` input: the generator withholds those only while optional, so a required one becomes visible (a widening, rightly).
  { name: "nullable made non-null", widens: false, kinds: ["required"], changes: false, apply: (v) => (!isNonNullType(v.type) && v.defaultValue === undefined && !/^\s*\[internal\]/i.test(v.description ?? "") ? { type: new GraphQLNonNull(v.type) } : undefined) },
];

describe("GraphQL: nullability and defaults of arguments and input fields are named (Linear schema)", () => {
  it("each edit in turn on random root fields: made nullable or given a default is a widening, a changed default a change", async () => {
    const schema: GraphQLSchema = loadGraphQLSchema(readFileSync(join(SPECS, "linear/schema.graphql")), { fileName: "schema.graphql" });
    const roots = [...Object.values(schema.getQueryType()!.getFields()).map((f) => ["query", f] as const), ...Object.values(schema.getMutationType()!.getFields()).map((f) => ["mutation", f] as const)].filter(([, f]) => f.args.length > 0);
    const tally = { runs: 0, wrong: [] as string[], missed: [] as string[], edits: new Map<string, number>() };
    const mapFor = (field: string) => {
      const ir = buildGraphQLPackIR(schema, { name: "linear", file: "schema.graphql", sha256: "0" }, { select: (info) => info.field === field });
      return formatEgressMap(egressMap(definePack(ir as unknown as PackDefinition).tools));
    };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.noBias(fc.nat(roots.length - 1)), fc.noBias(fc.nat(1_000)), async (rootIndex, pick) => {
        await new Promise((resolve) => setImmediate(resolve));
        const edit = INPUT_EDITS[run++ % INPUT_EDITS.length]!;
        for (let t = 0; t < 200; t++) {
          const [, field] = roots[(rootIndex + t) % roots.length]!;
          // The field's arguments, then the fields of input objects they take: a place to edit, and how to put it back.
          const places: Array<{ value: GraphQLArgument | GraphQLInputField; swap: (next: GraphQLArgument | GraphQLInputField) => void }> = [];
          field.args.forEach((arg, i) => places.push({ value: arg, swap: (next) => ((field.args as GraphQLArgument[])[i] = next as GraphQLArgument) }));
          for (const arg of field.args) {
            const named = getNullableType(arg.type);
            if (!isInputObjectType(named)) continue;
            const fields = named.getFields();
            for (const key of Object.keys(fields)) places.push({ value: fields[key]!, swap: (next) => (fields[key] = next as GraphQLInputField) });
          }
          for (let k = 0; k < places.length; k++) {
            const place = places[(pick + k) % places.length]!;
            const change = edit.apply(place.value);
            if (change === undefined) continue;
            const before = mapFor(field.name);
            const original = place.value;
            place.swap({ ...original, ...change } as GraphQLArgument);
            let after: string;
            try {
              after = mapFor(field.name);
            } finally {
              place.swap(original);
            }
            tally.runs++;
            tally.edits.set(edit.name, (tally.edits.get(edit.name) ?? 0) + 1);
            const label = `${field.name} ${original.name} ${edit.name}`;
            if (before === after) {
              tally.missed.push(label);
              return;
            }
            const [loose, tight] = edit.widens ? [after, before] : [before, after];
            const forward = checkEgressMap(tight, loose);
            const backward = checkEgressMap(loose, tight);
            const bad = (what: string) => tally.wrong.push(`${label}: ${what}`);
            if (edit.kinds.length > 0) {
              if (forward.widened.length === 0 || forward.widened.some((d) => !edit.kinds.includes(d.kind))) bad(`widenings ${JSON.stringify(forward.widened.map((d) => [d.kind, d.subject]))}`);
              if (backward.narrowed.length === 0 || backward.narrowed.some((d) => !edit.kinds.includes(d.kind))) bad(`narrowings ${JSON.stringify(backward.narrowed.map((d) => [d.kind, d.subject]))}`);
            } else if (forward.widened.length + backward.widened.length > 0) bad(`widenings ${JSON.stringify([...forward.widened, ...backward.widened].map((d) => d.subject))}`);
            if (forward.narrowed.length + backward.widened.length > 0) bad(`the wrong way round: ${JSON.stringify([...forward.narrowed, ...backward.widened].map((d) => d.subject))}`);
            const defaults = [...forward.changed, ...backward.changed];
            if (edit.changes ? defaults.length !== 2 || defaults.some((d) => d.kind !== "default") : defaults.length > 0) bad(`changes ${JSON.stringify(defaults.map((d) => d.subject))}`);
            return;
          }
        }
      }),
      { seed: SEED, numRuns: LONG ? 120 : 12 },
    );
    console.log(`  linear: ${tally.runs} edits (${[...tally.edits].map(([k, n]) => `${k} ${n}`).join(", ")}), missed ${tally.missed.length}, wrong ${tally.wrong.length}`);
    expect(tally.missed).toEqual([]);
    expect(tally.wrong).toEqual([]);
    expect(tally.edits.size).toBe(INPUT_EDITS.length);
  });
});
