/**
 * Detection of arguments that duplicate an apiKey credential looks at the value's type, as
 * the generic secret-looking check does: a flag named like the key (`secret: boolean`
 * beside a `SECRET` header scheme) says whether, never what, so it cannot carry the key
 * and stays the model's to fill. The spec is written fresh for the shape.
 */
import { describe, expect, it } from "vitest";
import { definePack } from "@sluice/core";
import type { ToolIR } from "@sluice/core";
import { buildOpenAPIPackIR } from "../src/index.ts";
import { credentialArguments, type DeclaredScheme } from "../src/credential-arguments.ts";

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

describe("credentialArguments walks a schema tools share once, but never less deep than it is reached", () => {
  const schemes: DeclaredScheme[] = [{ scheme: "key", type: "apiKey", in: "header", name: "X-Api-Key" }];
  /** `levels` objects, each holding the next as member `next`, the last holding `leaf`. */
  const nest = (levels: number, leaf: object): object => {
    let schema = leaf;
    for (let i = 0; i < levels; i += 1) schema = { type: "object", properties: { next: schema } };
    return schema;
  };
  const bodyTool = (name: string, body: object) => ({ name, parameters: { type: "object", properties: { body } }, binding: { kind: "http", parameters: [], body: { wholeBodyArg: "body" } } }) as unknown as ToolIR;
  // The member duplicating the key sits 10 objects down a schema two tools send.
  const shared = nest(10, { type: "object", properties: { api_key: { type: "string" } } });

  it("reached only past the depth bound, the member is not seen (the bound the next case crosses)", () => {
    expect(credentialArguments([bodyTool("deep", nest(191, shared))], schemes, "vault")).toEqual({});
  });

  it("met first deep and then near the top, the shared schema is walked again and the member found", () => {
    expect(credentialArguments([bodyTool("deep", nest(191, shared)), bodyTool("near", shared)], schemes, "vault")).toEqual({ api_key: "key" });
  });

  it("met near the top first, the same schema reached again deeper adds nothing and loses nothing", () => {
    expect(credentialArguments([bodyTool("near", shared), bodyTool("deep", nest(191, shared))], schemes, "vault")).toEqual({ api_key: "key" });
  });
});
