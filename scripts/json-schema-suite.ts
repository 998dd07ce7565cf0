/**
 * The JSON-Schema-Test-Suite through every path a schema reaches sluice by (issue 22,
 * item 2): writes the per-keyword-file table to bench/JSON-SCHEMA-SUITE.md and the
 * deviation table (from test/support/json-schema-deviations.ts) into docs/json-schema.md.
 * test/json-schema-suite.test.ts holds the same results to: no accepted invalid instance,
 * every refused valid one a listed deviation.
 *
 * Run: node --conditions=@sluice/source --import tsx scripts/json-schema-suite.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deviationsFor, renderDeviationTable, TABLE_END, TABLE_START } from "../test/support/json-schema-deviations.ts";
import { loadGroups, PATHS_OF_DRAFT, runGroup, type CaseResult, type SuitePath } from "../test/support/json-schema-suite.ts";

const ROOT = fileURLToPath(new URL("../test/fixtures/json-schema-test-suite/", import.meta.url));
const BENCH = new URL("../bench/JSON-SCHEMA-SUITE.md", import.meta.url);
const DOC = new URL("../docs/json-schema.md", import.meta.url);

const LABEL: Record<SuitePath, string> = {
  direct: "draft 2020-12, Tool.create (direct)",
  "openapi-3.1": "draft 2020-12 through the OpenAPI 3.1 generator",
  "openapi-3.0": "draft 4 through the OpenAPI 3.0 generator",
  "swagger-2.0": "draft 4 through the Swagger 2.0 generator",
  mcp: "draft 2020-12 as an MCP tool's input schema, snapshotted and generated",
};

/**
 * The same harness over the sources of the branch's base (commit db426bf: screening,
 * validation and the converter as they were), measured 2026-12-01 by checking those four
 * files out over this tree and running the per-path count; kept as text, not re-measured.
 */
const BEFORE = [
  "Before this branch (base commit db426bf, same harness and deviation list):",
  "",
  "| Path | Agree | Accept invalid | Refuse valid (deviation) | Refuse valid (unexplained) |",
  "| --- | ---: | ---: | ---: | ---: |",
  "| direct 2020-12 | 1121 | 4 | 148 | 26 |",
  "| OpenAPI 3.1 | 1107 | 18 | 150 | 24 |",
  "| OpenAPI 3.0 (draft 4) | 537 | 21 | 51 | 9 |",
  "| Swagger 2.0 (draft 4) | 537 | 21 | 51 | 9 |",
  "",
  "Most unexplained refusals were object or array `const`/`enum` values (now accepted); the",
  "rest were `unevaluatedItems` and `$dynamicRef` cases that are now refused as a whole, a listed",
  "deviation. The accepted invalid instances were dropped keywords (`dependentRequired`, `enum: []`,",
  "`$dynamicRef`, `additionalItems`, `dependencies`) and Ajv's `unevaluatedItems`/`contains` and",
  "`$dynamicRef` gaps.",
];

interface Row { cases: number; agree: number; acceptInvalid: number; deviation: number; unexplained: number; ids: Set<string> }
const emptyRow = (): Row => ({ cases: 0, agree: 0, acceptInvalid: 0, deviation: 0, unexplained: 0, ids: new Set() });

function add(row: Row, r: CaseResult): void {
  row.cases++;
  if (r.outcome === "agree") row.agree++;
  else if (r.outcome === "accept-invalid") row.acceptInvalid++;
  else {
    const found = deviationsFor(r.file, r.group, r.cause);
    if (found === undefined) row.unexplained++;
    else {
      row.deviation++;
      for (const d of found) row.ids.add(d.id);
    }
  }
}

const started = Date.now();
const byPath = new Map<SuitePath, Map<string, Row>>();
const unexplained: string[] = [];
const acceptedInvalid: string[] = [];
for (const [draft, paths] of Object.entries(PATHS_OF_DRAFT)) {
  for (const group of loadGroups(ROOT, draft)) {
    for (const path of paths) {
      const files = byPath.get(path) ?? new Map<string, Row>();
      byPath.set(path, files);
      for (const r of runGroup(path, group)) {
        const row = files.get(r.file) ?? emptyRow();
        files.set(r.file, row);
        add(row, r);
        if (r.outcome === "accept-invalid") acceptedInvalid.push(`${path} ${r.file} | ${r.group} | ${r.test}`);
        else if (r.outcome === "refuse-valid" && deviationsFor(r.file, r.group, r.cause) === undefined) unexplained.push(`${path} ${r.file} | ${r.group} | ${r.test} (${r.cause})`);
      }
    }
  }
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const lines: string[] = [
  "# JSON-Schema-Test-Suite: what sluice accepts, per path and keyword file",
  "",
  `Measured ${new Date().toISOString().slice(0, 10)} with`,
  "`node --conditions=@sluice/source --import tsx scripts/json-schema-suite.ts`",
  `(${seconds} s on this machine). Suite: json-schema-org/JSON-Schema-Test-Suite at commit 44401e0, required files`,
  "(test/fixtures/json-schema-test-suite/). Each case's schema becomes the argument `v` of a tool",
  "(test/support/json-schema-suite.ts) and each instance goes through `check()`, the call path",
  "(screening, then validation). Columns: cases the suite and sluice agree on; invalid",
  "instances sluice accepts (must be 0); valid ones refused where docs/json-schema.md lists a",
  "deliberate deviation (its ids); valid ones refused without one (must be 0).",
  "test/json-schema-suite.test.ts holds these two zeros.",
  "",
  ...BEFORE,
  "",
];
for (const [path, files] of byPath) {
  const total = emptyRow();
  lines.push(`## ${LABEL[path]}`, "", "| File | Cases | Agree | Accept invalid | Refuse valid (deviation) | Refuse valid (unexplained) | Deviations |", "| --- | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const [file, row] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    total.cases += row.cases;
    total.agree += row.agree;
    total.acceptInvalid += row.acceptInvalid;
    total.deviation += row.deviation;
    total.unexplained += row.unexplained;
    lines.push(`| ${file} | ${row.cases} | ${row.agree} | ${row.acceptInvalid} | ${row.deviation} | ${row.unexplained} | ${[...row.ids].sort().join(", ")} |`);
  }
  lines.push(`| **all** | **${total.cases}** | **${total.agree}** | **${total.acceptInvalid}** | **${total.deviation}** | **${total.unexplained}** | |`, "");
}
if (acceptedInvalid.length > 0 || unexplained.length > 0) lines.push("## Failing cases", "", ...[...acceptedInvalid, ...unexplained].map((line) => `- ${line}`), "");
writeFileSync(BENCH, lines.join("\n"));

const doc = readFileSync(DOC, "utf8");
const start = doc.indexOf(TABLE_START);
const end = doc.indexOf(TABLE_END);
if (start < 0 || end < start) throw new Error(`docs/json-schema.md has no deviation markers (${TABLE_START} ... ${TABLE_END})`);
writeFileSync(DOC, `${doc.slice(0, start + TABLE_START.length)}\n${renderDeviationTable()}\n${doc.slice(end)}`);

console.log(`bench/JSON-SCHEMA-SUITE.md written (${seconds} s): ${acceptedInvalid.length} accepted invalid, ${unexplained.length} refused valid without a deviation`);
if (acceptedInvalid.length > 0 || unexplained.length > 0) process.exitCode = 1;
