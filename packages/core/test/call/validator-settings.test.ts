/**
 * Call-time validation compiles without inlined refs or optimized code (pin-validation.ts:
 * a large schema's first call compiled for seconds otherwise). These settings must not
 * change what a call reports: on real tools and seeded arguments, the issues equal those
 * of a validator with Ajv's defaults for both. The quick tier takes a fixed sample of
 * tools; the long tier (test/support/tier.ts) every 5th tool of five packs, as
 * scripts/bench-validator-compile.ts does.
 */
import { describe, expect, it } from "vitest";
import { argumentSamples, defaultsValidator, SAMPLED_PACKS } from "../../../../test/support/validator-samples.ts";
import { LONG } from "../../../../test/support/tier.ts";
import { issuesOf, validateArguments } from "../../src/call/validate-arguments.ts";

const inlined = defaultsValidator();

// Quick: every 40th tool, 25 argument sets each.
const stride = LONG ? 5 : 40;
const runs = LONG ? 60 : 25;

describe("call-time validator settings report what Ajv's defaults report", () => {
  it.each(SAMPLED_PACKS)("%s", async (_pack, tools) => {
    const sample = tools.filter((_, index) => index % stride === 0);
    let invalid = 0;
    for (const [index, tool] of sample.entries()) {
      const before = inlined.compile(structuredClone(tool.inputSchema));
      const keys = Object.keys(tool.inputSchema.properties ?? {});
      const argumentSets = argumentSamples(keys, runs, index + 1);
      for (const args of argumentSets) {
        const want = before(args) ? [] : issuesOf(before.errors ?? []);
        if (want.length > 0) invalid++;
        expect(validateArguments(tool.inputSchema, args), `${tool.name} ${JSON.stringify(args)}`).toEqual(want);
      }
      // Compiling a large schema is synchronous: let the worker answer vitest between tools.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(invalid).toBeGreaterThan(0);
  });
});
