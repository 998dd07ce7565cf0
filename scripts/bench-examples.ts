/**
 * The specs' own request examples, replayed through the generated tools (issue 22, item 1),
 * and every tool's minimal valid call. Writes bench/EXAMPLES.md.
 *
 *   node --conditions=@sluice/source --import tsx scripts/bench-examples.ts [--out bench/EXAMPLES.md]
 *
 * Specs: every OpenAPI document of ../shared/specs and test/fixtures/outside; and, when a
 * local mirror is present (never fetched here), PagerDuty's REST spec (no licence, so not
 * vendored) and Okta's management API (no licence file in its repository, so not vendored).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { definePack, SluiceError } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "../generators/openapi/src/index.ts";
import { CORPUS_OPENAPI, minimalCalls, ORACLE_DEPARTURES, OUTSIDE_SPECS, specExamples, tally, type SpecExamplesReport } from "../test/support/spec-examples.ts";

const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1]! : "bench/EXAMPLES.md";

const CORPUS = CORPUS_OPENAPI;
const OUTSIDE = OUTSIDE_SPECS;

interface Source {
  label: string;
  read: () => Buffer | undefined;
  note?: string;
}

const gitShow = (repo: string, spec: string) => () => {
  if (!existsSync(repo)) return undefined;
  try {
    return execFileSync("git", ["--git-dir", repo, "show", spec], { maxBuffer: 1 << 28 });
  } catch {
    return undefined;
  }
};

const sources: Source[] = [
  ...CORPUS.map((file) => ({ label: file, read: () => readFileSync(`../shared/specs/${file}`) })),
  ...OUTSIDE.map((name) => ({ label: `outside/${name}.yaml`, read: () => readFileSync(`test/fixtures/outside/${name}.yaml`) })),
  {
    label: "pagerduty (mirror)",
    read: gitShow("/work/.mirror/PagerDuty+api-schema/repo", "91a06fb3:reference/REST/openapiv3.json"),
    note: "PagerDuty/api-schema reference/REST/openapiv3.json at 91a06fb3 (no licence: measured from a local mirror, not vendored)",
  },
  {
    label: "okta-management (mirror)",
    read: gitShow("/work/.mirror/okta+okta-management-openapi-spec/repo", "fdda229:dist/current/management-minimal.yaml"),
    note: "okta/okta-management-openapi-spec dist/current/management-minimal.yaml at fdda229 (no licence file: measured from a local mirror, not vendored)",
  },
];

interface Row {
  label: string;
  dialect: string;
  counts: ReturnType<typeof tally>;
  tools: number;
  minimalRefused: string[];
  withBodyRefused: string[];
  clashes: number;
  report: SpecExamplesReport;
}

const CREDENTIALS = ((scheme: { type: string }) => (scheme.type === "basic" ? { username: "u", password: "p" } : { token: "t" })) as never;

const rows: Row[] = [];
const absent: string[] = [];
const started = Date.now();
for (const source of sources) {
  const bytes = source.read();
  if (bytes === undefined) {
    absent.push(source.label);
    continue;
  }
  const document = loadDocument(bytes, source.label);
  const report = await specExamples(document, source.label);
  const pack = definePack(buildOpenAPIPackIR(document, { name: "bench", file: source.label, sha256: "0".repeat(64) }));
  const minimalRefused: string[] = [];
  const withBodyRefused: string[] = [];
  let clashes = 0;
  for (const tool of pack.tools) {
    const offered = new Set(Object.keys((tool.inputSchema.properties ?? {}) as object));
    if (tool.withheld.some((w) => offered.has(w.path))) clashes += 1;
    for (const [index, args] of minimalCalls(tool).entries()) {
      try {
        await tool.request(args, { credentials: CREDENTIALS, baseUrl: "http://127.0.0.1:9" });
      } catch (error) {
        if (!(error instanceof SluiceError)) throw error;
        (index === 0 ? minimalRefused : withBodyRefused).push(`${tool.name}${index === 0 ? "" : " (with body)"}: ${error.code} ${JSON.stringify(error.issues?.slice(0, 2) ?? error.message).slice(0, 240)}`);
        break;
      }
    }
  }
  rows.push({ label: source.label, dialect: report.dialect, counts: tally(report), tools: pack.tools.length, minimalRefused, withBodyRefused, clashes, report });
  process.stderr.write(`${source.label}: ${JSON.stringify(tally(report))}, ${pack.tools.length} tools, ${minimalRefused.length} minimal calls refused\n`);
}

const percent = (passed: number, judged: number) => (judged === 0 ? "-" : `${((100 * passed) / judged).toFixed(1)}%`);
const lines: string[] = [];
const say = (line = "") => lines.push(line);
const mirrored = (row: Row) => row.label.includes("(mirror)");
say("# The specs' own request examples, through the generated tools");
say();
say(`Measured ${new Date().toISOString().slice(0, 10)} with \`node --conditions=@sluice/source --import tsx scripts/bench-examples.ts\` from the repository root, \`../shared\` beside it (${Math.round((Date.now() - started) / 1000)} s on the shared 2-core machine).`);
say();
say("Every request example a spec gives (request-body `example` / `examples`, else the body schema's own `example`;");
say("parameter `example` / `examples`, else its schema's `example`; Swagger 2.0 `x-examples`, `schema.example`, `x-example`)");
say("is judged by a reference (Ajv on the spec's own schema, read as listed under \"Where the oracle departs from the spec\"),");
say("then mapped onto the generated tool's arguments (other required arguments minimal), built with `tool.request()`");
say("and compared: body JSON-equal to the example, each example parameter on the wire as its style writes it. Examples are");
say("judged as written: nothing is removed from an example before it is replayed. test/support/spec-examples.ts does it;");
say("test/spec-examples.test.ts holds it (a sample in the quick tier, each with a floor of examples really checked; all of");
say("the vendored specs under `pnpm test:long`).");
say();
say("- **spec faults**: examples the reference refuses (wrong against their own spec): listed below, never counted.");
say("- **no tool**: the operation is skipped by the generator, or the example's parameter is not an argument (a credential, a withheld header).");
say("- **undeclared**: the example sends a body member its schema never declares (the schema is open by omission);");
say("  sluice's flattened arguments are closed, a deliberate deviation (closed objects), not counted.");
say("- **judged** = examples - spec faults - no tool - undeclared; **passed**: accepted and sent exactly as written;");
say("  **read-only refused**: refused only because the example sends members the tool withholds as read-only");
say("  (docs/openapi-read-only.md); **other refused**: refused or sent otherwise for any other reason. Both are failures.");
say("- **minimal refused**: tools whose minimal valid call (required members only, values from the tool's schema) is refused;");
say("  **with body refused**: of the others, tools sending a body whose minimal call with every body argument at its minimal");
say("  value is refused (an optional body that is sent must be sendable; the value builder's limits on unions show here too);");
say("  **clash**: tools that both offer and withhold one argument.");
say();
const header = "| spec | dialect | examples | spec faults | no tool | undeclared | judged | passed | read-only refused | other refused | % | tools | minimal refused | with body refused | clash |";
const rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
const line = (label: string, dialect: string, c: ReturnType<typeof tally>, tools: number, minimal: number, withBody: number, clashes: number) =>
  `| ${label} | ${dialect} | ${c.examples} | ${c.specFaults} | ${c.noTool} | ${c.undeclared} | ${c.judged} | ${c.passed} | ${c.readOnlyRefused} | ${c.judged - c.passed - c.readOnlyRefused} | ${percent(c.passed, c.judged)} | ${tools} | ${minimal} | ${withBody} | ${clashes} |`;
say(header);
say(rule);
const vendored = rows.filter((row) => !mirrored(row));
for (const row of vendored) say(line(row.label, row.dialect, row.counts, row.tools, row.minimalRefused.length, row.withBodyRefused.length, row.clashes));
const sum = (pick: (row: Row) => number, list: Row[]) => list.reduce((total, row) => total + pick(row), 0);
const total = (list: Row[]) => ({
  examples: sum((r) => r.counts.examples, list), specFaults: sum((r) => r.counts.specFaults, list), noTool: sum((r) => r.counts.noTool, list),
  undeclared: sum((r) => r.counts.undeclared, list), judged: sum((r) => r.counts.judged, list), passed: sum((r) => r.counts.passed, list), readOnlyRefused: sum((r) => r.counts.readOnlyRefused, list),
});
say(line("**corpus + outside**", "", total(vendored), sum((r) => r.tools, vendored), sum((r) => r.minimalRefused.length, vendored), sum((r) => r.withBodyRefused.length, vendored), sum((r) => r.clashes, vendored)).replace(/^\| \*\*corpus \+ outside\*\* \| \|/, "| **corpus + outside** | |"));
say();
say("- okta.yaml (vendored) is the directory's only Okta entry, the Users API converted from a Postman collection:");
say("  its examples sit on single properties, so it has no request example as counted here.");
say();
say("### Not reproducible from a clone: local mirrors");
say();
say("These specs have no licence that lets this repository vendor them. The script measures them only where a local git");
say("mirror is present (never fetched); a clone has none, so these rows are a check made here, not a result to quote.");
say();
const local = rows.filter(mirrored);
if (local.length > 0) {
  say(header);
  say(rule);
  for (const row of local) say(line(row.label, row.dialect, row.counts, row.tools, row.minimalRefused.length, row.withBodyRefused.length, row.clashes));
  say();
}
for (const source of sources) if (source.note !== undefined && rows.some((r) => r.label === source.label)) say(`- ${source.label}: ${source.note}.`);
if (absent.length > 0) say(`- Not measured (no local mirror): ${absent.join(", ")}.`);
say();
say("## Where the oracle departs from the spec");
say();
for (const departure of ORACLE_DEPARTURES) say(`- ${departure}`);
say();
say("## Refused or different (the reference accepts them)");
say();
for (const row of rows) {
  const bad = row.report.results.filter((r) => r.outcome.status === "refused" || r.outcome.status === "different" || r.outcome.status === "read_only_refused");
  if (bad.length === 0) continue;
  say(`### ${row.label}: ${bad.length}`);
  say();
  const byCause = new Map<string, string[]>();
  for (const r of bad) {
    const o = r.outcome;
    const cause = o.status === "read_only_refused" ? `read-only refused: ${o.members.map((m) => m.replace(/\/\d+/g, "/*")).filter((m, i, all) => all.indexOf(m) === i).slice(0, 3).join(", ")}` : o.status === "refused" ? `${o.code} ${(o.issues[0] ?? "").replace(/^\/\S*\s/, "").replace(/"[^"]*"/g, "…").slice(0, 90)}` : `different: ${o.status === "different" ? o.reason.slice(0, 60) : ""}`;
    byCause.set(cause, [...(byCause.get(cause) ?? []), `${r.tool ?? r.example.operation} (${r.example.label})`]);
  }
  for (const [cause, where] of [...byCause].sort((a, b) => b[1].length - a[1].length)) say(`- ${where.length} x ${cause}: ${where.slice(0, 4).join(", ")}${where.length > 4 ? ", ..." : ""}`);
  say();
}
say("## Minimal calls refused");
say();
say("Jira's `create_screen_scheme` cannot be called by any value: its `ScreenTypes` requires `defaultScreen`, declares only");
say("`default`, and is closed (`additionalProperties: false`); the test lists it as unsatisfiable. The `oneOf` refusals are");
say("unions of objects with only optional members, where a required-members-only value matches every branch.");
say();
for (const row of rows) {
  const refused = [...row.minimalRefused, ...row.withBodyRefused];
  if (refused.length === 0) continue;
  say(`- ${row.label}: ${refused.slice(0, 6).map((m) => `\`${m.replace(/`/g, "'")}\``).join("; ")}${refused.length > 6 ? "; ..." : ""}`);
}
say();
say("## Spec faults (examples wrong against their own spec)");
say();
for (const row of rows) {
  const faults = row.report.results.filter((r) => r.outcome.status === "spec_fault");
  if (faults.length === 0) continue;
  say(`- ${row.label} (${faults.length}): ${faults.slice(0, 5).map((r) => `${r.example.operation} ${r.example.label}: ${r.outcome.status === "spec_fault" ? r.outcome.errors[0] : ""}`).join("; ")}${faults.length > 5 ? "; ..." : ""}`);
}
say();
writeFileSync(out, lines.join("\n"));
process.stderr.write(`wrote ${out}\n`);
