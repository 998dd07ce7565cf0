/**
 * Seeded argument sets a model might send to a tool: right and wrong types, dates and
 * emails as strings, unknown keys, nested filters (`and`/`or`). Used where two validators
 * must agree on every set (packages/core/test/validator-settings.test.ts, scripts/bench-validator-compile.ts).
 */
import fc from "fast-check";

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
