/**
 * Operation documents keep the schema's argument defaults: an argument with a default is
 * optional in the tool, so a call that leaves it out must still be a valid request. Judged by
 * graphql-js itself: `validate` on the document, then `execute` with the variables a call
 * that omits the optional arguments sends (CoerceVariableValues refuses a non-null variable
 * with no value and no default).
 */
import { describe, expect, it } from "vitest";
import { buildSchema, execute, parse, validate } from "graphql";
import { definePack, type GraphQLBinding } from "@sluice/core";
import { buildGraphQLPackIR } from "../src/index.ts";

const SDL = `
type Query { ping: String }
type Mutation {
  deleteBranch(name: String!, force: Boolean! = false, reason: String = "tidy"): Result
  resize(size: Size! = { width: 2, unit: PX }, scale: Float! = 1.5, tags: [String!]! = []): Result
}
type Result { ok: Boolean! seen: String }
input Size { width: Int! unit: Unit! = PX }
enum Unit { PX EM }
`;

const schema = buildSchema(SDL);
const pack = definePack(buildGraphQLPackIR(schema, { name: "t", file: "t.graphql", sha256: "0".repeat(64) }));
const binding = (name: string) => pack.tools.find((tool) => tool.name === name)!.binding as GraphQLBinding;

/** Runs a document on graphql-js with resolvers that echo the arguments they were given. */
async function run(document: string, variables: Record<string, unknown>) {
  const echo = (args: unknown) => ({ ok: true, seen: JSON.stringify(args) });
  return execute({ schema, document: parse(document), variableValues: variables, rootValue: { deleteBranch: echo, resize: echo } });
}

describe("operation documents keep argument defaults", () => {
  it("declares each defaulted variable with the schema's default, and graphql-js validates the document", () => {
    expect(binding("delete_branch").document).toContain("$force: Boolean! = false");
    expect(binding("delete_branch").document).toContain('$reason: String = "tidy"');
    expect(binding("resize").document).toContain("$size: Size! = {width: 2, unit: PX}");
    for (const tool of pack.tools) expect(validate(schema, parse((tool.binding as GraphQLBinding).document))).toEqual([]);
  });

  it("a call that leaves the optional arguments out runs, and the server applies the defaults", async () => {
    const tool = pack.tools.find((t) => t.name === "delete_branch")!;
    expect(tool.inputSchema.required).toEqual(["name"]);
    const result = await run(binding("delete_branch").document, { name: "old" });
    expect(result.errors).toBeUndefined();
    expect(JSON.parse((result.data as { deleteBranch: { seen: string } }).deleteBranch.seen)).toEqual({ name: "old", force: false, reason: "tidy" });
    const resized = await run(binding("resize").document, {});
    expect(resized.errors).toBeUndefined();
    expect(JSON.parse((resized.data as { resize: { seen: string } }).resize.seen)).toEqual({ size: { width: 2, unit: "PX" }, scale: 1.5, tags: [] });
  });

  it("without the default the same call is refused by graphql-js (what the declaration prevents)", async () => {
    const bare = binding("delete_branch").document.replace(" = false", "");
    const result = await run(bare, { name: "old" });
    expect(result.errors?.[0]?.message).toMatch(/Variable "\$force" of required type "Boolean!" was not provided/);
  });
});
