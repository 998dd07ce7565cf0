/**
 * One config, three kinds of source, the same treatment: readOnly, exclude, a rename, a
 * description and a withheld argument do to a pack made from an OpenAPI document, a GraphQL
 * schema and a real MCP server (@modelcontextprotocol/server-filesystem, started on stdio
 * here) exactly what they say, and the egress map's selection header shows what was done.
 * A choice a kind of source cannot carry out is CONFIG_UNSUPPORTED, never silently ignored.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePack, egressMap, formatEgressMap } from "@sluice/core";
import { formatSnapshot, listMcpTools } from "@sluice/mcp-client";
import { buildPack, type PackJob } from "../src/build-pack.ts";
import { serverBin } from "../../../test/support/mcp-pack.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-same-treatment-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The filesystem server's tools, as an HTTP API and as a GraphQL API: the same names, hints and arguments.
const OPENAPI = join(dir, "files.json");
const query = (name: string, required = false) => ({ name, in: "query", required, schema: { type: name === "path" ? "string" : "integer" } });
writeFileSync(
  OPENAPI,
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "files", version: "1" },
    servers: [{ url: "https://files.example" }],
    paths: {
      "/files/text": { get: { operationId: "read_text_file", parameters: [query("path", true), query("head"), query("tail")], responses: { "200": { description: "the text" } } } },
      "/files": { put: { operationId: "write_file", parameters: [query("path", true)], requestBody: { content: { "text/plain": { schema: { type: "string" } } } }, responses: { "200": { description: "written" } } } },
      "/dirs": { get: { operationId: "list_directory", parameters: [query("path", true)], responses: { "200": { description: "entries" } } } },
      "/dirs/sizes": { get: { operationId: "list_directory_with_sizes", parameters: [query("path", true)], responses: { "200": { description: "entries" } } } },
    },
  }),
);
const GRAPHQL = join(dir, "files.graphql");
writeFileSync(
  GRAPHQL,
  `type Query { read_text_file(path: String!, head: Int, tail: Int): String, list_directory(path: String!): [String!], list_directory_with_sizes(path: String!): [String!] }
type Mutation { write_file(path: String!, content: String!): Boolean }
`,
);

const SNAPSHOT = join(dir, "tools.snapshot.json");
let liveSnapshot = "";
beforeAll(async () => {
  // The real server, listing its tools over stdio once; the pack is built from that listing as generate builds it.
  const snapshot = await listMcpTools({ command: process.execPath, args: [serverBin("server-filesystem"), dir] });
  liveSnapshot = formatSnapshot(snapshot);
}, 120_000);

const CHOICES = {
  readOnly: true,
  exclude: { tools: ["list_directory_with_sizes"] },
  tools: { read_text_file: { name: "read_text", description: "Reads one text file." }, list_directory: { description: "Lists one folder." } },
  withhold: { tail: "internal" },
} satisfies Partial<PackJob>;

const SOURCES: [string, () => PackJob][] = [
  ["openapi", () => ({ name: "files", spec: OPENAPI, out: dir, regenerate: "" })],
  ["graphql", () => ({ name: "files", spec: GRAPHQL, out: dir, regenerate: "" })],
  ["mcp", () => ({ name: "files", spec: SNAPSHOT, kind: "mcp", liveSnapshot, out: dir, regenerate: "" })],
];

describe.each(SOURCES)("%s: readOnly, exclude, rename, description, withhold", (kind, job) => {
  it("keeps only read-only tools, leaves out the excluded one, renames, describes and withholds", async () => {
    const pack = await buildPack({ ...job(), ...CHOICES }, "0.0.0");
    const byName = new Map(pack.ir.tools.map((tool) => [tool.name, tool]));
    expect(pack.ir.tools.every((tool) => tool.annotations.readOnly === true)).toBe(true);
    expect(byName.has("write_file")).toBe(false);
    expect(byName.has("list_directory_with_sizes")).toBe(false);
    expect(byName.has("read_text_file")).toBe(false);
    const read = byName.get("read_text")!;
    expect(read.description).toBe("Reads one text file.");
    expect(Object.keys(read.parameters.properties)).not.toContain("tail");
    expect(Object.keys(read.parameters.properties)).toContain("head");
    expect(read.withheld).toContainEqual({ path: "tail", reason: "internal" });
    expect(byName.get("list_directory")!.description).toBe("Lists one folder.");
    // An MCP tool keeps its upstream name on the wire to the server and never forwards the withheld argument.
    if (read.binding.kind === "mcp") {
      expect(read.binding.tool).toBe("read_text_file");
      expect(read.binding.arguments).not.toContain("tail");
    }
    const selection = pack.facts.selection!;
    expect(selection.rules).toEqual(['exclude tools "list_directory_with_sizes"', "readOnly"]);
    expect(selection.renamed).toEqual([{ from: "read_text_file", to: "read_text" }]);
    expect(selection.described).toEqual([
      { tool: "list_directory", description: "Lists one folder." },
      { tool: "read_text", description: "Reads one text file." },
    ]);
    const leftOut = new Map(selection.leftOut.map(({ tool, reason }) => [tool, reason]));
    expect(leftOut.get("list_directory_with_sizes")).toBe('exclude tools "list_directory_with_sizes"');
    expect(leftOut.get("write_file")).toMatch(/^not read-only \(/);
    expect(selection.tools).toBe(pack.ir.tools.length);
    // The map's header, as generate writes it: what was applied, by the names it was applied to.
    const { name, defs, tools } = pack.ir;
    const map = formatEgressMap(egressMap(definePack({ name, defs, tools }).tools), { selections: [selection] });
    expect(map).toContain("#   renamed read_text_file -> read_text\n");
    expect(map).not.toContain("undefined");
    expect(kind).toBe(pack.report.kind);
  });
});

describe("a choice the source cannot carry out", () => {
  it.each([
    ["mcp", 2, { credentialArguments: { path: "token" } }, ["credentialArguments"]],
    ["mcp", 2, { include: { tags: ["files"] } }, ["include.tags"]],
    ["mcp", 2, { baseUrl: "https://x.example" }, ["baseUrl"]],
    ["mcp", 2, { pagination: { list_directory: { style: "link", arg: "path" } } }, ["pagination"]],
    ["graphql", 1, { exclude: { paths: ["/files"] } }, ["exclude.paths"]],
    ["graphql", 1, { baseUrl: "https://x.example", externalRefs: {} }, ["baseUrl", "externalRefs"]],
    ["openapi", 0, { endpoint: "https://x.example/graphql" }, ["endpoint"]],
  ] as const)("%s: CONFIG_UNSUPPORTED, naming it", async (_kind, index, extra, named) => {
    await expect(buildPack({ ...SOURCES[index]![1](), ...(extra as Partial<PackJob>) }, "0.0.0")).rejects.toMatchObject({ code: "CONFIG_UNSUPPORTED", candidates: named });
  });
});
