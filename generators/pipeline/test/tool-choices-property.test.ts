/**
 * Tool-level choices on real specs, as properties (seeded fast-check): a selection only ever
 * removes tools; `readOnly` keeps exactly the tools annotated read-only (and no HTTP tool
 * with an unsafe method, no GraphQL mutation); a random exclude list leaves exactly those
 * tools out and the egress map's header names each once with its reason; random renames
 * give exactly the new names. The quick tier takes a fixed sample (support/tier.ts);
 * `pnpm test:long` every spec of the corpus and of test/fixtures/outside.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { definePack, egressMap, formatEgressMap, packSelections, generatedRuntime, type PackIR } from "@sluice/core";
import { buildPack, type PackJob } from "../src/build-pack.ts";
import { LONG, sweep } from "../../../test/support/tier.ts";

const SPECS = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));
const OUTSIDE = fileURLToPath(new URL("../../../test/fixtures/outside/", import.meta.url));
const QUICK = new Set(["petstore/swagger-petstore-3.0.yaml", "petstore/petstore-3.0.json"]);
const SAFE = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

vi.setConfig({ testTimeout: LONG ? 3_600_000 : 300_000 });

const corpus = [
  ...readdirSync(SPECS, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(json|ya?ml|graphql)$/.test(file) && !file.startsWith("SOURCES"))
    .map((file) => ({ label: file, path: join(SPECS, file) })),
  ...readdirSync(OUTSIDE)
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => ({ label: `outside/${file}`, path: join(OUTSIDE, file) })),
].sort((a, b) => (a.label < b.label ? -1 : 1));
const specs = sweep(corpus, (spec) => QUICK.has(spec.label));

async function build(path: string, extra: Partial<PackJob>): Promise<Awaited<ReturnType<typeof buildPack>> | undefined> {
  try {
    return await buildPack({ name: "prop", spec: path, out: "/nonexistent", regenerate: "", ...extra }, "0.0.0");
  } catch (error) {
    // A spec with no tool at all (webhooks only) or none read-only has nothing to select.
    if ((error as { code?: string }).code === "NO_TOOLS") return undefined;
    throw error;
  }
}

function mapOf(ir: PackIR, facts: Parameters<typeof generatedRuntime>[0]): string {
  const tools = definePack({ name: ir.name, defs: ir.defs, ...(ir.withheldMembers === undefined ? {} : { withheldMembers: ir.withheldMembers }), tools: ir.tools, runtime: generatedRuntime(facts) }).tools;
  return formatEgressMap(egressMap(tools), { selections: packSelections(tools) });
}

describe("tool-level choices on real specs (seeded fast-check)", () => {
  it("sweeps a sample (all with SLUICE_LONG=1)", () => {
    expect(specs.length).toBeGreaterThanOrEqual(LONG ? corpus.length : QUICK.size);
  });

  for (const spec of specs) {
    it(`${spec.label}: readOnly keeps exactly the read-only tools; random excludes and renames do exactly what they say`, async () => {
      const full = await build(spec.path, {});
      if (full === undefined) return;
      const all = full.ir.tools.map((tool) => tool.name);

      const readOnly = await build(spec.path, { readOnly: true });
      const expected = full.ir.tools.filter((tool) => tool.annotations.readOnly === true).map((tool) => tool.name);
      expect(readOnly?.ir.tools.map((tool) => tool.name) ?? []).toEqual(expected);
      for (const tool of readOnly?.ir.tools ?? []) {
        if (tool.binding.kind === "http") expect(SAFE.has(tool.binding.method), `${tool.name} ${tool.binding.method}`).toBe(true);
        if (tool.binding.kind === "graphql") expect(tool.binding.operationType).toBe("query");
      }
      if (readOnly !== undefined) expect(readOnly.facts.selection!.leftOut.map((entry) => entry.tool).sort()).toEqual(all.filter((name) => !expected.includes(name)).sort());
      await new Promise((resolve) => setImmediate(resolve));

      // Excluding leaves at least one tool, so a spec of one tool has no random rounds.
      if (all.length < 2) return;
      const names = all.slice(0, 200); // enough to choose from; building a pack per round is what costs
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: Math.min(8, names.length - 1) }), fc.integer({ min: 0, max: 3 }), async (excluded, renames) => {
          const kept = all.filter((name) => !excluded.includes(name));
          const renamed = Object.fromEntries(kept.slice(0, renames).map((name, i) => [name, `renamed_${i}_${name}`.slice(0, 64)]));
          const tools = Object.fromEntries(Object.entries(renamed).map(([from, to]) => [from, { name: to }]));
          const pack = await build(spec.path, { exclude: { tools: excluded }, ...(renames > 0 ? { tools } : {}) });
          expect(pack).toBeDefined();
          const got = pack!.ir.tools.map((tool) => tool.name).sort();
          expect(got).toEqual(kept.map((name) => renamed[name] ?? name).sort());
          const header = mapOf(pack!.ir, pack!.facts).split("\ntool ")[0]!;
          for (const name of excluded) expect(header.split("\n").filter((line) => line === `#   left out ${name}: exclude tools ${JSON.stringify(name)}`)).toHaveLength(1);
          for (const [from, to] of Object.entries(renamed)) expect(header).toContain(`#   renamed ${from} -> ${to}\n`);
          await new Promise((resolve) => setImmediate(resolve));
        }),
        { seed: 20261201, numRuns: LONG ? 5 : 3 },
      );
    });
  }
});
