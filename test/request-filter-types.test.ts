/**
 * The request builder's second filter (`assertNothingWithheld`) reads a `Type.key`
 * withholding by the type of the object that holds the key, as screening does. Found by the
 * long round of the egress fuzzer (`pnpm test:long`): in Linear's curated tools, where the
 * recursive filters' `and`/`or` are cut by type (`IssueFilter.and`), the builder also
 * refused `estimate.and` (an `EstimateComparator` member the tool offers), because the ref
 * at `IssueFilter.estimate` carried the type it is declared in. The call failed closed:
 * check() accepted it and every request refused it.
 */
import { describe, expect, it } from "vitest";
import { allTools } from "@sluice/pack-linear";

const credentials = { apiKey: { token: "lin_api_0123456789abcdef" } };
const tool = allTools.find((t) => t.name === "custom_view_create")!;

describe("Type.key withholdings in the request builder's second filter", () => {
  it("sends a member another type declares under the withheld name", async () => {
    expect(tool.withheld.map((w) => w.path)).toContain("IssueFilter.and");
    const args = { input: { name: "n", filterData: { estimate: { and: [{ gt: 1 }], or: [] } } } };
    expect(tool.check(args)).toEqual([]);
    const request = await tool.request(args, { credentials });
    const body = JSON.parse(String(request.body)) as { variables: { input: { filterData: unknown } } };
    expect(body.variables.input.filterData).toEqual({ estimate: { and: [{ gt: 1 }], or: [] } });
  });

  it("still refuses the member where its type withholds it", async () => {
    const args = { input: { name: "n", filterData: { and: [{}] } } };
    expect(tool.check(args)).toEqual([expect.objectContaining({ code: "withheld", path: "/input/filterData/and" })]);
    await expect(tool.request(args, { credentials })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});
