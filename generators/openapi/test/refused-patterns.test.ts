/**
 * A spec pattern the linear-time engine cannot run is removed from the generated tool and
 * reported with its code, operation, spec pointer and text (issue 21, item 5); the tool
 * then checks nothing against it, and nothing ever runs it with backtracking.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { build, oas30, onlyTool } from "./build.ts";

describe("refused patterns", () => {
  it("removes lookaround and backreferences, keeps the rest, and records each with where it was", () => {
    const pack = build(
      oas30(
        {
          "/users": {
            post: {
              operationId: "createUser",
              requestBody: {
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: {
                        // Anchored look-aheads are decomposed and kept; one after a character is not.
                        password: { type: "string", pattern: "^(?=.*\\d)(?=.*[a-z]).{8,}$" },
                        pin: { type: "string", pattern: "\\d(?!0)\\d+" },
                        handle: { type: "string", pattern: "^[a-z0-9_]{3,30}$" },
                        labels: { type: "object", patternProperties: { "^(\\w)\\1$": { type: "string" }, "^x-": { type: "string" } } },
                        team: { $ref: "#/components/schemas/Team" },
                      },
                    },
                  },
                },
              },
              responses: { "200": { description: "ok" } },
            },
          },
        },
        { components: { schemas: { Team: { type: "object", properties: { slug: { type: "string", pattern: "^.{1,2048}$" } } } } } },
      ),
    );
    const tool = onlyTool(pack);
    const body = tool.parameters.properties;
    expect(body.password).toEqual({ type: "string", pattern: "^(?=.*\\d)(?=.*[a-z]).{8,}$" });
    expect(body.pin).toEqual({ type: "string" });
    expect(body.handle).toEqual({ type: "string", pattern: "^[a-z0-9_]{3,30}$" });
    expect(Object.keys((body.labels as { patternProperties: object }).patternProperties)).toEqual(["^x-"]);
    expect(pack.defs.Team).toEqual({ type: "object", properties: { slug: { type: "string" } } });
    expect(pack.refusedPatterns?.map(({ code, operation, pointer, pattern }) => ({ code, operation, pointer, pattern }))).toEqual([
      { code: "PATTERN_UNSUPPORTED", operation: "POST /users", pointer: "/paths/~1users/post/requestBody/content/application~1json/schema/properties/pin/pattern", pattern: "\\d(?!0)\\d+" },
      { code: "PATTERN_UNSUPPORTED", operation: "POST /users", pointer: "/paths/~1users/post/requestBody/content/application~1json/schema/properties/labels/patternProperties/^(\\w)\\1$", pattern: "^(\\w)\\1$" },
      { code: "PATTERN_UNSUPPORTED", operation: "POST /users", pointer: "/components/schemas/Team/properties/slug/pattern", pattern: "^.{1,2048}$" },
    ]);
    expect(pack.refusedPatterns?.map((r) => r.reason)).toEqual([expect.stringMatching(/lookahead/), expect.stringMatching(/backreference/), expect.stringMatching(/above 1000/)]);
  });

  it("a spec without such patterns records none (generated output is unchanged)", () => {
    const pack = build(oas30({ "/a": { get: { parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^\\w+$" } }], responses: { "200": { description: "ok" } } } } }));
    expect(pack.refusedPatterns).toBeUndefined();
  });

  it("finds Asana's backreference patterns in the corpus", () => {
    const spec = parse(readFileSync(new URL("../../../../shared/specs/asana/asana_oas.yaml", import.meta.url), "utf8"), { maxAliasCount: -1 }) as unknown;
    const refused = build(spec).refusedPatterns ?? [];
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.code === "PATTERN_UNSUPPORTED" && r.reason.includes("backreference"))).toBe(true);
  });
});
