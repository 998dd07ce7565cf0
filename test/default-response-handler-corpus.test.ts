/**
 * The default response handler on every OpenAPI and GraphQL document of the corpus: each
 * pack is generated in memory, served by a local mock (127.0.0.1, closed after each spec),
 * and a sample of its list and get tools is called (scripts/bench-default-handler.ts does
 * the driving; bench/DEFAULT-HANDLER.md has the numbers). For every answer, every `id` in
 * it and, for a tool whose pagination the answer shows (a Relay connection, a `Link`
 * header, a cursor field with a cursor argument, `has_more` with `starting_after`), its
 * cursor or next-page marker and more-pages flag must survive the handler, also on the
 * next page's answer.
 */
import { describe, expect, it } from "vitest";
import { corpusSpecs, runSpec, type SpecRun } from "../scripts/bench-default-handler.ts";
import { LONG, sweep } from "./support/tier.ts";

const corpus = corpusSpecs();
/**
 * The quick tier's fixed sample (the long tier runs every document): each pagination style
 * the runtime knows (GitHub REST `Link`, Stripe `has_more`/`starting_after`, cursors in
 * Notion, Google Calendar and Drive and in the Storefront's Relay connections), each kind
 * of document (OpenAPI 3.0 JSON and YAML, 3.1, Swagger 2.0 in Slack's, GraphQL
 * introspection), 11 next-page answers (the last test asks for 10), and the webhook-only
 * document with no tools. The other documents repeat these paths (about half the CPU).
 */
const QUICK = new Set([
  "github-rest/api.github.com.json",
  "stripe/spec3.json",
  "notion/notion-openapi.json",
  "google/calendar-v3.yaml",
  "google/drive-v3.yaml",
  "slack/slack_web_openapi_v2_without_examples.json",
  "shopify-storefront/storefront.schema.json",
  "petstore/webhook-example-3.1.json",
]);
const specs = sweep(corpus, (spec) => QUICK.has(spec.name));
const runs: SpecRun[] = [];

describe("default response handler on the corpus", () => {
  it("finds the corpus", () => {
    expect(corpus.filter((s) => s.kind === "openapi").length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((s) => s.kind === "graphql").length).toBe(5);
    // A renamed document must not shrink the quick sample unnoticed.
    if (!LONG) for (const name of QUICK) expect(corpus.map((s) => s.name)).toContain(name);
  });

  it.each(specs.map((spec) => [spec.name, spec] as const))("%s: every id, cursor and more-pages flag survives", async (_name, spec) => {
    const run = await runSpec(spec, { perKind: 3, listLength: 5 });
    runs.push(run);
    expect(run.error).toBeUndefined();
    // A document with read operations gets answers (webhook-only documents have none).
    if (run.tools > 0 && spec.name !== "petstore/webhook-example-3.1.json") expect(run.rows.length, run.failures.join("\n")).toBeGreaterThan(0);
    for (const row of run.rows) {
      expect(row.missing, `${row.tool} page ${row.page} (${row.pagination})`).toEqual([]);
    }
    // Paginated answers: the marker is there to be kept (a check that cannot pass vacuously).
    for (const row of run.rows.filter((r) => r.pagination !== "none" && r.page === 1)) expect(row.markers, row.tool).toBeGreaterThan(0);
  }, 180_000);

  it("the corpus exercised pagination of every kind the runtime knows", () => {
    const styles = new Set(runs.flatMap((r) => r.rows).map((row) => row.pagination));
    for (const style of ["cursor", "link", "lastItemId"] as const) expect(styles, style).toContain(style);
    expect(runs.flatMap((r) => r.rows).filter((row) => row.page === 2).length).toBeGreaterThanOrEqual(10);
    const payload = runs.flatMap((r) => r.rows).reduce((sum, row) => sum + row.payloadBytes, 0);
    const context = runs.flatMap((r) => r.rows).reduce((sum, row) => sum + row.contextBytes, 0);
    expect(context).toBeLessThan(payload);
  });
});
