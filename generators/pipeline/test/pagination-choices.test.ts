/**
 * `pagination` in the config declares what a spec does not show: a `Link` header no
 * response declares (OpenAPI) and a cursor in a connection that is not Relay-shaped
 * (GraphQL). The declaration reaches the facts the pack's runtime reads, so a real call
 * against a server on 127.0.0.1 comes back with the next page's arguments; a declaration
 * that would do nothing is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { definePack, generatedRuntime, type Pagination, type Tool } from "@sluice/core";
import { buildPack, type PackJob } from "../src/build-pack.ts";
import type { PaginationChoice } from "../src/config.ts";
import { validateConfig } from "../src/validate-config.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-pagination-choices-"));
const OPENAPI = join(dir, "projects.json");
const cursorParam = { name: "cursor", in: "query", schema: { type: "string" } };
writeFileSync(
  OPENAPI,
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "projects", version: "1" },
    servers: [{ url: "https://projects.example" }],
    paths: {
      // The API pages with a Link header, which no response declares.
      "/projects": { get: { operationId: "list_projects", parameters: [cursorParam, { name: "per_page", in: "query", schema: { type: "integer" } }], responses: { "200": { description: "projects" } } } },
      "/projects/{id}/issues": {
        get: { operationId: "list_issues", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, cursorParam], responses: { "200": { description: "issues" } } },
      },
      "/projects/{id}": { get: { operationId: "get_project", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "one" } } } },
    },
  }),
);
const GRAPHQL = join(dir, "boards.graphql");
writeFileSync(
  GRAPHQL,
  `type Query { items_page(board: ID!, cursor: String, limit: Int): ItemsPage, board(id: ID!): Board }
type ItemsPage { cursor: String, items: [Item!]! }
type Item { id: ID!, name: String }
type Board { id: ID!, name: String }
`,
);

let server: Server;
let baseUrl = "";
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.url ?? "");
    if (request.method === "POST") {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ data: { items_page: { cursor: "page-2", items: [{ id: "1", name: "one" }] } } }));
      return;
    }
    response.setHeader("content-type", "application/json");
    response.setHeader("link", `<${baseUrl}/projects?cursor=c2&per_page=2>; rel="next"`);
    response.end(JSON.stringify([{ id: "p1" }, { id: "p2" }]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const openapi = (extra: Partial<PackJob> = {}): PackJob => ({ name: "projects", spec: OPENAPI, out: dir, regenerate: "", ...extra });
const graphql = (extra: Partial<PackJob> = {}): PackJob => ({ name: "boards", spec: GRAPHQL, out: dir, regenerate: "", ...extra });

async function toolsOf(job: PackJob, runtime: { endpoint?: string }): Promise<Map<string, Tool>> {
  const pack = await buildPack(job, "0.0.0");
  const { name, defs, tools } = pack.ir;
  const built = definePack({ name, defs, tools, runtime: generatedRuntime(pack.facts, { env: {}, ...runtime }) });
  return new Map(built.tools.map((tool) => [tool.name, tool as Tool]));
}

describe("pagination declared in the config", () => {
  it("finds none in these specs by itself (the reason to declare it)", async () => {
    expect((await buildPack(openapi(), "0.0.0")).facts.pagination).toEqual({});
    expect((await buildPack(graphql(), "0.0.0")).facts.pagination).toEqual({});
  });

  it("OpenAPI: a glob of tools paged by a Link header; a call returns the next page's arguments", async () => {
    const pack = await buildPack(openapi({ pagination: { "list_*": { style: "link", arg: "cursor" } } }), "0.0.0");
    expect(pack.facts.pagination).toEqual({ list_issues: { style: "link", arg: "cursor" }, list_projects: { style: "link", arg: "cursor" } });
    expect(pack.report.paginated).toBe(2);
    const tools = await toolsOf(openapi({ pagination: { "list_*": { style: "link", arg: "cursor" } } }), {});
    const result = await tools.get("list_projects")!.invoke({ per_page: 2 }, { baseUrl });
    expect(result.nextPageArgs).toEqual({ per_page: 2, cursor: "c2" });
    expect(tools.get("get_project")!.pagination).toBeUndefined();
  });

  it("GraphQL: a cursor read from the answer's body, on the tool's final name after a prefix and a rename", async () => {
    const job = graphql({ toolPrefix: "m_", tools: { items_page: { name: "board_items" } }, pagination: { items_page: { style: "cursor", arg: "cursor", cursor: "data.items_page.cursor", items: "data.items_page.items" } } });
    const tools = await toolsOf(job, { endpoint: `${baseUrl}/graphql` });
    const result = await tools.get("board_items")!.invoke({ board: "b1", limit: 1 }, { credentials: { token: { token: "t" } } });
    expect(result.nextPageArgs).toEqual({ board: "b1", limit: 1, cursor: "page-2" });
  });

  it("replaces a declaration found in the spec, and says so", async () => {
    const linked = JSON.parse(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/things": { get: { operationId: "list_things", parameters: [cursorParam], responses: { "200": { description: "ok", headers: { Link: { schema: { type: "string" } } } } } } } } }));
    const file = join(dir, "linked.json");
    writeFileSync(file, JSON.stringify(linked));
    const found = await buildPack({ name: "things", spec: file, out: dir, regenerate: "" }, "0.0.0");
    expect(found.facts.pagination["list_things"]).toMatchObject({ style: "link" });
    const declared = await buildPack({ name: "things", spec: file, out: dir, regenerate: "", pagination: { list_things: { style: "cursor", arg: "cursor", cursor: "next" } } }, "0.0.0");
    expect(declared.facts.pagination["list_things"]).toEqual({ style: "cursor", arg: "cursor", cursor: "next" });
    expect(declared.report.warnings.join("\n")).toMatch(/pagination: the config's declaration replaces the one found in the spec for list_things/);
  });

  it.each([
    ["a key that matches no tool", { list_projcts: { style: "link", arg: "cursor" } }, /pagination\.list_projcts: no generated tool has this name/, ["list_projects"]],
    ["a glob that matches no tool", { "fetch_*": { style: "link", arg: "cursor" } }, /the pattern matches no generated tool/, undefined],
    ["a tool without the argument", { "*": { style: "link", arg: "cursor" } }, /get_project has no argument "cursor"/, undefined],
    ["two keys for one tool", { "list_*": { style: "link", arg: "cursor" }, list_projects: { style: "link", arg: "cursor" } }, /list_projects is also matched by pagination\.list_\*/, undefined],
    ["a withheld argument", { list_projects: { style: "link", arg: "cursor" } }, /list_projects has no argument "cursor".*\(it is withheld\)/, undefined],
  ] as const)("refuses %s (CONFIG_INVALID)", async (what, pagination, message, candidates) => {
    const extra: Partial<PackJob> = { pagination: pagination as NonNullable<PackJob["pagination"]>, ...(what === "a withheld argument" ? { withhold: { cursor: "internal" } } : {}) };
    const refusal = buildPack(openapi(extra), "0.0.0");
    await expect(refusal).rejects.toMatchObject({ code: "CONFIG_INVALID", message: expect.stringMatching(message) });
    if (candidates !== undefined) await expect(refusal).rejects.toMatchObject({ candidates: expect.arrayContaining([...candidates]) });
  });

  it("validateConfig checks each declaration's style and fields, and refuses it on an MCP pack", () => {
    const config = (pagination: unknown, source: object = { spec: "s.yaml" }) => ({ packs: [{ name: "p", out: "o", ...source, pagination }] });
    expect(() => validateConfig(config({ "list_*": { style: "link", arg: "cursor" } }), "c.json")).not.toThrow();
    expect(() => validateConfig(config({ "list_*": { style: "links", arg: "cursor" } }), "c.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(/packs\[0\]\.pagination\.list_\*.*did you mean "link"/) }));
    expect(() => validateConfig(config({ t: { style: "cursor", arg: "cursor" } }), "c.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(/needs "cursor"/) }));
    expect(() => validateConfig(config({ t: { style: "link", arg: "cursor", curser: "x" } }), "c.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => validateConfig(config(["link"]), "c.json")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => validateConfig(config({ t: { style: "link", arg: "cursor" } }, { mcp: { command: "x" } }), "c.json")).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringMatching(/pagination: applies to OpenAPI and GraphQL packs/) }),
    );
  });

  it("takes the same declarations as derived({ pagination })", () => {
    expectTypeOf<PaginationChoice>().toEqualTypeOf<Pagination>();
  });
});
