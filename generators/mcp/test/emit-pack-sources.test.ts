/**
 * The MCP pack's secret-looking arguments follow the generic rule (secretLookingArguments):
 * a name that reads like a secret is flagged unless its value can only be a boolean, which
 * says whether, never what. Tools written fresh for the shapes.
 */
import { describe, expect, it } from "vitest";
import { makeSnapshot } from "@sluice/mcp-client";
import { buildMcpPackIR, mcpRuntimeFacts } from "../src/index.ts";

const source = { name: "t", file: "tools.snapshot.json", sha256: "0" };

describe("mcpRuntimeFacts secretLooking", () => {
  it("flags secret-named strings and untyped values, never boolean flags", () => {
    const properties = {
      api_key: { type: "string" },
      token: {},
      is_secret: { type: "boolean" },
      secret: { type: ["boolean", "null"] },
      has_password: { anyOf: [{ type: "boolean" }, { type: "null" }] },
      private_key: { enum: [true, false] },
      client_secret: { type: ["string", "boolean"] },
    };
    const ir = buildMcpPackIR(makeSnapshot({ name: "s", version: "1" }, "2025-06-18", [{ name: "vault", inputSchema: { type: "object", properties } }]), source);
    expect(mcpRuntimeFacts(ir).secretLooking.map((entry) => entry.argument).sort()).toEqual(["api_key", "client_secret", "token"]);
  });
});
