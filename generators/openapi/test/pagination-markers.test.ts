/**
 * detectPagination reads no answer of a tool that takes no page marker argument (or is
 * neither GET nor POST): no style can be declared for it, confirmed or by convention.
 * These tests hold that shortcut to what reading every answer would declare: on real
 * specs, tool by tool against `paginationFor` of the tool's answer shape (so a new style
 * keyed by an argument the shortcut does not know fails here), and on a document whose
 * answers carry every field a style looks for but whose tools take only near-miss names.
 */
import { describe, expect, it } from "vitest";
import type { HttpBinding, ToolIR } from "@sluice/core";
import { escapePointerSegment, getOwn } from "@sluice/schema";
import { LONG } from "../../../test/support/tier.ts";
import { buildOpenAPIPackIR, openapiRuntimeFacts } from "../src/index.ts";
import { paginationFor, responseShape } from "../src/pagination-facts.ts";
import { RefResolver } from "@sluice/schema-convert";
import { corpusDocument } from "../../../test/support/corpus-document.ts";

const specs = new URL("../../../../shared/specs/", import.meta.url);

/** Tool name -> what paginationFor declares from the tool's answer, every tool read. */
function everyAnswerRead(document: unknown, tools: readonly ToolIR[]): Record<string, unknown> {
  const resolver = new RefResolver(document);
  const swagger = typeof getOwn(document, "swagger") === "string";
  const out: Record<string, unknown> = {};
  for (const tool of tools) {
    if (tool.binding.kind !== "http") continue;
    const http = tool as ToolIR & { binding: HttpBinding };
    const item = resolver.deref(getOwn(getOwn(document, "paths"), http.binding.path), resolver.main, `/paths/${escapePointerSegment(http.binding.path)}`);
    const method = http.binding.method.toLowerCase();
    const value = getOwn(item.value, method);
    if (typeof value !== "object" || value === null) continue;
    const pagination = paginationFor(http, responseShape({ value, document: item.document, pointer: `${item.pointer}/${method}` }, resolver, swagger));
    if (pagination !== undefined) out[tool.name] = pagination;
  }
  return out;
}

describe("a tool without a page marker argument is not read", () => {
  // Jira (6 s: its YAML and its 400 offset lists) only in the long tier (test/support/tier.ts).
  const files = ["github-rest/api.github.com.json", "stripe/spec3.json", "twilio/twilio_api_v2010.json", "slack/slack_web_openapi_v2_without_examples.json", ...(LONG ? ["jira/jira-openapi.yaml"] : [])];
  for (const file of files) {
    it(`${file}: the same declarations as reading every tool's answer`, () => {
      const document = corpusDocument(new URL(file, specs), file);
      const ir = buildOpenAPIPackIR(document, { name: "api", file, sha256: "0".repeat(64) }, {});
      const declared = openapiRuntimeFacts(document, ir).pagination;
      expect(Object.keys(declared).length).toBeGreaterThan(5);
      expect(declared).toEqual(everyAnswerRead(document, ir.tools));
    });
  }

  it("answers with every field a style looks for declare nothing for tools taking only near-miss names, and do for a marker", () => {
    const answer = {
      description: "ok",
      headers: { Link: { schema: { type: "string" } } },
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: {
              data: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
              has_more: { type: "boolean" },
              next_cursor: { type: "string" },
              next_page_uri: { type: "string" },
              total: { type: "integer" },
              isLast: { type: "boolean" },
            },
          },
        },
      },
    };
    const nearMisses = ["limit", "per_page", "page_size", "cursor_field", "pages", "offset_ms", "sinceDate", "token", "next", "starting", "Before"];
    const query = (names: readonly string[]) => names.map((name) => ({ name, in: "query", schema: { type: name === "cursor" || name === "starting_after" ? "string" : "integer" } }));
    const operation = (names: readonly string[]) => ({ parameters: query(names), responses: { "200": answer } });
    const document = {
      openapi: "3.1.0",
      info: { title: "markers", version: "1" },
      paths: {
        "/near": { get: operation(nearMisses), post: operation(nearMisses) },
        "/put": { put: operation(["cursor", "limit"]), delete: operation(["page", "per_page"]) },
        "/cursor": { get: operation(["cursor", "limit"]) },
        "/stripe": { get: operation(["starting_after", "limit"]) },
      },
    };
    const ir = buildOpenAPIPackIR(document, { name: "markers", file: "markers.json", sha256: "0".repeat(64) }, {});
    const names = (path: string) => ir.tools.filter((tool) => tool.binding.kind === "http" && tool.binding.path === path).map((tool) => tool.name);
    for (const byConvention of [false, true]) {
      const declared = openapiRuntimeFacts(document, ir, { paginationByConvention: byConvention }).pagination;
      expect(Object.keys(declared).sort()).toEqual([...names("/cursor"), ...names("/stripe")].sort());
      expect(declared[names("/cursor")[0]!]).toMatchObject({ style: "cursor", arg: "cursor", cursor: "next_cursor" });
      expect(declared[names("/stripe")[0]!]).toMatchObject({ style: "lastItemId", arg: "starting_after" });
    }
  });
});
