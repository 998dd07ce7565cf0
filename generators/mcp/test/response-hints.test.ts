/**
 * An MCP tool's outputSchema (the schema of its structuredContent) gives the default
 * response handler the hints a response schema gives it for HTTP, by the OpenAPI
 * generator's own code: the same hints for the same schema, keyed by the pack's tool
 * names, and an identifier or a cursor deep in a structured result kept by the handler.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultResponseHandler, type ResponseHints } from "@sluice/core";
import { openapiResponseHints } from "@sluice/generator-openapi";
import { buildMcpPackIR, mcpResponseHints } from "../src/index.ts";
import { makeSnapshot, parseSnapshot, type McpSnapshot } from "@sluice/mcp-client";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/mcp/", import.meta.url));
const source = { name: "t", file: "tools.snapshot.json", sha256: "0" };
const input = { type: "object", properties: { query: { type: "string" }, cursor: { type: "string" } } };

/** A search tool as a documents server might declare it: results by reference to `$defs`, a person type repeated, and a cursor. */
const SEARCH_OUTPUT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    results: { type: "array", items: { $ref: "#/$defs/Hit" } },
    nextCursor: { type: ["string", "null"] },
  },
  required: ["results"],
  $defs: {
    Hit: {
      type: "object",
      properties: {
        id: { type: "integer" },
        score: { type: "number" },
        document: { $ref: "#/$defs/Document" },
      },
    },
    Document: {
      type: "object",
      properties: {
        id: { type: "integer" },
        uri: { type: "string", format: "uri", description: "Unique identifier of the document: its resource URI, as resources/read takes it." },
        title: { type: "string" },
        owner: { $ref: "#/$defs/Person" },
        revision: { type: "string", format: "uuid" },
        api_endpoint: { type: "string", format: "uri" },
      },
    },
    Person: {
      type: "object",
      properties: { gid: { type: "string", description: "Globally unique identifier of the person." }, name: { type: "string" }, email: { type: "string" }, bio: { type: "string" } },
    },
  },
};

const snapshotOf = (tools: unknown[]): McpSnapshot => makeSnapshot({ name: "docs", version: "1.0.0" }, "2025-06-18", tools);
const hintsOf = (snapshot: McpSnapshot) => mcpResponseHints(snapshot, buildMcpPackIR(snapshot, source).tools);

describe("mcpResponseHints", () => {
  it("gives an output schema the hints the OpenAPI generator gives the same schema as a response", () => {
    const hints = hintsOf(snapshotOf([{ name: "docs.search", inputSchema: input, outputSchema: SEARCH_OUTPUT }]));
    // The same schema written by hand as an OpenAPI operation's 200 response, definitions as components.
    const { $defs, $schema: _schema, ...root } = SEARCH_OUTPUT;
    const asComponents = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll("#/$defs/", "#/components/schemas/")) as unknown;
    const document = {
      openapi: "3.1.0",
      info: { title: "docs", version: "1.0.0" },
      paths: { "/search": { get: { responses: { "200": { description: "hits", content: { "application/json": { schema: asComponents(root) } } } } } } },
      components: { schemas: asComponents($defs) },
    };
    const http = openapiResponseHints(document, { method: "get", path: "/search" });
    expect(http).toEqual({ ids: ["gid", "revision", "uri"], links: ["api_endpoint"] });
    // Keyed by the pack's tool name (`docs.search` is not a wire name).
    expect(hints).toEqual({ docs_search: http });
  });

  it.each<[string, { given: string; want: Record<string, ResponseHints> }]>([
    // server-memory answers a list under one member: unwrapped as an HTTP envelope would be.
    ["server-memory", { given: "server-memory", want: { add_observations: { envelope: "results" }, create_entities: { envelope: "entities" }, create_relations: { envelope: "relations" } } }],
    // Thirteen tools answer { content: string }: a scalar keeps its name, so only the media tool's list is an envelope.
    ["server-filesystem", { given: "server-filesystem", want: { read_media_file: { envelope: "content" } } }],
    // The weather of get-structured-content says nothing the defaults do not know.
    ["server-everything", { given: "server-everything", want: {} }],
    // No output schemas at all.
    ["github", { given: "github", want: {} }],
    ["notion", { given: "notion", want: {} }],
  ])("on the vendored %s snapshot", (_, { given, want }) => {
    const snapshot = parseSnapshot(readFileSync(`${FIXTURES}${given}.snapshot.json`, "utf8"));
    expect(hintsOf(snapshot)).toEqual(want);
  });

  it("follows the pack's names: a prefixed or renamed tool keeps its upstream tool's hints, a tool left out has none", () => {
    const snapshot = snapshotOf([
      { name: "search", inputSchema: input, outputSchema: SEARCH_OUTPUT },
      { name: "other", inputSchema: input, outputSchema: SEARCH_OUTPUT },
    ]);
    const tools = buildMcpPackIR(snapshot, source).tools.filter((tool) => tool.name === "search").map((tool) => ({ ...tool, name: "docs_find" }));
    expect(Object.keys(mcpResponseHints(snapshot, tools))).toEqual(["docs_find"]);
  });

  it.each<[string, unknown]>([
    ["a reference to a missing definition", { type: "object", properties: { hit: { $ref: "#/$defs/Missing" } } }],
    ["a reference to the root", { type: "object", properties: { id: { type: "string" }, parent: { $ref: "#" }, key: { type: "string", format: "uuid" } } }],
    ["an external reference", { type: "object", properties: { hit: { $ref: "https://example.com/hit.json" } } }],
    ["definitions in draft-07 form", { type: "object", properties: { owner: { $ref: "#/definitions/P" } }, definitions: { P: { type: "object", properties: { key: { type: "string", format: "uuid" } } } } }],
  ])("reads %s without throwing", (_, outputSchema) => {
    const hints = hintsOf(snapshotOf([{ name: "odd", inputSchema: input, outputSchema }]));
    expect(hints["odd"]?.ids ?? []).toEqual(JSON.stringify(outputSchema).includes("uuid") ? ["key"] : []);
  });
});

describe("the default handler on a structured result, with the output schema's hints", () => {
  const hints = hintsOf(snapshotOf([{ name: "search", inputSchema: input, outputSchema: SEARCH_OUTPUT }]))["search"]!;
  const person = { gid: "p-1", name: "Ada Lovelace", email: "ada@example.com", bio: "Wrote the first program for the Analytical Engine." };
  const hit = (id: number, score: number) => ({
    id,
    score,
    document: { id, uri: `https://docs.example.com/documents/${id}`, title: `Document ${id}`, owner: person, revision: `7f1c${id}`, api_endpoint: `https://docs.example.com/documents/${id}/raw` },
  });
  const structured = { results: [hit(7, 0.9), hit(8, 0.4)], nextCursor: null };

  it("keeps the document URI (an identifier by its schema) that the defaults drop as a self link, and the cursor when null", async () => {
    const trimmed = (await defaultResponseHandler(hints)(structured, { tool: "search", status: 200, headers: {}, args: {} })) as typeof structured;
    expect(trimmed).toEqual({
      results: [
        // api_endpoint (a link by its format) is a sub-resource of the document's own URI: API plumbing, dropped.
        { id: 7, score: 0.9, document: { id: 7, uri: "https://docs.example.com/documents/7", title: "Document 7", owner: person, revision: "7f1c7" } },
        // The repeated owner becomes its id (its gid), as a repeat with an id does for HTTP.
        { id: 8, score: 0.4, document: { id: 8, uri: "https://docs.example.com/documents/8", title: "Document 8", owner: "p-1", revision: "7f1c8" } },
      ],
      nextCursor: null,
    });
    // Without the hints the URI, which spells the document's id, goes as a self link; the owner repeats in full.
    const bare = (await defaultResponseHandler()(structured, { tool: "search", status: 200, headers: {}, args: {} })) as typeof structured;
    expect(bare.results.map((r) => Object.keys(r.document))).toEqual([
      ["id", "title", "owner", "revision", "api_endpoint"],
      ["id", "title", "owner", "revision", "api_endpoint"],
    ]);
    expect(bare.results[1]!.document.owner).toEqual(person);
  });
});
