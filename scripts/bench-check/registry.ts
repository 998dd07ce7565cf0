/**
 * Every bench/*.md, the one command that regenerates it from a fresh clone (with ../shared
 * beside it), and how `pnpm bench:check` treats it: `rerun` names the quick rerun whose
 * counts must equal the file's; a file without one says why it is not rerun (a timing-only
 * bench, an input no clone has, a record of a one-off comparison). A bench file missing
 * from this list, or not naming its command, fails bench:check.
 */
const NODE = "node --conditions=@sluice/source --import tsx";

export interface BenchEntry {
  file: string;
  /** The command, as the file names it (verbatim), that regenerates the file; null when none can. */
  command: string | null;
  /**
   * The quick rerun bench:check runs: arguments after `node --conditions=@sluice/source --import tsx`,
   * files it writes (restored after; none when it prints its tables to stdout, which are then compared).
   */
  rerun?: { args: string[]; writes: string[]; complete: boolean };
  /** Why bench:check does not rerun it (when `rerun` is absent). */
  notRerun?: string;
}

/** The specs of bench/REFERENCE-BUILDER.md that the quick rerun takes whole: every rule's cases, a few seconds. */
const REFERENCE_QUICK = [
  "(serialization cases)",
  "../shared/specs/petstore/petstore-3.0.json",
  "../shared/specs/petstore/swagger-petstore-3.0.yaml",
  "../shared/specs/notion/notion-openapi.json",
  "../shared/specs/google/calendar-v3.yaml",
  "test/fixtures/outside/box.yaml",
  "test/fixtures/outside/spotify.yaml",
];

const TIMINGS = "timings only (its counts are the inputs' sizes): reported by its command, never compared, and too slow for CI";

export const BENCHES: readonly BenchEntry[] = [
  { file: "bench/REFERENCE-BUILDER.md", command: `${NODE} scripts/reference-builder.ts --out bench/REFERENCE-BUILDER.md`, rerun: { args: ["scripts/reference-builder.ts", "--out", "bench/REFERENCE-BUILDER.md", "--only", REFERENCE_QUICK.join(",")], writes: ["bench/REFERENCE-BUILDER.md"], complete: false } },
  { file: "bench/DISPATCH.md", command: `${NODE} scripts/bench-dispatch.ts`, rerun: { args: ["scripts/bench-dispatch.ts"], writes: ["bench/DISPATCH.md"], complete: true } },
  { file: "bench/COMPACTION.md", command: `${NODE} scripts/bench-compaction.ts`, rerun: { args: ["scripts/bench-compaction.ts"], writes: ["bench/COMPACTION.md"], complete: true } },
  { file: "bench/JSON-SCHEMA-SUITE.md", command: `${NODE} scripts/json-schema-suite.ts`, rerun: { args: ["scripts/json-schema-suite.ts"], writes: ["bench/JSON-SCHEMA-SUITE.md", "docs/json-schema.md"], complete: true } },
  // Quick: the petstore folder's rows (`--only petstore`); the whole corpus is `pnpm corpus-packs`, run by .ci/run (minutes).
  { file: "bench/CORPUS-PACKS.md", command: `${NODE} scripts/corpus-packs.ts`, rerun: { args: ["scripts/corpus-packs.ts", "--only", "petstore", "--out", "bench/CORPUS-PACKS.md"], writes: ["bench/CORPUS-PACKS.md"], complete: false } },
  { file: "bench/NEVER-WIDEN.md", command: `${NODE} scripts/bench-never-widen.ts`, notRerun: "not yet compared: the script prints its token counts as lines and the file's tables were written from them by hand" },
  { file: "bench/REDACTION.md", command: `${NODE} scripts/bench-redaction.ts`, notRerun: "not yet compared: timings, and the one count (redactions made) is a printed line, not a table" },
  // Quick: the Google specs' rows only (`--only google/`), each whole; every spec takes minutes.
  { file: "bench/DEFAULT-HANDLER.md", command: `${NODE} scripts/bench-default-handler.ts --per-kind 5 --list-length 10`, rerun: { args: ["scripts/bench-default-handler.ts", "--per-kind", "5", "--list-length", "10", "--only", "google/"], writes: ["bench/DEFAULT-HANDLER.md"], complete: false } },
  // Quick: the report over the committed sessions (--report); recording them again runs ten serve processes (minutes).
  { file: "bench/USAGE.md", command: `${NODE} scripts/bench-usage.ts`, rerun: { args: ["scripts/bench-usage.ts", "--report"], writes: ["bench/USAGE.md"], complete: true } },
  { file: "bench/CALLS.md", command: `${NODE} scripts/bench-calls.ts --list-length 10`, rerun: { args: ["scripts/bench-calls.ts", "--list-length", "10"], writes: ["bench/CALLS.md"], complete: true } },
  {
    file: "bench/REFORMATTERS.md",
    command: `${NODE} scripts/bench-reformatters.ts --out bench/REFORMATTERS.md`,
    notRerun: "its MCP table reads files under a temporary folder whose random name is in the paths the servers answer (a few tokens differ per run); the reformatters' outcomes on the spec examples and the captures are held by test/reformatters-real.test.ts and packages/core/test/reformat.test.ts",
  },
  { file: "bench/MCP-PROXY.md", command: `${NODE} scripts/bench-mcp-proxy.ts --rounds 1000 --starts 5`, notRerun: TIMINGS },
  { file: "bench/MCP-LOCK-STORM.md", command: `${NODE} scripts/bench-lock-storm.ts 3000 3`, notRerun: "listings per storm depend on when the SDK client reads the notices (timing), so they are reported, not compared" },
  { file: "bench/EGRESS-MAP-SIZE.md", command: `${NODE} scripts/bench-egress-map-size.ts`, notRerun: "sizes only (bytes and lines of maps that egress:check already holds to the packs)" },
  { file: "bench/FRAMEWORKS.md", command: `${NODE} scripts/bench-frameworks.ts`, notRerun: "not yet compared: it loads three agent frameworks, and its token counts are held by the frameworks' own tests" },
  { file: "bench/MCP-GENERATE.md", command: null, notRerun: "a record of one before-against-after comparison (09681fd checked out beside the tree, scripts/bench-mcp-ir.ts and scripts/bench-mcp-generate.ts)" },
  { file: "bench/MCP-SOURCE.md", command: `${NODE} scripts/bench-mcp-source.ts`, rerun: { args: ["scripts/bench-mcp-source.ts"], writes: [], complete: true } },
  { file: "bench/TSC.md", command: `${NODE} scripts/bench-tsc.ts --rounds 3 --before DIR`, notRerun: TIMINGS },
  { file: "bench/GENERATE-IR.md", command: `${NODE} scripts/bench-generate-ir.ts --rounds 5 --baseline a9dbd45 --corpus`, notRerun: TIMINGS },
  { file: "bench/GENERATE.md", command: "npx pnpm -r build && node --import tsx scripts/bench-generate.ts --rounds 3 --scaling-rounds 1", notRerun: TIMINGS },
  { file: "bench/SERVE-MEMORY.md", command: `${NODE} scripts/bench-serve-memory.ts --calls 600 --size 3900000`, notRerun: TIMINGS },
  { file: "bench/FIT.md", command: "pnpm bench:fit", notRerun: TIMINGS },
  { file: "bench/REPORT.md", command: "node --import tsx scripts/bench-report.ts", notRerun: TIMINGS },
  { file: "bench/STARTUP.md", command: "node --import tsx scripts/bench-startup.ts", notRerun: TIMINGS },
  { file: "bench/SERVE-SPEED.md", command: "node --import tsx scripts/bench-serve-speed.ts", notRerun: TIMINGS },
  { file: "bench/LARGE-PACKS.md", command: "node --import tsx scripts/bench-serve-speed.ts", notRerun: `${TIMINGS}; one run generates an 8,984-tool pack and serves it to two clients each round (minutes)` },
  { file: "bench/LARGE-SURVEY-REPORT.md", command: "node --import tsx scripts/bench-large-survey.ts", notRerun: `${TIMINGS}; one run generates packs of 1,123 to 8,984 tools and surveys and reports each several times (minutes)` },
  { file: "bench/PATHS.md", command: `${NODE} scripts/bench-paths.ts`, notRerun: TIMINGS },
  { file: "bench/MCP.md", command: "pnpm bench:mcp", notRerun: TIMINGS },
  { file: "bench/RESULTS.md", command: "pnpm bench", notRerun: TIMINGS },
  { file: "bench/PATTERNS.md", command: null, notRerun: "its before/after rows need a build of the RegExp engine's base (RE2_BENCH_DIR), which no clone has" },
  { file: "bench/CONFIG-CHOICES.md", command: `${NODE} scripts/bench-config-choices.ts`, rerun: { args: ["scripts/bench-config-choices.ts"], writes: [], complete: true } },
  { file: "bench/BREADTH.md", command: null, notRerun: "reads a local copy of APIs-guru/openapi-directory that no clone has" },
  {
    file: "bench/BODY-FIDELITY.md",
    command: `${NODE} scripts/body-fidelity.ts test/fixtures/outside/{adyen-checkout,apideck-accounting,box,launchdarkly,spotify,twitter}.yaml ../shared/specs/*/*.{json,yaml}`,
    // The outside specs' rows (the corpus rows take a minute more); the okta.yaml row cannot be rerun (the file says why).
    rerun: { args: ["scripts/body-fidelity.ts", ...["adyen-checkout", "apideck-accounting", "box", "launchdarkly", "spotify", "twitter"].map((name) => `test/fixtures/outside/${name}.yaml`)], writes: [], complete: false },
  },
  { file: "bench/EXAMPLES.md", command: `${NODE} scripts/bench-examples.ts`, notRerun: "about five minutes over every spec, too slow for a quick rerun; its PagerDuty and Okta rows read local copies no clone has and stand apart in the file, marked so" },
  { file: "bench/EGRESS-MAP-SPEED.md", command: null, notRerun: "a record of one base-against-branch comparison (a9dbd45 checked out beside the tree)" },
  { file: "bench/GENERATE-MAP-SPEED.md", command: null, notRerun: "a record of base-against-branch comparisons of the egress map on generate's path (740adb1 unpacked beside the tree)" },
  { file: "bench/EMIT-SPEED.md", command: null, notRerun: "a record of one base-against-branch comparison" },
  { file: "bench/GENERATE-CORE-SPEED.md", command: null, notRerun: "a record of one base-against-branch comparison of two built checkouts (scripts/compare-generate-builds.ts); timings, not counts" },
  { file: "bench/TEST-TIME.md", command: null, notRerun: "a record of the quick tier's wall and CPU time on a loaded machine" },
  { file: "bench/YAML-PARSE.md", command: `${NODE} scripts/bench-yaml-parse.ts --rounds 3`, notRerun: TIMINGS },
  { file: "bench/GENERATE-SPEED.md", command: "node --import tsx scripts/bench-generate-speed.ts --rounds 3 --scaling-rounds 1 --copies 1,2,4,6,8", notRerun: TIMINGS },
  { file: "bench/GENERATE-SPEED-3.md", command: null, notRerun: "a record of one session's base-against-branch comparisons (ASCII header, one decode, keepNames, a map worker's floor) on a loaded machine" },
  { file: "bench/PACK-LOAD.md", command: "node scripts/bench-pack-load.mjs", notRerun: `${TIMINGS}; one run builds the packages, generates a pack of 8,984 tools and loads it several times each way (minutes)` },
  { file: "bench/TOOL-DATA-FORMAT.md", command: null, notRerun: "timings of importing each form of tools.gen.ts's tool data, on a pack of 8 Kubernetes copies generated by hand (the commands at its top)" },
  { file: "bench/QUICK-TIER.md", command: null, notRerun: "a record of the quick tier's CPU per test file, before and after one session's changes, on a loaded machine" },
];
