import { describe, expect, it } from "vitest";
import { assignToolNames, fitToolName, snakeCase, TOOL_NAME_PATTERN, type RootFieldRef } from "../src/tool-names.ts";

describe("snakeCase", () => {
  it.each([
    ["issueCreate", "issue_create"],
    ["URLPreview", "url_preview"],
    ["viewer", "viewer"],
    ["oauth2Token", "oauth2_token"],
    ["sha256Digest", "sha256_digest"],
    ["addPullRequestReviewV2", "add_pull_request_review_v2"],
    ["createIPAllowListEntry", "create_ip_allow_list_entry"],
    ["already_snake", "already_snake"],
  ])("%s -> %s", (given, want) => {
    expect(snakeCase(given)).toBe(want);
  });
});

const ref = (operationType: "query" | "mutation", field: string, isConnection = false): RootFieldRef => ({ operationType, field, isConnection });

describe("assignToolNames", () => {
  it("suffixes query connections with _list and keeps other names plain", () => {
    const issues = ref("query", "issues", true);
    const issue = ref("query", "issue");
    const create = ref("mutation", "issueCreate");
    const names = assignToolNames([issues, issue, create]);
    expect([names.get(issues), names.get(issue), names.get(create)]).toEqual(["issues_list", "issue", "issue_create"]);
  });

  it("separates query/mutation collisions, then same-kind collisions, deterministically", () => {
    const q = ref("query", "labelCreate");
    const m = ref("mutation", "labelCreate");
    const a = ref("mutation", "fooBar");
    const b = ref("mutation", "foo_bar");
    const first = assignToolNames([q, m, a, b]);
    const second = assignToolNames([b, a, m, q].map((r) => r));
    expect(first.get(q)).toBe("label_create_query");
    expect(first.get(m)).toBe("label_create_mutation");
    expect(first.get(a)).not.toBe(first.get(b));
    expect(new Set(first.values()).size).toBe(4);
    for (const r of [q, m, a, b]) expect(second.get(r)).toBe(first.get(r));
  });

  it("truncates long names to 64 characters with a stable hash, keeping them distinct", () => {
    const long1 = ref("mutation", `${"x".repeat(70)}One`);
    const long2 = ref("mutation", `${"x".repeat(70)}Two`);
    const names = assignToolNames([long1, long2]);
    const n1 = names.get(long1)!;
    const n2 = names.get(long2)!;
    expect(n1).toHaveLength(64);
    expect(n1).toMatch(TOOL_NAME_PATTERN);
    expect(n2).toMatch(TOOL_NAME_PATTERN);
    expect(n1).not.toBe(n2);
    expect(fitToolName(`${"x".repeat(70)}_one`)).toBe(n1);
    expect(fitToolName("short")).toBe("short");
  });
});
