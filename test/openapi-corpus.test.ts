import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@sluice/schema";
import { definePack, TOOL_NAME_PATTERN } from "@sluice/core";
import { buildOpenAPIPackIR, HTTP_METHODS } from "../generators/openapi/src/index.ts";
import { LONG, sweep } from "./support/tier.ts";
import { corpusDocument } from "./support/corpus-document.ts";

// CI clones main with ../shared beside it; specs are vendored there, never fetched.
const specsDir = new URL("../../shared/specs/", import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Every OpenAPI and Swagger document of the shared corpus. */
const CORPUS: readonly string[] = [
  "stripe/spec3.json",
  "github-rest/api.github.com.json",
  "slack/slack_web_openapi_v2_without_examples.json",
  "kubernetes/swagger.json",
  "petstore/petstore-3.0.json",
  "petstore/petstore-expanded-3.0.json",
  "petstore/swagger-petstore-3.0.yaml",
  "petstore/swagger-petstore-3.1-design-first.yaml",
  "petstore/swagger-petstore-3.1.json",
  "petstore/tictactoe-3.1.json",
  "petstore/webhook-example-3.1.json",
  "twilio/twilio_api_v2010.json",
  "notion/notion-openapi.json",
  "asana/asana_oas.yaml",
  "sendgrid/oai_v3_stoplight.json",
  "jira/jira-openapi.yaml",
  "digitalocean/digitalocean-openapi.yaml",
  "google/gmail-v1.yaml",
  "google/docs-v1.yaml",
  "google/sheets-v4.yaml",
  "google/drive-v3.yaml",
  "google/calendar-v3.yaml",
];

/** Operations counted independently of the generator: path items (local `$ref`s followed) x methods. */
function countOperations(document: unknown): number {
  const root = document as { paths?: Record<string, Record<string, unknown>> };
  let count = 0;
  for (const raw of Object.values(root.paths ?? {})) {
    let item: Record<string, unknown> = raw;
    for (let hops = 0; typeof item.$ref === "string" && item.$ref.startsWith("#/") && hops < 10; hops += 1) {
      item = item.$ref
        .slice(2)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce<any>((node, segment) => node?.[segment], document);
    }
    count += HTTP_METHODS.filter((method) => typeof item[method] === "object" && item[method] !== null).length;
  }
  return count;
}

/**
 * The quick tier's sample: one document of each kind the generator reads, through every
 * assertion below. petstore-3.0.json (OpenAPI 3.0, JSON), swagger-petstore-3.0.yaml (3.0 in
 * YAML, 19 tools), swagger-petstore-3.1.json (3.1, with skipped operations: the reason check),
 * webhook-example-3.1.json (3.1 with webhooks and no paths: zero tools, zero operations),
 * google/calendar-v3.yaml (Swagger 2.0) and stripe/spec3.json (a large 3.0 document of 417
 * tools: the strided compile). The other sixteen parse and generate for seconds of CPU on the
 * same code and run in the long tier (test/support/tier.ts), Kubernetes' stride of 24 with them.
 */
const QUICK = new Set([
  "petstore/petstore-3.0.json",
  "petstore/swagger-petstore-3.0.yaml",
  "petstore/swagger-petstore-3.1.json",
  "petstore/webhook-example-3.1.json",
  "google/calendar-v3.yaml",
  "stripe/spec3.json",
]);

describe.each(sweep(CORPUS, (file) => QUICK.has(file)).map((file) => [file]))("OpenAPI corpus: %s", (file) => {
  const document = corpusDocument(new URL(file, specsDir), file);
  const pack = buildOpenAPIPackIR(document, { name: "corpus", file, sha256: "0".repeat(64) });

  it("generates or skips (with a reason) every operation", () => {
    console.log(`${file}: ${pack.tools.length} tools, ${pack.skipped.length} skipped`);
    expect(pack.tools.length + pack.skipped.length).toBe(countOperations(document));
    for (const entry of pack.skipped) expect(entry.reason).not.toBe("");
  });

  it("names tools uniquely and validly", () => {
    const names = pack.tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it("gives every tool an inputSchema that compiles as JSON Schema 2020-12", () => {
    // Refs not inlined and code not optimized, as call-time validation compiles them
    // (pin-validation.ts): every definition still compiles, in an eighth of the time.
    const ajv = addFormats(new Ajv2020({ strict: false, logger: false, inlineRefs: false, code: { optimize: false } }));
    const compiled = new Set<string>();
    const tools = definePack(pack).tools;
    // The quick tier compiles every 8th tool of the big documents and every 24th of those over
    // 1,000 tools (Kubernetes: 14 s in full, 3 s at every 4th; both strides were halved again
    // when the quick tier passed its budget, bench/QUICK-TIER.md); the long tier every tool.
    const stride = LONG || tools.length < 400 ? 1 : tools.length > 1000 ? 24 : 8;
    for (const tool of tools.filter((_, index) => index % stride === 0)) {
      const schema = tool.inputSchema;
      const key = canonicalJson(schema);
      if (compiled.has(key)) continue;
      compiled.add(key);
      // Each distinct schema once; identical ones (many tools share shapes) are already proven.
      expect(() => ajv.compile(schema), tool.name).not.toThrow();
      ajv.removeSchema();
    }
  });
});
