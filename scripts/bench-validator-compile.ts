/**
 * What a tool's first call pays to compile its input schema, under the Ajv settings of
 * call-time validation (packages/core/src/projection/pin-validation.ts) against Ajv's defaults for
 * `inlineRefs` and `code.optimize` (what sluice used before), and whether the two report
 * the same issues. The schemas are every 5th tool of five vendored packs; the arguments
 * are fast-check samples with a fixed seed (wrong types, unknown keys, nested filters).
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-validator-compile.ts [--rounds 2]
 */
import { parseArgs } from "node:util";
import { issuesOf, validateArguments } from "../packages/core/src/call/validate-arguments.ts";
import { newSchemaValidator } from "../packages/core/src/projection/pin-validation.ts";
import { argumentSamples, defaultsValidator, SAMPLED_PACKS } from "../test/support/validator-samples.ts";

const { values: options } = parseArgs({ options: { rounds: { type: "string", default: "2" }, args: { type: "string", default: "60" } } });

const sample = SAMPLED_PACKS.flatMap(([pack, tools]) => tools.filter((_, index) => index % 5 === 0).map((tool) => ({ pack, tool })));

function compileCpuMs(make: () => { compile(schema: object): unknown }): number {
  const ajv = make();
  const start = process.cpuUsage();
  // A copy per compile: Ajv caches by schema object, and the tools' own schemas stay untouched.
  for (const { tool } of sample) ajv.compile(structuredClone(tool.inputSchema));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const rounds: Array<{ previous: number; now: number }> = [];
for (let round = 0; round < Number(options.rounds); round++) {
  // Interleaved, a fresh Ajv each time, so neither side inherits the other's warm-up.
  const previous = compileCpuMs(defaultsValidator);
  const now = compileCpuMs(newSchemaValidator);
  rounds.push({ previous, now });
}

const previous = defaultsValidator();
let cases = 0;
let invalid = 0;
const differing: string[] = [];
for (const [index, { pack, tool }] of sample.entries()) {
  const before = previous.compile(structuredClone(tool.inputSchema));
  const keys = Object.keys(tool.inputSchema.properties ?? {});
  const args = argumentSamples(keys, Number(options.args), index + 1);
  for (const arg of args) {
    cases++;
    const want = before(arg) ? [] : issuesOf(before.errors ?? []);
    const got = validateArguments(tool.inputSchema, arg);
    if (want.length > 0) invalid++;
    if (JSON.stringify(got) !== JSON.stringify(want)) differing.push(`${pack} ${tool.name} ${JSON.stringify(arg).slice(0, 120)}`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
process.stdout.write(
  [
    `${sample.length} input schemas (every 5th tool of ${SAMPLED_PACKS.map(([name]) => name).join(", ")}), compiled once each, CPU ms per round:`,
    ...rounds.map(({ previous, now }, round) => `  round ${round + 1}: before ${previous.toFixed(0)}, now ${now.toFixed(0)} (${(previous / now).toFixed(2)}x)`),
    `  median: before ${median(rounds.map((r) => r.previous)).toFixed(0)}, now ${median(rounds.map((r) => r.now)).toFixed(0)}`,
    `issues: ${cases} argument sets, ${invalid} invalid, ${differing.length} reported differently`,
    ...differing.slice(0, 10).map((line) => `  ${line}`),
    "",
  ].join("\n"),
);
process.exit(differing.length === 0 ? 0 : 1);
