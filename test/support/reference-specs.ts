/**
 * The specs the reference request builder test sweeps (every OpenAPI 3.0, 3.1 and
 * Swagger 2.0 document of ../shared/specs and test/fixtures/outside, and the made-up
 * serialization cases), with the quick tier's fixed sample: the serialization cases,
 * small 3.0 / 3.1 specs and a few operations of a Swagger 2.0 one, so it runs in seconds
 * (the long tier, test/support/tier.ts `LONG`, takes every operation of every spec).
 */
import { readFileSync } from "node:fs";
import { definePack, type Tool } from "@sluice/core";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { hardCaseSpec } from "./reference-hard-cases.ts";

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ReferenceSpec {
  /** Path from the repository root (or `(serialization cases)`). */
  label: string;
  /** Operations in the quick tier: all, or a fixed seeded sample of this many. */
  quick: number | "all" | "none";
}

const corpus = (path: string, quick: ReferenceSpec["quick"] = "none"): ReferenceSpec => ({ label: `../shared/specs/${path}`, quick });
const outside = (name: string, quick: ReferenceSpec["quick"] = "none"): ReferenceSpec => ({ label: `test/fixtures/outside/${name}.yaml`, quick });

export const HARD_CASES = "(serialization cases)";

export const REFERENCE_SPECS: readonly ReferenceSpec[] = [
  { label: HARD_CASES, quick: "all" },
  corpus("petstore/petstore-3.0.json", "all"),
  corpus("petstore/petstore-expanded-3.0.json", "all"),
  corpus("petstore/swagger-petstore-3.0.yaml"),
  corpus("petstore/swagger-petstore-3.1.json", "all"),
  corpus("petstore/swagger-petstore-3.1-design-first.yaml"),
  corpus("petstore/tictactoe-3.1.json", "all"),
  corpus("notion/notion-openapi.json", 8),
  corpus("slack/slack_web_openapi_v2_without_examples.json", 10),
  corpus("stripe/spec3.json"),
  corpus("github-rest/api.github.com.json"),
  corpus("sendgrid/oai_v3_stoplight.json"),
  corpus("twilio/twilio_api_v2010.json"),
  corpus("kubernetes/swagger.json"),
  corpus("asana/asana_oas.yaml"),
  corpus("digitalocean/digitalocean-openapi.yaml"),
  corpus("jira/jira-openapi.yaml"),
  corpus("google/calendar-v3.yaml"),
  corpus("google/docs-v1.yaml"),
  corpus("google/drive-v3.yaml"),
  corpus("google/gmail-v1.yaml"),
  corpus("google/sheets-v4.yaml"),
  outside("adyen-checkout"),
  outside("apideck-accounting"),
  outside("box"),
  outside("launchdarkly"),
  outside("spotify"),
  outside("twitter"),
];

const root = new URL("../../", import.meta.url);

/** The document and its generated tools (in process: IR, then the pack's tools, as `sluice generate` would emit them). */
export function loadReferenceSpec(label: string): { doc: Doc; tools: Tool<object>[] } {
  const doc = (label === HARD_CASES ? hardCaseSpec() : loadDocument(readFileSync(new URL(label, root)), label)) as Doc;
  const ir = buildOpenAPIPackIR(doc, { name: "reference", file: label, sha256: "0".repeat(64) });
  return { doc, tools: [...definePack(ir).tools] as Tool<object>[] };
}

/** A fixed sample (by a hash of the tool name), so a failure reproduces by name. */
export function sampleTools(tools: readonly Tool<object>[], count: number, seed: number): Tool<object>[] {
  const key = (name: string): number => {
    let h = seed >>> 0;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  };
  return [...tools].sort((a, b) => key(a.name) - key(b.name) || (a.name < b.name ? -1 : 1)).slice(0, count).sort((a, b) => (a.name < b.name ? -1 : 1));
}
