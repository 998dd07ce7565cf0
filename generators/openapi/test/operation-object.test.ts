import { describe, expect, it } from "vitest";
import { build, oas30, onlyTool, swagger2 } from "./build.ts";

describe("flat arguments and collisions between locations", () => {
  const doc = oas30({
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      post: {
        parameters: [
          { name: "id", in: "query", schema: { type: "integer" } },
          { name: "id", in: "header", schema: { type: "boolean" } },
          { name: "page[size]", in: "query", schema: { type: "integer" } },
        ],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: "string" }, metadata: { type: "object" } } },
              encoding: { metadata: { style: "deepObject", explode: true } },
            },
          },
        },
      },
    },
  });

  it("gives path the plain name, suffixes the others, and records the mapping", () => {
    const tool = onlyTool(build(doc));
    expect(Object.keys(tool.parameters.properties)).toEqual(["id", "query_id", "page_size_", "header_id", "body_id", "name", "metadata"]);
    expect(tool.binding.parameters.map((p) => [p.arg, p.in, p.name])).toEqual([
      ["id", "path", "id"],
      ["query_id", "query", "id"],
      ["page_size_", "query", "page[size]"],
      ["header_id", "header", "id"],
    ]);
    expect(tool.binding.body).toEqual({
      mediaType: "application/x-www-form-urlencoded",
      encoding: "form",
      required: true,
      fields: { body_id: "id", name: "name", metadata: "metadata" },
      propertyEncoding: { metadata: { style: "deepObject", explode: true } },
    });
    expect(tool.parameters.required).toEqual(["id", "body_id", "name"]);
  });

  it("is deterministic", () => {
    expect(JSON.stringify(build(doc))).toBe(JSON.stringify(build(structuredClone(doc))));
  });

  it("puts a non-object body in one argument named body", () => {
    const tool = onlyTool(build(oas30({ "/x": { put: { requestBody: { content: { "application/json": { schema: { type: "array", items: { type: "string" } } } } } } } })));
    expect(tool.parameters.properties).toEqual({ body: { type: "array", items: { type: "string" } } });
    expect(tool.binding.body).toEqual({ mediaType: "application/json", encoding: "json", wholeBodyArg: "body" });
  });

  it("flattens a Swagger 2.0 body parameter and maps formData parameters to form fields", () => {
    const json = onlyTool(
      build(swagger2({ "/pets": { post: { parameters: [{ name: "pet", in: "body", required: true, schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } }] } } })),
    );
    expect(json.binding.body).toEqual({ mediaType: "application/json", encoding: "json", required: true, fields: { name: "name" } });
    expect(json.parameters.required).toEqual(["name"]);
    const form = onlyTool(
      build(
        swagger2({
          "/pets/{petId}": {
            post: {
              consumes: ["application/x-www-form-urlencoded"],
              parameters: [
                { name: "petId", in: "path", required: true, type: "integer" },
                { name: "name", in: "formData", required: true, type: "string" },
                { name: "tags", in: "formData", type: "array", items: { type: "string" }, collectionFormat: "multi" },
              ],
            },
          },
        }),
      ),
    );
    expect(form.binding.body).toEqual({
      mediaType: "application/x-www-form-urlencoded",
      encoding: "form",
      required: true,
      fields: { name: "name", tags: "tags" },
      propertyEncoding: { tags: { style: "form", explode: true } },
    });
    expect(form.parameters.required).toEqual(["petId", "name"]);
  });
});

describe("binding: server, auth, annotations", () => {
  const schemes = {
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        basic: { type: "http", scheme: "basic" },
        key: { type: "apiKey", in: "query", name: "api_key" },
        oauth: { type: "oauth2", flows: {} },
        oidc: { type: "openIdConnect", openIdConnectUrl: "https://example.com" },
      },
    },
    security: [{ bearer: [] }],
    servers: [{ url: "https://{region}.example.com/v1", variables: { region: { default: "eu" } } }],
  };
  const pack = build(
    oas30(
      {
        "/a": {
          get: {},
          delete: { security: [] },
          put: { security: [{ key: [], basic: [] }, { oauth: [] }, {}] },
          trace: { security: [{ oidc: [] }] },
        },
      },
      schemes,
    ),
  );
  const tool = (method: string) => pack.tools.find((t) => t.binding.kind === "http" && t.binding.method === method)!;

  it("uses the first server with variables substituted", () => {
    expect(tool("GET").binding).toMatchObject({ server: "https://eu.example.com/v1" });
  });

  it.each<[string, { method: string; want: unknown }]>([
    ["document-level security", { method: "GET", want: [[{ scheme: "bearer", type: "bearer" }]] }],
    ["[] means no auth", { method: "DELETE", want: [] }],
    ["alternatives, with {} as optional", { method: "PUT", want: [[{ scheme: "key", type: "apiKey", in: "query", name: "api_key" }, { scheme: "basic", type: "basic" }], [{ scheme: "oauth", type: "bearer" }], []] }],
    ["openIdConnect as bearer", { method: "TRACE", want: [[{ scheme: "oidc", type: "bearer" }]] }],
  ])("%s", (_, { method, want }) => {
    expect(tool(method).binding).toMatchObject({ auth: want });
  });

  it.each([
    ["GET", { readOnly: true, idempotent: true }],
    ["PUT", { readOnly: false, idempotent: true }],
    ["DELETE", { readOnly: false, destructive: true, idempotent: true }],
  ])("annotates %s", (method, want) => {
    expect(tool(method).annotations).toEqual(want);
  });

  it("uses schemes://host basePath for Swagger 2.0", () => {
    const t = onlyTool(build(swagger2({ "/x": { get: {} } }, { host: "slack.com", basePath: "/api", schemes: ["https"] })));
    expect(t.binding.server).toBe("https://slack.com/api");
  });

  it("resolves path items and parameters through refs into #/paths", () => {
    const doc = oas30({
      "/a/{id}": { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] } },
      "/b/{id}": { $ref: "#/paths/~1a~1{id}" },
    });
    const names = build(doc).tools.map((t) => (t.binding.kind === "http" ? t.binding.path : ""));
    expect(names.sort()).toEqual(["/a/{id}", "/b/{id}"]);
  });
});
