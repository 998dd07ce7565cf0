import { describe, expect, it } from "vitest";
import { Tool } from "@sluice/core";
import { toMCP, toMCPShared } from "../src/adapters/index.ts";
import { fixtureTools } from "./adapters-fixtures.ts";

// The binding plays no part in the MCP entry; borrow a real one.
const binding = fixtureTools()[0]!.binding;
const toolWith = (name: string, annotations: Tool["annotations"]): Tool =>
  Tool.create({ name, description: name, inputSchema: { type: "object", properties: {} }, binding, annotations });

describe("toMCP", () => {
  it.each<[string, { given: Tool["annotations"]; want: unknown }]>([
    ["read-only and idempotent", { given: { readOnly: true, idempotent: true }, want: { readOnlyHint: true, idempotentHint: true } }],
    ["a write that is not destructive", { given: { readOnly: false, destructive: false }, want: { readOnlyHint: false, destructiveHint: false } }],
    ["a destructive, idempotent delete", { given: { readOnly: false, destructive: true, idempotent: true }, want: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } }],
    ["no annotations: no annotations object, so clients keep the spec's cautious defaults", { given: {}, want: undefined }],
  ])("%s", (_name, { given, want }) => {
    const [entry] = toMCP([toolWith("t", given)]);
    expect(entry!.annotations).toEqual(want);
  });

  it("sets openWorldHint on every tool only when the caller says so", () => {
    expect(toMCP(fixtureTools()).some((t) => t.annotations?.openWorldHint !== undefined)).toBe(false);
    expect(toMCP(fixtureTools(), { openWorldHint: true }).map((t) => t.annotations?.openWorldHint)).toEqual([true, true, true, true]);
  });

  it("maps the real packs' binding annotations", () => {
    expect(toMCP(fixtureTools()).map((t) => [t.name, t.annotations])).toEqual(
      fixtureTools()
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((t) => [t.name, {
          ...(t.annotations.readOnly === undefined ? {} : { readOnlyHint: t.annotations.readOnly }),
          ...(t.annotations.destructive === undefined ? {} : { destructiveHint: t.annotations.destructive }),
          ...(t.annotations.idempotent === undefined ? {} : { idempotentHint: t.annotations.idempotent }),
        }]),
    );
    const issuesList = toMCP(fixtureTools()).find((t) => t.name === "issues_list");
    expect(issuesList?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
  });

  it("sends the input schema as inputSchema", () => {
    const tool = fixtureTools()[2]!;
    expect(toMCP([tool])[0]).toMatchObject({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  });

  it("toMCPShared gives toMCP's entry, byte for byte, with the tool's own (frozen) schema instead of a copy", () => {
    for (const tool of fixtureTools()) {
      const shared = toMCPShared(tool);
      expect(JSON.stringify(shared)).toBe(JSON.stringify(toMCP([tool])[0]));
      expect(shared.inputSchema).toBe(tool.inputSchema);
      expect(JSON.stringify(toMCPShared(tool, { openWorldHint: false }))).toBe(JSON.stringify(toMCP([tool], { openWorldHint: false })[0]));
    }
    const notObject = { name: "t", description: "t", inputSchema: { type: "string" } };
    expect(() => toMCPShared(notObject)).toThrow(expect.objectContaining({ code: "SPEC_INVALID" }));
    expect(() => toMCP([notObject])).toThrow(expect.objectContaining({ code: "SPEC_INVALID" }));
  });
});
