/**
 * Input schemas as MCP servers write them (draft-07 from zod-to-json-schema with
 * `definitions` and `#/properties/...` refs, 2020-12 with `$defs`) normalised into sluice's
 * 2020-12 form; what the converter cannot take refuses that tool, with a code and a pointer
 * into the snapshot, never the server.
 */
import { describe, expect, it } from "vitest";
import { buildMcpPackIR, mcpToolNames } from "../src/index.ts";
import { makeSnapshot } from "@sluice/mcp-client";

const source = { name: "t", file: "tools.snapshot.json", sha256: "0" };
const build = (tools: unknown[]) => buildMcpPackIR(makeSnapshot({ name: "s", version: "1" }, "2025-06-18", tools), source);

describe("buildMcpPackIR", () => {
  it("reads draft-07: definitions, refs into properties, tuple items, dependencies", () => {
    const ir = build([
      {
        name: "draft7",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: {
            owner: { $ref: "#/definitions/User" },
            reviewer: { $ref: "#/properties/owner" },
            point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
            card: { type: "string" },
            cvc: { type: "string" },
          },
          required: ["owner"],
          additionalProperties: false,
          definitions: { User: { type: "object", properties: { login: { type: "string" } }, required: ["login"], additionalProperties: false } },
        },
      },
    ]);
    expect(ir.skipped).toEqual([]);
    const tool = ir.tools[0]!;
    expect(tool.parameters.properties["owner"]).toEqual({ $ref: "#/$defs/User" });
    expect(tool.parameters.properties["point"]).toEqual({ type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false });
    expect(ir.defs["User"]).toEqual({ type: "object", properties: { login: { type: "string" } }, required: ["login"], additionalProperties: false });
    expect(Object.keys(ir.defs)).toHaveLength(2);
    expect(tool.binding).toEqual({ kind: "mcp", tool: "draft7", arguments: ["owner", "reviewer", "point", "card", "cvc"] });
  });

  it("gives a definition one name when every tool defines it alike, and qualifies it where they differ", () => {
    const same = { type: "object", properties: { id: { type: "string" } } };
    const ir = build([
      { name: "a", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/Ref" }, y: { $ref: "#/$defs/Own" } }, $defs: { Ref: same, Own: { type: "string" } } } },
      { name: "b", inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/Ref" }, y: { $ref: "#/$defs/Own" } }, $defs: { Ref: same, Own: { type: "integer" } } } },
    ]);
    expect(Object.keys(ir.defs).sort()).toEqual(["Ref", "a_Own", "b_Own"]);
  });

  it("refuses one tool with a code and a pointer into the snapshot, and generates the others", () => {
    const ir = build([
      { name: "ok", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
      { name: "dynamic", inputSchema: { type: "object", properties: { q: { $dynamicRef: "#meta" } } } },
      { name: "remote", inputSchema: { type: "object", properties: { q: { $ref: "https://example.com/schema.json" } } } },
    ]);
    expect(ir.tools.map((tool) => tool.name)).toEqual(["ok"]);
    const byTool = Object.fromEntries(ir.skipped.map((skip) => [skip.operation, skip]));
    expect(byTool["tools/call dynamic"]).toMatchObject({ code: "KEYWORD_UNSUPPORTED" });
    expect(byTool["tools/call dynamic"]!.reason).toContain("/tools/0/inputSchema/properties/q/$dynamicRef");
    expect(byTool["tools/call remote"]).toMatchObject({ code: "EXTERNAL_REF" });
  });

  it("refuses an input schema that is not an object of named arguments; a bare object takes none", () => {
    const ir = build([
      { name: "ok", inputSchema: { type: "object" } },
      { name: "scalar", inputSchema: { type: "string" } },
      { name: "union", inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, oneOf: [{ required: ["a"] }, { required: ["b"] }] } },
    ]);
    expect(ir.tools.map((tool) => [tool.name, tool.parameters])).toEqual([["ok", { properties: {}, required: [] }]]);
    expect(ir.skipped.map((skip) => [skip.operation, skip.code, skip.pointer])).toEqual([
      ["tools/call scalar", "INPUT_SCHEMA_UNSUPPORTED", "/tools/1/inputSchema"],
      ["tools/call union", "INPUT_SCHEMA_UNSUPPORTED", "/tools/2/inputSchema"],
    ]);
    expect(ir.skipped[1]!.reason).toContain("its root has oneOf");
  });

  it("keeps valid names, and sanitises the others without clashes", () => {
    const names = mcpToolNames([
      { name: "files.read", inputSchema: {} },
      { name: "files_read", inputSchema: {} },
      { name: "files/read", inputSchema: {} },
      { name: "x".repeat(80), inputSchema: {} },
    ]);
    expect([...names.values()]).toEqual(["files_read_2", "files_read", "files_read_3", "x".repeat(64)]);
  });
});
