import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { isSluiceError, type SluiceError } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { loadDocument } from "../src/index.ts";
import { build, oas30, onlyTool } from "./build.ts";

function caught(run: () => unknown): SluiceError {
  try {
    run();
  } catch (error) {
    if (isSluiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

describe("bad input gives coded errors", () => {
  it.each<[string, string]>([
    ["JSON schema nested 20,000 levels", '{"openapi":"3.0.0","x":' + '{"properties":{"a":'.repeat(20_000) + "{}" + "}}".repeat(20_000) + "}"],
    ["YAML nested 20,000 levels (flow style)", "openapi: 3.0.0\nx: " + "[".repeat(20_000) + "]".repeat(20_000) + "\n"],
  ])("%s -> SPEC_INVALID, no stack overflow", (_, text) => {
    const error = caught(() => loadDocument(text, "deep"));
    expect(error.code).toBe("SPEC_INVALID"); // the YAML parser may report the depth itself, as a syntax error
  });

  it("a YAML alias that contains itself is refused, not followed forever", () => {
    const error = caught(() => loadDocument("openapi: 3.0.0\nx: &loop\n  y: *loop\n", "loop"));
    expect(error.code).toBe("SPEC_INVALID");
  });

  /** A "billion laughs" document: `levels` anchors, each a list of ten aliases of the one before. */
  const aliasBomb = (levels: number): string => {
    const lines = ["openapi: 3.0.0", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i <= levels; i += 1) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(", ")}]`);
    return `${lines.join("\n")}\n`;
  };

  it("a YAML alias bomb (10^10 nodes from 585 bytes) is refused at once, not walked", () => {
    const started = performance.now();
    const error = caught(() => loadDocument(aliasBomb(9), "bomb"));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.message).toContain("alias bomb");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("the expansion budget is what refuses it: without the guard a 10^7-member bomb loads", async () => {
    const bomb = aliasBomb(6);
    expect(caught(() => loadDocument(bomb, "bomb")).code).toBe("SPEC_INVALID");
    const loaded = (await withoutGuard("yamlExpansionBudget", () => loadDocument(bomb, "bomb"))) as Record<string, unknown[]>;
    expect(loaded["a6"]).toHaveLength(10);
  });

  it("a document whose aliases repeat values within ten times its length loads", () => {
    // 2,000 uses of one 100-member anchor: 200,000 members from 15 KB, more than ten times
    // the text but under the floor every document has (a million members).
    const anchor = `base: &base {${Array.from({ length: 100 }, (_, i) => `k${i}: ${i}`).join(", ")}}`;
    const text = `openapi: 3.0.0\n${anchor}\nuses: [${Array.from({ length: 2_000 }, () => "*base").join(", ")}]\n`;
    const loaded = loadDocument(text, "anchors") as { uses: unknown[] };
    expect(loaded.uses).toHaveLength(2_000);
    expect(loaded.uses[1_999]).toBe(loaded.uses[0]); // shared, not copied
  });

  it.each<[string, { text: string; line: number; column: number }]>([
    ["malformed JSON", { text: '{\n  "openapi": "3.0.0",\n  "paths": {,}\n}', line: 3, column: 13 }],
    ["truncated JSON", { text: '{\n  "openapi": "3.0.0"', line: 2, column: 21 }],
    ["malformed YAML", { text: "openapi: 3.0.0\npaths:\n  /x:\n    get: [1, 2\n", line: 5, column: 1 }],
    // The column of the key that breaks the mapping's indentation.
    ["YAML with bad indentation", { text: "openapi: 3.0.0\ninfo:\n  title: t\n version: 1\n", line: 4, column: 2 }],
  ])("%s -> SPEC_INVALID with line and column", (_, { text, line, column }) => {
    const error = caught(() => loadDocument(text, "spec"));
    expect(error.code).toBe("SPEC_INVALID");
    expect({ line: error.line, column: error.column }).toEqual({ line, column });
  });

  it("rejects a document that is neither OpenAPI nor Swagger", () => {
    expect(caught(() => build({ paths: {} })).code).toBe("SPEC_INVALID");
  });

  it("reports a missing component as UNRESOLVED_REF with the pointer", () => {
    const error = caught(() => build(oas30({ "/x": { get: { parameters: [{ name: "v", in: "query", schema: { $ref: "#/components/schemas/Missing" } }] } } })));
    expect(error.code).toBe("UNRESOLVED_REF");
    expect(error.pointer).toBe("/components/schemas/Missing");
  });

  it("never fetches an external or URL ref: EXTERNAL_REF, skipped or thrown", () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const doc = oas30({
      "/a": { get: { parameters: [{ name: "v", in: "query", schema: { $ref: "https://example.com/schemas.json#/Pet" } }] } },
      "/b": { get: { parameters: [{ name: "v", in: "query", schema: { $ref: "./other.yaml#/Pet" } }] } },
      "/c": { get: {} },
    });
    const pack = build(doc);
    expect(pack.tools.map((t) => t.name)).toEqual(["get_c"]);
    expect(pack.skipped.map((s) => [s.operation, s.reason.split(":")[0]])).toEqual([
      ["GET /a", "EXTERNAL_REF"],
      ["GET /b", "EXTERNAL_REF"],
    ]);
    expect(caught(() => build(doc, { onExternalRef: "throw" })).code).toBe("EXTERNAL_REF");
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
  });

  it("uses an external ref the caller maps to a local file", () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-openapi-"));
    const file = join(dir, "other.yaml");
    writeFileSync(file, "Pet:\n  type: object\n  properties:\n    name:\n      type: string\n");
    const doc = oas30({ "/b": { get: { parameters: [{ name: "v", in: "query", schema: { $ref: "./other.yaml#/Pet" } }] } } });
    const pack = build(doc, { externalRefs: { "./other.yaml": file } });
    expect(onlyTool(pack).parameters.properties.v).toEqual({ $ref: "#/$defs/Pet" });
    expect(pack.defs.Pet).toEqual({ type: "object", properties: { name: { type: "string" } } });
  });

  it("gives duplicate operationIds distinct, deterministic names", () => {
    const doc = oas30({ "/a": { get: { operationId: "list" } }, "/b": { get: { operationId: "list" } } });
    const names = build(doc).tools.map((t) => t.name);
    expect(new Set(names).size).toBe(2);
    expect(build(structuredClone(doc)).tools.map((t) => t.name)).toEqual(names);
  });

  it("names the operation when a path template has no parameter", () => {
    const error = caught(() => build(oas30({ "/x/{id}": { get: {} } })));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.message).toContain("operation GET /x/{id}: path parameter id is not declared");
    expect(error.pointer).toBe("/paths/~1x~1{id}/get");
  });

  it("keeps __proto__ and constructor keys from YAML and JSON as data", () => {
    for (const text of ['{"a": {"__proto__": {"x": 1}, "constructor": 2}}', "a:\n  __proto__:\n    x: 1\n  constructor: 2\n"]) {
      const doc = loadDocument(text) as { a: Record<string, unknown> };
      expect(Object.keys(doc.a)).toEqual(["__proto__", "constructor"]);
      expect(Object.getPrototypeOf(doc.a)).toBe(Object.prototype);
    }
  });
});
