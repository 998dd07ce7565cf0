/**
 * Egress conformance by wire name on packs generated here from six real specs outside the
 * corpus (test/fixtures/outside: Adyen Checkout, Apideck accounting, Box, LaunchDarkly,
 * Spotify, Twitter): random projections, canaries under other wire names (see
 * test/support/wire-fuzz.ts), a recording server on 127.0.0.1; no withheld byte on the wire.
 *
 * SLUICE_FUZZ_SEED replays another seed; SLUICE_LONG=1 (`pnpm test:long`) fuzzes every tool with eight projections each.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
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
  for (const { label, report } of reports) console.log(`  ${summarizeWire(label, report)}`);
});

const OUTSIDE = ["adyen-checkout", "apideck-accounting", "box", "launchdarkly", "spotify", "twitter"];

describe.each(OUTSIDE)("wire-name conformance: generated from outside spec %s", (file) => {
  it("no withheld byte on the wire", async () => {
    const document = loadDocument(readFileSync(new URL(`./fixtures/outside/${file}.yaml`, import.meta.url)), `${file}.yaml`);
    const ir = buildOpenAPIPackIR(document, { name: file, file: `${file}.yaml`, sha256: "0".repeat(64) });
    const tools = pickWireTools([...definePack(ir).tools], 24, SEED, LONG);
    const report = await fuzzWireNames({ tools, seed: SEED, runs: RUNS, server, calls: 1 });
    reports.push({ label: file, report });
    expect(report.attempts).toBeGreaterThan(tools.length);
    const shown = report.findings.slice(0, 10).map(describeWireFinding);
    expect(shown, `${report.findings.length} findings`).toEqual([]);
    expect(report.withheldBytesOnWire).toBe(0);
  });
});
