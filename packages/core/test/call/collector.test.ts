import { describe, expect, it } from "vitest";
import { CallCollector } from "../../src/index.ts";

const record = (outcome: string, payloadBytes: number, contextBytes: number) => ({
  tool: "t",
  outcome,
  payloadBytes,
  contextBytes,
  savedBytes: payloadBytes - contextBytes,
  ratio: 1,
  durationMs: 1,
});

describe("CallCollector.summary", () => {
  it("counts failures apart: a half-failed run never shows negative savings", () => {
    const collector = new CallCollector();
    collector.record(record("ok", 1_000, 200));
    collector.record(record("HTTP_ERROR", 0, 168));
    collector.record(record("AUTH_MISSING", 0, 90));
    expect(collector.summary()).toEqual({ calls: 3, failed: 2, payloadBytes: 1_000, contextBytes: 200, savedBytes: 800, ratio: 5, failedContextBytes: 258 });
  });

  it("an all-failed run saves nothing and says what the errors cost", () => {
    const collector = new CallCollector();
    collector.record(record("HTTP_ERROR", 40, 168));
    expect(collector.summary()).toMatchObject({ payloadBytes: 0, contextBytes: 0, savedBytes: 0, failedContextBytes: 168 });
  });
});
