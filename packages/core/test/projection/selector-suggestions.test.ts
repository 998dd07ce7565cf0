/**
 * A misspelt selector names what it most likely meant, in the message (for code that
 * prints it) and first in `candidates` (for code that branches on them): keep, drop, pin
 * and GraphQL `returns`, on the tools users narrow first (Petstore 3.0, Linear issues_list).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { definePack, type DeriveOptions, type PackDefinition, type Tool } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { generatedTools as linear } from "@sluice/pack-linear";
import { errorOf } from "../../../../test/support/error-of.ts";

const petstore = (() => {
  const file = fileURLToPath(new URL("../../../../../shared/specs/petstore/swagger-petstore-3.0.yaml", import.meta.url));
  const ir = buildOpenAPIPackIR(loadDocument(readFileSync(file), "swagger-petstore-3.0.yaml"), { name: "petstore", file: "swagger-petstore-3.0.yaml", sha256: "0".repeat(64) });
  return definePack(ir as unknown as PackDefinition);
})();
const addPet = petstore.tool("add_pet") as Tool<object>;
const issues = linear.issuesList as Tool<object>;

describe("a misspelt selector suggests the nearest one", () => {
  const cases: Array<[string, { tool: Tool<object>; options: DeriveOptions<object>; want: string[] }]> = [
    ["keep: one swap away from an argument", { tool: addPet, options: { keep: ["nmae"] }, want: ["name"] }],
    ["drop: a misspelt argument", { tool: addPet, options: { drop: ["stauts"] }, want: ["status"] }],
    ["drop: a misspelt member below an argument", { tool: addPet, options: { drop: ["category.nmae"] }, want: ["category.name"] }],
    ["keep: a misspelt argument of another operation", { tool: petstore.tool("place_order") as Tool<object>, options: { keep: ["quantiy"] }, want: ["quantity"] }],
    ["pin: a misspelt top-level argument", { tool: issues, options: { pin: { frist: 10 } }, want: ["first"] }],
    ["drop: a misspelt type", { tool: issues, options: { drop: ["IssueFiltr.and"] }, want: ["IssueFilter"] }],
    ["drop: a misspelt type member", { tool: issues, options: { drop: ["IssueFilter.tilte"] }, want: ["IssueFilter.title"] }],
    ["keep: a bare name of a nested member", { tool: issues, options: { keep: ["tem"] }, want: ["filter.team"] }],
    ["returns: a misspelt field of the selection", { tool: issues, options: { returns: ["nodes.titel"] }, want: ["nodes.title"] }],
  ];
  it.each(cases)("%s", (_name, { tool, options, want }) => {
    const error = errorOf(() => tool.derived({ name: "narrowed", ...options }));
    expect(error.code).toBe("UNKNOWN_SELECTOR");
    expect(error.candidates!.slice(0, want.length)).toEqual(want);
    expect(error.message).toContain(`did you mean ${JSON.stringify(want[0])}`);
  });

  it("suggests nothing when nothing is close, and still lists what exists", () => {
    const error = errorOf(() => addPet.derived({ name: "narrowed", drop: ["zzzzzzzz"] }));
    expect(error.message).not.toContain("did you mean");
    expect(error.candidates).toContain("name");
  });
});
