/**
 * `returns` narrows what a GraphQL tool fetches. Checked on the real Linear and GitHub
 * packs: the narrowed documents still validate against the vendored schemas.
 */
import { readFileSync } from "node:fs";
import { buildSchema, parse, validate, type GraphQLSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { checkEgressMap, egressMap, formatEgressMap, SluiceError, type GraphQLBinding, type Tool } from "@sluice/core";
import { tools as linearTools } from "@sluice/pack-linear";
import { tools as githubTools } from "@sluice/pack-github";
import { tools as stripeTools } from "@sluice/pack-stripe";

const schemas = new Map<string, GraphQLSchema>();
function schemaOf(pack: "linear" | "github"): GraphQLSchema {
  let schema = schemas.get(pack);
  if (schema === undefined) {
    schema = buildSchema(readFileSync(new URL(`../packs/${pack}/spec/schema.graphql`, import.meta.url), "utf8"), { assumeValidSDL: true });
    schemas.set(pack, schema);
  }
  return schema;
}

function documentOf(tool: Tool<object>): string {
  return (tool.binding as GraphQLBinding).document;
}

function find(tools: readonly Tool<object>[], name: string): Tool<object> {
  return tools.find((tool) => tool.name === name)!;
}

describe("returns", () => {
  const issues = find(linearTools, "issues_list");

  it("narrows the selection set, keeps unnamed groups whole, and the document stays valid", () => {
    const narrowed = issues.derived({ returns: ["nodes.id", "nodes.identifier", "nodes.title", "nodes.state.id"] });
    const document = documentOf(narrowed);
    expect(validate(schemaOf("linear"), parse(document))).toEqual([]);
    expect(document).toContain("pageInfo");
    expect(document).toContain("endCursor");
    expect(document).not.toContain("description");
    expect(document.length).toBeLessThan(documentOf(issues).length / 4);
    expect((narrowed.binding as GraphQLBinding).returns).toEqual(["nodes.id", "nodes.identifier", "nodes.title", "nodes.state.id"]);
    // Variables are untouched: the same arguments are accepted.
    expect(narrowed.inputSchema).toBe(issues.inputSchema);
  });

  it("naming a group narrows it, ancestors included; pageInfo goes when the top group is named without it", () => {
    const narrowed = issues.derived({ returns: ["nodes.id"] }).derived({ returns: ["nodes"] });
    expect(documentOf(narrowed)).not.toContain("pageInfo");
    expect(narrowed.pagination).toBeUndefined();
    const noPaging = issues.derived({ returns: ["nodes.id", "nodes.title"] }).derived({ returns: ["nodes"] });
    expect(validate(schemaOf("linear"), parse(documentOf(noPaging)))).toEqual([]);
    const top = issues.derived({ returns: ["nodes.id", "pageInfo.hasNextPage"] });
    expect(documentOf(top)).not.toContain("endCursor");
    expect(top.pagination).toBeUndefined();
  });

  it("composes and can only narrow: a field removed earlier is unknown later", () => {
    const first = issues.derived({ returns: ["nodes.id", "nodes.title"] });
    let error: unknown;
    try {
      first.derived({ returns: ["nodes.description"] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).code).toBe("UNKNOWN_SELECTOR");
    expect((error as SluiceError).candidates).toEqual(["nodes.id", "nodes.title"]);
  });

  it("passes through inline fragments and keeps __typename", () => {
    const tool = find(githubTools, "add_project_v2_item_by_id");
    const narrowed = tool.derived({ returns: ["item.content.id", "item.id"] });
    const document = documentOf(narrowed);
    expect(validate(schemaOf("github"), parse(document))).toEqual([]);
    expect(document).toContain("... on Issue");
    expect(document).toContain("__typename");
    expect(document).not.toContain("avatarUrl");
  });

  it("refuses bad selectors and HTTP tools with typed errors", () => {
    const codes = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as SluiceError).code;
      }
      return "none";
    };
    expect(codes(() => issues.derived({ returns: ["nodes.title.length"] }))).toBe("UNKNOWN_SELECTOR");
    expect(codes(() => issues.derived({ returns: ["nodes..id"] }))).toBe("INVALID_OPTION");
    expect(codes(() => issues.derived({ returns: [] }))).toBe("INVALID_OPTION");
    expect(codes(() => stripeTools[0]!.derived({ returns: ["id"] }))).toBe("INVALID_OPTION");
  });

  it("shows fetched fields in the egress map, and a new one is a widening", () => {
    const narrow = issues.derived({ returns: ["nodes.id", "nodes.title"] });
    const wider = issues.derived({ returns: ["nodes.id", "nodes.title", "nodes.description"] });
    const before = formatEgressMap(egressMap([narrow]));
    expect(before).toContain("  < nodes.id\n  < nodes.title\n  < pageInfo.endCursor\n  < pageInfo.hasNextPage\n");
    const check = checkEgressMap(before, formatEgressMap(egressMap([wider])));
    expect(check.widenings).toEqual(["tool issues_list: < nodes.description"]);
    const unnarrowed = checkEgressMap(before, formatEgressMap(egressMap([issues])));
    expect(unnarrowed.widenings).toEqual(["tool issues_list: < (every field: no longer narrowed by returns)"]);
  });
});
