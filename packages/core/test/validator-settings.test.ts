/**
 * Call-time validation compiles without inlined refs or optimized code (pin-validation.ts:
 * a large schema's first call compiled for seconds otherwise). These settings must not
 * change what a call reports: on real tools and seeded arguments, the issues equal those
 * of a validator with Ajv's defaults for both. The quick tier takes a fixed sample of
 * tools; the long tier (test/support/tier.ts) every 5th tool of five packs, as
 * scripts/bench-validator-compile.ts does.
 */
import { describe, expect, it } from "vitest";
import type { Tool } from "@sluice/core";
import { tools as githubTools } from "@sluice/pack-github";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { allTools as linearTools } from "@sluice/pack-linear";
import { tools as slackTools } from "@sluice/pack-slack";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { argumentSamples } from "../../../test/support/argument-samples.ts";
import { LONG } from "../../../test/support/tier.ts";
import { issuesOf, validateArguments } from "../src/call/validate-arguments.ts";
import { loadAjv } from "../src/pin-validation.ts";
import { ajvSpecRegExp } from "../src/spec-pattern.ts";

const { Ajv2020, addFormats } = loadAjv();
const inlined = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, addUsedSchema: false, logger: false, ownProperties: true, code: { regExp: ajvSpecRegExp } });
addFormats(inlined);

// Quick: every 40th tool (Linear's first tools carry its filter graph), 25 argument sets each.
const stride = LONG ? 5 : 40;
const runs = LONG ? 60 : 25;
const packs: Array<[string, readonly Tool<object>[]]> = [
  ["linear", linearTools],
  ["stripe", stripeTools],
  ["github", githubTools],
  ["github-rest", githubRestTools],
  ["slack", slackTools],
];

describe("call-time validator settings report what Ajv's defaults report", () => {
  it.each(packs)("%s", async (_pack, tools) => {
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
