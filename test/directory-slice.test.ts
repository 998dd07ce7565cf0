/**
 * A vendored slice of the public API directory (APIs-guru/openapi-directory, CC0; see
 * test/fixtures/directory/SOURCE.md): small real specs of distinct shapes, from the breadth
 * sample of scripts/breadth.ts (bench/BREADTH.md), which CI cannot run (the directory is never
 * downloaded). Each spec generates; its skipped operations are exactly the expected ones, by
 * operation and code; every tool is callable with its minimal call (test/support/minimal-call.ts);
 * and no tool offers and withholds one argument.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { definePack } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "../generators/openapi/src/index.ts";
import { clashes, minimalCall } from "./support/minimal-call.ts";

const dir = new URL("./fixtures/directory/", import.meta.url);

/** A path item, its local `$ref` (surevoip's `/support/ip-address`) followed. */
function pathItem(document: unknown, item: Record<string, unknown>): Record<string, unknown> {
  let node = item;
  for (let hops = 0; typeof node.$ref === "string" && node.$ref.startsWith("#/") && hops < 10; hops++) {
    const segments = node.$ref.slice(2).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    node = segments.reduce<any>((at, segment) => at?.[segment], document) ?? {};
  }
  return node;
}

interface Expected {
  /** What the spec is here for. */
  shape: string;
  tools: number;
  /** Operations the generator skips, as [operation, code]. */
  skipped?: [string, string][];
}

const SLICE: [string, Expected][] = [
  ["adyen.com_TestCardService_1.yaml", { shape: "OpenAPI 3.1, apiKey and basic auth, header parameters", tools: 1 }],
  ["googleapis.com_discovery_v1.yaml", { shape: "OpenAPI 3.0.0, no security, query enums", tools: 2 }],
  ["surevoip.co.uk_9dcb0dc8.yaml", { shape: "OpenAPI 3.0.3, multipart bodies, path items that are $refs", tools: 30 }],
  ["cnab-online.herokuapp.com_1.0.0.yaml", { shape: "Swagger 2.0 formData file upload (multipart)", tools: 4 }],
  ["httpbin.org_0.9.2.yaml", { shape: "Swagger 2.0 formData urlencoded, header parameters, no security", tools: 78 }],
  ["amazonaws.com_amp_2020-08-01.yaml", { shape: "Swagger 2.0 AWS: collectionFormat multi, X-Amz headers", tools: 8 }],
  [
    "staging-ecotaco.com_1.0.0.yaml",
    { shape: "Swagger 2.0, path keys with a query string; one placeholder no parameter declares", tools: 26, skipped: [["POST /rides?page={page}&per_page={per_page}", "SPEC_INVALID"]] },
  ],
  ["brainbi.net_1.0.0.yaml", { shape: "Swagger 2.0 with no host and no security", tools: 14 }],
  ["nlpcloud.io_1.0.0.yaml", { shape: "Swagger 2.0 with no host", tools: 5 }],
  ["microsoft.com_cognitiveservices-SpellCheck_1.0.yaml", { shape: "Swagger 2.0 urlencoded body beside many header parameters", tools: 1 }],
  ["1password.local_connect_1.3.0.yaml", { shape: "Swagger 2.0, path parameters with patterns", tools: 15 }],
];

describe.each(SLICE)("directory slice: %s", (file, expected) => {
  const document = loadDocument(readFileSync(new URL(file, dir)), file);
  const ir = buildOpenAPIPackIR(document, { name: "slice", file, sha256: "0".repeat(64) }, { detectCredentialParameters: true });
  const tools = definePack(ir).tools;

  it(`generates (${expected.shape}), skipping exactly the expected operations`, () => {
    expect(tools.length).toBe(expected.tools);
    expect(ir.skipped.map((skip) => [skip.operation, skip.code])).toEqual(expected.skipped ?? []);
    // Counted from the document, not by the generator: every operation is a tool or a skip.
    const paths = Object.values((document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {}).map((item) => pathItem(document, item));
    const operations = paths.flatMap((item) => ["get", "put", "post", "delete", "options", "head", "patch", "trace"].filter((method) => typeof item[method] === "object"));
    expect(tools.length + ir.skipped.length).toBe(operations.length);
  });

  it("every tool takes its minimal call, and none offers and withholds one argument", async () => {
    const refused: string[] = [];
    for (const tool of tools) {
      const outcome = await minimalCall(tool);
      if (!outcome.ok) refused.push(`${tool.name}: ${outcome.reason} ${outcome.detail}`);
    }
    expect(refused).toEqual([]);
    expect(clashes(tools)).toEqual([]);
  });
});
