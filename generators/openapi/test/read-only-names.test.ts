/**
 * A read-only member is recorded under the path a selector reads: a name holding selector
 * syntax (`@odata.type`) quoted inside an object (at the root it is the argument it would have been), a member beside a path parameter of its name under the
 * argument it would have had (`body_id`). The egress map lists exactly those, and screening
 * refuses the member where an open object would otherwise carry it.
 */
import { describe, expect, it } from "vitest";
import { definePack, egressMap, formatEgressMap } from "@sluice/core";
import { build, oas30 } from "./build.ts";

const document = oas30({
  "/items/{id}": {
    patch: {
      operationId: "updateItem",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                id: { type: "string", readOnly: true },
                "@odata.type": { type: "string", readOnly: true },
                title: { type: "string" },
                meta: { type: "object", additionalProperties: true, properties: { "@odata.etag": { type: "string", readOnly: true }, note: { type: "string" } } },
              },
            },
          },
        },
      },
      responses: { "200": { description: "ok" } },
    },
  },
});

describe("read-only members are withheld under their selector spelling", () => {
  const tool = definePack(build(document)).tools[0]!;

  it("records the quoted name and the argument a clashing member would have had", () => {
    const withheld = build(document).tools[0]!.withheld?.map((w) => `${w.path}: ${w.reason}`).sort();
    expect(withheld).toEqual(["_odata_type: read_only", "body_id: read_only", 'meta."@odata.etag": read_only']);
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(["id", "meta", "title"]);
  });

  it("the egress map names them as selectors", () => {
    const map = formatEgressMap(egressMap([tool]));
    expect(map).toContain('- meta."@odata.etag": read_only');
    expect(map).not.toContain("meta.@odata.etag");
  });

  it("screening refuses the withheld key inside the open object, and takes the call without it", () => {
    const issues = tool.check({ id: "1", meta: { "@odata.etag": "W/1" } });
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual([["withheld", "/meta/@odata.etag"]]);
    expect(tool.check({ id: "1", title: "t", meta: { note: "n", other: 1 } })).toEqual([]);
  });
});
