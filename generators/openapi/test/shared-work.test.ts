/**
 * Work the generator does once and reuses (issue 24): a `$ref` is resolved once per
 * document, a pattern's verdict is computed once per build, the search for keywords the
 * runtime refuses skips definitions it has already searched. None of it may change an
 * answer: what fails fails every time, a ref means what it means in its own document, and
 * a refusal is recorded wherever it is met. (That whole specs build the same output as
 * before is bench/GENERATE-IR.md's check, and packs:check's.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isSluiceError } from "@sluice/core";
import { RefResolver } from "@sluice/schema-convert";
import { loadReferencedFile } from "../src/referenced-file.ts";
import { build, oas30, swagger2 } from "./build.ts";

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return isSluiceError(error) ? error.code : `not a SluiceError: ${String(error)}`;
  }
  return undefined;
};

describe("RefResolver answers a ref the same way every time", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-refs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const other = join(dir, "other.json");
  writeFileSync(other, JSON.stringify({ components: { schemas: { Pet: { title: "the other file's Pet" } } } }));
  const main = { openapi: "3.0.3", components: { schemas: { Pet: { title: "the main Pet" }, Alias: { $ref: "#/components/schemas/Pet" } } } };

  it("a ref resolved twice is the same place", () => {
    const resolver = new RefResolver(main);
    const first = resolver.resolve("#/components/schemas/Pet", resolver.main);
    expect(first).toEqual({ value: { title: "the main Pet" }, document: resolver.main, pointer: "/components/schemas/Pet" });
    expect(resolver.resolve("#/components/schemas/Pet", resolver.main)).toBe(first);
    expect(resolver.deref({ $ref: "#/components/schemas/Alias" }, resolver.main, "/x").value).toBe(first.value);
  });

  it("a dangling, malformed or unmapped external ref fails with its code each time it is asked", () => {
    const resolver = new RefResolver(main);
    for (let round = 0; round < 3; round += 1) {
      expect(codeOf(() => resolver.resolve("#/components/schemas/Missing", resolver.main))).toBe("UNRESOLVED_REF");
      expect(codeOf(() => resolver.resolve("#/components/schemas/%E0%A4%A", resolver.main))).toBe("UNRESOLVED_REF");
      expect(codeOf(() => resolver.resolve("https://example.invalid/pet.json#/Pet", resolver.main))).toBe("EXTERNAL_REF");
    }
  });

  it("the same ref text means its own document's place: the main one's, or a mapped file's", () => {
    const resolver = new RefResolver(main, { "other.json": other }, loadReferencedFile);
    const inMain = resolver.resolve("#/components/schemas/Pet", resolver.main);
    const external = resolver.resolve("other.json#/components/schemas/Pet", resolver.main);
    expect(inMain.value).toEqual({ title: "the main Pet" });
    expect(external.value).toEqual({ title: "the other file's Pet" });
    // Asked from inside the mapped file, `#/...` is that file's, after the main document's answer was kept.
    expect(resolver.resolve("#/components/schemas/Pet", external.document).value).toEqual({ title: "the other file's Pet" });
    expect(resolver.resolve("#/components/schemas/Pet", resolver.main)).toBe(inMain);
  });
});

describe("a build reuses verdicts without losing a refusal", () => {
  const get = (operationId: string, schema: unknown) => ({ get: { operationId, parameters: [{ name: "v", in: "query", schema }], responses: { "200": { description: "ok" } } } });

  it("a pattern refused in two operations is recorded for each, with its own operation", () => {
    const lookahead = { type: "string", pattern: "^\\w(?=a)\\w+$" };
    const pack = build(oas30({ "/a": get("first", lookahead), "/b": get("second", lookahead) }));
    expect(pack.tools.map((tool) => tool.name)).toEqual(["first", "second"]);
    expect(pack.refusedPatterns?.map((refusal) => [refusal.operation, refusal.pointer, refusal.pattern])).toEqual([
      ["GET /a", "/paths/~1a/get/parameters/0/schema/pattern", "^\\w(?=a)\\w+$"],
      ["GET /b", "/paths/~1b/get/parameters/0/schema/pattern", "^\\w(?=a)\\w+$"],
    ]);
    for (const tool of pack.tools) expect(tool.parameters.properties.v).toEqual({ type: "string" });
  });

  // A definition the converter fails ($dynamicRef), and one it converts but the runtime would refuse (unevaluatedItems beside contains).
  it.each<[string, { bad: unknown; pointer: string }]>([
    ["a failed definition", { bad: { type: "object", properties: { next: { $dynamicRef: "#node" } } }, pointer: "/components/schemas/Bad/properties/next/$dynamicRef" }],
    ["a definition holding a keyword the runtime refuses", { bad: { type: "array", contains: { type: "string" }, unevaluatedItems: false }, pointer: "/$defs/Bad/unevaluatedItems" }],
  ])("%s skips every operation reaching it, also once no new definition is converted", (_, { bad, pointer }) => {
    const components = {
      schemas: {
        Bad: bad,
        Good: { type: "string" },
        Both: { type: "object", properties: { bad: { $ref: "#/components/schemas/Bad" }, good: { $ref: "#/components/schemas/Good" } } },
      },
    };
    const paths = { "/1": get("both", { $ref: "#/components/schemas/Both" }), "/2": get("good", { $ref: "#/components/schemas/Good" }), "/3": get("bad", { $ref: "#/components/schemas/Bad" }) };
    const pack = build({ ...oas30(paths, { components }), openapi: "3.1.0" });
    // The third operation converts nothing new (Bad was converted for the first): it is still refused.
    expect(pack.tools.map((tool) => tool.name)).toEqual(["good"]);
    expect(pack.skipped.map((skip) => [skip.operation, skip.code, skip.pointer])).toEqual([
      ["GET /1", "KEYWORD_UNSUPPORTED", pointer],
      ["GET /3", "KEYWORD_UNSUPPORTED", pointer],
    ]);
  });
});

describe("a parameter many operations share is converted once, recording what it records for each", () => {
  const ok = { "200": { description: "ok" } };

  it("Swagger 2.0: a `#/parameters` entry and a path item's parameter give every tool the same argument schema, and a refused pattern is recorded per operation", () => {
    const spec = swagger2(
      {
        "/items": { parameters: [{ $ref: "#/parameters/pretty" }], get: { operationId: "list", parameters: [{ $ref: "#/parameters/filter" }], responses: ok }, delete: { operationId: "clear", parameters: [{ $ref: "#/parameters/filter" }], responses: ok } },
        "/other": { get: { operationId: "other", parameters: [{ $ref: "#/parameters/filter" }, { $ref: "#/parameters/pretty" }], responses: ok } },
      },
      {
        parameters: {
          filter: { name: "filter", in: "query", type: "string", pattern: "^\\w(?=a)\\w+$", maxLength: 10, description: "Which items." },
          pretty: { name: "pretty", in: "query", type: "string", enum: ["true", "false"], description: "Indent the answer." },
        },
      },
    );
    const pack = build(spec);
    expect(pack.tools.map((tool) => tool.name)).toEqual(["clear", "list", "other"]);
    for (const tool of pack.tools) {
      expect(tool.parameters.properties).toEqual({ pretty: { type: "string", enum: ["true", "false"], description: "Indent the answer." }, filter: { type: "string", maxLength: 10, description: "Which items." } });
    }
    // Shared, as the tools share `$defs` (the Tool layer freezes what it is given).
    expect(pack.tools[0]!.parameters.properties.filter).toBe(pack.tools[2]!.parameters.properties.filter);
    expect(pack.refusedPatterns?.map((refusal) => [refusal.operation, refusal.pointer])).toEqual([
      ["GET /items", "/parameters/filter/pattern"],
      ["DELETE /items", "/parameters/filter/pattern"],
      ["GET /other", "/parameters/filter/pattern"],
    ]);
    expect(pack.refusedPatterns?.every((refusal) => refusal.code === "PATTERN_UNSUPPORTED" && /lookahead/.test(refusal.reason))).toBe(true);
  });

  it("OpenAPI 3: a shared parameter's read-only members are withheld under each tool's own argument name", () => {
    const shared = { $ref: "#/components/parameters/thing" };
    const spec = oas30(
      {
        "/a": { get: { operationId: "plain", parameters: [shared], responses: ok } },
        // A path parameter of the same name takes `thing`: the shared query parameter is `query_thing` here.
        "/b/{thing}": { get: { operationId: "renamed", parameters: [{ name: "thing", in: "path", required: true, schema: { type: "string" } }, shared], responses: ok } },
      },
      {
        components: {
          parameters: {
            thing: { name: "thing", in: "query", style: "deepObject", schema: { type: "object", properties: { id: { type: "string", readOnly: true }, name: { type: "string" } }, required: ["name"] } },
          },
        },
      },
    );
    const pack = build(spec);
    const plain = pack.tools.find((tool) => tool.name === "plain")!;
    const renamed = pack.tools.find((tool) => tool.name === "renamed")!;
    const object = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    expect(plain.parameters.properties).toEqual({ thing: object });
    expect(renamed.parameters.properties).toEqual({ thing: { type: "string" }, query_thing: object });
    expect(plain.withheld).toEqual([{ path: "thing.id", reason: "read_only" }]);
    expect(renamed.withheld).toEqual([{ path: "query_thing.id", reason: "read_only" }]);
  });

  it("a body schema many operations send is flattened once, each tool keeping its own argument names, withheld members and refusals", () => {
    const body = { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } };
    const spec = oas30(
      {
        "/things": { post: { operationId: "create", requestBody: body, responses: ok } },
        // The path parameter takes `name`: the body member is `body_name` here.
        "/things/{name}": { put: { operationId: "replace", parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }], requestBody: body, responses: ok } },
      },
      {
        components: {
          schemas: {
            Thing: { type: "object", required: ["name"], properties: { id: { type: "string", readOnly: true }, name: { type: "string" }, code: { type: "string", pattern: "^\\w(?=a)\\w+$" } } },
          },
        },
      },
    );
    const pack = build(spec);
    const create = pack.tools.find((tool) => tool.name === "create")!;
    const replace = pack.tools.find((tool) => tool.name === "replace")!;
    expect(create.parameters).toEqual({ properties: { name: { type: "string" }, code: { type: "string" } }, required: ["name"] });
    expect(replace.parameters).toEqual({ properties: { name: { type: "string" }, body_name: { type: "string" }, code: { type: "string" } }, required: ["name", "body_name"] });
    expect(create.withheld).toEqual([{ path: "id", reason: "read_only" }]);
    expect(replace.withheld).toEqual([{ path: "id", reason: "read_only" }]);
    expect(create.binding.kind === "http" && create.binding.body?.fields).toEqual({ name: "name", code: "code" });
    expect(replace.binding.kind === "http" && replace.binding.body?.fields).toEqual({ body_name: "name", code: "code" });
    expect(pack.refusedPatterns?.map((refusal) => [refusal.operation, refusal.pointer])).toEqual([
      ["POST /things", "/components/schemas/Thing/properties/code/pattern"],
      ["PUT /things/{name}", "/components/schemas/Thing/properties/code/pattern"],
    ]);
  });

  it("an argument schema the runtime would refuse skips every operation that shares it, naming its own argument", () => {
    const shared = { $ref: "#/components/parameters/list" };
    const clean = { name: "plain", in: "query", schema: { type: "string" } };
    const spec = {
      ...oas30(
        {
          "/a": { get: { operationId: "first", parameters: [shared], responses: ok } },
          "/b": { get: { operationId: "second", parameters: [clean, shared], responses: ok } },
          "/c/{list}": { get: { operationId: "third", parameters: [{ name: "list", in: "path", required: true, schema: { type: "string" } }, shared], responses: ok } },
          "/d": { get: { operationId: "fine", parameters: [clean], responses: ok } },
        },
        { components: { parameters: { list: { name: "list", in: "query", schema: { type: "array", contains: { type: "string" }, unevaluatedItems: false } } } } },
      ),
      openapi: "3.1.0",
    };
    const pack = build(spec);
    expect(pack.tools.map((tool) => tool.name)).toEqual(["fine"]);
    expect(pack.skipped.map((skip) => [skip.operation, skip.code, skip.pointer])).toEqual([
      ["GET /a", "KEYWORD_UNSUPPORTED", "/properties/list/unevaluatedItems"],
      ["GET /b", "KEYWORD_UNSUPPORTED", "/properties/list/unevaluatedItems"],
      ["GET /c/{list}", "KEYWORD_UNSUPPORTED", "/properties/query_list/unevaluatedItems"],
    ]);
  });
});
