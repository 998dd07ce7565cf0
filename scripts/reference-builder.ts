/**
 * Writes bench/REFERENCE-BUILDER.md: per spec, how many drawn argument sets give the same
 * request from sluice and from swagger-client, and which known differences the others are
 * (docs/reference-request-builder.md). The same sweep as `pnpm test:long` runs in
 * test/reference-request-builder.test.ts: every operation, three seeded draws each.
 *
 *   node --conditions=@sluice/source --import tsx scripts/reference-builder.ts --out bench/REFERENCE-BUILDER.md [--seed N] [--draws N]
 *
 * `--only LABEL,LABEL` (bench:check's quick mode) runs those specs' rows, each whole, and
 * leaves out the totals (which only a run of every spec can give).
 */
import { writeFileSync } from "node:fs";
import { knownDifferences } from "../test/support/reference-differences.ts";
import { loadReferenceSpec, REFERENCE_SPECS } from "../test/support/reference-specs.ts";
import { runSpec, type SpecRun } from "../test/support/reference-run.ts";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const out = option("out", "bench/REFERENCE-BUILDER.md");
const seed = Number(option("seed", "20261201"));
const draws = Number(option("draws", "3"));

const only = option("only", "");
const chosen = only === "" ? REFERENCE_SPECS : REFERENCE_SPECS.filter((spec) => only.split(",").includes(spec.label));
if (only !== "" && chosen.length !== only.split(",").length) throw new Error(`--only names a spec that is not in test/support/reference-specs.ts: ${only}`);

const runs: Array<{ run: SpecRun; version: string }> = [];
for (const spec of chosen) {
  const started = Date.now();
  const { doc, tools } = loadReferenceSpec(spec.label);
  const run = await runSpec(spec.label, doc, tools, seed, draws);
  runs.push({ run, version: String(doc["openapi"] ?? doc["swagger"] ?? "?") });
  process.stderr.write(`${spec.label}: ${run.cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const rows = knownDifferences();
const count = (run: SpecRun, id: string): number => run.cases.filter((c) => c.known.includes(id)).length;
const lines: string[] = [];
lines.push("# sluice's requests against swagger-client's", "");
lines.push(`Written by \`node --conditions=@sluice/source --import tsx scripts/reference-builder.ts --out ${out}${seed === 20261201 ? "" : ` --seed ${seed}`}${draws === 3 ? "" : ` --draws ${draws}`}\` on ${new Date().toISOString().slice(0, 10)}`);
lines.push(`(seed ${seed}, ${draws} argument draws per operation; swagger-client 3.37.3). What equal means and every known difference with its`);
lines.push("reason: docs/reference-request-builder.md. A case is one drawn argument set; it agrees when the two requests are equal.", "");
lines.push("| spec | version | operations | cases | agree | known differences (cases) | unexplained | operations skipped |");
lines.push("|---|---|---:|---:|---:|---|---:|---:|");
const total = { operations: 0, cases: 0, agree: 0, unexplained: 0, skipped: 0 };
for (const { run, version } of runs) {
  const agree = run.cases.filter((c) => c.differences.length === 0).length;
  const unexplained = run.cases.filter((c) => c.unexplained.length > 0).length;
  const known = rows.map((r) => [r.id, count(run, r.id)] as const).filter(([, n]) => n > 0).map(([id, n]) => `\`${id}\` ${n}`).join(", ");
  lines.push(`| ${run.spec} | ${version} | ${run.operations} | ${run.cases.length} | ${agree} | ${known || "none"} | ${unexplained} | ${run.skipped.length} |`);
  total.operations += run.operations;
  total.cases += run.cases.length;
  total.agree += agree;
  total.unexplained += unexplained;
  total.skipped += run.skipped.length;
}
if (only === "") lines.push(`| **all** | | ${total.operations} | ${total.cases} | ${total.agree} (${((100 * total.agree) / Math.max(1, total.cases)).toFixed(1)}%) | | ${total.unexplained} | ${total.skipped} |`, "");
if (only === "") {
  lines.push("## Known differences, all specs", "");
  lines.push("| id | verdict | cases |", "|---|---|---:|");
  for (const row of rows) lines.push(`| \`${row.id}\` | ${row.verdict} | ${runs.reduce((n, { run }) => n + count(run, row.id), 0)} |`);
  lines.push("");
}
const skipped = runs.flatMap(({ run }) => run.skipped.map((s) => `- ${run.spec}: \`${s.tool}\`: ${s.why}`));
if (skipped.length > 0) lines.push("## Operations skipped", "", ...skipped, "");
const unexplained = runs.flatMap(({ run }) => run.cases.filter((c) => c.unexplained.length > 0).slice(0, 5).map((c) => `- ${run.spec}: ${c.endpoint}: ${c.unexplained.map((d) => `${d.part}${d.name === undefined ? "" : ` ${d.name}`}: sluice \`${d.sluice}\`, reference \`${d.reference}\``).join("; ")}`));
if (unexplained.length > 0) lines.push("## Unexplained (first five per spec)", "", ...unexplained, "");
writeFileSync(out, lines.join("\n"));
process.stderr.write(`wrote ${out}: ${total.agree} of ${total.cases} cases agree, ${total.unexplained} unexplained\n`);
