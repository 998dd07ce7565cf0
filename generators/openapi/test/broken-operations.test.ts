/**
 * One broken operation costs its own tool, never the spec: it is listed in `skipped` with a
 * code, the operation (METHOD path) and the JSON pointer of the problem, and the other
 * operations still become tools. Only when no operation survives does the build fail, with
 * the first operation's own error. Path keys with a query string are served as the spec
 * writes them (see withQueryTemplates in build-pack-ir.ts).
 */
import { describe, expect, it } from "vitest";
import { definePack, type HttpBinding, type SluiceError } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { build, oas30, swagger2 } from "./build.ts";
import { errorOf } from "../../../test/support/error-of.ts";

const ok = { responses: { "200": { description: "ok" } } };

describe("a broken operation is skipped with its reason, the spec still generates", () => {
  it.each<[string, { paths: Record<string, unknown>; want: { operation: string; code: string; pointer: string } }]>([
    [
      "a dangling $ref in a request body",
      {
        paths: { "/a": { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Missing" } } } }, ...ok } } },
        want: { operation: "POST /a", code: "UNRESOLVED_REF", pointer: "/components/schemas/Missing" },
      },
    ],
    [
      "a dangling parameter $ref",
      { paths: { "/a": { get: { parameters: [{ $ref: "#/components/parameters/Nope" }], ...ok } } }, want: { operation: "GET /a", code: "UNRESOLVED_REF", pointer: "/components/parameters/Nope" } },
    ],
    [
      "a path placeholder no parameter declares",
      { paths: { "/a/{id}": { get: ok } }, want: { operation: "GET /a/{id}", code: "SPEC_INVALID", pointer: "/paths/~1a~1{id}/get" } },
    ],
    [
      "a query-string placeholder no parameter declares",
      { paths: { "/rides?page={page}": { post: ok } }, want: { operation: "POST /rides?page={page}", code: "SPEC_INVALID", pointer: "/paths/~1rides?page={page}/post" } },
    ],
    [
      "a $ref to the whole document",
      {
        paths: { "/a": { post: { requestBody: { content: { "application/json": { schema: { type: "object", properties: { self: { $ref: "#" } } } } } }, ...ok } } },
        want: { operation: "POST /a", code: "SPEC_INVALID", pointer: "/paths/~1a/post/requestBody/content/application~1json/schema/properties/self/$ref" },
      },
    ],
  ])("%s", (_, { paths, want }) => {
    const pack = build(oas30({ ...paths, "/fine": { get: ok } }));
    expect(pack.tools.map((tool) => tool.name)).toEqual(["get_fine"]);
    expect(pack.skipped).toHaveLength(1);
    expect(pack.skipped[0]).toMatchObject(want);
    expect(pack.skipped[0]!.reason.startsWith(`${want.code}: `)).toBe(true);
  });

  it("a dangling path item $ref skips that path item only", () => {
    const pack = build(oas30({ "/a": { $ref: "#/components/pathItems/Gone" }, "/fine": { get: ok } }));
    expect(pack.tools.map((tool) => tool.name)).toEqual(["get_fine"]);
    expect(pack.skipped).toMatchObject([{ operation: "* /a", code: "UNRESOLVED_REF" }]);
  });

  it("a shared type that fails skips every operation that reaches it, and only those", () => {
    const schemas = { Broken: { type: "object", properties: { x: { $ref: "#/components/schemas/Missing" } } }, Fine: { type: "object", properties: { y: { type: "string" } } } };
    const body = (name: string) => ({ requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } }, ...ok });
    const pack = build(oas30({ "/a": { post: body("Broken"), put: body("Fine") }, "/b": { post: body("Broken") } }, { components: { schemas } }));
    expect(pack.tools.map((tool) => tool.name)).toEqual(["put_a"]);
    expect(pack.skipped.map((skip) => [skip.operation, skip.code])).toEqual([
      ["POST /a", "UNRESOLVED_REF"],
      ["POST /b", "UNRESOLVED_REF"],
    ]);
    expect(Object.keys(pack.defs)).not.toContain("Broken");
  });

  it("fails with the operation's own error when no operation survives", () => {
    const error = errorOf(() => build(oas30({ "/a/{id}": { get: ok }, "/b": { get: { parameters: [{ $ref: "#/components/parameters/Nope" }], ...ok } } })));
    expect(error.code).toBe("SPEC_INVALID");
    expect(error.message).toContain("operation GET /a/{id}");
  });
});

describe("a path key with a query string", () => {
  const staging = swagger2(
    {
      "/rides?page={page}&per_page={per_page}": {
        get: { operationId: "get_rides", parameters: [{ name: "page", in: "path", required: true, type: "number" }, { name: "per_page", in: "path", required: true, type: "number" }], ...ok },
        post: ok,
      },
      "/analyze?overload=stream": { post: { operationId: "post_analyze", parameters: [{ name: "filter", in: "query", type: "string" }], ...ok } },
      "/things?id={id}": { get: { operationId: "get_things", parameters: [{ name: "id", in: "query", required: true, type: "string" }], ...ok } },
    },
    { host: "api.example.com", schemes: ["https"] },
  );
  const pack = build(staging);
  const tools = Object.fromEntries(definePack(pack).tools.map((tool) => [tool.name, tool]));

  it("placeholders declared as path parameters are expanded where the key has them; the undeclared POST is skipped alone", async () => {
    expect(Object.keys(tools).sort()).toEqual(["get_rides", "get_things", "post_analyze"]);
    expect(pack.skipped).toMatchObject([{ operation: "POST /rides?page={page}&per_page={per_page}", code: "SPEC_INVALID" }]);
    expect((await tools["get_rides"]!.request({ page: 2, per_page: 10 })).url).toBe("https://api.example.com/rides?page=2&per_page=10");
  });

  it("a fixed pair is sent as written, and parameters follow it with &", async () => {
    expect((await tools["post_analyze"]!.request({ filter: "a b" })).url).toBe("https://api.example.com/analyze?overload=stream&filter=a%20b");
    expect((await tools["post_analyze"]!.request({})).url).toBe("https://api.example.com/analyze?overload=stream");
  });

  it("a placeholder declared as a query parameter of that name is left to the parameter", async () => {
    expect((tools["get_things"]!.binding as HttpBinding).path).toBe("/things");
    expect((await tools["get_things"]!.request({ id: "x&y" })).url).toBe("https://api.example.com/things?id=x%26y");
  });
});

describe("guard fixedQueryNames: an exploded key cannot send a fixed pair's name again", () => {
  const document = oas30(
    {
      "/analyze?overload=stream": {
        get: { parameters: [{ name: "filter", in: "query", style: "form", explode: true, schema: { type: "object", additionalProperties: { type: "string" } } }], ...ok },
      },
    },
    { servers: [{ url: "https://api.example.com" }] },
  );
  const tool = definePack(build(document)).tools[0]!;
  const hostile = { filter: { Overload: "url" } };

  it("screening and the request builder refuse it (EGRESS_DENIED); other keys pass", async () => {
    expect(tool.check(hostile).map((issue) => [issue.code, issue.path])).toEqual([["reserved", "/filter/Overload"]]);
    const refusal = () => tool.request(hostile).then(() => undefined, (error: unknown) => (error as SluiceError).code);
    expect(await refusal()).toBe("EGRESS_DENIED");
    // The builder's own check, behind screening, refuses it too.
    expect(await withoutGuard("wireNameScreening", refusal)).toBe("EGRESS_DENIED");
    expect((await tool.request({ filter: { tag: "x" } })).url).toBe("https://api.example.com/analyze?overload=stream&tag=x");
  });

  it("switched off, the second value reaches the wire (so the test above proves the guard)", async () => {
    await withoutGuard("fixedQueryNames", async () => {
      expect(tool.check(hostile)).toEqual([]);
      expect((await tool.request(hostile)).url).toBe("https://api.example.com/analyze?overload=stream&Overload=url");
    });
  });
});
