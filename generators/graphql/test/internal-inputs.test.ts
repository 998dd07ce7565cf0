import { describe, expect, it } from "vitest";
import { definePack } from "@sluice/core";
import { buildGraphQLPackIR, loadGraphQLSchema } from "../src/index.ts";

const SDL = `
type Query {
  items(
    "Filter returned items."
    filter: ItemFilter
    "[INTERNAL] Sort returned items."
    sort: [ItemSort!]
    "[Internal] Required, so it stays."
    workspace: ID!
  ): [Item!]!
}
type Item { id: ID! title: String }
input ItemFilter {
  title: String
  "[Internal] Comparator for search ranking."
  rank: Int
  and: [ItemFilter!]
}
input ItemSort { title: String }
`;

describe("inputs documented as [INTERNAL]", () => {
  const ir = buildGraphQLPackIR(loadGraphQLSchema(SDL), { name: "t", file: "t.graphql", sha256: "0".repeat(64) });
  const tool = ir.tools.find((t) => t.name === "items")!;

  it("are left out of the schema, the document and the types, unless required", () => {
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(["filter", "workspace"]);
    expect(tool.binding.kind === "graphql" && tool.binding.document).not.toMatch(/sort/);
    expect(Object.keys((ir.defs.ItemFilter as { properties: object }).properties).sort()).toEqual(["and", "title"]);
    expect(ir.defs).not.toHaveProperty("ItemSort"); // reached only through the withheld argument
  });

  it("are recorded as withheld with reason internal, per argument and per type member", () => {
    expect(tool.withheld).toEqual([{ path: "sort", reason: "internal" }]);
    expect(ir.withheldMembers).toEqual({ ItemFilter: [{ path: "ItemFilter.rank", reason: "internal" }] });
    const built = definePack(ir).tool("items");
    expect(built.withheld).toEqual([
      { path: "sort", reason: "internal" },
      { path: "ItemFilter.rank", reason: "internal" },
    ]);
    // A projection that stops reaching the type stops listing its members.
    expect(built.derived({ drop: ["filter"] }).withheld).toEqual([
      { path: "sort", reason: "internal" },
      { path: "filter", reason: "projection" },
    ]);
  });
});
