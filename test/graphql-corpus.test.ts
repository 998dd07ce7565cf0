import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { LONG, sweep } from "./support/tier.ts";
import type { JsonSchemaObject } from "@sluice/core";
import { buildGraphQLPackIR, loadGraphQLSchema, validateOperationDocument } from "../generators/graphql/src/index.ts";

// graphql is not a root dependency, so documents are checked through the generator's graphql instance.
// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const CORPUS: readonly [string, { file: string; tools: number }][] = [
  ["linear", { file: "linear/schema.graphql", tools: 164 + 371 }],
  ["github", { file: "github-graphql/schema.graphql", tools: 31 + 247 }],
  ["shopify-admin", { file: "shopify-admin/admin_schema_2025-01.json.gz", tools: 241 + 458 }],
  ["shopify-storefront", { file: "shopify-storefront/storefront.schema.json", tools: 34 + 41 }],
  ["saleor", { file: "saleor/schema.graphql", tools: 89 + 332 }],
];

/** The defs a schema reaches, transitively: what a tool's inputSchema.$defs must hold. */
function reachedDefs(root: unknown, defs: Record<string, JsonSchemaObject>): Record<string, JsonSchemaObject> {
  const reached = new Map<string, JsonSchemaObject>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") {
          const name = value.replace(/^#\/\$defs\//, "");
          const def = defs[name];
          if (def === undefined) throw new Error(`unresolved ref ${value}`);
          if (!reached.has(name)) {
            reached.set(name, def);
            stack.push(def);
          }
        } else stack.push(value);
      }
    }
  }
  return Object.fromEntries(reached);
}

/**
 * The quick tier takes one schema of each kind the loader reads: Saleor (SDL; the cheapest of
 * the SDL schemas, with filter inputs, enums, unions and subscriptions to skip) and Shopify
 * Storefront (introspection JSON). Every test below meets the same paths on the other three;
 * the gzipped introspection (Shopify Admin) is still loaded in the quick tier by
 * generators/graphql/test/runtime-facts.test.ts. The long tier runs all five.
 */
const QUICK = new Set(["saleor", "shopify-storefront"]);

describe.each(sweep(CORPUS, ([name]) => QUICK.has(name)))("GraphQL corpus: %s", (_name, { file, tools: expectedTools }) => {
  const schema = loadGraphQLSchema(readFileSync(fileURLToPath(new URL(file, specsDir))), { fileName: file });
  const pack = buildGraphQLPackIR(schema, { name: _name, file, sha256: "0" });

  it("generates one tool per query and mutation field", () => {
    expect(pack.tools).toHaveLength(expectedTools);
    expect(pack.skipped.every((entry) => entry.operation.startsWith("Subscription."))).toBe(true);
  });

  it("emits operation documents that validate against the schema", () => {
    const invalid = pack.tools.flatMap((tool) => {
      if (tool.binding.kind !== "graphql") return [`${tool.name}: not a graphql binding`];
      return validateOperationDocument(schema, tool.binding.document).map((message) => `${tool.name}: ${message}`);
    });
    expect(invalid).toEqual([]);
  });

  it("emits input schemas that are valid JSON Schema 2020-12 and compile", () => {
    // strict: false only because `deprecated` descriptions sit beside $ref; formats are real.
    // Refs not inlined and code not optimized, as call-time validation compiles them
    // (pin-validation.ts): every definition still compiles, in an eighth of the time.
    const ajv = addFormats(new Ajv2020({ strict: false, inlineRefs: false, code: { optimize: false } }));
    const failures: string[] = [];
    // Compiling is slow on big filter graphs: compile one tool per distinct $defs set, and
    // check every tool's schema against the 2020-12 meta-schema.
    const compiledDefSets = new Set<string>();
    // The quick tier compiles at most 12 distinct definition sets per schema (Linear's take 19 s in
    // full, 11 s at 40); every tool is still checked against the meta-schema.
    const maxCompiled = LONG ? Infinity : 12;
    for (const tool of pack.tools) {
      const $defs = reachedDefs(tool.parameters.properties, pack.defs);
      const inputSchema = { type: "object", properties: tool.parameters.properties, required: tool.parameters.required, $defs };
      if (ajv.validateSchema(inputSchema) !== true) failures.push(`${tool.name}: ${ajv.errorsText(ajv.errors)}`);
      const defSet = Object.keys($defs).sort().join(",");
      if (compiledDefSets.has(defSet) || compiledDefSets.size >= maxCompiled) continue;
      compiledDefSets.add(defSet);
      try {
        ajv.compile(inputSchema);
      } catch (error) {
        failures.push(`${tool.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("names tools uniquely within the wire-name pattern", () => {
    const names = pack.tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => !/^[a-zA-Z0-9_-]{1,64}$/.test(name))).toEqual([]);
  });
});
