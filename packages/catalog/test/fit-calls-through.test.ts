/**
 * A tool that fit() rewrote is called as the tool it was fitted from: its pins, withheld
 * paths and validation hold, and strict mode's nulls for members left out are dropped.
 */
import { describe, expect, it } from "vitest";
import { tools } from "@sluice/pack-github-rest";
import { isSluiceError } from "@sluice/core";
import { fit, profile } from "@sluice/catalog";

const issuesCreate = tools.find((tool) => tool.name === "issues_create")!;
const pinned = issuesCreate.derived({ name: "create_issue", drop: ["assignees", "assignee"], pin: { owner: "acme", repo: "widgets" } });

describe("fit() output calls through to the original tool", () => {
  it("sends the pins (openai-strict rewrites the schema; the call keeps owner and repo)", async () => {
    const [fitted] = fit([pinned], profile("openai-strict"), { allowLossy: true }).tools;
    expect(fitted!.inputSchema).not.toEqual(pinned.inputSchema);
    expect(fitted!.pins).toEqual({ owner: "acme", repo: "widgets" });
    const request = await fitted!.request({ title: "Bug", body: null, labels: null, milestone: null });
    expect(request.method).toBe("POST");
    expect(request.url).toBe("https://api.github.com/repos/acme/widgets/issues");
    // Strict mode's nulls for what the model left out are not sent.
    expect(JSON.parse(String(request.body))).toEqual({ title: "Bug" });
  });

  it("keeps a null the tool itself takes when the arguments are valid as sent", async () => {
    const [fitted] = fit([pinned], profile("openai-strict"), { allowLossy: true }).tools;
    const request = await fitted!.request({ title: "Bug", body: "b", labels: ["x"], milestone: null });
    expect(JSON.parse(String(request.body))).toEqual({ title: "Bug", body: "b", labels: ["x"], milestone: null });
  });

  it("refuses withheld and pinned arguments as the original does", async () => {
    const [fitted] = fit([pinned], profile("openai-strict"), { allowLossy: true }).tools;
    for (const args of [{ title: "x", assignees: ["mallory"] }, { title: "x", owner: "evil" }]) {
      const error: unknown = await fitted!.request(args).catch((e: unknown) => e);
      expect(isSluiceError(error, "EGRESS_DENIED")).toBe(true);
    }
    expect(fitted!.check({ title: { no: 1 } }).map((issue) => issue.path)).toEqual(["/title"]);
  });

  it("dropping nulls never turns a hostile key into something else: __proto__ stays a member and is refused", async () => {
    const [fitted] = fit([pinned], profile("openai-strict"), { allowLossy: true }).tools;
    // JSON.parse makes __proto__ an own member, as a model's arguments would arrive.
    const args = JSON.parse('{"title": "x", "body": null, "__proto__": {"owner": "evil", "assignees": ["mallory"]}}') as Record<string, unknown>;
    const error: unknown = await fitted!.request(args).catch((e: unknown) => e);
    expect(isSluiceError(error, "EGRESS_DENIED")).toBe(true);
  });

  it("keeps the pins of a renamed tool too (a profile whose names are shorter)", async () => {
    const long = pinned.derived({ name: `create_issue_${"x".repeat(47)}` });
    const result = fit([long], profile("claude-code"), { allowLossy: true });
    const fitted = result.tools[0]!;
    expect(fitted.name).not.toBe(long.name);
    expect(result.nameMap[fitted.name]).toBe(long.name);
    const request = await fitted.request({ title: "Bug" });
    expect(request.url).toBe("https://api.github.com/repos/acme/widgets/issues");
  });

  it("refuses to derive from a wire form (its schema is the provider's rewrite, not what calls are checked against)", () => {
    const [fitted] = fit([pinned], profile("openai-strict"), { allowLossy: true }).tools;
    expect(() => fitted!.derived({ drop: ["body"] })).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
  });
});
