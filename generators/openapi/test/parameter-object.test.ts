import { describe, expect, it } from "vitest";
import type { HttpParameter } from "@sluice/core";
import { build, oas30, onlyTool, swagger2 } from "./build.ts";

const serialization = (p: HttpParameter) => ({ style: p.style, explode: p.explode });

describe("style and explode defaults (OAS 3.1 §4.8.12.4)", () => {
  it.each<[string, { given: Record<string, unknown>; want: { style: string; explode: boolean } }]>([
    ["query", { given: { name: "q", in: "query", schema: { type: "string" } }, want: { style: "form", explode: true } }],
    ["cookie", { given: { name: "c", in: "cookie", schema: { type: "string" } }, want: { style: "form", explode: true } }],
    ["header", { given: { name: "X-Trace", in: "header", schema: { type: "string" } }, want: { style: "simple", explode: false } }],
    ["explicit deepObject", { given: { name: "f", in: "query", style: "deepObject", explode: true, schema: { type: "object" } }, want: { style: "deepObject", explode: true } }],
    ["explicit form without explode", { given: { name: "ids", in: "query", style: "form", explode: false, schema: { type: "array" } }, want: { style: "form", explode: false } }],
    ["label style", { given: { name: "l", in: "query", style: "spaceDelimited", schema: { type: "array" } }, want: { style: "spaceDelimited", explode: false } }],
  ])("%s", (_, { given, want }) => {
    const tool = onlyTool(build(oas30({ "/x": { get: { parameters: [given] } } })));
    expect(serialization(tool.binding.parameters[0]!)).toEqual(want);
  });

  it("path parameters default to simple, explode false, and are required", () => {
    const tool = onlyTool(build(oas30({ "/x/{id}": { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] } } })));
    expect(tool.binding.parameters[0]).toEqual({ arg: "id", name: "id", in: "path", style: "simple", explode: false, required: true });
    expect(tool.parameters.required).toEqual(["id"]);
  });

  it("ignores Accept, Content-Type and Authorization header parameters", () => {
    const headers = ["Accept", "content-type", "Authorization"].map((name) => ({ name, in: "header", schema: { type: "string" } }));
    const tool = onlyTool(build(oas30({ "/x": { get: { parameters: headers } } })));
    expect(tool.binding.parameters).toEqual([]);
  });

  it("records allowReserved and content-serialized parameters", () => {
    const tool = onlyTool(
      build(oas30({ "/x": { get: { parameters: [
        { name: "r", in: "query", allowReserved: true, schema: { type: "string" } },
        { name: "j", in: "query", content: { "application/json": { schema: { type: "object" } } } },
      ] } } })),
    );
    expect(tool.binding.parameters.map((p) => [p.arg, p.allowReserved ?? false, p.contentType ?? null])).toEqual([
      ["r", true, null],
      ["j", false, "application/json"],
    ]);
  });
});

describe("Swagger 2.0 collectionFormat", () => {
  it.each<[string, { location: string; format?: string; want: { style: string; explode: boolean } }]>([
    ["csv (default) in query", { location: "query", want: { style: "form", explode: false } }],
    ["csv in header", { location: "header", format: "csv", want: { style: "simple", explode: false } }],
    ["ssv", { location: "query", format: "ssv", want: { style: "spaceDelimited", explode: false } }],
    ["pipes", { location: "query", format: "pipes", want: { style: "pipeDelimited", explode: false } }],
    ["multi", { location: "query", format: "multi", want: { style: "form", explode: true } }],
  ])("%s", (_, { location, format, want }) => {
    const parameter = { name: "ids", in: location, type: "array", items: { type: "string" }, ...(format === undefined ? {} : { collectionFormat: format }) };
    const tool = onlyTool(build(swagger2({ "/x": { get: { parameters: [parameter] } } })));
    expect(serialization(tool.binding.parameters[0]!)).toEqual(want);
    expect(tool.parameters.properties.ids).toEqual({ type: "array", items: { type: "string" } });
  });

  it("skips an operation with a tsv parameter, with the reason", () => {
    const pack = build(swagger2({ "/x": { get: { parameters: [{ name: "t", in: "query", type: "array", items: { type: "string" }, collectionFormat: "tsv" }] } } }));
    expect(pack.tools).toEqual([]);
    expect(pack.skipped).toEqual([
      { operation: "GET /x", code: "PARAMETER_UNSUPPORTED", reason: "PARAMETER_UNSUPPORTED: collectionFormat tsv has no OpenAPI 3 serialization style", pointer: "/paths/~1x/get" },
    ]);
  });
});
