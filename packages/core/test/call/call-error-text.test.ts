/**
 * The text a model reads for a failed call: what `sluice serve` sends, `CODE: message`, the
 * issue list of a refusal included, never a stack trace.
 */
import { describe, expect, it } from "vitest";
import { argumentRefusal, callErrorText, SluiceError, Tool } from "@sluice/core";

const tool = Tool.create({
  name: "create_issue",
  description: "d",
  inputSchema: { type: "object", properties: { title: { type: "string" }, labels: { type: "array", items: { type: "string" } } }, required: ["title"], additionalProperties: false },
  binding: { kind: "graphql", operationType: "mutation", field: "f", document: "mutation F { f }", variables: {} },
});

describe("callErrorText", () => {
  it.each([
    ["a SluiceError", new SluiceError("EGRESS_DENIED", "create_issue refused the call."), "EGRESS_DENIED: create_issue refused the call."],
    ["any other error, by its message and the tool", new TypeError("x is not a function"), "INTERNAL_ERROR: create_issue failed inside the caller (x is not a function); the API may not have been called."],
    ["a thrown string", "boom", "INTERNAL_ERROR: create_issue failed inside the caller (boom); the API may not have been called."],
  ])("%s", (_name, error, want) => {
    expect(callErrorText(error, "create_issue")).toBe(want);
  });

  it("never carries a stack trace", () => {
    const error = new Error("deep");
    expect(error.stack).toContain("at ");
    expect(callErrorText(error)).not.toContain("\n    at ");
  });
});

describe("argumentRefusal", () => {
  it("is the error call() throws, listing every issue", async () => {
    const args = { labels: 5, extra: true };
    const refusal = argumentRefusal(tool.name, tool.check(args));
    const thrown: unknown = await tool.call(args).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(SluiceError);
    expect(callErrorText(refusal)).toBe(callErrorText(thrown));
    expect(refusal.code).toBe("INVALID_ARGUMENTS");
    // The missing title, the wrong labels, the unknown key: all three, in one answer.
    expect(refusal.issues?.map((issue) => issue.path).sort()).toEqual(["/extra", "/labels", "/title"]);
    expect(callErrorText(refusal)).toMatch(/^INVALID_ARGUMENTS: create_issue refused the call/);
    expect(callErrorText(refusal)).toContain("- /labels: ");
  });

  it("is EGRESS_DENIED when a withheld argument is among the issues", () => {
    const narrowed = tool.derived({ drop: ["labels"] });
    const refusal = argumentRefusal(narrowed.name, narrowed.check({ title: "t", labels: ["x"] }));
    expect(refusal.code).toBe("EGRESS_DENIED");
  });
});
