/**
 * "Never wider, by proof" (DESIGN.md): a projection accepts a subset of what its parent
 * accepts, held as a property over oracles nobody here wrote.
 *
 * 1. The JSON-Schema-Test-Suite (draft 2020-12 and draft-04 required files; draft-04
 *    schemas are read as 2020-12, which is how a tool would carry them): every schema
 *    wrapped as the argument `v` of a tool, every projection its `paths()` lists (drop
 *    each path, keep each path, drop or keep each union branch, pin `v` to each suite
 *    instance), every suite instance. Accepted by the projection (check(): screening and
 *    validation) implies accepted by the parent; a pin derive() took is one the parent
 *    accepts in a call.
 * 2. Seeded fast-check rounds on corpus tools (Stripe, GitHub REST, the Discord fixture,
 *    the six outside specs): random projections, random instances near the schemas'
 *    edges. `SLUICE_LONG=1` (`pnpm test:long`) runs a long round; `SLUICE_FUZZ_SEED` replays one.
 *
 * With `parentCheck` off the report shows what the projections' own schemas admit beyond
 * their parents: only oneOf branches dropped (or not kept), by design: a value that
 * matched two branches matches one after the drop, and repeating the dropped branch as
 * a `not` would cost as many tokens as the drop saves (project-schema.ts). The
 * call-time parent check refuses those; the mutation cases below fail without it, and
 * without derive-time pin screening.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { definePack, type PackDefinition, type Tool } from "@sluice/core";
import { guards } from "@sluice/core/guards";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { tools as stripe } from "@sluice/pack-stripe";
import { tools as githubRest } from "@sluice/pack-github-rest";
import {
  checkNeverWiden,
  countBy,
  drawInstance,
  drawProjection,
  emptyReport,
  loadSuite,
  projectionsOf,
  suiteTool,
  type Draw,
  type Projection,
  type WidenReport,
} from "./support/never-widen.ts";
import { LONG, sweep } from "./support/tier.ts";

const SUITE = fileURLToPath(new URL("./fixtures/json-schema-test-suite/", import.meta.url));
const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_201);

interface SuiteRun {
  schemas: number;
  skipped: Record<string, number>;
  report: WidenReport;
  /** The pin projections, kept for the pinScreening mutation. */
  pins: Array<{ tool: Tool; projections: Projection[]; instances: Record<string, unknown>[] }>;
}

async function runSuite(draft: string): Promise<SuiteRun> {
  const run: SuiteRun = { schemas: 0, skipped: {}, report: emptyReport(), pins: [] };
  for (const [index, suiteCase] of loadSuite(SUITE + draft).entries()) {
    // Seconds of projections in all: vitest's RPC gets a turn now and then (a worker held longer than 60 s fails the run).
    if (index % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
    const made = suiteTool(suiteCase.schema);
    if ("skip" in made) {
      const reason = made.skip.startsWith("ref ") ? "refs that are not local definitions" : made.skip;
      run.skipped[reason] = (run.skipped[reason] ?? 0) + 1;
      continue;
    }
    run.schemas++;
    const projections = await projectionsOf(made.tool, suiteCase.instances, 4);
    const instances = suiteCase.instances.map((v) => ({ v }));
    checkNeverWiden(made.tool, projections, instances, run.report, true);
    run.pins.push({ tool: made.tool, projections: projections.filter((p) => p.kind === "pin"), instances });
  }
  return run;
}

function summary(label: string, schemas: number, report: WidenReport, skipped: Record<string, number> = {}): string {
  const refused = Object.entries(report.refused).map(([code, n]) => `${code} ${n}`).join(", ");
  const alone = Object.entries(countBy(report.withoutParentCheck, (f) => f.kind)).map(([kind, n]) => `${kind} ${n}`).join(", ") || "none";
  const skips = Object.entries(skipped).map(([why, n]) => `${why} ${n}`).join(", ");
  return [
    `${label}: ${schemas} schemas/tools${skips === "" ? "" : ` (skipped: ${skips})`}, ${report.projections} projections derived (refused at derive: ${refused || "none"}),`,
    `  ${report.instanceChecks} instance checks, ${report.parentRefusals} of them refused by the parent; failures ${report.failures.length};`,
    `  admitted beyond the parent with parentCheck off: ${alone}`,
  ].join("\n");
}

const describeFailures = (report: WidenReport) => report.failures.slice(0, 10).map((f) => `${f.what} ${f.tool} [${f.projection}] ${JSON.stringify(f.args)}${f.detail ? ` ${f.detail}` : ""}`);

describe("the JSON-Schema-Test-Suite: a projection never accepts what its parent refuses", () => {
  const runs = new Map<string, Promise<SuiteRun>>();
  const suiteRun = (draft: string) => {
    if (!runs.has(draft)) runs.set(draft, runSuite(draft));
    return runs.get(draft)!;
  };

  // The quick tier runs the 2020-12 files (also what the pinScreening case below reuses); the
  // long tier adds draft-04's, read as 2020-12 too: more schemas for the same property.
  it.each(sweep(["draft2020-12", "draft4"], (draft) => draft === "draft2020-12"))("%s", { timeout: 120_000 }, async (draft) => {
    const { schemas, skipped, report } = await suiteRun(draft);
    console.log(summary(`JSON-Schema-Test-Suite ${draft}`, schemas, report, skipped));
    expect(describeFailures(report)).toEqual([]);
    expect(schemas).toBeGreaterThan(draft === "draft4" ? 100 : 250);
    expect(report.parentRefusals).toBeGreaterThan(500);
    // What the projection code alone leaves to the parent check: overlapping oneOf branches, and
    // branches cut from a parent whose schema is refused outright (KEYWORD_UNSUPPORTED: an
    // unevaluatedItems fed by `items` in an anyOf branch; without that branch it is checkable).
    expect(new Set(report.withoutParentCheck.map((f) => f.kind))).toEqual(new Set(["drop-branch", "keep-branch"]));
    expect(report.withoutParentCheck.filter((f) => !/oneOf\[/.test(f.projection) && f.detail !== "KEYWORD_UNSUPPORTED").map((f) => `${f.projection} ${JSON.stringify(f.args)}`)).toEqual([]);
  });

  it("with pinScreening off, derive takes pins the parent refuses, and the parent check still refuses every call with them", { timeout: 120_000 }, async () => {
    const { pins } = await suiteRun("draft2020-12");
    const report = emptyReport();
    guards.pinScreening = false;
    try {
      for (const [index, { tool, projections, instances }] of pins.entries()) {
        if (index % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
        checkNeverWiden(tool, projections, instances, report, true);
      }
    } finally {
      guards.pinScreening = true;
    }
    const taken = report.failures.filter((f) => f.what === "pin");
    console.log(`pinScreening off: ${taken.length} pins derive() took that the parent refuses; ${report.failures.length - taken.length} other failures`);
    expect(taken.length, "pinScreening is not what refuses these pins").toBeGreaterThan(50);
    expect(report.failures.filter((f) => f.what !== "pin")).toEqual([]);
  });
});

function outsideTools(): Tool[] {
  const specs = ["adyen-checkout", "apideck-accounting", "box", "launchdarkly", "spotify", "twitter"];
  const load = (file: string, name: string) => {
    const document = loadDocument(readFileSync(file), file.split("/").at(-1)!);
    return definePack(buildOpenAPIPackIR(document, { name, file: file.split("/").at(-1)!, sha256: "0".repeat(64) }) as unknown as PackDefinition).tools as readonly Tool[];
  };
  const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
  return [load(`${fixtures}discord/openapi.json`, "discord"), ...specs.map((spec) => load(`${fixtures}outside/${spec}.yaml`, spec.replace(/-/g, "_")))].flat();
}

describe("corpus tools: random projections, random instances (seeded fast-check)", () => {
  it("accepted by a projection implies accepted by its parent", { timeout: LONG ? 3_600_000 : 120_000 }, async () => {
    const tools = [...(stripe as readonly Tool[]), ...(githubRest as readonly Tool[]), ...outsideTools()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Each tool's paths when it is first drawn: the same values as listing them all up front
    // (so the same draws), without paths() over the thousands of tools a round never picks.
    const paths = new Map<Tool, string[]>();
    const pathsOf = async (tool: Tool): Promise<string[]> => {
      let found = paths.get(tool);
      if (found === undefined) {
        found = (await tool.paths({ depth: 3 })).map((p) => p.path);
        paths.set(tool, found);
      }
      return found;
    };
    const report = emptyReport();
    const numRuns = LONG ? 4000 : 120;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        // A macrotask now and then: a long round never waits on I/O, and a worker that does
        // not reach its event loop for a minute misses vitest's RPC deadline.
        if (++run % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
        const draw: Draw = (arb) => g(() => arb);
        const tool = tools[draw(fc.nat({ max: tools.length - 1 }))]!;
        const projection = drawProjection(draw, tool, await pathsOf(tool));
        const instances = Array.from({ length: 6 }, () => drawInstance(draw, tool.inputSchema, tool.inputSchema) as Record<string, unknown>).filter(
          (args) => typeof args === "object" && args !== null && !Array.isArray(args),
        );
        const before = report.failures.length;
        checkNeverWiden(tool, [projection], instances, report);
        return report.failures.length === before;
      }),
      { seed: SEED, numRuns },
    );
    console.log(summary(`corpus fuzz (seed ${SEED}, ${numRuns} runs over ${tools.length} tools)`, report.tools, report));
    expect(describeFailures(report)).toEqual([]);
    expect(report.projections).toBeGreaterThan(numRuns / 3);
    expect(report.parentRefusals).toBeGreaterThan(numRuns);
    expect(report.withoutParentCheck.every((f) => /oneOf\[/.test(f.projection))).toBe(true);
  });
});
