/**
 * Catalog compaction measured on real catalogs; writes bench/COMPACTION.md (overwritten).
 *   node --conditions=@sluice/source --import tsx scripts/bench-compaction.ts
 * Catalogs are Anthropic-shape tool arrays (`{name, description, input_schema}`) in
 * compact JSON, as a client sends them, so the annotation strip's savings are annotations
 * only (it re-serializes compactly; on pretty-printed input it would also drop whitespace).
 */
import { writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { SINGLE_SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from "../packages/schema/src/index.ts";
import { ANNOTATION_KEYWORDS, reduceDescriptions, stripAnnotationBytes, stripAnnotations, type CompactionResult } from "../packages/catalog/src/compaction/index.ts";
import { tools as gdocs } from "../packs/gdocs/src/index.ts";
import { tools as github } from "../packs/github/src/index.ts";
import { tools as githubRest } from "../packs/github-rest/src/index.ts";
import { tools as gmail } from "../packs/gmail/src/index.ts";
import { tools as gsheets } from "../packs/gsheets/src/index.ts";
import { tools as linear } from "../packs/linear/src/index.ts";
import { tools as notion } from "../packs/notion/src/index.ts";
import { tools as slack } from "../packs/slack/src/index.ts";
import { tools as stripe } from "../packs/stripe/src/index.ts";

const COMMAND = "node --conditions=@sluice/source --import tsx scripts/bench-compaction.ts";
const resultsFile = new URL("../bench/COMPACTION.md", import.meta.url);

interface PackTool {
  name: string;
  description: string;
  inputSchema: object;
}

const anthropicShape = (tools: readonly PackTool[]): string =>
  JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })));

// The first three tools of each pack that are not `*_full` twins: what an agent wired to
// several services might send.
const packs: Record<string, readonly PackTool[]> = { linear, github, "github-rest": githubRest, stripe, slack, gmail, gdocs, gsheets, notion };
const mixed = Object.entries(packs).flatMap(([, tools]) => tools.filter((t) => !t.name.endsWith("_full")).slice(0, 3));

const catalogs: { name: string; tools: number; text: string }[] = [
  { name: `github-rest, all tools`, tools: githubRest.length, text: anthropicShape(githubRest) },
  { name: `stripe, all tools`, tools: stripe.length, text: anthropicShape(stripe) },
  { name: `9 packs x 3 tools`, tools: mixed.length, text: anthropicShape(mixed) },
];

/** How often each annotation keyword occurs at a schema position in a catalog. */
function annotationCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATION_KEYWORDS.includes(key)) counts[key] = (counts[key] ?? 0) + 1;
      if (SUBSCHEMA_MAP_KEYWORDS.has(key) && value && typeof value === "object") Object.values(value).forEach(visit);
      else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) value.forEach(visit);
      else if (SINGLE_SUBSCHEMA_KEYWORDS.has(key)) visit(value);
    }
  };
  for (const tool of JSON.parse(text) as { input_schema: unknown }[]) visit(tool.input_schema);
  return counts;
}

const fmt = (n: number): string => n.toLocaleString("en-US");
const pct = (before: number, after: number): string => `${(((before - after) / before) * 100).toFixed(1)}%`;

const rows: string[] = [];
const annotationRows: string[] = [];
for (const catalog of catalogs) {
  const modes: [string, (text: string) => CompactionResult][] = [
    ["strip (lossless)", stripAnnotations],
    ["strip-bytes (lossless)", stripAnnotationBytes],
    ["reduce (lossy)", reduceDescriptions],
  ];
  for (const [mode, run] of modes) {
    const started = performance.now();
    const { report } = run(catalog.text);
    const ms = performance.now() - started;
    rows.push(
      `| ${catalog.name} | ${catalog.tools} | ${mode} | ${fmt(report.tokensBefore)} | ${fmt(report.tokensAfter)} | ${pct(report.tokensBefore, report.tokensAfter)} | ${report.ratio} | ${report.adopted ? "yes" : `no (${report.reason})`} | ${Math.round(ms)} ms |`,
    );
  }
  const counts = Object.entries(annotationCounts(catalog.text))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, n]) => `\`${key}\` ${fmt(n)}`);
  annotationRows.push(`| ${catalog.name} | ${counts.length === 0 ? "none" : counts.join(", ")} |`);
}

const report = [
  "# Catalog compaction",
  "",
  `- command: \`${COMMAND}\``,
  `- date: ${new Date().toISOString()}`,
  `- node: ${process.version}`,
  `- CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} logical cores)`,
  "- tokens: o200k_base (gpt-tokenizer via `@sluice/core/tokens`), of the whole catalog text",
  "",
  "Catalogs are Anthropic-shape tool arrays in compact JSON. The mixed catalog takes the",
  "first three non-`*_full` tools of each pack (linear, github, github-rest, stripe, slack,",
  "gmail, gdocs, gsheets, notion). Each mode runs on the original catalog (not chained).",
  "Time is one cold call (the SHA-256 memo is empty), token counting included.",
  "",
  "| catalog | tools | mode | tokens before | tokens after | saved | ratio | adopted | time |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ...rows,
  "",
  "## What there was to strip",
  "",
  "Annotation keywords at schema positions in each catalog, counted by this script (`strip`",
  "removes all ten kinds, keeping `$id`/`$schema` in a tool that uses refs; `strip-bytes` removes",
  "`$schema`, `title`, `examples` and `deprecated`):",
  "",
  "| catalog | annotations found |",
  "| --- | --- |",
  ...annotationRows,
  "",
  "Honest reading: our generated packs carry almost no annotations (the generators drop",
  "`examples`, and withhold read-only and deprecated inputs), so the lossless strips save 0 to 3%",
  "here, all of it Stripe's `title`s. That is a property of these packs, not a ceiling: catalogs",
  "from other sources (hand-written MCP servers, converters that keep `title`, `examples`,",
  "`$schema`) carry more, as in the published two-tool figure below. The reducer is lossy and",
  "opt-in; its savings depend on how long the descriptions are (GitHub REST's are long).",
  "",
  "## Published figures (not re-measured here: the two-tool catalog is not vendored)",
  "",
  "| catalog | mode | tokens before | tokens after | saved |",
  "| --- | --- | --- | --- | --- |",
  "| two-tool catalog | annotation strip | 434 | 405 | 6.7% |",
  "| two-tool catalog | description reducer | 436 | 366 | 16.1% |",
  "",
].join("\n");

await writeFile(resultsFile, report);
process.stdout.write(report);
