/**
 * Detection of arguments that duplicate an apiKey credential looks at the value's type, as
 * the generic secret-looking check does: a flag named like the key (`secret: boolean`
 * beside a `SECRET` header scheme) says whether, never what, so it cannot carry the key
 * and stays the model's to fill. The spec is written fresh for the shape.
 */
import { describe, expect, it } from "vitest";
import { definePack } from "@sluice/core";
import { buildOpenAPIPackIR } from "../src/index.ts";

const ok = { "200": { description: "ok" } };
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

function vault(extraPaths: Record<string, unknown> = {}) {
  return {
    openapi: "3.0.3",
    info: { title: "vault", version: "1" },
    servers: [{ url: "https://api.vault.test" }],
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "SECRET" } } },
    security: [{ key: [] }],
    paths: {
      // A flattened body member, a query parameter, a nested member of a body kept whole, a nullable flag.
      "/notes": { post: { operationId: "addNote", requestBody: json({ type: "object", properties: { text: { type: "string" }, secret: { type: "boolean" } }, required: ["text"] }), responses: ok } },
      "/notes/search": { get: { operationId: "findNotes", parameters: [{ name: "secret", in: "query", schema: { type: "boolean" } }], responses: ok } },
      "/shares": {
        post: {
          operationId: "share",
          requestBody: json({ type: "object", properties: { options: { type: "object", properties: { secret: { type: "boolean", nullable: true } } } }, additionalProperties: true }),
          responses: ok,
        },
      },
      ...extraPaths,
    },
  };
}

const build = (spec: unknown) => buildOpenAPIPackIR(spec, { name: "vault", file: "vault.json", sha256: "0".repeat(64) }, { detectCredentialParameters: true });

describe("detectCredentialParameters and boolean members", () => {
  it("a boolean named like the apiKey stays an argument: offered, sent, never withheld", () => {
    const ir = build(vault());
    expect(ir.tools.map((tool) => tool.name)).toEqual(["add_note", "find_notes", "share"]);
    expect(ir.tools.flatMap((tool) => tool.withheld ?? [])).toEqual([]);
    const tools = Object.fromEntries(definePack(ir).tools.map((tool) => [tool.name, tool]));
    expect(tools["add_note"]!.check({ text: "hi", secret: true })).toEqual([]);
    expect(tools["find_notes"]!.check({ secret: false })).toEqual([]);
    expect(tools["share"]!.check({ body: { options: { secret: null } } })).toEqual([]);
    expect(Object.keys(tools["add_note"]!.inputSchema.properties as object)).toEqual(["text", "secret"]);
  });

  it("a string member of that name is still found and withheld (the control)", () => {
    const ir = build(vault({ "/keys": { post: { operationId: "rotate", requestBody: json({ type: "object", properties: { secret: { type: "string" }, label: { type: "string" } } }), responses: ok } } }));
    const rotate = ir.tools.find((tool) => tool.name === "rotate")!;
    expect(Object.keys(rotate.parameters.properties)).toEqual(["label"]);
  });
});
