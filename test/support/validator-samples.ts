/**
 * What two call-time validators are held to agree on: Ajv with its default code settings
 * (inlined refs, optimized code: what sluice compiled with before), the input schemas of
 * five vendored packs, and seeded argument sets a model might send (right and wrong types,
 * dates and emails as strings, unknown keys, nested `and`/`or` filters). Shared by
 * packages/core/test/validator-settings.test.ts and scripts/bench-validator-compile.ts.
 */
import fc from "fast-check";
import type { Tool } from "@sluice/core";
import { tools as githubTools } from "@sluice/pack-github";
import { tools as githubRestTools } from "@sluice/pack-github-rest";
import { allTools as linearTools } from "@sluice/pack-linear";
import { tools as slackTools } from "@sluice/pack-slack";
import { tools as stripeTools } from "@sluice/pack-stripe";
import { loadAjv } from "../../packages/core/src/projection/pin-validation.ts";
import { ajvSpecRegExp } from "../../packages/core/src/spec-pattern.ts";

/** The packs whose tools are sampled (Linear's first tools carry its filter graph). */
export const SAMPLED_PACKS: ReadonlyArray<readonly [string, readonly Tool<object>[]]> = [
  ["linear", linearTools],
  ["stripe", stripeTools],
  ["github", githubTools],
  ["github-rest", githubRestTools],
  ["slack", slackTools],
];

/** A fresh Ajv with call-time validation's options but Ajv's defaults for inlineRefs and code.optimize. */
export function defaultsValidator() {
  const { Ajv2020, addFormats } = loadAjv();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, addUsedSchema: false, logger: false, ownProperties: true, code: { regExp: ajvSpecRegExp } });
  addFormats(ajv);
  return ajv;
}

const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.string(),
    fc.constantFrom("2024-01-01", "open", "a@b.c", "", "1"),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("id", "and", "or", "eq", "in", "name", "title", "number", "state", "x"), tie("v"), { maxKeys: 3 }),
  ),
})).v;

/** `runs` argument objects over the tool's own argument names plus one it does not take, the same for the same seed. */
export function argumentSamples(argumentNames: readonly string[], runs: number, seed: number): Array<Record<string, unknown>> {
  return fc.sample(fc.dictionary(fc.constantFrom(...argumentNames, "not_an_argument"), value, { maxKeys: 4 }), { numRuns: runs, seed });
}
