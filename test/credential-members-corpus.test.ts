/**
 * Credential members wherever they sit (issue 40), as a seeded property over the real specs
 * of ../shared/specs: each document gets an apiKey header scheme (`X-Sample-Secret`) and, at
 * seeded random object schemas of its request bodies and shared definitions (top level of a
 * body, nested objects, array items, union branches; sometimes required there), a member
 * `sample_secret` that duplicates it. Whatever shape the spec gives the body (flattened,
 * kept whole for open keywords, composed, polymorphic), no tool may offer the member to the
 * model and the egress map must list it withheld (reason `credential`), never visible; with
 * the guard off the same documents do show it, so the property is not vacuous.
 *
 * Quick tier: two small specs. SLUICE_LONG=1: every OpenAPI document of the corpus.
 * SLUICE_FUZZ_SEED replays another seed.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { definePack, egressMap, formatEgressMap } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { sweep } from "./support/tier.ts";
import { hashSeed, mulberry32 } from "./support/wire-fuzz.ts";

const specsDir = new URL("../../shared/specs/", import.meta.url);
const SEED = Number(process.env.SLUICE_FUZZ_SEED ?? 40_2026);
const MEMBER = "sample_secret";

const CORPUS = [
  "petstore/petstore-expanded-3.0.json",
  "notion/notion-openapi.json",
  "petstore/swagger-petstore-3.1.json",
  "google/docs-v1.yaml",
  "google/gmail-v1.yaml",
  "google/calendar-v3.yaml",
  "google/drive-v3.yaml",
  "google/sheets-v4.yaml",
  "slack/slack_web_openapi_v2_without_examples.json",
  "sendgrid/oai_v3_stoplight.json",
  "twilio/twilio_api_v2010.json",
  "asana/asana_oas.yaml",
  "jira/jira-openapi.yaml",
  "digitalocean/digitalocean-openapi.yaml",
  "stripe/spec3.json",
  "github-rest/api.github.com.json",
  "kubernetes/swagger.json",
];
const QUICK = new Set(["petstore/petstore-expanded-3.0.json", "notion/notion-openapi.json"]);


type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Object schemas (with `properties`) under request bodies and shared definitions, in document order, without following refs. */
function candidates(document: Json): Json[] {
  const out: Json[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 40) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    if (!isObject(node)) return;
    if (isObject(node.properties) && !Object.prototype.hasOwnProperty.call(node.properties, MEMBER)) out.push(node);
    for (const value of Object.values(node)) walk(value, depth + 1);
  };
  for (const item of Object.values(isObject(document.paths) ? document.paths : {})) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      if (!isObject(operation)) continue;
      walk(operation.requestBody, 0);
      // Swagger 2.0 bodies are `in: body` parameters.
      if (Array.isArray(operation.parameters)) for (const p of operation.parameters) if (isObject(p) && p.in === "body") walk(p.schema, 0);
    }
  }
  walk(isObject(document.components) ? document.components.schemas : undefined, 0);
  walk(isObject(document.components) ? document.components.requestBodies : undefined, 0);
  walk(document.definitions, 0);
  return out;
}

/** The document with the scheme added and the member planted at seeded places; how many places. */
function planted(document: Json, random: () => number): { document: Json; planted: number } {
  const copy = structuredClone(document);
  const scheme = { type: "apiKey", in: "header", name: "X-Sample-Secret" };
  if (typeof copy.swagger === "string") copy.securityDefinitions = { ...(isObject(copy.securityDefinitions) ? copy.securityDefinitions : {}), sampleSecret: scheme };
  else {
    const components = isObject(copy.components) ? copy.components : (copy.components = {});
    (components as Json).securitySchemes = { ...(isObject((components as Json).securitySchemes) ? ((components as Json).securitySchemes as Json) : {}), sampleSecret: scheme };
  }
  // A seeded choice of up to 12 distinct places (a partial shuffle).
  const nodes = candidates(copy);
  let count = 0;
  for (let i = 0; i < Math.min(12, nodes.length); i++) {
    const j = i + Math.floor(random() * (nodes.length - i));
    [nodes[i], nodes[j]] = [nodes[j]!, nodes[i]!];
    const node = nodes[i]!;
    (node.properties as Json)[MEMBER] = { type: "string", description: "the API secret again" };
    if (random() < 0.4) node.required = [...(Array.isArray(node.required) ? node.required : []), MEMBER];
    count++;
  }
  return { document: copy, planted: count };
}

/** Every `properties` key at any depth. */
function memberKeys(schema: unknown, out = new Set<string>()): Set<string> {
  if (typeof schema !== "object" || schema === null) return out;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isObject(value)) for (const member of Object.keys(value)) out.add(member);
    memberKeys(value, out);
  }
  return out;
}

function mapOf(document: Json, file: string): { offering: string[]; lines: string[] } {
  const ir = buildOpenAPIPackIR(document, { name: "corpus", file, sha256: "0".repeat(64) }, { detectCredentialParameters: true });
  const tools = [...definePack(ir).tools];
  const offering = tools.filter((tool) => memberKeys(tool.inputSchema).has(MEMBER) || Object.prototype.hasOwnProperty.call(tool.inputSchema.properties ?? {}, MEMBER)).map((tool) => tool.name);
  const lines = formatEgressMap(egressMap(tools)).split("\n").filter((line) => line.includes(MEMBER));
  return { offering, lines };
}

// A spec whose bodies are all form parameters (Slack's Swagger 2.0) has nowhere to plant into a request: the totals say the property bit somewhere.
const totals = { planted: 0, offeredUnguarded: 0, listedWithheld: 0 };

describe.each(sweep(CORPUS, (file) => QUICK.has(file)).map((file) => [file]))("credential members planted in %s", (file) => {
  it("are offered by no tool and listed withheld (credential), never visible; with the guard off they are offered", () => {
    const original = loadDocument(readFileSync(new URL(file, specsDir)), file) as Json;
    const random = mulberry32(hashSeed(SEED, file));
    const { document, planted: count } = planted(original, random);
    totals.planted += count;
    const guarded = mapOf(document, file);
    expect(guarded.offering, `seed ${SEED}`).toEqual([]);
    expect(guarded.lines.filter((line) => /^\s*\+/.test(line)), `seed ${SEED}`).toEqual([]);
    for (const line of guarded.lines) expect(line, `seed ${SEED}`).toMatch(/^\s*- .*: credential$/);
    const open = withoutGuard("credentialMembers", () => mapOf(document, file));
    return open.then((unguarded) => {
      totals.offeredUnguarded += unguarded.offering.length;
      totals.listedWithheld += guarded.lines.length;
      // Where the planted member reached a request at all, the guard is what keeps it from the model.
      if (unguarded.offering.length > 0) expect(guarded.lines.length).toBeGreaterThan(0);
    });
  });
});

describe("the property is not vacuous", () => {
  it("over the specs run, the planted member reached tools that offered it with the guard off, and the guarded maps list it withheld", () => {
    expect(totals.planted).toBeGreaterThan(0);
    expect(totals.offeredUnguarded).toBeGreaterThan(0);
    expect(totals.listedWithheld).toBeGreaterThan(0);
  });
});
