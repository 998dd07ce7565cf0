/**
 * openapiResponseHints remembers, per document, what each response schema node says (a
 * pack's operations share most of their schemas). What it remembers must change no
 * answer: every operation of real specs gets the same hints from a document asked in
 * order as from a copy of it asked in reverse order, and a document edited into a new
 * object is read afresh.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LONG } from "../../../test/support/tier.ts";
import { HTTP_METHODS, loadDocument, openapiResponseHints } from "../src/index.ts";

const SPECS = fileURLToPath(new URL("../../../../shared/specs/", import.meta.url));

function operations(document: unknown): string[] {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  const pointers: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) if (Object.hasOwn(item, method)) pointers.push(`/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`);
  }
  return pointers;
}

describe("openapiResponseHints across the operations of one document", () => {
  // The quick tier leaves Asana out (5 s): Stripe and Twilio share components as heavily.
  for (const spec of LONG ? ["stripe/spec3.json", "twilio/twilio_api_v2010.json", "asana/asana_oas.yaml"] : ["stripe/spec3.json", "twilio/twilio_api_v2010.json"]) {
    it(`${spec}: the same hints in order on the document as in reverse on a copy`, () => {
      const bytes = readFileSync(SPECS + spec);
      const forward = loadDocument(bytes, spec);
      const backward = loadDocument(bytes, spec);
      const pointers = operations(forward);
      expect(pointers.length).toBeGreaterThan(50);
      const inOrder = pointers.map((pointer) => openapiResponseHints(forward, pointer));
      const reversed = [...pointers].reverse().map((pointer) => openapiResponseHints(backward, pointer)).reverse();
      expect(reversed).toEqual(inOrder);
      // Not vacuous: the specs' responses do carry hints beyond the defaults.
      expect(inOrder.filter((hints) => (hints.ids ?? []).length + (hints.links ?? []).length > 0).length).toBeGreaterThan(10);
    });
  }

  for (const spec of ["stripe/spec3.json", "github-rest/api.github.com.json"]) {
    it(`${spec}: operations asked alone, each of a fresh copy, get what the shared run gives`, () => {
      const bytes = readFileSync(SPECS + spec);
      const shared = loadDocument(bytes, spec);
      const pointers = operations(shared);
      const inOrder = pointers.map((pointer) => openapiResponseHints(shared, pointer));
      // Every 12th operation (every 48th in the quick tier: each fresh copy is a whole-document clone),
      // each on a document nothing was asked of before: no memory at all.
      for (let i = 0; i < pointers.length; i += LONG ? 12 : 48) {
        expect(openapiResponseHints(structuredClone(shared), pointers[i]!), pointers[i]).toEqual(inOrder[i]);
      }
    });
  }

  it("a new document object is read afresh, not answered from another document's memory", () => {
    const document = (idFormat: string) => ({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/things": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } } } } },
      components: { schemas: { Thing: { type: "object", properties: { token: { type: "string", format: idFormat } } } } },
    });
    expect(openapiResponseHints(document("uuid"), "/paths/~1things/get").ids).toEqual(["token"]);
    expect(openapiResponseHints(document("date-time"), "/paths/~1things/get").ids).toBeUndefined();
  });
});
