import { describe, expect, it } from "vitest";
import { TOOL_NAME_PATTERN } from "@sluice/emit";
import { assignToolNames, type OperationRef } from "../src/tool-names.ts";

describe("assignToolNames", () => {
  it.each<[string, { given: OperationRef; want: string }]>([
    ["Stripe PascalCase operationId", { given: { method: "GET", path: "/v1/customers/{customer}", operationId: "GetCustomersCustomer" }, want: "get_customers_customer" }],
    ["GitHub slash and dash", { given: { method: "GET", path: "/repos/{owner}/{repo}/contents/{path}", operationId: "repos/get-content" }, want: "repos_get_content" }],
    ["Slack dotted", { given: { method: "POST", path: "/chat.postMessage", operationId: "chat.postMessage" }, want: "chat_post_message" }],
    ["Google dotted", { given: { method: "POST", path: "/v1/documents/{documentId}:batchUpdate", operationId: "docs.documents.batchUpdate" }, want: "docs_documents_batch_update" }],
    ["no operationId: method and path words", { given: { method: "DELETE", path: "/pets/{id}" }, want: "delete_pets_id" }],
    ["operationId with only punctuation falls back to the path", { given: { method: "GET", path: "/a" , operationId: "--" }, want: "get_a" }],
    ["root path", { given: { method: "GET", path: "/" }, want: "get" }],
  ])("%s", (_, { given, want }) => {
    expect(assignToolNames([given]).get(given)).toBe(want);
  });

  it("gives duplicate operationIds distinct names, the same in every run and any input order", () => {
    const a: OperationRef = { method: "GET", path: "/a", operationId: "list" };
    const b: OperationRef = { method: "GET", path: "/b", operationId: "list" };
    const first = assignToolNames([a, b]);
    const second = assignToolNames([b, a]);
    expect(first.get(a)).not.toBe(first.get(b));
    expect([first.get(a), first.get(b)]).toEqual([second.get(a), second.get(b)]);
    expect(first.get(a)).toMatch(/^list_[0-9a-f]{6}$/);
  });

  it("fits long names into 64 characters with a stable hash, keeping them distinct", () => {
    const long = "x".repeat(80);
    const a: OperationRef = { method: "GET", path: "/a", operationId: `${long}A` };
    const b: OperationRef = { method: "GET", path: "/b", operationId: `${long}B` };
    const names = assignToolNames([a, b]);
    expect(names.get(a)).not.toBe(names.get(b));
    for (const name of names.values()) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});
