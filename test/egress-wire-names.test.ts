/**
 * Egress conformance by wire name (issue 21): the wire-name fuzzer (test/support/wire-fuzz.ts)
 * over shapes made for it and the corpus packs' HTTP tools (GraphQL tools send variables by
 * argument name only): no withheld byte on the wire. Packs generated from specs outside the
 * corpus: egress-wire-names-outside.test.ts.
 *
 * Seeded: SLUICE_FUZZ_SEED replays another seed. SLUICE_LONG=1 (`pnpm test:long`) runs every tool of every
 * pack with eight projections each (minutes); the default run samples tools and stays well
 * under a minute on two cores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack, egressMap, splitSelector, type Tool } from "@sluice/core";
import { guards, withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR } from "@sluice/generator-openapi";
import * as stripe from "@sluice/pack-stripe";
import * as githubRest from "@sluice/pack-github-rest";
import * as slack from "@sluice/pack-slack";
import * as gmail from "@sluice/pack-gmail";
import * as gdocs from "@sluice/pack-gdocs";
import * as gsheets from "@sluice/pack-gsheets";
import * as notion from "@sluice/pack-notion";
import { egressAgreement } from "./support/egress-fuzz.ts";
import { startRecordingServer, type RecordingServer } from "./support/recording-server.ts";
import { describeWireFinding, fuzzWireNames, pickWireTools, summarizeWire, type WireFuzzReport } from "./support/wire-fuzz.ts";
import { LONG } from "./support/tier.ts";

const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 20_261_201);
const RUNS = LONG ? 8 : 3;

let server: RecordingServer;
const reports: Array<{ label: string; report: WireFuzzReport }> = [];
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => {
  await server.close();
  const sum = (pick: (r: WireFuzzReport) => number) => reports.reduce((n, { report }) => n + pick(report), 0);
  console.log(`wire-name conformance (seed ${SEED}${LONG ? ", long" : ""}): ${sum((r) => r.attempts)} attempts, ${sum((r) => r.canaries)} canaries, ${sum((r) => r.calls)} calls, withheld bytes on the wire: ${sum((r) => r.withheldBytesOnWire)}, findings: ${sum((r) => r.findings.length)}`);
  for (const { label, report } of reports) console.log(`  ${summarizeWire(label, report)}`);
});

function expectClean(label: string, report: WireFuzzReport): void {
  reports.push({ label, report });
  const shown = report.findings.slice(0, 10).map(describeWireFinding);
  if (report.findings.length > shown.length) shown.push(`... and ${report.findings.length - shown.length} more`);
  expect(shown, `${report.findings.length} findings`).toEqual([]);
  expect(report.withheldBytesOnWire).toBe(0);
}

const api = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.0.3", info: { title: "s", version: "1" }, servers: [{ url: "https://api.example.test" }], paths, ...extra });
const ok = { "200": { description: "ok" } };

/** Shapes made for the wire: exploded query and cookie objects beside plain, credential and apiKey names; header case; credential headers; open objects. */
function shapeTools(): Tool<object>[] {
  const documents = [
    api(
      {
        "/items": {
          get: {
            operationId: "explodedQuery",
            parameters: [
              { name: "filter", in: "query", schema: { type: "object", additionalProperties: { type: "string" } } },
              { name: "where", in: "query", style: "pipeDelimited", explode: true, schema: { type: "object", properties: { admin: { type: "string" }, color: { type: "string" } } } },
              { name: "admin", in: "query", schema: { type: "string" } },
              { name: "pinme", in: "query", schema: { type: "string" } },
              { name: "page.size", in: "query", schema: { type: "string" } },
              { name: "prefs", in: "cookie", explode: true, schema: { type: "object", additionalProperties: { type: "string" } } },
              { name: "session", in: "cookie", schema: { type: "string" } },
              { name: "X-Tenant", in: "header", schema: { type: "string" } },
              { name: "x-tenant", in: "header", schema: { type: "string" } },
              { name: "Cookie", in: "header", schema: { type: "string" } },
              { name: "Proxy-Authorization", in: "header", schema: { type: "string" } },
              { name: "X-Api-Key", in: "header", schema: { type: "string" } },
            ],
            responses: ok,
          },
        },
        "/things": {
          post: {
            operationId: "openBody",
            parameters: [{ name: "q", in: "query", explode: true, schema: { type: "object", properties: { api_key: { type: "string" } }, additionalProperties: true } }],
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { meta: { type: "object", properties: { type: { type: "string" } }, additionalProperties: true }, labels: { type: "object" } } } } } },
            responses: ok,
          },
        },
        "/forms": {
          post: {
            operationId: "formBody",
            requestBody: { content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { extra: { type: "object", additionalProperties: { type: "string" } }, secret: { type: "string" } } } } } },
            responses: ok,
          },
        },
        // A free-form form body (kept whole) beside a query parameter and the query apiKey: servers read both as one set of names.
        "/free-forms": {
          post: {
            operationId: "freeFormBody",
            parameters: [{ name: "account_id", in: "query", schema: { type: "string" } }, { name: "mode", in: "query", schema: { type: "string" } }],
            requestBody: {
              content: {
                "application/x-www-form-urlencoded": {
                  schema: { allOf: [{ type: "object", properties: { client_secret: { type: "string" }, is_admin: { type: "string" }, note: { type: "string" } } }], additionalProperties: { type: "string" } },
                },
              },
            },
            responses: ok,
          },
        },
      },
      {
        components: {
          securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" }, head: { type: "apiKey", in: "header", name: "X-Api-Key" }, sess: { type: "apiKey", in: "cookie", name: "sid" } },
        },
        security: [{ key: [], sess: [] }, { head: [] }],
      },
    ),
  ];
  return documents.flatMap((document, i) => [...definePack(buildOpenAPIPackIR(document, { name: `shapes${i}`, file: "s.json", sha256: "0".repeat(64) })).tools]);
}

describe("wire-name conformance: shapes made for it", () => {
  it("no canary under another name reaches a request or the wire; harmless keys are accepted", async () => {
    const report = await fuzzWireNames({ tools: shapeTools(), seed: SEED, runs: RUNS * 4, server, calls: 40 });
    expect(report.attempts).toBeGreaterThan(100);
    expect(report.shapes["exploded"]).toBeGreaterThan(30);
    expect(report.shapes["header_case"]).toBeGreaterThan(5);
    expect(report.shapes["proto"]).toBeGreaterThan(10);
    expect(report.shapes["folded"]).toBeGreaterThan(30);
    expect(report.shapes["form_folded"]).toBeGreaterThan(10);
    expect(report.cleanAccepted).toBeGreaterThan(20);
    expect(report.readable).toBe(0);
    expect(report.calls).toBeGreaterThan(20);
    expectClean("shapes", report);
  });
});

describe("egress map and screening agree on the made shapes", () => {
  it("every path the map lists as visible is accepted, and the reserved keys are refused", () => {
    const tools = shapeTools().flatMap((tool) => [tool, tool.derived({ name: `${tool.name}_narrow`.slice(0, 64), drop: (tool.binding.kind === "http" ? tool.binding.parameters : []).filter((p) => p.name === "admin" || p.name === "session").map((p) => p.arg) })]);
    const report = egressAgreement(tools, egressMap);
    expect(report.listed).toBeGreaterThan(10);
    expect(report.findings.map((f) => `${f.kind} ${f.tool} ${f.path}: ${f.detail}`)).toEqual([]);
    for (const entry of egressMap(tools)) {
      const tool = tools.find((t) => t.name === entry.name)!;
      for (const reserved of entry.reserved ?? []) {
        // A reserved key with selector syntax (`filter."page.size"`) is listed quoted.
        const [arg, key] = splitSelector(reserved.path) as [string, string];
        expect(tool.check({ [arg]: { [key]: "v" } }).some((issue) => issue.code === "reserved"), `${entry.name} ${reserved.path}`).toBe(true);
      }
    }
  });
});

describe("the wire-name fuzzer notices the guards", () => {
  it("with wireNameScreening off it finds unrefused keys (folded ones too); with wireNames off too, canaries on the wire, read by every listed server as a protected name; with prototypeKeys and requestFilter off, __proto__ on the wire", async () => {
    const run = () => fuzzWireNames({ tools: shapeTools(), seed: SEED, runs: 2, server, calls: 10 });
    const screeningOff = await withoutGuard("wireNameScreening", run);
    expect(screeningOff.findings.filter((f) => f.kind === "unrefused" && f.shape === "exploded").length).toBeGreaterThan(0);
    // Behind screening, the builder refuses the same keys on its own (exploded objects and whole form bodies).
    expect(screeningOff.withheldBytesOnWire).toBe(0);
    expect(screeningOff.findings.filter((f) => f.kind === "unrefused" && f.shape === "folded").length).toBeGreaterThan(0);
    expect(screeningOff.findings.filter((f) => f.kind === "unrefused" && f.shape === "form_folded").length).toBeGreaterThan(0);
    expect(screeningOff.readable).toBe(0);
    const bothOff = await withoutGuard("wireNameScreening", () => withoutGuard("wireNames", run));
    expect(bothOff.findings.filter((f) => f.kind === "leak" && f.shape === "exploded").length).toBeGreaterThan(0);
    expect(bothOff.withheldBytesOnWire).toBeGreaterThan(0);
    // With both off, listed servers read folded keys as the withheld, pinned and credential names.
    const readers = new Set(bothOff.findings.filter((f) => f.kind === "readable").map((f) => f.detail.split(" ")[0]));
    expect([...readers].sort()).toEqual(expect.arrayContaining(["aspnet-core", "django", "express-qs", "php", "rack", "spring"]));
    // The rule list alone: with wireNameFolding off (both checks on, comparing as before the list), folded keys reach the wire and listed servers read them.
    const foldingOff = await withoutGuard("wireNameFolding", run);
    expect(foldingOff.findings.filter((f) => f.kind === "unrefused" && f.shape === "folded").length).toBeGreaterThan(0);
    expect(foldingOff.findings.filter((f) => f.kind === "unrefused" && f.shape === "form_folded").length).toBeGreaterThan(0);
    expect(foldingOff.readable).toBeGreaterThan(0);
    const protoOff = await withoutGuard("prototypeKeys", () => withoutGuard("requestFilter", run));
    expect(protoOff.findings.filter((f) => f.kind === "leak" && f.shape === "proto").length).toBeGreaterThan(0);
    expect(guards.wireNameScreening && guards.wireNames && guards.wireNameFolding && guards.prototypeKeys && guards.requestFilter).toBe(true);
  });
});

const CORPUS: Record<string, { tools: readonly Tool<object>[]; count: number }> = {
  stripe: { tools: stripe.allTools, count: 30 },
  "github-rest": { tools: githubRest.allTools, count: 30 },
  slack: { tools: slack.allTools, count: 20 },
  gmail: { tools: gmail.allTools, count: 25 },
  gdocs: { tools: gdocs.allTools, count: 10 },
  gsheets: { tools: gsheets.allTools, count: 15 },
  notion: { tools: notion.allTools, count: 20 },
};

describe.each(Object.entries(CORPUS))("wire-name conformance: pack %s", (name, plan) => {
  it("no withheld byte on the wire", async () => {
    const tools = pickWireTools(plan.tools, plan.count, SEED, LONG);
    const report = await fuzzWireNames({ tools, seed: SEED, runs: RUNS, server, calls: 1 });
    expect(report.attempts).toBeGreaterThan(tools.length);
    expectClean(name, report);
  });
});
